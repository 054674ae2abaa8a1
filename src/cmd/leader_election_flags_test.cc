// The scheduler's and controller's leader-election flags: Go durations,
// client-go's consistency checks, refused before anything connects.
#include <string>

#include "cmd/command_test_util.h"
#include "cmd/component_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace draplane::cmd {
namespace {

using ::testing::HasSubstr;
using testing_util::RunDraplane;

TEST(LeaderElectionFlagsTest, ParseGoDurations) {
  LeaderElectionFlags flags{.lease_duration = "1m30s",
                            .renew_deadline = "20s",
                            .retry_period = "500ms",
                            .lease_name = "x"};
  absl::StatusOr<std::optional<client::LeaderElectionConfig>> config =
      LeaderElectionConfigFrom(flags);
  ASSERT_TRUE(config.ok()) << config.status();
  ASSERT_TRUE(config->has_value());
  EXPECT_EQ((*config)->lease_duration, absl::Seconds(90));
  EXPECT_EQ((*config)->renew_deadline, absl::Seconds(20));
  EXPECT_EQ((*config)->retry_period, absl::Milliseconds(500));
  EXPECT_EQ((*config)->lease_name, "x");
  EXPECT_FALSE((*config)->identity.empty());
  flags.enabled = false;
  config = LeaderElectionConfigFrom(flags);
  ASSERT_TRUE(config.ok());
  EXPECT_FALSE(config->has_value()) << "no election, nothing checked";
}

TEST(LeaderElectionFlagsTest, SchedulerAndControllerRefuseBadSets) {
  for (const char* command : {"scheduler", "controller"}) {
    testing_util::Result bad =
        RunDraplane({command, "--leader-elect-lease-duration", "fifteen",
                     "--kubeconfig", "/nonexistent/kubeconfig"});
    EXPECT_EQ(bad.code, 2) << command;
    EXPECT_THAT(bad.err,
                HasSubstr("invalid argument \"fifteen\" for "
                          "\"--leader-elect-lease-duration\" flag: time: "
                          "invalid duration \"fifteen\""))
        << command;
    testing_util::Result inconsistent =
        RunDraplane({command, "--leader-elect-lease-duration", "5s",
                     "--kubeconfig", "/nonexistent/kubeconfig"});
    EXPECT_EQ(inconsistent.code, 2) << command;
    EXPECT_THAT(inconsistent.err,
                HasSubstr("error: leaseDuration must be greater than "
                          "renewDeadline"))
        << command << ": checked before connecting";
    testing_util::Result off = RunDraplane(
        {command, "--leader-elect=false", "--leader-elect-lease-duration", "5s",
         "--kubeconfig", "/nonexistent/kubeconfig"});
    EXPECT_THAT(off.err, ::testing::Not(HasSubstr("leaseDuration")))
        << command << ": not checked without leader election";
  }
}

}  // namespace
}  // namespace draplane::cmd

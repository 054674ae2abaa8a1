// The long-running commands' logging flags (--logging-format, -v).
#include <string>

#include "cmd/command_test_util.h"
#include "cmd/component_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "logging/log.h"

namespace draplane::cmd {
namespace {

using ::testing::HasSubstr;
using testing_util::RunDraplane;

class LoggingFlagsTest : public ::testing::Test {
 protected:
  void SetUp() override { saved_ = logging::CurrentOptions(); }
  void TearDown() override { logging::Configure(saved_); }
  logging::Options saved_;
};

TEST_F(LoggingFlagsTest, EveryLongRunningCommandRefusesAnUnknownFormat) {
  for (const char* command : {"server", "scheduler", "controller", "node"}) {
    testing_util::Result r = RunDraplane({command, "--logging-format", "xml"});
    EXPECT_EQ(r.code, 2) << command;
    EXPECT_THAT(r.err, HasSubstr("error: --logging-format: unsupported log "
                                 "format \"xml\""))
        << command;
  }
}

TEST_F(LoggingFlagsTest, EveryLongRunningCommandTakesTheFlags) {
  for (const char* command : {"server", "scheduler", "controller", "node"}) {
    testing_util::Result r = RunDraplane({command, "--help"});
    EXPECT_EQ(r.code, 0) << command;
    EXPECT_THAT(r.out, HasSubstr("--logging-format")) << command;
    EXPECT_THAT(r.out, HasSubstr("-v,--v")) << command;
  }
}

TEST_F(LoggingFlagsTest, ApplyConfiguresTheLogger) {
  LoggingFlags flags;
  flags.format = "json";
  flags.verbosity = 3;
  ASSERT_TRUE(ApplyLoggingFlags(flags).ok());
  EXPECT_EQ(logging::CurrentOptions().format, logging::Format::kJson);
  EXPECT_EQ(logging::CurrentOptions().verbosity, 3);
  flags.verbosity = -1;
  EXPECT_THAT(std::string(ApplyLoggingFlags(flags).message()),
              HasSubstr("-v: -1 is negative"));
}

}  // namespace
}  // namespace draplane::cmd

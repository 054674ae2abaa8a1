#include "component_helpers/runnable.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace draplane::component_helpers {
namespace {

// Records Start and Stop calls in a shared log; fails Start when told to.
class FakeComponent : public Runnable {
 public:
  FakeComponent(std::string name, std::vector<std::string>* log,
                bool fail = false)
      : name_(std::move(name)), log_(log), fail_(fail) {}
  absl::Status Start(absl::Duration sync_timeout) override {
    log_->push_back("start " + name_);
    if (fail_) return absl::DeadlineExceededError("caches did not sync");
    return absl::OkStatus();
  }
  void Stop() override { log_->push_back("stop " + name_); }

 private:
  std::string name_;
  std::vector<std::string>* log_;
  bool fail_;
};

TEST(RunGroupTest, StartsInOrderAndStopsInReverse) {
  std::vector<std::string> log;
  FakeComponent a("a", &log), b("b", &log), c("c", &log);
  RunGroup group;
  group.Add("a", &a);
  group.Add("b", &b);
  group.Add("c", &c);
  EXPECT_EQ(group.names(), (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_TRUE(group.Start().ok());
  group.Stop();
  group.Stop();  // idempotent
  EXPECT_EQ(log, (std::vector<std::string>{"start a", "start b", "start c",
                                           "stop c", "stop b", "stop a"}));
}

TEST(RunGroupTest, AFailedStartStopsTheOnesStartedAndNamesTheComponent) {
  std::vector<std::string> log;
  FakeComponent a("a", &log), b("b", &log, /*fail=*/true), c("c", &log);
  RunGroup group;
  group.Add("a", &a);
  group.Add("resourceclaim", &b);
  group.Add("c", &c);
  absl::Status s = group.Start();
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(s.message(), "resourceclaim: caches did not sync");
  EXPECT_EQ(log, (std::vector<std::string>{"start a", "start b", "stop a"}));
}

TEST(RunGroupTest, TheDestructorStops) {
  std::vector<std::string> log;
  FakeComponent a("a", &log);
  {
    RunGroup group;
    group.Add("a", &a);
    ASSERT_TRUE(group.Start().ok());
  }
  EXPECT_EQ(log, (std::vector<std::string>{"start a", "stop a"}));
}

}  // namespace
}  // namespace draplane::component_helpers

// The max-in-flight filter's accounting, as upstream's
// WithMaxInFlightLimit: separate read-only and mutating limits,
// long-running requests not counted, system:masters never refused.
#include "apiserver/internal/max_in_flight.h"

#include <string>
#include <utility>

#include "gtest/gtest.h"

namespace draplane::apiserver::internal {
namespace {

auth::RequestAttributes Request(std::string verb, std::string group = "") {
  auth::RequestAttributes a;
  a.verb = std::move(verb);
  a.resource_request = true;
  a.resource = "pods";
  a.user.name = "alice";
  if (!group.empty()) a.user.groups = {std::move(group)};
  return a;
}

TEST(MaxInFlightTest, ReadOnlyAndMutatingAreLimitedApart) {
  MaxInFlight limits(1, 1);
  MaxInFlight::Slot read, write;
  ASSERT_TRUE(limits.Admit(Request("get"), &read));
  ASSERT_TRUE(limits.Admit(Request("create"), &write));
  MaxInFlight::Slot refused;
  EXPECT_FALSE(limits.Admit(Request("list"), &refused));
  EXPECT_FALSE(limits.Admit(Request("patch"), &refused));
  EXPECT_EQ(limits.dropped_read_only(), 1);
  EXPECT_EQ(limits.dropped_mutating(), 1);
  // Long-running requests are not counted.
  auth::RequestAttributes watch = Request("watch");
  EXPECT_TRUE(limits.Admit(watch, &refused));
  auth::RequestAttributes exec = Request("create");
  exec.subresource = "exec";
  EXPECT_TRUE(limits.Admit(exec, &refused));
  // system:masters gets an answer anyway.
  EXPECT_TRUE(limits.Admit(Request("list", "system:masters"), &refused));
  // A finished request gives its place back.
  read = MaxInFlight::Slot();
  MaxInFlight::Slot again;
  EXPECT_TRUE(limits.Admit(Request("list"), &again));
  EXPECT_EQ(limits.dropped_read_only(), 1);
}

TEST(MaxInFlightTest, ZeroDoesNotLimit) {
  MaxInFlight limits(0, 0);
  MaxInFlight::Slot a, b;
  EXPECT_TRUE(limits.Admit(Request("get"), &a));
  EXPECT_TRUE(limits.Admit(Request("get"), &b));
}

}  // namespace
}  // namespace draplane::apiserver::internal

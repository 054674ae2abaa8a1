#include "common/field_errors.h"

#include "gtest/gtest.h"

namespace draplane {
namespace {

TEST(FieldPathTest, BuildsKubernetesStylePaths) {
  FieldPath p =
      FieldPath("spec").Child("devices", "requests").Index(0).Child("exactly");
  EXPECT_EQ(p.ToString(), "spec.devices.requests[0].exactly");
  EXPECT_EQ(FieldPath().Child("metadata").Child("labels").Key("app").ToString(),
            "metadata.labels[app]");
}

TEST(FieldErrorTest, RendersLikeUpstream) {
  FieldPath count = FieldPath("spec").Child("count");
  EXPECT_EQ(Invalid(count, 0, "must be greater than zero").ToString(),
            "spec.count: Invalid value: 0: must be greater than zero");
  EXPECT_EQ(Invalid(count, "x\"y", "bad").ToString(),
            "spec.count: Invalid value: \"x\\\"y\": bad");
  EXPECT_EQ(Required(count).ToString(), "spec.count: Required value");
  EXPECT_EQ(Required(count, "name is required").ToString(),
            "spec.count: Required value: name is required");
  EXPECT_EQ(TooMany(count, 33, 32).ToString(),
            "spec.count: Too many: 33: must have at most 32 items");
  EXPECT_EQ(TooMany(count, -1, 1).ToString(),
            "spec.count: Too many: must have at most 1 item");
  EXPECT_EQ(TooLong(count, 63).ToString(),
            "spec.count: Too long: may not be more than 63 bytes");
  EXPECT_EQ(NotSupported(count, "Foo", {"All", "ExactCount"}).ToString(),
            "spec.count: Unsupported value: \"Foo\": supported values: "
            "\"All\", \"ExactCount\"");
  EXPECT_EQ(Duplicate(count, "a").ToString(),
            "spec.count: Duplicate value: \"a\"");
  EXPECT_EQ(Forbidden(count, "may not be set").ToString(),
            "spec.count: Forbidden: may not be set");
  EXPECT_EQ(Invalid(count, BadValue::Json("[\"a\"]"), "bad").ToString(),
            "spec.count: Invalid value: [\"a\"]: bad");
}

TEST(FieldErrorTest, AggregatesSeveralInBrackets) {
  FieldErrorList list = {Required(FieldPath("a")), Required(FieldPath("b"))};
  EXPECT_EQ(AggregateMessage(list), "[a: Required value, b: Required value]");
  EXPECT_EQ(AggregateMessage({Required(FieldPath("a"))}), "a: Required value");
}

}  // namespace
}  // namespace draplane

// DeviceAttribute: each compact form, the general form, conversions to and
// from DeviceAttributeFields, value semantics and the JSON codec.
#include "api/device_attribute.h"

#include <string>
#include <utility>

#include "api/internal/json_mapping.h"
#include "api/internal/type_mappings.h"
#include "gtest/gtest.h"

namespace draplane::api {
namespace {

using internal::DecodeContext;

DeviceAttribute Decode(const std::string& json, DecodeContext* ctx = nullptr) {
  DecodeContext local;
  DeviceAttribute a;
  internal::FromJson(Json::parse(json), a, internal::DecodePath().Child("a"),
                     ctx != nullptr ? *ctx : local);
  return a;
}

std::string Encode(const DeviceAttribute& a) {
  return DumpJson(internal::ToJson(a));
}

TEST(DeviceAttributeTest, IsSixteenBytes) {
  EXPECT_EQ(sizeof(DeviceAttribute), 16u);
}

TEST(DeviceAttributeTest, ScalarsReadBackAsTheirOneMember) {
  DeviceAttribute i = DeviceAttribute::Int(-42);
  EXPECT_EQ(i.int_value(), -42);
  EXPECT_EQ(i.bool_value(), std::nullopt);
  EXPECT_EQ(i.string_value(), std::nullopt);
  EXPECT_EQ(i.version_value(), std::nullopt);
  EXPECT_TRUE(i.ints().empty());

  DeviceAttribute b = DeviceAttribute::Bool(false);
  EXPECT_EQ(b.bool_value(), false);
  EXPECT_EQ(b.int_value(), std::nullopt);

  DeviceAttribute s = DeviceAttribute::String("A100");
  EXPECT_EQ(s.string_value(), "A100");
  EXPECT_EQ(s.version_value(), std::nullopt);

  DeviceAttribute v = DeviceAttribute::Version("1.2.3");
  EXPECT_EQ(v.version_value(), "1.2.3");
  EXPECT_EQ(v.string_value(), std::nullopt);

  DeviceAttribute none;
  EXPECT_EQ(none.int_value(), std::nullopt);
  EXPECT_EQ(none.bool_value(), std::nullopt);
  EXPECT_EQ(none.string_value(), std::nullopt);
  EXPECT_EQ(none.version_value(), std::nullopt);
  EXPECT_EQ(none.ToFields(), DeviceAttributeFields{});
}

// Texts up to 14 bytes are inline, longer ones on the heap; both read the
// same, including the empty string and embedded NULs.
TEST(DeviceAttributeTest, TextsOfAnyLength) {
  for (const std::string& text :
       {std::string(), std::string("x"), std::string(14, 'a'),
        std::string(15, 'b'), std::string(64, 'c'), std::string(100000, 'd'),
        std::string("nul\0inside", 10)}) {
    DeviceAttribute s = DeviceAttribute::String(text);
    ASSERT_TRUE(s.string_value().has_value()) << text.size();
    EXPECT_EQ(*s.string_value(), text);
    DeviceAttribute v = DeviceAttribute::Version(text);
    EXPECT_EQ(*v.version_value(), text);
    EXPECT_NE(s, v);  // a string is not a version

    DeviceAttribute copy = s;
    EXPECT_EQ(copy, s);
    EXPECT_EQ(*copy.string_value(), text);
    if (text.size() > 14) {
      EXPECT_NE(copy.string_value()->data(), s.string_value()->data());
    }
    DeviceAttribute moved = std::move(copy);
    EXPECT_EQ(*moved.string_value(), text);
    EXPECT_EQ(copy.string_value(), std::nullopt);  // NOLINT: moved-from
  }
}

TEST(DeviceAttributeTest, AssignmentReplacesAnyForm) {
  DeviceAttributeFields lists;
  lists.ints = {1, 2};
  std::vector<DeviceAttribute> all = {
      DeviceAttribute(),
      DeviceAttribute::Int(1),
      DeviceAttribute::Bool(true),
      DeviceAttribute::String("short"),
      DeviceAttribute::String(std::string(40, 's')),
      DeviceAttribute::Version("1.0.0"),
      DeviceAttribute::Version("1.0.0-" + std::string(40, 'v')),
      DeviceAttribute::FromFields(lists)};
  for (size_t i = 0; i < all.size(); ++i) {
    for (size_t j = 0; j < all.size(); ++j) {
      DeviceAttribute a = all[i];
      a = all[j];
      EXPECT_EQ(a, all[j]) << i << " <- " << j;
      EXPECT_EQ(a == all[i], i == j) << i << " <- " << j;
      DeviceAttribute b = all[i];
      DeviceAttribute source = all[j];
      b = std::move(source);
      EXPECT_EQ(b, all[j]) << i << " <- " << j;
    }
  }
  DeviceAttribute self = all[4];
  const DeviceAttribute& alias = self;
  self = alias;
  EXPECT_EQ(self, all[4]);
}

TEST(DeviceAttributeTest, FieldsRoundTrip) {
  DeviceAttributeFields one;
  one.version_value = "2.0.0";
  EXPECT_EQ(DeviceAttribute::FromFields(one).ToFields(), one);
  EXPECT_EQ(DeviceAttribute::FromFields(one),
            DeviceAttribute::Version("2.0.0"));

  // Several members (invalid, reported by validation) are all kept.
  DeviceAttributeFields two;
  two.int_value = 1;
  two.string_value = "x";
  DeviceAttribute a = DeviceAttribute::FromFields(two);
  EXPECT_EQ(a.int_value(), 1);
  EXPECT_EQ(a.string_value(), "x");
  EXPECT_EQ(a.ToFields(), two);
  EXPECT_NE(a, DeviceAttribute::Int(1));

  DeviceAttributeFields lists;
  lists.strings = {"a", "b"};
  lists.versions = {"1.0.0"};
  lists.bools = {true, false};
  lists.ints = {7};
  DeviceAttribute l = DeviceAttribute::FromFields(lists);
  EXPECT_EQ(l.strings(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(l.versions(), (std::vector<std::string>{"1.0.0"}));
  EXPECT_EQ(l.bools(), (std::vector<bool>{true, false}));
  EXPECT_EQ(l.ints(), (std::vector<int64_t>{7}));
  EXPECT_EQ(l.ToFields(), lists);
  EXPECT_EQ(l, DeviceAttribute::FromFields(lists));

  // An empty list is an unset one.
  DeviceAttributeFields empty_list;
  empty_list.ints = {};
  EXPECT_EQ(DeviceAttribute::FromFields(empty_list), DeviceAttribute());
}

// The JSON codec reads and writes upstream's members, whatever the form.
TEST(DeviceAttributeTest, CodesUpstreamJson) {
  EXPECT_EQ(Encode(Decode(R"({"int": 5})")), R"({"int":5})");
  EXPECT_EQ(Encode(Decode(R"({"bool": false})")), R"({"bool":false})");
  EXPECT_EQ(Encode(Decode(R"({"string": ""})")), R"({"string":""})");
  EXPECT_EQ(Encode(Decode(R"({"version": "1.2.3"})")),
            R"({"version":"1.2.3"})");
  EXPECT_EQ(Encode(Decode(R"({"strings": ["a"], "int": 1})")),
            R"({"int":1,"strings":["a"]})");
  EXPECT_EQ(Encode(Decode(R"({"ints": []})")), R"({})");
  EXPECT_EQ(Encode(Decode(R"({"int": null})")), R"({})");
  EXPECT_EQ(Decode(R"({"string": "NVIDIA A100-SXM4-40GB"})"),
            DeviceAttribute::String("NVIDIA A100-SXM4-40GB"));

  DecodeContext ctx;
  Decode(R"({"int": "five", "other": 1})", &ctx);
  ASSERT_EQ(ctx.errors.size(), 1u);
  EXPECT_EQ(ctx.errors[0].field, "a.int");
  ASSERT_EQ(ctx.unknown.size(), 1u);
  EXPECT_EQ(ctx.unknown[0].field, "a.other");

  EXPECT_TRUE(internal::SemanticEqual(DeviceAttribute::Int(1),
                                      DeviceAttribute::Int(1)));
  EXPECT_FALSE(internal::SemanticEqual(DeviceAttribute::Int(1),
                                       DeviceAttribute::Int(2)));
}

}  // namespace
}  // namespace draplane::api

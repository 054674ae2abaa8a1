// FlatMap, Box and OptionalBox: map/optional behaviour, value semantics and
// their JSON coding as the types they stand for.
#include "api/compact.h"

#include <map>
#include <string>
#include <string_view>

#include "api/internal/json_mapping.h"
#include "api/internal/type_mappings.h"
#include "gtest/gtest.h"

namespace draplane::api {
namespace {

using internal::DecodeContext;

TEST(FlatMapTest, KeepsKeysSortedAndUniqueLikeStdMap) {
  FlatMap<std::string, int> m;
  EXPECT_TRUE(m.empty());
  EXPECT_TRUE(m.emplace("b", 2).second);
  EXPECT_TRUE(m.insert({"a", 1}).second);
  EXPECT_FALSE(m.emplace("b", 20).second);  // the first one stays
  m["c"] = 3;
  m["a"] += 10;
  EXPECT_EQ(m.size(), 3u);
  std::vector<std::pair<std::string, int>> seen(m.begin(), m.end());
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, int>>{
                      {"a", 11}, {"b", 2}, {"c", 3}}));

  FlatMap<std::string, int> from_list = {{"z", 1}, {"y", 2}, {"z", 3}};
  EXPECT_EQ(from_list.size(), 2u);
  EXPECT_EQ(from_list.at("z"), 1);
  EXPECT_EQ(from_list.begin()->first, "y");
}

TEST(FlatMapTest, LooksUpByAnyComparableKey) {
  const FlatMap<std::string, int> m = {{"gpu.example.com/model", 1},
                                       {"memory", 2}};
  EXPECT_EQ(m.find(std::string_view("memory"))->second, 2);
  EXPECT_EQ(m.find("gpu.example.com/model")->second, 1);
  EXPECT_EQ(m.find("gpu"), m.end());
  EXPECT_EQ(m.find("zzz"), m.end());
  EXPECT_TRUE(m.contains(std::string("memory")));
  EXPECT_EQ(m.count("memory"), 1u);
  EXPECT_EQ(m.count("cores"), 0u);
  EXPECT_THROW((void)m.at("cores"), std::out_of_range);
}

TEST(FlatMapTest, InsertsAssignsAndErases) {
  FlatMap<std::string, std::string> m;
  auto [it, inserted] = m.try_emplace("k", 3, 'x');
  EXPECT_TRUE(inserted);
  EXPECT_EQ(it->second, "xxx");
  EXPECT_FALSE(m.try_emplace("k", 1, 'y').second);
  EXPECT_EQ(m.at("k"), "xxx");
  EXPECT_FALSE(m.insert_or_assign("k", "new").second);
  EXPECT_EQ(m.at("k"), "new");
  EXPECT_TRUE(m.insert_or_assign("j", "other").second);
  EXPECT_EQ(m.erase("absent"), 0u);
  EXPECT_EQ(m.erase("k"), 1u);
  EXPECT_EQ(m.size(), 1u);
  auto next = m.erase(m.begin());
  EXPECT_EQ(next, m.end());
  EXPECT_TRUE(m.empty());
}

TEST(FlatMapTest, CopiesAndComparesByValue) {
  FlatMap<std::string, std::vector<int>> a = {{"x", {1, 2}}, {"y", {}}};
  FlatMap<std::string, std::vector<int>> b = a;
  EXPECT_EQ(a, b);
  b["x"].push_back(3);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.at("x").size(), 2u);
  FlatMap<std::string, std::vector<int>> c = std::move(b);
  EXPECT_EQ(c.at("x").size(), 3u);
  c.clear();
  EXPECT_TRUE(c.empty());
  EXPECT_NE(a, c);
}

struct Big {
  std::string text;
  std::vector<int> values;
  friend bool operator==(const Big&, const Big&) = default;
};

TEST(BoxTest, ReadsTheDefaultUntilWrittenAndCopiesDeeply) {
  Box<Big> box;
  EXPECT_FALSE(box.allocated());
  EXPECT_EQ(box->text, "");
  EXPECT_TRUE((*box).values.empty());
  EXPECT_EQ(box, Box<Big>());

  box.Mutable().text = "set";
  EXPECT_TRUE(box.allocated());
  EXPECT_EQ(box->text, "set");
  EXPECT_NE(box, Box<Big>());

  Box<Big> copy = box;
  copy.Mutable().values.push_back(1);
  EXPECT_TRUE(box->values.empty());
  EXPECT_EQ(copy->values.size(), 1u);
  copy = box;
  EXPECT_EQ(copy, box);

  Box<Big> moved = std::move(copy);
  EXPECT_EQ(moved->text, "set");

  // An allocated default equals an unallocated box.
  Box<Big> empty;
  empty.Mutable();
  EXPECT_EQ(empty, Box<Big>());
  box.reset();
  EXPECT_FALSE(box.allocated());
  EXPECT_EQ(box->text, "");
  box = Big{"assigned", {}};
  EXPECT_EQ(box->text, "assigned");
  EXPECT_EQ(sizeof(Box<Big>), sizeof(void*));
}

TEST(OptionalBoxTest, BehavesLikeStdOptional) {
  OptionalBox<Big> o;
  EXPECT_FALSE(o.has_value());
  EXPECT_FALSE(o);
  EXPECT_EQ(o, OptionalBox<Big>(std::nullopt));
  EXPECT_THROW((void)o.value(), std::bad_optional_access);

  o.emplace();
  EXPECT_TRUE(o.has_value());
  EXPECT_EQ(o->text, "");
  EXPECT_NE(o, OptionalBox<Big>());  // set to a default is not unset
  o->text = "x";
  (*o).values = {1};
  EXPECT_EQ(o.value().text, "x");

  OptionalBox<Big> copy = o;
  copy->values.push_back(2);
  EXPECT_EQ(o->values.size(), 1u);
  EXPECT_NE(copy, o);
  copy = o;
  EXPECT_EQ(copy, o);

  o = std::nullopt;
  EXPECT_FALSE(o.has_value());
  o = Big{"y", {}};
  EXPECT_EQ(o->text, "y");
  o.reset();
  EXPECT_FALSE(o);
  EXPECT_EQ(sizeof(OptionalBox<Big>), sizeof(void*));
}

// The codec sees the containers as what they stand for: the same JSON as
// std::map / std::optional / the plain struct, both ways.
TEST(CompactCodecTest, CodesLikeTheStandardTypes) {
  const Json json = Json::parse(R"({"b": {"value": "2Gi"},
      "a": {"value": "1", "requestPolicy": {"default": "1",
                                            "validValues": ["1", "2"]}}})");
  DecodeContext ctx;
  FlatMap<std::string, DeviceCapacity> flat;
  internal::FromJson(json, flat, internal::DecodePath(), ctx, 0);
  std::map<std::string, DeviceCapacity> standard;
  internal::FromJson(json, standard, internal::DecodePath(), ctx, 0);
  ASSERT_TRUE(ctx.errors.empty());
  ASSERT_TRUE(ctx.unknown.empty());
  ASSERT_EQ(flat.size(), 2u);
  EXPECT_EQ(flat.begin()->first, "a");
  ASSERT_TRUE(flat.at("a").request_policy.has_value());
  EXPECT_EQ(flat.at("a").request_policy->valid_values.size(), 2u);
  EXPECT_FALSE(flat.at("b").request_policy.has_value());
  EXPECT_EQ(DumpJson(internal::ToJson(flat)),
            DumpJson(internal::ToJson(standard)));
  EXPECT_EQ(DumpJson(internal::ToJson(flat)),
            R"({"a":{"value":"1","requestPolicy":{"default":"1",)"
            R"("validValues":["1","2"]}},"b":{"value":"2Gi"}})");

  // Semantic equality compares quantities by value, boxes by content.
  FlatMap<std::string, DeviceCapacity> other = flat;
  other["b"].value = *Quantity::Parse("2048Mi");
  EXPECT_TRUE(internal::SemanticEqual(flat, other));
  other["a"].request_policy->default_ = *Quantity::Parse("2");
  EXPECT_FALSE(internal::SemanticEqual(flat, other));
  other["a"].request_policy.reset();
  EXPECT_FALSE(internal::SemanticEqual(flat, other));

  // Type errors carry the same paths.
  DecodeContext bad;
  FlatMap<std::string, DeviceCapacity> wrong;
  internal::FromJson(Json::parse(R"({"a": {"value": true}})"), wrong,
                     internal::DecodePath().Child("capacity"), bad, 0);
  ASSERT_EQ(bad.errors.size(), 1u);
  EXPECT_EQ(bad.errors[0].field, "capacity[a].value");
}

// A Device's rare members are coded as its own, after `capacity`; the box
// stays unallocated when they are absent or empty.
TEST(CompactCodecTest, EmbedsTheRareDeviceMembers) {
  const Json json = Json::parse(R"({"name": "gpu-0",
      "taints": [{"key": "k", "effect": "NoSchedule"}],
      "capacity": {"memory": {"value": "1Gi"}},
      "allowMultipleAllocations": true,
      "attributes": {"model": {"string": "A100"}}})");
  DecodeContext ctx;
  Device d;
  internal::FromJson(json, d, internal::DecodePath(), ctx);
  ASSERT_TRUE(ctx.errors.empty());
  ASSERT_TRUE(ctx.unknown.empty());
  ASSERT_TRUE(d.rare.allocated());
  ASSERT_EQ(d.rare->taints.size(), 1u);
  EXPECT_EQ(d.rare->allow_multiple_allocations, true);
  EXPECT_EQ(DumpJson(internal::ToJson(d)),
            R"({"name":"gpu-0","attributes":{"model":{"string":"A100"}},)"
            R"("capacity":{"memory":{"value":"1Gi"}},)"
            R"("taints":[{"key":"k","effect":"NoSchedule"}],)"
            R"("allowMultipleAllocations":true})");

  Device plain;
  internal::FromJson(
      Json::parse(R"({"name": "gpu-1", "taints": [], "nodeName": null,
                      "bindingConditions": null})"),
      plain, internal::DecodePath(), ctx);
  ASSERT_TRUE(ctx.errors.empty());
  EXPECT_FALSE(plain.rare.allocated());
  EXPECT_EQ(DumpJson(internal::ToJson(plain)), R"({"name":"gpu-1"})");

  // A set optional is kept even when false.
  Device all_nodes;
  internal::FromJson(Json::parse(R"({"name": "x", "allNodes": false})"),
                     all_nodes, internal::DecodePath(), ctx);
  ASSERT_TRUE(all_nodes.rare.allocated());
  EXPECT_EQ(DumpJson(internal::ToJson(all_nodes)),
            R"({"name":"x","allNodes":false})");

  // Unknown members are still unknown, with their paths.
  DecodeContext strict;
  Device unknown;
  internal::FromJson(Json::parse(R"({"name": "x", "basic": {}})"), unknown,
                     internal::DecodePath().Child("devices").Index(0), strict);
  ASSERT_EQ(strict.unknown.size(), 1u);
  EXPECT_EQ(strict.unknown[0].field, "devices[0].basic");

  EXPECT_TRUE(internal::SemanticEqual(plain, Device{"gpu-1", {}, {}, {}}));
  EXPECT_FALSE(internal::SemanticEqual(d, plain));
}

}  // namespace
}  // namespace draplane::api

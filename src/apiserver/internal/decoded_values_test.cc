#include "apiserver/internal/decoded_values.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"

namespace draplane::apiserver::internal {
namespace {

using api::Json;

store::Value Value(const std::string& text) {
  return std::make_shared<const std::string>(text);
}

TEST(SetResourceVersionTest, PlacesItAfterUidLikeGo) {
  Json o = Json::parse(
      R"({"kind":"Pod","metadata":{"name":"a","namespace":"n","uid":"u","labels":{"x":"y"}}})");
  SetResourceVersion(o, 7);
  EXPECT_EQ(
      api::DumpJson(o["metadata"]),
      R"({"name":"a","namespace":"n","uid":"u","resourceVersion":"7","labels":{"x":"y"}})");
  SetResourceVersion(o, "8");  // replaced in place, not duplicated
  EXPECT_EQ(
      api::DumpJson(o["metadata"]),
      R"({"name":"a","namespace":"n","uid":"u","resourceVersion":"8","labels":{"x":"y"}})");
  Json bare = Json::object();
  SetResourceVersion(bare, 3);
  EXPECT_EQ(api::DumpJson(bare), R"({"metadata":{"resourceVersion":"3"}})");
}

TEST(DecodedValuesTest, ParsesOnceAndSetsTheRevision) {
  DecodedValues cache;
  store::Value v = Value(R"({"metadata":{"name":"a"},"spec":{"x":1}})");
  auto first = cache.Get(v, 5);
  EXPECT_EQ(
      api::DumpJson(*first),
      R"({"metadata":{"name":"a","resourceVersion":"5"},"spec":{"x":1}})");
  EXPECT_EQ(cache.Get(v, 5).get(), first.get());  // remembered
  // Equal text in another value is another entry.
  store::Value copy = Value(*v);
  EXPECT_NE(cache.Get(copy, 5).get(), first.get());
}

TEST(DecodedValuesTest, PutIsFoundByTheValue) {
  DecodedValues cache;
  store::Value v = Value(R"({"metadata":{"name":"a"}})");
  auto written = std::make_shared<const Json>(
      Json::parse(R"({"metadata":{"name":"a","resourceVersion":"9"}})"));
  cache.Put(v, written);
  EXPECT_EQ(cache.Get(v, 9).get(), written.get());
}

TEST(DecodedValuesTest, ScansAndUnknownRevisionsAreNotRemembered) {
  DecodedValues cache;
  store::Value v = Value(R"({"metadata":{"name":"a"}})");
  auto scanned = cache.Get(v, 4, /*remember=*/false);
  EXPECT_NE(cache.Get(v, 0).get(), scanned.get());
  auto no_rv = cache.Get(v, 0);
  EXPECT_FALSE(no_rv->at("metadata").contains("resourceVersion"));
  EXPECT_NE(cache.Get(v, 0).get(), no_rv.get());
}

TEST(DecodedValuesTest, ForgetsTheOldestBeyondCapacity) {
  DecodedValues cache(2);
  store::Value a = Value(R"({"metadata":{"name":"a"}})");
  store::Value b = Value(R"({"metadata":{"name":"b"}})");
  store::Value c = Value(R"({"metadata":{"name":"c"}})");
  auto pa = cache.Get(a, 1);
  auto pb = cache.Get(b, 2);
  auto pc = cache.Get(c, 3);
  EXPECT_EQ(cache.Get(c, 3).get(), pc.get());
  EXPECT_EQ(cache.Get(b, 2).get(), pb.get());
  EXPECT_NE(cache.Get(a, 1).get(), pa.get());  // forgotten, parsed again
}

TEST(DecodedValuesTest, TypedIsDecodedOnceWithoutManagedFields) {
  DecodedValues cache;
  store::Value v = Value(
      R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",)"
      R"("metadata":{"name":"c","namespace":"n","uid":"u","managedFields":)"
      R"([{"manager":"m","operation":"Update","apiVersion":"v1",)"
      R"("fieldsType":"FieldsV1","fieldsV1":{"f:spec":{}}}]},)"
      R"("spec":{"devices":{"requests":[{"name":"r","exactly":)"
      R"({"deviceClassName":"gpu"}}]}}})");
  auto typed = cache.Typed(v, 7);
  ASSERT_NE(typed, nullptr);
  const auto* claim = std::get_if<api::ResourceClaim>(&typed->value);
  ASSERT_NE(claim, nullptr);
  EXPECT_EQ(claim->metadata.name, "c");
  EXPECT_EQ(claim->metadata.resource_version, "7");
  EXPECT_TRUE(claim->metadata.managed_fields.empty());
  ASSERT_EQ(claim->spec.devices.requests.size(), 1u);
  EXPECT_EQ(cache.Typed(v, 7).get(), typed.get());  // shared
  // The JSON form keeps its managedFields.
  EXPECT_TRUE(cache.Get(v, 7)->at("metadata").contains("managedFields"));
  // Unstructured kinds lose theirs from the JSON they keep.
  store::Value event =
      Value(R"({"apiVersion":"example.com/v1","kind":"Thing","metadata":)"
            R"({"name":"t","managedFields":[{"manager":"m"}]}})");
  auto thing = cache.Typed(event, 8);
  ASSERT_NE(thing, nullptr);
  const auto* u = std::get_if<api::UnstructuredObject>(&thing->value);
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(api::DumpJson(u->json["metadata"]),
            R"({"name":"t","resourceVersion":"8"})");
  // What does not decode is null, every time.
  store::Value bad =
      Value(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",)"
            R"("spec":"not an object"})");
  EXPECT_EQ(cache.Typed(bad, 9), nullptr);
  EXPECT_EQ(cache.Typed(bad, 9), nullptr);
  EXPECT_EQ(cache.Typed(nullptr, 1), nullptr);
}

TEST(DecodedValuesTest, NonObjectsReadAsEmptyObjects) {
  DecodedValues cache;
  EXPECT_EQ(api::DumpJson(*cache.Get(Value("not json"), 2)),
            R"({"metadata":{"resourceVersion":"2"}})");
  EXPECT_EQ(api::DumpJson(*cache.Get(Value("[1]"), 0)), R"({"metadata":{}})");
  EXPECT_EQ(api::DumpJson(*cache.Get(nullptr, 0)), R"({"metadata":{}})");
}

}  // namespace
}  // namespace draplane::apiserver::internal

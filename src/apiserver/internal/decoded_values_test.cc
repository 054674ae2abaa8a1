#include "apiserver/internal/decoded_values.h"

#include <memory>
#include <string>
#include <vector>

#include "api/object_codec.h"
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
  DecodedValues::Written w;
  w.object = written;
  cache.Put(v, std::move(w));
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
  DecodedValues cache({.live_entries = 2});
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

DecodedValues::Written WrittenAs(const std::string& json,
                                 const store::Value& superseded = nullptr) {
  DecodedValues::Written w;
  w.object = std::make_shared<const Json>(Json::parse(json));
  w.superseded = superseded;
  return w;
}

TEST(DecodedValuesTest, ReplacedValuesAreKeptAWhileForLaggingReaders) {
  DecodedValues cache({.live_entries = 16, .retired_entries = 1});
  auto version = [](int n) {
    return R"({"metadata":{"name":"a"},"spec":{"x":)" + std::to_string(n) +
           "}}";
  };
  auto written = [&](int n) {
    return R"({"metadata":{"name":"a","resourceVersion":")" +
           std::to_string(n) + R"("},"spec":{"x":)" + std::to_string(n) + "}}";
  };
  store::Value v1 = Value(version(1));
  store::Value v2 = Value(version(2));
  store::Value v3 = Value(version(3));
  cache.Put(v1, WrittenAs(written(1)));
  auto first = cache.Get(v1, 1);
  cache.Put(v2, WrittenAs(written(2), v1));
  EXPECT_EQ(cache.Get(v2, 2)->at("spec").at("x"), 2);
  EXPECT_EQ(cache.Get(v1, 1).get(), first.get());  // retired, still here
  cache.Put(v3, WrittenAs(written(3), v2));
  // v1 is now beyond the retired capacity: a reader that far behind
  // parses it again, to equal JSON.
  auto again = cache.Get(v1, 1);
  EXPECT_NE(again.get(), first.get());
  EXPECT_EQ(*again, *first);
}

TEST(DecodedValuesTest, TheBoundCountsLiveObjectsNotVersions) {
  DecodedValues cache({.live_entries = 3});
  store::Value a = Value(R"({"metadata":{"name":"a"}})");
  store::Value b = Value(R"({"metadata":{"name":"b"}})");
  auto pa = cache.Get(a, 1);
  auto pb = cache.Get(b, 2);
  // Many versions of one object, each replacing the one before.
  store::Value previous;
  for (int i = 0; i < 200; ++i) {
    store::Value next =
        Value(R"({"metadata":{"name":"c"},"n":)" + std::to_string(i) + "}");
    cache.Put(next, WrittenAs(R"({"metadata":{"name":"c"},"n":)" +
                                  std::to_string(i) + "}",
                              previous));
    previous = next;
  }
  EXPECT_EQ(cache.Get(a, 1).get(), pa.get());  // still remembered
  EXPECT_EQ(cache.Get(b, 2).get(), pb.get());
  EXPECT_EQ(cache.Get(previous, 3)->at("n"), 199);
  // A fourth live object pushes out the oldest.
  store::Value d = Value(R"({"metadata":{"name":"d"}})");
  cache.Get(d, 4);
  EXPECT_NE(cache.Get(a, 1).get(), pa.get());
}

TEST(DecodedValuesTest, RetiredVersionsAreBoundedByBytes) {
  // Rewrites of a large object: the versions kept for lagging readers stay
  // within the byte bound, however many the count bound would allow.
  const std::string padding(1000, 'x');
  DecodedValues cache({.retired_entries = 1024, .retired_bytes = 3500});
  std::vector<store::Value> versions;
  std::vector<std::shared_ptr<const Json>> parsed;
  for (int i = 0; i < 10; ++i) {
    const std::string text = R"({"metadata":{"name":"big"},"n":)" +
                             std::to_string(i) + R"(,"pad":")" + padding +
                             R"("})";
    versions.push_back(Value(text));
    cache.Put(versions.back(),
              WrittenAs(text, i > 0 ? versions[i - 1] : nullptr));
    parsed.push_back(cache.Get(versions.back(), i + 1));
  }
  // Each value is about 1,030 bytes: the three most recent retired
  // versions fit in 3,500 bytes, older ones are forgotten.
  for (int i = 6; i < 10; ++i) {
    EXPECT_EQ(cache.Get(versions[i], i + 1).get(), parsed[i].get()) << i;
  }
  for (int i = 0; i < 6; ++i) {
    EXPECT_NE(cache.Get(versions[i], i + 1).get(), parsed[i].get()) << i;
  }
}

TEST(DecodedValuesTest, LiveValuesAreBoundedByBytes) {
  const std::string padding(1000, 'x');
  DecodedValues cache({.live_entries = 1024, .live_bytes = 2500});
  auto big = [&](const std::string& name) {
    return Value(R"({"metadata":{"name":")" + name + R"("},"pad":")" + padding +
                 R"("})");
  };
  store::Value a = big("a");
  store::Value b = big("b");
  store::Value c = big("c");
  auto pa = cache.Get(a, 1);
  auto pb = cache.Get(b, 2);
  auto pc = cache.Get(c, 3);  // 3 x ~1,030 bytes: a is pushed out
  EXPECT_EQ(cache.Get(c, 3).get(), pc.get());
  EXPECT_EQ(cache.Get(b, 2).get(), pb.get());
  EXPECT_NE(cache.Get(a, 1).get(), pa.get());
  // One value larger than the bound on its own is still remembered.
  DecodedValues small({.live_bytes = 10});
  auto pd = small.Get(a, 1);
  EXPECT_EQ(small.Get(a, 1).get(), pd.get());
}

TEST(DecodedValuesTest, AWritersTypedObjectIsShared) {
  DecodedValues cache;
  const std::string text =
      R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",)"
      R"("metadata":{"name":"c","namespace":"n","resourceVersion":"4"},)"
      R"("spec":{"devices":{}}})";
  store::Value v = Value(text);
  DecodedValues::Written w = WrittenAs(text);
  auto decoded = api::DecodeObject(*w.object);
  ASSERT_TRUE(decoded.ok());
  w.typed = std::make_shared<const api::Object>(decoded->object);
  const api::Object* typed = w.typed.get();
  cache.Put(v, std::move(w));
  EXPECT_EQ(cache.Typed(v, 4).get(), typed);
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

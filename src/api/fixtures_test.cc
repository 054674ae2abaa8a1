// Round trip and conversion of upstream's API fixtures
// (../shared/k8s/testdata, copied from kubernetes/api testdata/HEAD at
// v0.37.0-beta.0): every field of every served type and version must
// survive decode -> encode, and v1beta1 <-> v1 <-> v1beta2 conversion must
// be lossless.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "api/manifest.h"
#include "api/object_codec.h"
#include "gtest/gtest.h"
#include "testing/shared_test_data.h"

namespace draplane::api {
namespace {

namespace fs = std::filesystem;

// Upstream's fixtures in the shared test data.
fs::path FixtureDir() {
  return draplane::testing::SharedDataDir() / "k8s" / "testdata";
}

#define REQUIRE_FIXTURES() DRAPLANE_REQUIRE_SHARED_DATA(FixtureDir())

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

Json LoadFixture(const std::string& name) {
  std::string text = ReadFile(FixtureDir() / name);
  auto docs = ParseManifests(text, name);
  EXPECT_TRUE(docs.ok()) << docs.status();
  if (!docs.ok() || docs->size() != 1) return Json();
  return (*docs)[0].json;
}

// Semantic JSON equality ignoring member order, with a readable diff.
void ExpectSameJson(const Json& want, const Json& got,
                    const std::string& what) {
  nlohmann::json a = nlohmann::json::parse(want.dump());
  nlohmann::json b = nlohmann::json::parse(got.dump());
  if (a != b) {
    ADD_FAILURE() << what << " differs:\n"
                  << nlohmann::json::diff(a, b).dump(1);
  }
}

std::vector<std::string> FixtureNames() {
  std::vector<std::string> names;
  if (!fs::is_directory(FixtureDir())) return names;
  for (const auto& entry : fs::directory_iterator(FixtureDir())) {
    std::string name = entry.path().filename().string();
    if (name.ends_with(".json") || name.ends_with(".yaml")) {
      names.push_back(name);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(FixturesTest, EveryFixtureRoundTripsInItsOwnVersion) {
  REQUIRE_FIXTURES();
  std::vector<std::string> names = FixtureNames();
  ASSERT_GE(names.size(), 40u) << "expected the full upstream fixture set";
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    Json original = LoadFixture(name);
    ASSERT_TRUE(original.is_object());
    auto decoded = DecodeObject(original);
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_FALSE(
        std::holds_alternative<UnstructuredObject>(decoded->object.value))
        << "kind is not modelled";
    EXPECT_TRUE(decoded->unknown_fields.empty())
        << "unknown field: " << decoded->unknown_fields[0].ToString();
    auto encoded = EncodeObject(decoded->object);
    ASSERT_TRUE(encoded.ok()) << encoded.status();
    ExpectSameJson(original, *encoded, name);
  }
}

// An encoding decodes without unknown fields and encodes to the same bytes
// (member order included): the API server relies on it to store an
// in-process client's encoded body without decoding it again.
TEST(FixturesTest, EncodingIsAFixedPointOfDecodeThenEncode) {
  REQUIRE_FIXTURES();
  for (const std::string& name : FixtureNames()) {
    SCOPED_TRACE(name);
    auto decoded = DecodeObject(LoadFixture(name));
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    auto encoded = EncodeObject(decoded->object);
    ASSERT_TRUE(encoded.ok()) << encoded.status();
    auto again = DecodeObject(*encoded);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_TRUE(again->unknown_fields.empty());
    auto re_encoded = EncodeObject(again->object);
    ASSERT_TRUE(re_encoded.ok()) << re_encoded.status();
    EXPECT_EQ(DumpJson(*encoded), DumpJson(*re_encoded));
  }
}

TEST(FixturesTest, JsonAndYamlFixturesDecodeToTheSameObject) {
  REQUIRE_FIXTURES();
  for (const std::string& name : FixtureNames()) {
    if (!name.ends_with(".json")) continue;
    std::string yaml_name = name.substr(0, name.size() - 5) + ".yaml";
    if (!fs::exists(FixtureDir() / yaml_name)) continue;
    SCOPED_TRACE(name);
    auto from_json = DecodeObject(LoadFixture(name));
    auto from_yaml = DecodeObject(LoadFixture(yaml_name));
    ASSERT_TRUE(from_json.ok() && from_yaml.ok());
    ExpectSameJson(*EncodeObject(from_json->object),
                   *EncodeObject(from_yaml->object), yaml_name);
  }
}

class ConversionTest : public ::testing::TestWithParam<std::string> {};

// The set of member paths of a JSON value ("spec.devices[].name", ...).
void CollectPaths(const Json& j, const std::string& prefix,
                  std::set<std::string>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      CollectPaths(it.value(), prefix + "." + it.key(), out);
    }
  } else if (j.is_array()) {
    for (const Json& item : j) CollectPaths(item, prefix + "[]", out);
  } else {
    out.insert(prefix);
  }
}

void ExpectSameShape(const Json& want, const Json& got,
                     const std::string& what) {
  std::set<std::string> a, b;
  CollectPaths(want, "", a);
  CollectPaths(got, "", b);
  for (const auto& p : a) {
    EXPECT_TRUE(b.count(p)) << what << ": missing " << p;
  }
  for (const auto& p : b) {
    EXPECT_TRUE(a.count(p)) << what << ": unexpected " << p;
  }
}

// v1 and v1beta2 fixtures hold identical values, so converting one into the
// other must reproduce that fixture exactly. Upstream fills the v1beta1
// fixtures with different values (its fill order differs), so for v1beta1
// the conversion must produce exactly the other version's set of fields,
// and converting there and back must reproduce the original exactly.
TEST_P(ConversionTest, EachVersionConvertsToEveryOtherLosslessly) {
  REQUIRE_FIXTURES();
  const std::string kind = GetParam();
  const std::vector<std::string> versions = {"v1", "v1beta2", "v1beta1"};
  int pairs = 0;
  for (const std::string& from : versions) {
    std::string from_name = "resource.k8s.io." + from + "." + kind + ".json";
    if (!fs::exists(FixtureDir() / from_name)) continue;
    auto decoded = DecodeObject(LoadFixture(from_name));
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    for (const std::string& to : versions) {
      std::string to_name = "resource.k8s.io." + to + "." + kind + ".json";
      if (to == from || !fs::exists(FixtureDir() / to_name)) continue;
      SCOPED_TRACE(from + " -> " + to);
      ++pairs;
      auto encoded = EncodeObject(decoded->object, "resource.k8s.io/" + to);
      ASSERT_TRUE(encoded.ok()) << encoded.status();
      EXPECT_EQ((*encoded)["apiVersion"], "resource.k8s.io/" + to);
      if (from == "v1beta1" || to == "v1beta1") {
        ExpectSameShape(LoadFixture(to_name), *encoded, from + " -> " + to);
      } else {
        ExpectSameJson(LoadFixture(to_name), *encoded, from + " -> " + to);
      }
      auto again = DecodeObject(*encoded);
      ASSERT_TRUE(again.ok()) << again.status();
      EXPECT_TRUE(again->unknown_fields.empty());
      auto back = EncodeObject(again->object, "resource.k8s.io/" + from);
      ASSERT_TRUE(back.ok());
      ExpectSameJson(LoadFixture(from_name), *back,
                     from + " -> " + to + " -> " + from);
    }
  }
  EXPECT_GE(pairs, 2) << "no fixture pairs found for " << kind;
}

INSTANTIATE_TEST_SUITE_P(ResourceKinds, ConversionTest,
                         ::testing::Values("DeviceClass", "ResourceClaim",
                                           "ResourceClaimTemplate",
                                           "ResourceSlice", "DeviceTaintRule"));

TEST(FixturesTest, DeviceTaintRuleIsNotServedInV1beta1) {
  REQUIRE_FIXTURES();
  auto decoded =
      DecodeObject(LoadFixture("resource.k8s.io.v1.DeviceTaintRule.json"));
  ASSERT_TRUE(decoded.ok());
  auto encoded = EncodeObject(decoded->object, "resource.k8s.io/v1beta1");
  EXPECT_FALSE(encoded.ok());
}

}  // namespace
}  // namespace draplane::api

// Golden-file tests of `draplane migrate` on manifests shaped like real
// ones (testdata/*.input.*, plus the guide's manifests from ../shared),
// idempotence, validity of everything written, and the edge cases.
// DRAPLANE_UPDATE_GOLDEN=1 rewrites the golden files.
#include "migrate/migrate.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/manifest.h"
#include "api/object_codec.h"
#include "api/validation/validation.h"
#include "gtest/gtest.h"
#include "testing/shared_test_data.h"

namespace draplane::migrate {
namespace {

namespace fs = std::filesystem;

fs::path TestData() {
  return fs::path(DRAPLANE_SOURCE_DIR) / "src/migrate/testdata";
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool Updating() { return std::getenv("DRAPLANE_UPDATE_GOLDEN") != nullptr; }

// Notes and refusals, one per line, as the command prints them.
std::string Log(const FileResult& r) {
  std::string out;
  for (const std::string& n : r.notes) out += "note: " + n + "\n";
  for (const Refusal& x : r.refusals) {
    out += "refused: " + x.source + ":" + std::to_string(x.line) + ": " +
           x.object + ": " + x.field + ": " + x.reason + "\n";
  }
  return out;
}

// Every object in `text` decodes strictly and validates (ResourceClaim
// templates and the DRA parts of pods as the API server checks them).
void ExpectValidObjects(const std::string& text, const std::string& name) {
  auto docs = api::ParseManifests(text, name);
  ASSERT_TRUE(docs.ok()) << docs.status();
  for (const api::ManifestDocument& doc : *docs) {
    api::Json json = doc.json;
    // kubectl would fill in its context's namespace.
    if (!json["metadata"].contains("namespace")) {
      json["metadata"]["namespace"] = "default";
    }
    auto decoded = api::DecodeObject(json);
    ASSERT_TRUE(decoded.ok()) << name << ": " << decoded.status();
    if (std::holds_alternative<api::UnstructuredObject>(
            decoded->object.value)) {
      continue;
    }
    EXPECT_TRUE(decoded->unknown_fields.empty())
        << name << ": " << decoded->unknown_fields.front().ToString();
    api::SetDefaults(decoded->object);
    for (const FieldError& e : api::ValidateObject(decoded->object)) {
      ADD_FAILURE() << name << ":" << doc.line << ": " << e.ToString();
    }
  }
}

void CheckGolden(const std::string& name, const std::string& input,
                 const std::string& golden_stem, bool valid_output = true) {
  Migrator migrator(MigrateOptions{});
  ASSERT_TRUE(migrator.IndexTemplates(input, name).ok());
  auto result = migrator.Migrate(input, name);
  ASSERT_TRUE(result.ok()) << result.status();
  const fs::path golden = TestData() / (golden_stem + ".golden.yaml");
  const fs::path log = TestData() / (golden_stem + ".golden.log");
  if (Updating()) {
    std::ofstream(golden, std::ios::binary) << result->text;
    std::ofstream(log, std::ios::binary) << Log(*result);
  }
  EXPECT_EQ(result->text, ReadFile(golden)) << name;
  EXPECT_EQ(Log(*result), ReadFile(log)) << name;
  if (valid_output) ExpectValidObjects(result->text, name);

  // Migrating the output again changes nothing.
  Migrator again(MigrateOptions{});
  ASSERT_TRUE(again.IndexTemplates(result->text, name).ok());
  auto second = again.Migrate(result->text, name);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->text, result->text) << name << " is not idempotent";
  EXPECT_EQ(second->converted, 0);
  EXPECT_EQ(second->templates_added, 0);
  EXPECT_EQ(second->refusals.size(), result->refusals.size());
}

class GoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenTest, MatchesGoldenAndIsIdempotent) {
  const std::string file = GetParam();
  std::string stem = file.substr(0, file.find(".input."));
  CheckGolden(file, ReadFile(TestData() / file), stem,
              stem != "refused" && stem != "flow-style");
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, GoldenTest,
    ::testing::Values("helm-rendered.input.yaml", "workloads.input.yaml",
                      "flow-style.input.yaml", "list.input.yaml",
                      "deployment.input.json", "existing-templates.input.yaml",
                      "refused.input.yaml"),
    [](const auto& info) {
      std::string n = info.param.substr(0, info.param.find(".input."));
      for (char& c : n) {
        if (c == '-') c = '_';
      }
      return n;
    });

TEST(MigrateSeedTest, SeedManifests) {
  const fs::path seed =
      draplane::testing::SharedDataDir() / "seed" / "manifests";
  DRAPLANE_REQUIRE_SHARED_DATA(seed);
  CheckGolden("01-legacy-extended-resource-pod.yaml",
              ReadFile(seed / "01-legacy-extended-resource-pod.yaml"),
              "seed-01-legacy");
  // The guide's inline claim names a class the guide never defines
  // (gpu.nvidia.com-h100), which is fine for a template.
  CheckGolden("05-inline-request-pod.yaml",
              ReadFile(seed / "05-inline-request-pod.yaml"), "seed-05-inline");
}

TEST(MigrateTest, WholeDocumentsAreRefusedWithTheirFieldPath) {
  Migrator migrator(MigrateOptions{});
  auto result =
      migrator.Migrate(ReadFile(TestData() / "refused.input.yaml"), "r.yaml");
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->refusals.size(), 4u);
  EXPECT_EQ(result->refusals[0].object, "Pod half-gpu");
  EXPECT_EQ(result->refusals[0].field,
            "spec.containers[0].resources.limits[nvidia.com/gpu]");
  EXPECT_NE(result->refusals[1].reason.find("HAMi"), std::string::npos);
  EXPECT_EQ(result->refusals[2].field,
            "spec.containers[0].resources.requests[nvidia.com/gpu]");
  EXPECT_NE(result->refusals[3].reason.find("--class-map amd.com/gpu="),
            std::string::npos);
  EXPECT_EQ(result->converted, 1);  // the last pod
}

TEST(MigrateTest, ClassMapConvertsOtherVendors) {
  MigrateOptions options;
  options.class_map["amd.com/gpu"] = "gpu.amd.com";
  Migrator migrator(options);
  auto result = migrator.Migrate(
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n"
      "  containers:\n  - name: c\n    resources:\n      limits:\n"
      "        amd.com/gpu: 2\n",
      "p.yaml");
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->text,
            "apiVersion: resource.k8s.io/v1\n"
            "kind: ResourceClaimTemplate\n"
            "metadata:\n  name: amd-gpu-2\n"
            "spec:\n  spec:\n    devices:\n      requests:\n"
            "        - name: gpu\n          exactly:\n"
            "            deviceClassName: gpu.amd.com\n"
            "            count: 2\n"
            "---\n"
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n"
            "  resourceClaims:\n  - name: gpu\n"
            "    resourceClaimTemplateName: amd-gpu-2\n"
            "  containers:\n  - name: c\n    resources:\n      claims:\n"
            "      - name: gpu\n");
}

TEST(MigrateTest, TemplatesAreSharedAcrossFilesAndNamespaces) {
  Migrator migrator(MigrateOptions{});
  const std::string pod =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: NS\n"
      "spec:\n  containers:\n  - name: c\n    resources:\n      limits:\n"
      "        nvidia.com/gpu: 1\n";
  auto first = migrator.Migrate(pod, "a.yaml");
  auto second = migrator.Migrate(pod, "b.yaml");
  std::string other_ns = pod;
  other_ns.replace(other_ns.find("NS"), 2, "other");
  auto third = migrator.Migrate(other_ns, "c.yaml");
  ASSERT_TRUE(first.ok() && second.ok() && third.ok());
  EXPECT_EQ(first->templates_added, 1);
  EXPECT_EQ(second->templates_added, 0);  // emitted with a.yaml
  EXPECT_EQ(third->templates_added, 1);   // another namespace
}

TEST(MigrateTest, InvalidYamlIsAnErrorWithItsPosition) {
  Migrator migrator(MigrateOptions{});
  auto result = migrator.Migrate("kind: Pod\nspec: [\n", "bad.yaml");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message().substr(0, 9), "bad.yaml:");
}

TEST(MigrateTest, InlineClaimWithBadSpecIsRefused) {
  Migrator migrator(MigrateOptions{});
  auto result = migrator.Migrate(
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n"
      "  containers:\n  - name: c\n  resourceClaims:\n  - name: x\n"
      "    source:\n      devices:\n        requests:\n        - name: gpu\n"
      "          count: -1\n          deviceClassName: gpu.nvidia.com\n",
      "p.yaml");
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->refusals.size(), 1u);
  EXPECT_EQ(result->refusals[0].field, "spec.resourceClaims[0].source");
  EXPECT_NE(result->refusals[0].reason.find("must be greater than zero"),
            std::string::npos)
      << result->refusals[0].reason;
  EXPECT_EQ(result->converted, 0);
}

}  // namespace
}  // namespace draplane::migrate

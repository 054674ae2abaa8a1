// Runs the allocator on every scenario of the test tree:
//  - tests/scenarios/*.yaml: one rule each, with the expected outcome in the
//    header annotations (draplane.dev/expect, expect-devices, expect-error;
//    see tests/scenarios/README.md);
//  - tests/reference/testdata/*: the oracle's golden scenarios, whose
//    .expected.json is upstream's result document, compared byte for byte
//    (draplane's `reasons` removed).
// Every allocated outcome is also checked with CheckAllocation.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "allocator/allocation_check.h"
#include "api/manifest.h"
#include "common/str_cat.h"
#include "gtest/gtest.h"
#include "scenario/scenario.h"

namespace draplane::allocator {
namespace {

using scenario::BuildInputs;
using scenario::ParseScenario;
using scenario::RunOptions;
using scenario::RunScenario;
using scenario::Scenario;
using scenario::ScenarioInputs;

namespace fs = std::filesystem;

fs::path SourceDir() {
  const char* env = std::getenv("DRAPLANE_SOURCE_DIR");
  return env != nullptr ? fs::path(env) : fs::path(DRAPLANE_SOURCE_DIR);
}

std::string ReadFile(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<fs::path> Files(const fs::path& dir,
                            const std::vector<std::string>& exts) {
  std::vector<fs::path> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.find(".expected.") != std::string::npos) continue;
    for (const auto& ext : exts) {
      if (e.path().extension() == ext) out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// "default/claim: gpu=drv/pool/dev gpu=..." lines, per claim to allocate.
std::vector<std::string> DeviceLines(const Scenario& s, const Outcome& o) {
  std::vector<std::string> lines;
  size_t i = 0;
  for (const api::ResourceClaim& c : s.claims) {
    if (c.status.allocation) continue;
    std::string line = StrCat(c.metadata.namespace_, "/", c.metadata.name, ":");
    for (const auto& r : o.results[i].devices.results) {
      StrAppend(&line, " ", r.request, "=", r.driver, "/", r.pool, "/",
                r.device);
    }
    lines.push_back(line);
    ++i;
  }
  return lines;
}

void CheckValid(const Scenario& s, const Outcome& o) {
  if (o.kind != OutcomeKind::kAllocated) return;
  ScenarioInputs in = BuildInputs(s);
  AllocationInputs ai{s.features, &in.slices, &s.classes,
                      &in.node,   &in.claims, &in.state};
  EXPECT_TRUE(CheckAllocation(ai, o.results).ok())
      << CheckAllocation(ai, o.results).message();
}

TEST(ScenarioFilesTest, RulesHaveTheirExpectedOutcome) {
  const auto files = Files(SourceDir() / "tests" / "scenarios", {".yaml"});
  ASSERT_GE(files.size(), 40u) << "tests/scenarios is missing or nearly empty";
  for (const fs::path& path : files) {
    SCOPED_TRACE(path.filename().string());
    auto s = ParseScenario(ReadFile(path), path.string());
    ASSERT_TRUE(s.ok()) << s.status().message();
    EXPECT_EQ(s->name, path.stem().string());
    ASSERT_TRUE(s->annotations.contains("draplane.dev/expect"));
    ASSERT_TRUE(s->annotations.contains("draplane.dev/rule"));
    RunOptions options;
    options.explain = true;
    Outcome o = RunScenario(*s, options);
    EXPECT_EQ(OutcomeKindName(o.kind), s->annotations.at("draplane.dev/expect"))
        << o.message;
    if (o.kind == OutcomeKind::kAllocated) {
      std::vector<std::string> want;
      for (auto line : absl::StrSplit(
               s->annotations["draplane.dev/expect-devices"], '\n')) {
        std::string l(line);
        while (!l.empty() && l.back() == ' ') l.pop_back();
        if (!l.empty()) want.push_back(l);
      }
      EXPECT_EQ(DeviceLines(*s, o), want);
      CheckValid(*s, o);
    }
    if (o.kind == OutcomeKind::kFatal || o.kind == OutcomeKind::kInvalidPools) {
      const std::string& want = s->annotations["draplane.dev/expect-error"];
      EXPECT_FALSE(want.empty());
      EXPECT_NE(o.message.find(want), std::string::npos) << o.message;
    }
    if (o.kind == OutcomeKind::kUnallocatable) {
      // Every unallocated claim is explained, request by request.
      ASSERT_FALSE(o.explanations.empty());
      for (const auto& ce : o.explanations) {
        for (const auto& r : ce.requests) EXPECT_FALSE(r.summary.empty());
      }
    }
  }
}

TEST(ScenarioFilesTest, OracleGoldensMatchByteForByte) {
  const auto files = Files(SourceDir() / "tests" / "reference" / "testdata",
                           {".yaml", ".json"});
  ASSERT_GE(files.size(), 10u);
  for (const fs::path& path : files) {
    SCOPED_TRACE(path.filename().string());
    fs::path expected = path;
    expected.replace_extension(".expected.json");
    auto s = ParseScenario(ReadFile(path), path.string());
    ASSERT_TRUE(s.ok()) << s.status().message();
    Outcome o = RunScenario(*s, RunOptions{});
    api::Json doc = ResultDocument(*s, o);
    EXPECT_EQ(api::DumpJson(doc, 2) + "\n", ReadFile(expected));
    CheckValid(*s, o);
  }
}

}  // namespace
}  // namespace draplane::allocator

// Differential test of draplane's selector evaluation against cel-go.
//
// Reads the corpus `draref cel gen` writes (JSON lines: expression, driver,
// a resource.k8s.io/v1 Device, and cel-go's DeviceMatches outcome: a bool
// result or an error message with upstream's EnhanceRuntimeError hint) from
// the file named by DRAPLANE_CEL_DIFF_CORPUS, and checks each pair through
// the public API (Device::Create, Compiler::CompileSelector,
// Program::Matches): the same bool, or an error with the same message.
// Without the variable the test is skipped (scripts/build-and-test sets it
// in its Go oracle step). DRAPLANE_CEL_DIFF_MISMATCHES, when set, names a
// file that receives every mismatch as a JSON line (the corpus line plus
// "draplane": the outcome draplane gave).
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <variant>

#include "api/object_codec.h"
#include "cel/cel.h"
#include "common/str_cat.h"
#include "gtest/gtest.h"

namespace draplane::cel {
namespace {

// One side's outcome: a bool, or an error message.
struct Outcome {
  bool ok = false;
  bool value = false;
  std::string error;

  std::string Describe() const {
    if (ok) return value ? "true" : "false";
    return StrCat("error: ", error);
  }
  bool operator==(const Outcome& o) const {
    if (ok != o.ok) return false;
    return ok ? value == o.value : error == o.error;
  }
};

Outcome Error(std::string message) {
  Outcome o;
  o.error = std::move(message);
  return o;
}

// Decodes a v1 Device through the API codec by wrapping it in a
// ResourceSlice (the way slices reach the allocator).
absl::StatusOr<api::Device> DecodeDevice(const api::Json& device,
                                         const std::string& driver) {
  api::Json slice = {{"apiVersion", "resource.k8s.io/v1"},
                     {"kind", "ResourceSlice"},
                     {"metadata", {{"name", "differential"}}},
                     {"spec",
                      {{"driver", driver},
                       {"nodeName", "node"},
                       {"pool", {{"name", "pool"}, {"resourceSliceCount", 1}}},
                       {"devices", api::Json::array({device})}}}};
  absl::StatusOr<api::DecodeResult> decoded = api::DecodeObject(slice);
  if (!decoded.ok()) return decoded.status();
  if (!decoded->unknown_fields.empty()) {
    return absl::InvalidArgumentError("device has unknown fields");
  }
  const auto* s = std::get_if<api::ResourceSlice>(&decoded->object.value);
  if (s == nullptr || s->spec.devices.size() != 1) {
    return absl::InternalError("decoded object is not a one-device slice");
  }
  return s->spec.devices[0];
}

TEST(CelDifferentialTest, MatchesCelGoOnGeneratedSelectors) {
  const char* path = std::getenv("DRAPLANE_CEL_DIFF_CORPUS");
  if (path == nullptr || *path == '\0') {
    GTEST_SKIP() << "DRAPLANE_CEL_DIFF_CORPUS is not set; generate a corpus "
                    "with `build/draref cel gen --seed-start 0 --seed-end 500 "
                    "-o build/cel-corpus.jsonl` and point the variable at it";
  }
  std::ifstream in(path);
  if (!in) {
    GTEST_SKIP() << "DRAPLANE_CEL_DIFF_CORPUS=" << path
                 << " cannot be read; generate it with `build/draref cel gen`";
  }

  // Consecutive lines share expressions: compile each once.
  std::map<std::string, absl::StatusOr<std::shared_ptr<const Program>>>
      programs;
  int pairs = 0, mismatches = 0, errors_expected = 0;
  constexpr int kMaxReported = 60;
  std::ofstream mismatch_out;
  if (const char* out = std::getenv("DRAPLANE_CEL_DIFF_MISMATCHES")) {
    mismatch_out.open(out);
  }
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty()) continue;
    api::Json c = api::Json::parse(line, nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(c.is_object()) << path << ":" << line_number << ": bad JSON";
    const std::string expression = c.at("expression").get<std::string>();
    const std::string driver = c.at("driver").get<std::string>();

    Outcome want;
    if (c.at("error").is_string()) {
      want = Error(c.at("error").get<std::string>());
      ++errors_expected;
    } else {
      want.ok = true;
      want.value = c.at("result").get<bool>();
    }

    absl::StatusOr<api::Device> device = DecodeDevice(c.at("device"), driver);
    ASSERT_TRUE(device.ok())
        << path << ":" << line_number << ": " << device.status();

    Outcome got;
    auto it = programs.find(expression);
    if (it == programs.end()) {
      it = programs
               .emplace(expression,
                        Compiler::Default().CompileSelector(expression))
               .first;
    }
    absl::StatusOr<Device> dev = Device::Create(driver, *device);
    if (!it->second.ok()) {
      got = Error(StrCat("(draplane compile) ",
                         std::string(it->second.status().message())));
    } else if (!dev.ok()) {
      got = Error(std::string(dev.status().message()));
    } else {
      absl::StatusOr<bool> r = (*it->second)->Matches(*dev);
      if (r.ok()) {
        got.ok = true;
        got.value = *r;
      } else {
        got = Error(std::string(r.status().message()));
      }
    }

    ++pairs;
    if (!(got == want)) {
      ++mismatches;
      if (mismatch_out.is_open()) {
        api::Json m = c;
        m["draplane"] = got.Describe();
        mismatch_out << m.dump() << "\n";
      }
      if (mismatches <= kMaxReported) {
        ADD_FAILURE() << "mismatch at " << path << ":" << line_number
                      << " (seed " << c.value("seed", 0) << ")\n"
                      << "  expression: " << expression << "\n"
                      << "  driver:     " << driver << "\n"
                      << "  device:     " << c.at("device").dump() << "\n"
                      << "  cel-go:     " << want.Describe() << "\n"
                      << "  draplane:   " << got.Describe();
      }
    }
    if (programs.size() > 64) programs.clear();
  }
  std::cout << "cel differential: " << pairs << " pairs (" << errors_expected
            << " expected errors), " << (pairs - mismatches) << " agree, "
            << mismatches << " mismatch";
  if (mismatches > kMaxReported) {
    std::cout << " (first " << kMaxReported << " reported)";
  }
  std::cout << "\n";
  EXPECT_GT(pairs, 0) << path << " holds no pairs";
  EXPECT_EQ(mismatches, 0);
}

}  // namespace
}  // namespace draplane::cel

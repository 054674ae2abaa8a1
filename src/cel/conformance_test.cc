// Runs the cel-spec conformance suite (../shared/conformance/cel-spec, or
// $DRAPLANE_SHARED_DIR/conformance/cel-spec) as data.
//
// Every test is one of:
//   - skipped, with the reason from src/cel/conformance_skips.txt (tests that
//     need protobuf message types, the type checker, or libraries outside the
//     Kubernetes DRA environment);
//   - a known failure, listed with what is missing in
//     src/cel/conformance_known_failures.txt: the list of work left, which
//     must shrink — a listed test that now passes fails this suite until it
//     is removed from the list;
//   - run, and it must pass.
// Per-file totals are printed. Set DRAPLANE_CEL_CONFORMANCE_RECORD=FILE to
// write the names of all failing, non-skipped tests to FILE.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "absl/strings/str_split.h"
#include "cel/internal/environment.h"
#include "cel/internal/interpreter.h"
#include "cel/internal/parser.h"
#include "cel/internal/value.h"
#include "cel/testing/text_proto.h"
#include "gtest/gtest.h"
#include "testing/shared_test_data.h"

namespace draplane::cel::internal {
namespace {

namespace fs = std::filesystem;
using testing::TextProtoField;
using testing::TextProtoMessage;

fs::path ConformanceDir() {
  return draplane::testing::SharedDataDir() / "conformance" / "cel-spec";
}

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// "pattern | reason" lines; a pattern is file/section/test with `*` allowed
// as a whole component.
struct PatternList {
  std::vector<std::pair<std::vector<std::string>, std::string>> entries;
  mutable std::set<size_t> used;

  static PatternList Load(const fs::path& p) {
    PatternList list;
    std::ifstream in(p);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      size_t bar = line.find(" | ");
      std::string pattern = line.substr(0, bar);
      std::string reason = bar == std::string::npos ? "" : line.substr(bar + 3);
      list.entries.push_back(
          {absl::StrSplit(pattern, absl::MaxSplits('/', 2)), reason});
    }
    return list;
  }

  const std::string* Match(const std::string& file, const std::string& section,
                           const std::string& test) const {
    const std::string parts[3] = {file, section, test};
    for (size_t i = 0; i < entries.size(); ++i) {
      const auto& pat = entries[i].first;
      if (pat.size() != 3) continue;
      bool ok = true;
      for (int k = 0; k < 3 && ok; ++k) {
        ok = pat[k] == "*" || pat[k] == parts[k];
      }
      if (ok) {
        used.insert(i);
        return &entries[i].second;
      }
    }
    return nullptr;
  }
};

// Converts a cel.expr.Value message; std::nullopt for kinds this runner
// cannot represent (protobuf messages, enums).
std::optional<Value> ToValue(const TextProtoMessage& m) {
  if (m.fields.empty()) return std::nullopt;
  const TextProtoField& f = m.fields[0];
  const std::string& n = f.name;
  if (n == "null_value") return Value::Null();
  if (n == "bool_value") return Value::Bool(f.text == "true");
  if (n == "int64_value") return Value::Int(std::stoll(f.text, nullptr, 0));
  if (n == "uint64_value") return Value::Uint(std::stoull(f.text, nullptr, 0));
  if (n == "double_value") {
    std::string t = f.text;
    if (t == "inf" || t == "Infinity") return Value::Double(INFINITY);
    if (t == "-inf" || t == "-Infinity") return Value::Double(-INFINITY);
    if (t == "nan" || t == "NaN") return Value::Double(NAN);
    return Value::Double(std::stod(t));
  }
  if (n == "string_value") return Value::String(f.text);
  if (n == "bytes_value") return Value::Bytes(f.text);
  if (n == "type_value") return Value::Type(f.text);
  if (n == "list_value") {
    std::vector<Value> items;
    if (f.message) {
      for (const TextProtoField* v : f.message->FindAll("values")) {
        auto item = ToValue(*v->message);
        if (!item) return std::nullopt;
        items.push_back(*item);
      }
    }
    return Value::List(std::move(items));
  }
  if (n == "map_value") {
    std::vector<std::pair<Value, Value>> entries;
    if (f.message) {
      for (const TextProtoField* e : f.message->FindAll("entries")) {
        auto k = ToValue(*e->message->Message("key"));
        auto v = ToValue(*e->message->Message("value"));
        if (!k || !v) return std::nullopt;
        entries.push_back({*k, *v});
      }
    }
    return Value::Map(std::move(entries));
  }
  if (n == "object_value" && f.message && !f.message->fields.empty()) {
    const TextProtoField& any = f.message->fields[0];
    auto num = [&](const char* field) -> int64_t {
      auto s = any.message ? any.message->Scalar(field) : std::nullopt;
      return s ? std::stoll(*s) : 0;
    };
    if (any.name == "[type.googleapis.com/google.protobuf.Timestamp]") {
      return Value::MakeTimestamp(num("seconds"), num("nanos"));
    }
    if (any.name == "[type.googleapis.com/google.protobuf.Duration]") {
      return Value::Duration(num("seconds") * 1000000000 + num("nanos"));
    }
  }
  return std::nullopt;
}

// Protobuf-style equality of results: kinds must match exactly (1 != 1u),
// NaN equals NaN, maps compare regardless of order.
bool SameValue(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case ValueKind::kNull:
      return true;
    case ValueKind::kBool:
      return a.bool_value() == b.bool_value();
    case ValueKind::kInt:
      return a.int_value() == b.int_value();
    case ValueKind::kUint:
      return a.uint_value() == b.uint_value();
    case ValueKind::kDouble:
      return (std::isnan(a.double_value()) && std::isnan(b.double_value())) ||
             a.double_value() == b.double_value();
    case ValueKind::kString:
    case ValueKind::kBytes:
    case ValueKind::kType:
      return a.string_value() == b.string_value();
    case ValueKind::kList: {
      if (a.list().size() != b.list().size()) return false;
      for (size_t i = 0; i < a.list().size(); ++i) {
        if (!SameValue(a.list()[i], b.list()[i])) return false;
      }
      return true;
    }
    case ValueKind::kMap: {
      if (a.map().size() != b.map().size()) return false;
      for (const auto& e : a.map().entries()) {
        const Value* other = b.map().Find(e.key);
        if (other == nullptr || !SameValue(e.value, *other)) return false;
      }
      return true;
    }
    case ValueKind::kTimestamp:
      return a.timestamp_seconds() == b.timestamp_seconds() &&
             a.timestamp_nanos() == b.timestamp_nanos();
    case ValueKind::kDuration:
      return a.duration_nanos() == b.duration_nanos();
    default:
      return a.DebugString() == b.DebugString();
  }
}

class ConformanceEnvironment {
 public:
  ConformanceEnvironment() {
    auto check = [](absl::Status s) {
      if (!s.ok()) std::cerr << "registry: " << s << "\n";
    };
    check(RegisterKubernetesLibraries(&registry_));
  }
  const FunctionRegistry& registry() const { return registry_; }

 private:
  FunctionRegistry registry_;
};

enum class Outcome { kPassed, kFailed, kUnsupported };

// Runs one test; `detail` explains a failure or why it cannot run.
Outcome RunOne(const TextProtoMessage& test, const FunctionRegistry& registry,
               std::string* detail) {
  std::string expr = test.Scalar("expr").value_or("");
  ParserOptions parse_options;
  if (test.Scalar("disable_macros") == "true") {
    parse_options.enable_macros = false;
  }
  bool expect_error = test.Find("eval_error") != nullptr ||
                      test.Find("any_eval_errors") != nullptr;
  std::optional<Value> expected;
  if (const TextProtoMessage* v = test.Message("value")) {
    expected = ToValue(*v);
    if (!expected) {
      *detail = "expected value kind not representable (protobuf message)";
      return Outcome::kUnsupported;
    }
  } else if (const TextProtoMessage* typed = test.Message("typed_result")) {
    const TextProtoMessage* r = typed->Message("result");
    if (r == nullptr) {
      *detail = "check_only: needs the type checker";
      return Outcome::kUnsupported;
    }
    expected = ToValue(*r);
    if (!expected) {
      *detail = "expected value kind not representable";
      return Outcome::kUnsupported;
    }
  } else if (!expect_error) {
    expected = Value::Bool(true);
  }

  MapActivation activation;
  for (const TextProtoField* b : test.FindAll("bindings")) {
    auto key = b->message->Scalar("key");
    const TextProtoMessage* ev = b->message->Message("value");
    const TextProtoMessage* v = ev ? ev->Message("value") : nullptr;
    std::optional<Value> value = v ? ToValue(*v) : std::nullopt;
    if (!key || !value) {
      *detail = "binding not representable";
      return Outcome::kUnsupported;
    }
    activation.Insert(*key, *value);
  }

  auto parsed = Parse(expr, parse_options);
  if (!parsed.ok()) {
    *detail = "parse: " + std::string(parsed.status().message());
    return Outcome::kFailed;
  }
  PlanOptions plan_options;
  plan_options.unknown_functions_are_runtime_errors =
      test.Scalar("disable_check") == "true";
  auto program = Plan(*parsed->root, registry, plan_options);
  if (!program.ok()) {
    if (expect_error) return Outcome::kPassed;
    *detail = "plan: " + std::string(program.status().message());
    return Outcome::kFailed;
  }
  EvalResult result = (*program)->Evaluate(activation);
  if (expect_error) {
    if (result.value.is_error()) return Outcome::kPassed;
    *detail = "expected an error, got " + result.value.DebugString();
    return Outcome::kFailed;
  }
  if (SameValue(result.value, *expected)) return Outcome::kPassed;
  *detail =
      "got " + result.value.DebugString() + ", want " + expected->DebugString();
  return Outcome::kFailed;
}

TEST(CelConformanceTest, RunsTheCelSpecSuite) {
  fs::path dir = ConformanceDir();
  DRAPLANE_REQUIRE_SHARED_DATA(dir);
  fs::path here = fs::path(DRAPLANE_SOURCE_DIR) / "src" / "cel";
  PatternList skips = PatternList::Load(here / "conformance_skips.txt");
  PatternList known =
      PatternList::Load(here / "conformance_known_failures.txt");
  ASSERT_FALSE(skips.entries.empty()) << "skip list missing";
  ConformanceEnvironment env;

  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".textproto") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::ofstream record;
  if (const char* r = std::getenv("DRAPLANE_CEL_CONFORMANCE_RECORD")) {
    record.open(r);
  }
  int total_pass = 0, total_fail = 0, total_skip = 0, total_known = 0;
  std::cout << "cel-spec conformance (file: passed / known failures / skipped"
               " / failed)\n";
  for (const fs::path& path : files) {
    auto doc = testing::ParseTextProto(ReadFile(path));
    ASSERT_TRUE(doc.ok()) << path << ": " << doc.status();
    std::string file = path.stem().string();
    int pass = 0, fail = 0, skip = 0, known_fail = 0;
    for (const TextProtoField* s : doc->FindAll("section")) {
      std::string section = s->message->Scalar("name").value_or("");
      for (const TextProtoField* t : s->message->FindAll("test")) {
        std::string name = t->message->Scalar("name").value_or("");
        std::string full = file + "/" + section + "/" + name;
        if (skips.Match(file, section, name) != nullptr) {
          ++skip;
          continue;
        }
        std::string detail;
        Outcome outcome = RunOne(*t->message, env.registry(), &detail);
        const std::string* known_reason = known.Match(file, section, name);
        if (outcome == Outcome::kPassed) {
          ++pass;
          EXPECT_EQ(known_reason, nullptr) << full
                                           << " passes now: remove it from "
                                              "conformance_known_failures.txt";
          continue;
        }
        if (record.is_open()) record << full << " | " << detail << "\n";
        if (known_reason != nullptr) {
          ++known_fail;
          continue;
        }
        ++fail;
        ADD_FAILURE() << full << " (" << t->message->Scalar("expr").value_or("")
                      << "): " << detail;
      }
    }
    std::cout << "  " << file << ": " << pass << " / " << known_fail << " / "
              << skip << " / " << fail << "\n";
    total_pass += pass;
    total_fail += fail;
    total_skip += skip;
    total_known += known_fail;
  }
  std::cout << "cel-spec conformance total: " << total_pass << " passed, "
            << total_known << " known failures, " << total_skip << " skipped, "
            << total_fail << " failed\n";
  for (size_t i = 0; i < skips.entries.size(); ++i) {
    if (skips.entries[i].second.empty()) {
      ADD_FAILURE() << "skip entry " << i << " has no reason";
    }
  }
}

}  // namespace
}  // namespace draplane::cel::internal

#include "scenario/scenario.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "allocator/device_taint_rules.h"
#include "api/json_members.h"
#include "api/manifest.h"
#include "api/object_codec.h"
#include "api/validation/validation.h"
#include "cel/cel.h"
#include "common/str_cat.h"

namespace draplane::scenario {

using allocator::AllocateOptions;
using allocator::Allocator;
using allocator::ApplyTaintRules;
using allocator::ClaimExplanation;
using allocator::Features;
using allocator::Outcome;
using allocator::OutcomeKind;
namespace {

constexpr char kHeaderApiVersion[] = "draplane.dev/v1alpha1";
constexpr char kHeaderKind[] = "Scenario";
constexpr char kSharePlaceholder[] = "<share-id>";

// The header: apiVersion, kind, metadata{name, annotations, labels},
// spec{node, features}; anything else is an unknown field.
absl::Status ParseHeader(const api::Json& j, Scenario& s,
                         std::optional<std::vector<std::string>>& features) {
  for (const auto& [key, value] : j.items()) {
    if (key == "apiVersion" || key == "kind") continue;
    if (key == "metadata") {
      if (!value.is_object()) {
        return absl::InvalidArgumentError("metadata: must be an object");
      }
      for (const auto& [mk, mv] : value.items()) {
        if (mk == "name") {
          if (!mv.is_string()) {
            return absl::InvalidArgumentError(
                "metadata.name: must be a string");
          }
          s.name = mv.get<std::string>();
        } else if (mk == "annotations") {
          if (!mv.is_object()) {
            return absl::InvalidArgumentError(
                "metadata.annotations: must be a map of strings");
          }
          for (const auto& [ak, av] : mv.items()) {
            if (!av.is_string()) {
              return absl::InvalidArgumentError(
                  StrCat("metadata.annotations.", ak, ": must be a string"));
            }
            s.annotations[ak] = av.get<std::string>();
          }
        } else if (mk != "labels") {
          return absl::InvalidArgumentError(StrCat(
              "strict decoding error: unknown field \"metadata.", mk, "\""));
        }
      }
      continue;
    }
    if (key == "spec") {
      if (!value.is_object()) {
        return absl::InvalidArgumentError("spec: must be an object");
      }
      for (const auto& [sk, sv] : value.items()) {
        if (sk == "node") {
          if (!sv.is_string()) {
            return absl::InvalidArgumentError("spec.node: must be a string");
          }
          s.node = sv.get<std::string>();
        } else if (sk == "features") {
          if (sv.is_null()) continue;
          if (!sv.is_array()) {
            return absl::InvalidArgumentError(
                "spec.features: must be a list of strings");
          }
          features.emplace();
          for (const auto& f : sv) {
            if (!f.is_string()) {
              return absl::InvalidArgumentError(
                  "spec.features: must be a list of strings");
            }
            features->push_back(f.get<std::string>());
          }
        } else {
          return absl::InvalidArgumentError(
              StrCat("strict decoding error: unknown field \"spec.", sk, "\""));
        }
      }
      continue;
    }
    return absl::InvalidArgumentError(
        StrCat("strict decoding error: unknown field \"", key, "\""));
  }
  return absl::OkStatus();
}

// "ns/name", or "name" without a namespace (upstream's klog.KObj).
std::string ClaimName(const api::ResourceClaim& claim) {
  return claim.metadata.namespace_.empty()
             ? claim.metadata.name
             : StrCat(claim.metadata.namespace_, "/", claim.metadata.name);
}

std::string ShortKind(const api::Object& o) {
  const api::ObjectMeta* m = o.metadata();
  std::string key = o.kind();
  if (m == nullptr) return key;
  if (!m->namespace_.empty())
    return StrCat(key, "/", m->namespace_, "/", m->name);
  return StrCat(key, "/", m->name);
}

}  // namespace

absl::StatusOr<Scenario> ParseScenario(std::string_view text,
                                       std::string_view source) {
  return ParseScenario({ScenarioInput{std::string(text), std::string(source)}});
}

absl::StatusOr<Scenario> ParseScenario(const std::vector<ScenarioInput>& inputs,
                                       const ParseOptions& options) {
  api::ValidationOptions validation;
  validation.compile_cel = [](std::string_view expression) {
    return cel::Compiler::Default().CompileSelector(expression, true).status();
  };
  Scenario s;
  bool have_header = false;
  std::optional<std::vector<std::string>> features;
  std::map<std::string, std::string> seen;  // key -> "source: object #i"
  std::string source;
  for (const ScenarioInput& input : inputs) {
    source = input.source;
    auto docs = api::ParseManifests(input.text, input.source);
    if (!docs.ok()) return docs.status();
    for (const api::ManifestDocument& doc : *docs) {
      const std::string api_version =
          api::StringMemberOrEmpty(doc.json, "apiVersion");
      const std::string kind = api::StringMemberOrEmpty(doc.json, "kind");
      const std::string where = StrCat(source, ": object #", doc.index, " (",
                                       api_version, " ", kind, ")");
      auto fail = [&](std::string_view message) {
        return absl::InvalidArgumentError(StrCat(where, ": ", message));
      };
      if (api_version == kHeaderApiVersion && kind == kHeaderKind) {
        if (have_header) {
          return fail(StrCat("more than one ", kHeaderKind, " header"));
        }
        have_header = true;
        if (auto st = ParseHeader(doc.json, s, features); !st.ok()) {
          return fail(std::string(st.message()));
        }
        continue;
      }
      auto [group, version] = api::SplitApiVersion(api_version);
      const bool resource = group == "resource.k8s.io";
      const bool core = group.empty() && version == "v1" &&
                        (kind == "Node" || kind == "Namespace");
      if (resource && version == "v1alpha3" && kind != "DeviceTaintRule") {
        return fail("resource.k8s.io/v1alpha3 only serves DeviceTaintRule");
      }
      if (!resource && !core) return fail("unsupported object kind");
      api::Json json = doc.json;
      if (resource && version == "v1alpha3") {
        json["apiVersion"] = "resource.k8s.io/v1beta2";
      }
      auto decoded = api::DecodeObject(json);
      if (!decoded.ok()) return fail(std::string(decoded.status().message()));
      if (!decoded->unknown_fields.empty()) {
        std::string message = "strict decoding error: ";
        for (size_t i = 0; i < decoded->unknown_fields.size(); ++i) {
          StrAppend(&message, i ? ", " : "",
                    decoded->unknown_fields[i].ToString());
        }
        return fail(message);
      }
      api::Object& object = decoded->object;
      if (options.validate) {
        api::Object defaulted = object;
        api::SetDefaults(defaulted);
        const FieldErrorList errors =
            api::ValidateObject(defaulted, validation);
        if (!errors.empty()) {
          std::string message = StrCat(ShortKind(object), " is invalid: ");
          for (size_t i = 0; i < errors.size(); ++i) {
            StrAppend(&message, i ? "; " : "", errors[i].ToString());
          }
          return fail(message);
        }
      }
      const std::string key = ShortKind(object);
      if (auto it = seen.find(key); it != seen.end()) {
        return fail(StrCat("duplicate object ", key, " (first seen as ",
                           it->second, ")"));
      }
      seen.emplace(key, inputs.size() > 1 ? StrCat("object #", doc.index,
                                                   " of ", input.source)
                                          : StrCat("object #", doc.index));
      if (auto* v = std::get_if<api::ResourceSlice>(&object.value)) {
        s.slices.push_back(std::move(*v));
      } else if (auto* c = std::get_if<api::DeviceClass>(&object.value)) {
        s.classes.push_back(std::move(*c));
      } else if (auto* r = std::get_if<api::DeviceTaintRule>(&object.value)) {
        s.taint_rules.push_back(std::move(*r));
      } else if (std::holds_alternative<api::ResourceClaim>(object.value)) {
        api::SetDefaults(object);
        s.claims.push_back(
            std::move(std::get<api::ResourceClaim>(object.value)));
      } else if (auto* n = std::get_if<api::Node>(&object.value)) {
        s.nodes.push_back(std::move(*n));
      } else if (auto* ns = std::get_if<api::Namespace>(&object.value)) {
        s.namespaces.push_back(std::move(*ns));
      } else {
        return fail("unsupported kind");
      }
    }
  }
  if (inputs.size() > 1) source = "scenario";
  if (!have_header) {
    return absl::InvalidArgumentError(StrCat(source, ": no ", kHeaderApiVersion,
                                             " ", kHeaderKind,
                                             " header object"));
  }
  if (s.node.empty()) {
    return absl::InvalidArgumentError(
        StrCat(source, ": ", kHeaderKind, " header: spec.node must be set"));
  }
  if (features) {
    s.feature_names = *features;
  } else {
    for (std::string_view n : Features::DefaultNames()) {
      s.feature_names.emplace_back(n);
    }
  }
  auto f = Features::FromNames(s.feature_names);
  if (!f.ok()) {
    return absl::InvalidArgumentError(
        StrCat(source, ": ", kHeaderKind,
               " header: ", std::string(f.status().message())));
  }
  s.features = *f;
  std::sort(s.feature_names.begin(), s.feature_names.end());
  return s;
}

ScenarioInputs BuildInputs(const Scenario& scenario) {
  ScenarioInputs in;
  for (const api::ResourceClaim& claim : scenario.claims) {
    if (!claim.status.allocation) {
      in.claims.push_back(&claim);
      continue;
    }
    in.state.AddAllocation(*claim.status.allocation,
                           scenario.features.consumable_capacity,
                           ClaimName(claim));
  }
  if (scenario.features.device_taints && !scenario.taint_rules.empty()) {
    in.slices = ApplyTaintRules(scenario.slices, scenario.taint_rules);
  } else {
    in.slices = scenario.slices;
  }
  in.node.metadata.name = scenario.node;
  for (const api::Node& n : scenario.nodes) {
    if (n.metadata.name == scenario.node) in.node = n;
  }
  return in;
}

Outcome RunScenario(const Scenario& scenario, const RunOptions& options) {
  ScenarioInputs in = BuildInputs(scenario);
  Allocator allocator(scenario.features, std::move(in.slices),
                      scenario.classes);
  AllocateOptions opts;
  opts.explain = options.explain;
  opts.fixes = options.fixes;
  if (options.timeout > absl::ZeroDuration()) {
    opts.deadline = absl::Now() + options.timeout;
  }
  return allocator.Allocate(in.node, in.claims, in.state, opts);
}

api::Json ResultDocument(const Scenario& scenario, const Outcome& outcome) {
  api::Json doc = api::Json::object();
  doc["scenario"] = scenario.name;
  doc["node"] = scenario.node;
  doc["error"] = nullptr;
  doc["claims"] = api::Json::array();
  if (const char* cls = OutcomeErrorClass(outcome.kind); *cls != '\0') {
    doc["error"] = api::Json{{"class", cls}, {"message", outcome.message}};
    return doc;
  }
  const bool allocated = outcome.kind == OutcomeKind::kAllocated;
  size_t i = 0;
  for (const api::ResourceClaim& claim : scenario.claims) {
    if (claim.status.allocation) continue;
    api::Json c = api::Json::object();
    c["namespace"] = claim.metadata.namespace_;
    c["name"] = claim.metadata.name;
    c["allocated"] = allocated;
    if (allocated) {
      api::AllocationResult result = outcome.results[i];
      for (auto& r : result.devices.results) {
        if (r.share_id) r.share_id = kSharePlaceholder;
      }
      result.allocation_timestamp.reset();
      c["allocation"] = api::EncodeAllocationResult(result);
    } else if (i < outcome.explanations.size()) {
      c["reasons"] = ToJson(outcome.explanations[i])["requests"];
      if (!outcome.explanations[i].combination.empty()) {
        c["combination"] = outcome.explanations[i].combination;
      }
    }
    doc["claims"].push_back(std::move(c));
    ++i;
  }
  return doc;
}

api::Json InvalidScenarioDocument(std::string_view message) {
  api::Json doc = api::Json::object();
  doc["scenario"] = "";
  doc["node"] = "";
  doc["error"] = api::Json{{"class", "invalid-scenario"}, {"message", message}};
  doc["claims"] = api::Json::array();
  return doc;
}

std::string ResultTable(const Scenario& scenario, const Outcome& outcome) {
  std::string out;
  if (const char* cls = OutcomeErrorClass(outcome.kind); *cls != '\0') {
    return StrCat("error (", cls, "): ", outcome.message, "\n");
  }
  std::vector<std::vector<std::string>> rows = {
      {"CLAIM", "REQUEST", "DRIVER", "POOL", "DEVICE"}};
  size_t i = 0;
  std::string reasons;
  for (const api::ResourceClaim& claim : scenario.claims) {
    if (claim.status.allocation) continue;
    const std::string name = ClaimName(claim);
    if (outcome.kind == OutcomeKind::kAllocated) {
      for (const auto& r : outcome.results[i].devices.results) {
        rows.push_back({name, r.request, r.driver, r.pool, r.device});
      }
    } else {
      rows.push_back({name, "-", "-", "-", "<not allocated>"});
      if (i < outcome.explanations.size()) {
        const ClaimExplanation& e = outcome.explanations[i];
        StrAppend(&reasons, name, ":\n");
        for (const auto& r : e.requests)
          StrAppend(&reasons, "  ", r.summary, "\n");
        if (!e.combination.empty())
          StrAppend(&reasons, "  ", e.combination, ".\n");
      }
    }
    ++i;
  }
  std::vector<size_t> widths(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c)
      widths[c] = std::max(widths[c], row[c].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size())
        line += std::string(widths[c] - row[c].size() + 3, ' ');
    }
    StrAppend(&out, line, "\n");
  }
  if (!reasons.empty()) StrAppend(&out, "\n", reasons);
  return out;
}

}  // namespace draplane::scenario

// PodNodeRequirements::Parse, NodeUsage, ComputeNodeAllocatable and the
// resource bookkeeping of upstream's framework.Resource.
#include <algorithm>
#include <exception>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "common/quantity.h"
#include "common/str_cat.h"
#include "scheduler/node_filters/internal/resource_names.h"
#include "scheduler/node_filters/node_filters.h"

namespace draplane::scheduler::node_filters {
namespace {

using ResourceList = api::ResourceList;

constexpr int64_t kDefaultMilliCpuRequest = 100;                // 0.1 core
constexpr int64_t kDefaultMemoryRequest = 200LL * 1024 * 1024;  // 200Mi

// ---------------------------------------------------------------- JSON
// The JSON type names of Go's encoding/json errors.
std::string JsonTypeName(const api::Json& v) {
  if (v.is_string()) return "string";
  if (v.is_number()) return "number";
  if (v.is_boolean()) return "bool";
  if (v.is_array()) return "array";
  if (v.is_object()) return "object";
  return "null";
}

absl::Status TypeError(const std::string& path, const api::Json& v,
                       std::string_view want) {
  return absl::InvalidArgumentError(StrCat(
      path, ": Invalid value: ", JsonTypeName(v), ": must be of type ", want));
}

// A JSON member that may be absent or null (both mean "not set").
const api::Json* Member(const api::Json& object, const char* name) {
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

absl::StatusOr<std::vector<std::string>> ParseStringList(
    const api::Json& v, const std::string& path) {
  if (!v.is_array()) return TypeError(path, v, "array");
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) {
      return TypeError(StrCat(path, "[", i, "]"), v[i], "string");
    }
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

absl::StatusOr<std::vector<api::NodeSelectorRequirement>> ParseRequirements(
    const api::Json& v, const std::string& path) {
  if (!v.is_array()) return TypeError(path, v, "array");
  std::vector<api::NodeSelectorRequirement> out;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string p = StrCat(path, "[", i, "]");
    if (v[i].is_null()) {
      out.emplace_back();
      continue;
    }
    if (!v[i].is_object()) return TypeError(p, v[i], "object");
    api::NodeSelectorRequirement r;
    if (const api::Json* key = Member(v[i], "key")) {
      if (!key->is_string()) return TypeError(p + ".key", *key, "string");
      r.key = key->get<std::string>();
    }
    if (const api::Json* op = Member(v[i], "operator")) {
      if (!op->is_string()) return TypeError(p + ".operator", *op, "string");
      r.operator_ = op->get<std::string>();
    }
    if (const api::Json* values = Member(v[i], "values")) {
      auto parsed = ParseStringList(*values, p + ".values");
      if (!parsed.ok()) return parsed.status();
      r.values = *std::move(parsed);
    }
    out.push_back(std::move(r));
  }
  return out;
}

// Parses spec.affinity into the required node selector, if any.
absl::StatusOr<std::optional<api::NodeSelector>> ParseRequiredNodeAffinity(
    const std::optional<api::Json>& affinity) {
  std::optional<api::NodeSelector> none;
  if (!affinity.has_value() || affinity->is_null()) return none;
  std::string path = "spec.affinity";
  if (!affinity->is_object()) return TypeError(path, *affinity, "object");
  const api::Json* node_affinity = Member(*affinity, "nodeAffinity");
  if (node_affinity == nullptr) return none;
  path += ".nodeAffinity";
  if (!node_affinity->is_object()) {
    return TypeError(path, *node_affinity, "object");
  }
  const api::Json* required =
      Member(*node_affinity, "requiredDuringSchedulingIgnoredDuringExecution");
  if (required == nullptr) return none;
  path += ".requiredDuringSchedulingIgnoredDuringExecution";
  if (!required->is_object()) return TypeError(path, *required, "object");
  api::NodeSelector selector;
  const api::Json* terms = Member(*required, "nodeSelectorTerms");
  if (terms == nullptr) return selector;
  path += ".nodeSelectorTerms";
  if (!terms->is_array()) return TypeError(path, *terms, "array");
  for (size_t i = 0; i < terms->size(); ++i) {
    const api::Json& term = (*terms)[i];
    const std::string p = StrCat(path, "[", i, "]");
    api::NodeSelectorTerm parsed_term;
    if (!term.is_null()) {
      if (!term.is_object()) return TypeError(p, term, "object");
      if (const api::Json* e = Member(term, "matchExpressions")) {
        auto r = ParseRequirements(*e, p + ".matchExpressions");
        if (!r.ok()) return r.status();
        parsed_term.match_expressions = *std::move(r);
      }
      if (const api::Json* f = Member(term, "matchFields")) {
        auto r = ParseRequirements(*f, p + ".matchFields");
        if (!r.ok()) return r.status();
        parsed_term.match_fields = *std::move(r);
      }
    }
    selector.node_selector_terms.push_back(std::move(parsed_term));
  }
  return selector;
}

// A ResourceList kept in a JSON member the typed model does not have
// (spec.overhead, spec.resources.requests).
absl::StatusOr<ResourceList> ParseResourceList(const api::Json& v,
                                               const std::string& path) {
  if (!v.is_object()) return TypeError(path, v, "object");
  ResourceList out;
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string p = StrCat(path, "[", it.key(), "]");
    absl::StatusOr<Quantity> q;
    if (it->is_string()) {
      q = Quantity::ParseTrimmed(it->get<std::string>());
    } else if (it->is_number_integer()) {
      q = Quantity::Parse(it->dump());
    } else {
      return TypeError(p, *it, "string");
    }
    if (!q.ok()) {
      return absl::InvalidArgumentError(StrCat(
          p, ": Invalid value: ", it->dump(), ": ", StatusMessage(q.status())));
    }
    out[it.key()] = *q;
  }
  return out;
}

// ------------------------------------------------------ ResourceList math
// resourcehelper addResourceList.
absl::Status AddList(ResourceList& list, const ResourceList& more) {
  for (const auto& [name, q] : more) {
    auto it = list.find(name);
    if (it == list.end()) {
      list.emplace(name, q);
    } else if (absl::Status s = it->second.Add(q); !s.ok()) {
      return absl::InvalidArgumentError(
          StrCat("resource ", name, ": ", StatusMessage(s)));
    }
  }
  return absl::OkStatus();
}

// resourcehelper maxResourceList.
void MaxList(ResourceList& list, const ResourceList& more) {
  for (const auto& [name, q] : more) {
    auto it = list.find(name);
    if (it == list.end()) {
      list.emplace(name, q);
    } else if (q.Compare(it->second) > 0) {
      it->second = q;
    }
  }
}

// resourcehelper applyNonMissing: `defaults` for the names `requests` lacks.
ResourceList ApplyNonMissing(const ResourceList& requests,
                             const ResourceList& defaults) {
  ResourceList out = requests;
  for (const auto& [name, q] : defaults) {
    if (requests.find(name) == requests.end()) out[name] = q;
  }
  return out;
}

bool IsRestartableInitContainer(const api::Container& c) {
  auto it = c.unknown_fields.find("restartPolicy");
  return it != c.unknown_fields.end() && it->is_string() &&
         it->get<std::string>() == "Always";
}

bool IsSupportedPodLevelResource(const std::string& name) {
  return name == "cpu" || name == "memory" ||
         name.rfind(internal::kHugePagesPrefix, 0) == 0;
}

// The parts of a pod resourcehelper.PodRequests reads.
struct PodResourceInputs {
  const api::PodSpec* spec = nullptr;
  ResourceList overhead;
  ResourceList pod_level_requests;
  bool pod_level_requests_set = false;  // IsPodLevelRequestsSet
};

// resourcehelper.PodRequests with UseStatusResources false and pod-level
// resources enabled; `non_missing` as NonMissingContainerRequests.
absl::StatusOr<ResourceList> PodRequests(const PodResourceInputs& in,
                                         const ResourceList& non_missing) {
  ResourceList result;
  auto container_requests = [&](const api::Container& c) {
    return non_missing.empty()
               ? c.resources.requests
               : ApplyNonMissing(c.resources.requests, non_missing);
  };
  for (const api::Container& c : in.spec->containers) {
    if (absl::Status s = AddList(result, container_requests(c)); !s.ok()) {
      return s;
    }
  }
  ResourceList restartable;  // cumulative sidecar requests
  ResourceList init_max;
  for (const api::Container& c : in.spec->init_containers) {
    ResourceList requests = container_requests(c);
    if (IsRestartableInitContainer(c)) {
      if (absl::Status s = AddList(result, requests); !s.ok()) return s;
      if (absl::Status s = AddList(restartable, requests); !s.ok()) return s;
      requests = restartable;
    } else {
      if (absl::Status s = AddList(requests, restartable); !s.ok()) return s;
    }
    MaxList(init_max, requests);
  }
  MaxList(result, init_max);
  if (in.pod_level_requests_set) {
    for (const auto& [name, q] : in.pod_level_requests) {
      if (IsSupportedPodLevelResource(name)) result[name] = q;
    }
  }
  if (absl::Status s = AddList(result, in.overhead); !s.ok()) return s;
  return result;
}

// framework.Resource.Add of one ResourceList (pods are not tracked here).
ResourceAmounts ToAmounts(const ResourceList& list) {
  ResourceAmounts out;
  for (const auto& [name, q] : list) {
    if (name == "cpu") {
      out.milli_cpu += q.MilliValue();
    } else if (name == "memory") {
      out.memory += q.Value();
    } else if (name == "ephemeral-storage") {
      out.ephemeral_storage += q.Value();
    } else if (name != "pods" && IsScalarResourceName(name)) {
      out.scalar[name] += q.Value();
    }
  }
  return out;
}

int64_t Get(const ResourceList& list, const char* name, bool milli) {
  auto it = list.find(name);
  if (it == list.end()) return 0;
  return milli ? it->second.MilliValue() : it->second.Value();
}

ResourceList DefaultRequests(bool cpu, bool memory) {
  ResourceList out;
  if (cpu) out["cpu"] = Quantity::FromMilli(kDefaultMilliCpuRequest);
  if (memory) out["memory"] = Quantity::FromInt64(kDefaultMemoryRequest);
  return out;
}

absl::StatusOr<PodNodeRequirements> ParseImpl(const api::Pod& pod) {
  PodNodeRequirements out;
  out.node_name = pod.spec.node_name;
  out.node_selector = pod.spec.node_selector;
  out.tolerations = pod.spec.tolerations;

  auto affinity = ParseRequiredNodeAffinity(pod.spec.affinity);
  if (!affinity.ok()) return affinity.status();
  out.required_node_affinity = *std::move(affinity);

  // NodeAffinity PreFilter's node-name narrowing.
  if (out.required_node_affinity.has_value() &&
      !out.required_node_affinity->node_selector_terms.empty()) {
    std::set<std::string> names;
    bool all_nodes = false;
    for (const api::NodeSelectorTerm& t :
         out.required_node_affinity->node_selector_terms) {
      std::optional<std::set<std::string>> term_names;
      for (const api::NodeSelectorRequirement& r : t.match_fields) {
        if (r.key != "metadata.name" || r.operator_ != "In") continue;
        std::set<std::string> s(r.values.begin(), r.values.end());
        if (!term_names.has_value()) {
          term_names = std::move(s);
        } else {
          std::set<std::string> both;
          std::set_intersection(term_names->begin(), term_names->end(),
                                s.begin(), s.end(),
                                std::inserter(both, both.begin()));
          term_names = std::move(both);
        }
      }
      if (!term_names.has_value()) {
        all_nodes = true;
        break;
      }
      names.insert(term_names->begin(), term_names->end());
    }
    if (!all_nodes) {
      out.affinity_terms_conflict = names.empty();
      out.prefilter_node_names = std::move(names);
    }
  }

  PodResourceInputs in;
  in.spec = &pod.spec;
  if (const api::Json* overhead = Member(pod.spec.unknown_fields, "overhead")) {
    auto list = ParseResourceList(*overhead, "spec.overhead");
    if (!list.ok()) return list.status();
    in.overhead = *std::move(list);
  }
  if (const api::Json* resources =
          Member(pod.spec.unknown_fields, "resources")) {
    if (!resources->is_object()) {
      return TypeError("spec.resources", *resources, "object");
    }
    if (const api::Json* requests = Member(*resources, "requests")) {
      auto list = ParseResourceList(*requests, "spec.resources.requests");
      if (!list.ok()) return list.status();
      in.pod_level_requests = *std::move(list);
      for (const auto& [name, q] : in.pod_level_requests) {
        if (IsSupportedPodLevelResource(name)) in.pod_level_requests_set = true;
      }
    }
  }
  for (const auto* list : {&pod.spec.containers, &pod.spec.init_containers}) {
    for (size_t i = 0; i < list->size(); ++i) {
      auto it = (*list)[i].unknown_fields.find("restartPolicy");
      if (it != (*list)[i].unknown_fields.end() && !it->is_null() &&
          !it->is_string()) {
        return TypeError(
            StrCat(list == &pod.spec.containers ? "spec.containers["
                                                : "spec.initContainers[",
                   i, "].restartPolicy"),
            *it, "string");
      }
    }
  }

  auto requests = PodRequests(in, {});
  if (!requests.ok()) return requests.status();
  // Fit's computePodResourceRequest: SetMaxResource on an empty Resource,
  // so negative amounts count as zero.
  ResourceAmounts amounts = ToAmounts(*requests);
  amounts.milli_cpu = std::max<int64_t>(amounts.milli_cpu, 0);
  amounts.memory = std::max<int64_t>(amounts.memory, 0);
  amounts.ephemeral_storage = std::max<int64_t>(amounts.ephemeral_storage, 0);
  for (auto& [name, v] : amounts.scalar) v = std::max<int64_t>(v, 0);
  out.requests = std::move(amounts);

  // PodInfo.CalculateResource: getNonMissingContainerRequests.
  ResourceList non_missing =
      in.pod_level_requests_set
          ? DefaultRequests(requests->find("cpu") == requests->end(),
                            requests->find("memory") == requests->end())
          : DefaultRequests(true, true);
  ResourceList non_zero = *requests;
  if (!non_missing.empty()) {
    auto r = PodRequests(in, non_missing);
    if (!r.ok()) return r.status();
    non_zero = *std::move(r);
  }
  out.non_zero_milli_cpu = Get(non_zero, "cpu", /*milli=*/true);
  out.non_zero_memory = Get(non_zero, "memory", /*milli=*/false);

  // resourceAllocationScorer.calculatePodResourceRequest (useRequested
  // false): the defaults always.
  auto score = PodRequests(in, DefaultRequests(true, true));
  if (!score.ok()) return score.status();
  out.score_milli_cpu = Get(*score, "cpu", /*milli=*/true);
  out.score_memory = Get(*score, "memory", /*milli=*/false);
  return out;
}

}  // namespace

bool IsScalarResourceName(std::string_view name) {
  return internal::IsScalarResourceName(name);
}

absl::StatusOr<PodNodeRequirements> PodNodeRequirements::Parse(
    const api::Pod& pod) {
  try {
    return ParseImpl(pod);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(
        StrCat("spec: cannot read the pod: ", e.what()));
  }
}

NodeAllocatable ComputeNodeAllocatable(const api::Node& node) {
  NodeAllocatable out;
  out.amounts = ToAmounts(node.status.allocatable);
  auto it = node.status.allocatable.find("pods");
  if (it != node.status.allocatable.end()) out.pods = it->second.Value();
  return out;
}

void NodeUsage::Add(const PodNodeRequirements& pod) {
  ++pods;
  requested.milli_cpu += pod.requests.milli_cpu;
  requested.memory += pod.requests.memory;
  requested.ephemeral_storage += pod.requests.ephemeral_storage;
  for (const auto& [name, v] : pod.requests.scalar) requested.scalar[name] += v;
  non_zero_milli_cpu += pod.non_zero_milli_cpu;
  non_zero_memory += pod.non_zero_memory;
}

void NodeUsage::Remove(const PodNodeRequirements& pod) {
  --pods;
  requested.milli_cpu -= pod.requests.milli_cpu;
  requested.memory -= pod.requests.memory;
  requested.ephemeral_storage -= pod.requests.ephemeral_storage;
  for (const auto& [name, v] : pod.requests.scalar) {
    auto it = requested.scalar.find(name);
    if (it == requested.scalar.end()) continue;
    it->second -= v;
    if (it->second == 0) requested.scalar.erase(it);
  }
  non_zero_milli_cpu -= pod.non_zero_milli_cpu;
  non_zero_memory -= pod.non_zero_memory;
}

}  // namespace draplane::scheduler::node_filters

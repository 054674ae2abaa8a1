#include "mig_planner/mig_planner.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "api/manifest.h"
#include "api/object_codec.h"
#include "common/str_cat.h"
#include "devices/device_model.h"
#include "devices/mig_profiles.h"

namespace draplane::mig_planner {

namespace {

using api::Json;

// One profile of a model, by the name demand uses.
struct ModelProfile {
  std::string name;
  const devices::MigProfileFacts* facts = nullptr;
};

std::vector<ModelProfile> ProfilesOf(const devices::GpuModel& model) {
  std::vector<ModelProfile> out;
  for (const auto& p : model.mig_profiles) {
    out.push_back({devices::MigProfileName(p, model.memory_bytes), &p});
  }
  return out;
}

uint32_t MaxComputeSlices(const devices::GpuModel& model) {
  uint32_t m = 0;
  for (const auto& p : model.mig_profiles) m = std::max(m, p.slice_count);
  return m;
}

uint32_t Mask(const devices::MigPlacement& p) {
  return ((1u << p.size) - 1) << p.start;
}

// What is on one GPU while planning.
struct GpuState {
  uint32_t memory_used = 0;  // slice mask
  uint32_t compute_used = 0;
  std::map<uint32_t, uint32_t> per_profile;  // GI profile id -> instances
  std::vector<PlannedInstance> instances;

  bool Fits(const devices::MigProfileFacts& p, const devices::MigPlacement& at,
            uint32_t max_compute) const {
    if ((memory_used & Mask(at)) != 0) return false;
    if (compute_used + p.slice_count > max_compute) return false;
    auto it = per_profile.find(p.id);
    return it == per_profile.end() || it->second < p.instance_count;
  }
  void Add(const std::string& name, const devices::MigProfileFacts& p,
           const devices::MigPlacement& at) {
    memory_used |= Mask(at);
    compute_used += p.slice_count;
    ++per_profile[p.id];
    instances.push_back({name, p.id, p.slice_count, at, -1});
  }
};

// Every legal layout of `model` made of `names` (demanded profiles), one
// per distinct count vector (counts in `names` order).
struct Layout {
  std::vector<int> counts;
  int64_t slices = 0;
  GpuState state;
};

std::vector<Layout> Layouts(const devices::GpuModel& model,
                            const std::vector<std::string>& names) {
  struct Option {
    int name;
    const devices::MigProfileFacts* facts;
    devices::MigPlacement at;
  };
  std::vector<Option> options;
  for (const ModelProfile& p : ProfilesOf(model)) {
    auto it = std::find(names.begin(), names.end(), p.name);
    if (it == names.end()) continue;
    for (const auto& at : p.facts->placements) {
      options.push_back({static_cast<int>(it - names.begin()), p.facts, at});
    }
  }
  const uint32_t max_compute = MaxComputeSlices(model);
  std::map<std::vector<int>, Layout> seen;
  Layout current;
  current.counts.assign(names.size(), 0);
  // Depth-first over options in order: each subset once.
  auto dfs = [&](auto&& self, size_t from) -> void {
    seen.try_emplace(current.counts, current);
    for (size_t i = from; i < options.size(); ++i) {
      const Option& o = options[i];
      if (!current.state.Fits(*o.facts, o.at, max_compute)) continue;
      Layout saved = current;
      current.state.Add(names[o.name], *o.facts, o.at);
      ++current.counts[o.name];
      current.slices += o.facts->slice_count;
      self(self, i + 1);
      current = std::move(saved);
    }
  };
  dfs(dfs, 0);
  std::vector<Layout> out;
  out.reserve(seen.size());
  for (auto& [counts, layout] : seen) out.push_back(std::move(layout));
  return out;
}

std::vector<std::string> DemandedProfiles(const PlanInput& input) {
  std::vector<std::string> names;
  for (const DemandItem& d : input.demand) {
    if (std::find(names.begin(), names.end(), d.profile) == names.end()) {
      names.push_back(d.profile);
    }
  }
  return names;
}

// Compute slices of `profile` on the first GPU of the inventory offering
// it (names are model-specific; where two models share a name, so do
// their slice counts).
uint32_t SlicesOf(const PlanInput& input, const std::string& profile) {
  for (const GpuGroup& g : input.gpus) {
    for (const ModelProfile& p : ProfilesOf(*g.model)) {
      if (p.name == profile) return p.facts->slice_count;
    }
  }
  return 0;
}

std::vector<PlannedGpu> EmptyGpus(const PlanInput& input) {
  std::vector<PlannedGpu> gpus;
  std::map<std::string, int> per_node;
  for (const GpuGroup& g : input.gpus) {
    for (int i = 0; i < g.count; ++i) {
      gpus.push_back({g.node, per_node[g.node]++, g.model, {}});
    }
  }
  return gpus;
}

// Gives planned instances to demand items in demand order and fills in
// the totals.
void Finish(const PlanInput& input, Plan& plan) {
  plan.satisfied.assign(input.demand.size(), 0);
  for (PlannedGpu& g : plan.gpus) {
    std::sort(g.instances.begin(), g.instances.end(),
              [](const auto& a, const auto& b) {
                return a.placement.start < b.placement.start;
              });
    if (!g.instances.empty()) ++plan.gpus_used;
    for (PlannedInstance& inst : g.instances) {
      if (inst.demand_item < 0) {
        for (size_t d = 0; d < input.demand.size(); ++d) {
          if (input.demand[d].profile == inst.profile &&
              plan.satisfied[d] < input.demand[d].count) {
            inst.demand_item = static_cast<int>(d);
            break;
          }
        }
      }
      if (inst.demand_item >= 0) {
        ++plan.satisfied[inst.demand_item];
        ++plan.instances_satisfied;
        plan.slices_satisfied += inst.compute_slices;
      }
    }
  }
}

Json ToJson(const Plan& plan, const PlanInput& input) {
  Json j;
  j["method"] = plan.method;
  j["gpusUsed"] = plan.gpus_used;
  j["instancesSatisfied"] = plan.instances_satisfied;
  j["slicesSatisfied"] = plan.slices_satisfied;
  Json gpus = Json::array();
  for (const PlannedGpu& g : plan.gpus) {
    Json instances = Json::array();
    for (const PlannedInstance& i : g.instances) {
      Json one = {{"profile", i.profile},
                  {"placementStart", i.placement.start},
                  {"placementSize", i.placement.size}};
      if (i.demand_item >= 0) {
        one["namespace"] = input.demand[i.demand_item].namespace_;
      }
      instances.push_back(one);
    }
    gpus.push_back({{"node", g.node},
                    {"index", g.index},
                    {"model", std::string(g.model->names.front())},
                    {"instances", instances}});
  }
  j["gpus"] = gpus;
  Json demand = Json::array();
  for (size_t d = 0; d < input.demand.size(); ++d) {
    demand.push_back({{"namespace", input.demand[d].namespace_},
                      {"profile", input.demand[d].profile},
                      {"wanted", input.demand[d].count},
                      {"satisfied", plan.satisfied[d]}});
  }
  j["demand"] = demand;
  return j;
}

// ---- input parsing

absl::Status FieldError(std::string_view file, const std::string& path,
                        const std::string& why) {
  return absl::InvalidArgumentError(StrCat(file, ": ", path, ": ", why));
}

absl::StatusOr<Json> OneDocument(std::string_view text, std::string_view name,
                                 const char* list_key) {
  absl::StatusOr<std::vector<api::ManifestDocument>> docs =
      api::ParseManifests(text, name);
  if (!docs.ok()) return docs.status();
  if (docs->size() != 1) {
    return absl::InvalidArgumentError(
        StrCat(name, ": want one YAML document, found ", docs->size()));
  }
  Json j = (*docs)[0].json;
  for (const auto& [key, value] : j.items()) {
    if (key != list_key) {
      return FieldError(name, key,
                        StrCat("unknown field (want \"", list_key, "\")"));
    }
  }
  if (!j.contains(list_key) || !j[list_key].is_array()) {
    return FieldError(name, list_key, "required, a list");
  }
  return j;
}

// A map item whose keys are all in `allowed`.
absl::Status CheckItem(const Json& item, std::string_view file,
                       const std::string& path,
                       const std::vector<std::string>& allowed) {
  if (!item.is_object()) return FieldError(file, path, "must be a map");
  for (const auto& [key, value] : item.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::string names;
      for (const std::string& a : allowed) {
        StrAppend(&names, names.empty() ? "" : ", ", a);
      }
      return FieldError(file, StrCat(path, ".", key),
                        StrCat("unknown field (", names, ")"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int> PositiveCount(const Json& item, std::string_view file,
                                  const std::string& path) {
  if (!item.contains("count"))
    return FieldError(file, path + ".count", "required");
  const Json& c = item["count"];
  if (!c.is_number_integer() || c.get<int64_t>() < 1 ||
      c.get<int64_t>() > 100000) {
    return FieldError(
        file, path + ".count",
        StrCat("must be an integer from 1 to 100000, not ", api::DumpJson(c)));
  }
  return static_cast<int>(c.get<int64_t>());
}

absl::StatusOr<std::string> OptionalString(const Json& item, const char* key,
                                           std::string_view file,
                                           const std::string& path) {
  if (!item.contains(key)) return std::string();
  if (!item[key].is_string()) {
    return FieldError(file, StrCat(path, ".", key), "must be a string");
  }
  return item[key].get<std::string>();
}

}  // namespace

absl::StatusOr<PlanInput> ParsePlanInput(std::string_view inventory_yaml,
                                         std::string_view inventory_name,
                                         std::string_view demand_yaml,
                                         std::string_view demand_name) {
  PlanInput input;
  absl::StatusOr<Json> inv =
      OneDocument(inventory_yaml, inventory_name, "gpus");
  if (!inv.ok()) return inv.status();
  const Json& groups = (*inv)["gpus"];
  for (size_t i = 0; i < groups.size(); ++i) {
    const std::string path = StrCat("gpus[", i, "]");
    const Json& g = groups[i];
    if (absl::Status ok =
            CheckItem(g, inventory_name, path, {"model", "count", "node"});
        !ok.ok()) {
      return ok;
    }
    absl::StatusOr<std::string> model_name =
        OptionalString(g, "model", inventory_name, path);
    if (!model_name.ok()) return model_name.status();
    if (model_name->empty()) {
      return FieldError(inventory_name, path + ".model", "required");
    }
    GpuGroup group;
    group.model = devices::FindGpuModel(*model_name);
    if (group.model == nullptr || !group.model->mig_capable) {
      std::string known;
      for (const auto& m : devices::GpuModels()) {
        if (m.mig_capable)
          StrAppend(&known, known.empty() ? "" : ", ", m.names.front());
      }
      return FieldError(inventory_name, path + ".model",
                        StrCat("\"", *model_name, "\" is ",
                               group.model == nullptr ? "not a known GPU model"
                                                      : "not MIG-capable",
                               " (MIG-capable models: ", known, ")"));
    }
    absl::StatusOr<int> count = PositiveCount(g, inventory_name, path);
    if (!count.ok()) return count.status();
    group.count = *count;
    absl::StatusOr<std::string> node =
        OptionalString(g, "node", inventory_name, path);
    if (!node.ok()) return node.status();
    group.node = node->empty() ? StrCat("node-", i) : *node;
    input.gpus.push_back(group);
  }
  if (input.gpus.empty()) {
    return FieldError(inventory_name, "gpus", "no GPUs");
  }
  absl::StatusOr<Json> dem = OneDocument(demand_yaml, demand_name, "demand");
  if (!dem.ok()) return dem.status();
  const Json& items = (*dem)["demand"];
  std::set<std::string> offered_profiles;
  for (const GpuGroup& g : input.gpus) {
    for (const ModelProfile& p : ProfilesOf(*g.model)) {
      offered_profiles.insert(p.name);
    }
  }
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string path = StrCat("demand[", i, "]");
    const Json& d = items[i];
    if (absl::Status ok =
            CheckItem(d, demand_name, path, {"profile", "count", "namespace"});
        !ok.ok()) {
      return ok;
    }
    DemandItem item;
    absl::StatusOr<std::string> profile =
        OptionalString(d, "profile", demand_name, path);
    if (!profile.ok()) return profile.status();
    if (profile->empty())
      return FieldError(demand_name, path + ".profile", "required");
    item.profile = *profile;
    const bool offered = offered_profiles.count(item.profile) > 0;
    if (!offered) {
      std::string names;
      for (const std::string& n : offered_profiles) {
        StrAppend(&names, names.empty() ? "" : ", ", n);
      }
      return FieldError(demand_name, path + ".profile",
                        StrCat("no GPU of the inventory offers \"",
                               item.profile, "\" (offered: ", names, ")"));
    }
    absl::StatusOr<int> count = PositiveCount(d, demand_name, path);
    if (!count.ok()) return count.status();
    item.count = *count;
    absl::StatusOr<std::string> ns =
        OptionalString(d, "namespace", demand_name, path);
    if (!ns.ok()) return ns.status();
    item.namespace_ = *ns;
    input.demand.push_back(item);
  }
  return input;
}

PlanSummary Summarize(const PlanInput& input) {
  PlanSummary s;
  for (const DemandItem& d : input.demand) {
    s.instances_wanted += d.count;
    s.slices_wanted +=
        static_cast<int64_t>(d.count) * SlicesOf(input, d.profile);
  }
  int64_t capacity = 0;
  for (const GpuGroup& g : input.gpus) {
    capacity += static_cast<int64_t>(g.count) * MaxComputeSlices(*g.model);
  }
  s.slices_upper_bound = std::min(s.slices_wanted, capacity);
  return s;
}

Plan PlanOptimized(const PlanInput& input) {
  Plan plan;
  plan.method = "draplane";
  plan.gpus = EmptyGpus(input);
  const std::vector<std::string> names = DemandedProfiles(input);
  std::vector<int64_t> remaining(names.size(), 0);
  std::vector<int64_t> slices(names.size(), 0);
  for (size_t n = 0; n < names.size(); ++n) {
    slices[n] = SlicesOf(input, names[n]);
    for (const DemandItem& d : input.demand) {
      if (d.profile == names[n]) remaining[n] += d.count;
    }
  }
  std::map<const devices::GpuModel*, std::vector<Layout>> layouts;
  for (const GpuGroup& g : input.gpus) {
    if (layouts.count(g.model) == 0)
      layouts[g.model] = Layouts(*g.model, names);
  }
  std::vector<bool> used(plan.gpus.size(), false);
  while (true) {
    int best_gpu = -1;
    const Layout* best = nullptr;
    int64_t best_value = 0;
    std::set<const devices::GpuModel*> tried;
    for (size_t g = 0; g < plan.gpus.size(); ++g) {
      if (used[g] || !tried.insert(plan.gpus[g].model).second) continue;
      for (const Layout& l : layouts[plan.gpus[g].model]) {
        int64_t value = 0;
        for (size_t n = 0; n < names.size(); ++n) {
          value += std::min<int64_t>(l.counts[n], remaining[n]) * slices[n];
        }
        // More demand covered; then fewer slices spent; then the smaller
        // GPU (memory), keeping big ones for big profiles.
        bool better = value > best_value ||
                      (value == best_value && best != nullptr &&
                       (l.slices < best->slices ||
                        (l.slices == best->slices &&
                         plan.gpus[g].model->memory_bytes <
                             plan.gpus[best_gpu].model->memory_bytes)));
        if (value > 0 && better) {
          best_value = value;
          best = &l;
          best_gpu = static_cast<int>(g);
        }
      }
    }
    if (best == nullptr) break;
    used[best_gpu] = true;
    // Keep only the instances demand still wants.
    std::vector<int64_t> want = remaining;
    for (const PlannedInstance& inst : best->state.instances) {
      size_t n =
          std::find(names.begin(), names.end(), inst.profile) - names.begin();
      if (want[n] <= 0) continue;
      --want[n];
      --remaining[n];
      plan.gpus[best_gpu].instances.push_back(inst);
    }
  }
  Finish(input, plan);
  return plan;
}

Plan PlanFirstFit(const PlanInput& input) {
  Plan plan;
  plan.method = "first-fit";
  plan.gpus = EmptyGpus(input);
  std::vector<GpuState> states(plan.gpus.size());
  for (size_t d = 0; d < input.demand.size(); ++d) {
    const DemandItem& item = input.demand[d];
    for (int k = 0; k < item.count; ++k) {
      bool placed = false;
      for (size_t g = 0; g < plan.gpus.size() && !placed; ++g) {
        const devices::GpuModel& model = *plan.gpus[g].model;
        for (const ModelProfile& p : ProfilesOf(model)) {
          if (p.name != item.profile || placed) continue;
          for (const auto& at : p.facts->placements) {
            if (!states[g].Fits(*p.facts, at, MaxComputeSlices(model)))
              continue;
            states[g].Add(p.name, *p.facts, at);
            states[g].instances.back().demand_item = static_cast<int>(d);
            placed = true;
            break;
          }
        }
      }
    }
  }
  for (size_t g = 0; g < plan.gpus.size(); ++g) {
    plan.gpus[g].instances = states[g].instances;
  }
  Finish(input, plan);
  return plan;
}

std::vector<Json> PublishedSlices(const Plan& plan) {
  std::vector<Json> out;
  std::map<std::string, std::vector<const PlannedGpu*>> by_node;
  std::vector<std::string> order;
  for (const PlannedGpu& g : plan.gpus) {
    if (by_node.count(g.node) == 0) order.push_back(g.node);
    by_node[g.node].push_back(&g);
  }
  for (const std::string& node : order) {
    devices::NodeGpuFacts facts;
    facts.driver_version = "580.95.05";
    facts.cuda_driver_version = 13000;
    for (const PlannedGpu* g : by_node[node]) {
      char bus[32];
      std::snprintf(bus, sizeof(bus), "00000000:%02X:00.0", g->index + 1);
      devices::GpuFacts gpu =
          devices::MakeGpuFacts(*g->model, static_cast<uint32_t>(g->index),
                                StrCat("GPU-plan-", node, "-", g->index), bus);
      gpu.mig_enabled = !g->instances.empty();
      uint32_t gi = 1;
      for (const PlannedInstance& inst : g->instances) {
        devices::MigDeviceFacts mig;
        mig.uuid = StrCat("MIG-plan-", node, "-", g->index, "-", gi);
        mig.gpu_instance_id = gi++;
        mig.profile_id = inst.gi_profile_id;
        mig.placement = inst.placement;
        gpu.mig_devices.push_back(mig);
      }
      facts.gpus.push_back(std::move(gpu));
    }
    devices::DeviceModelOptions options;
    options.dynamic_mig = false;
    devices::NodeDevices devices = devices::BuildNodeDevices(facts, options);
    std::vector<api::ResourceSliceSpec> specs =
        devices::LayoutResourceSlices(devices, node, devices::kNvidiaGpuDriver);
    for (size_t i = 0; i < specs.size(); ++i) {
      api::ResourceSlice slice;
      slice.metadata.name = StrCat(node, "-gpu.nvidia.com-", i);
      slice.spec = specs[i];
      slice.spec.pool.generation = 1;
      absl::StatusOr<Json> json = api::EncodeObject(
          api::Object{{"resource.k8s.io/v1", "ResourceSlice"}, slice});
      if (json.ok()) out.push_back(*std::move(json));
    }
  }
  return out;
}

std::string PlanReport(const PlanInput& input, const Plan& best,
                       const Plan& baseline) {
  const PlanSummary s = Summarize(input);
  int gpus = 0;
  for (const GpuGroup& g : input.gpus) gpus += g.count;
  std::ostringstream out;
  out << "MIG plan for " << gpus << " GPUs; demand " << s.instances_wanted
      << " instances (" << s.slices_wanted << " compute slices; at most "
      << s.slices_upper_bound << " can be satisfied)\n\n";
  char line[256];
  std::snprintf(line, sizeof(line), "%-22s %-16s %-16s\n", "", "draplane",
                "first-fit");
  out << line;
  std::snprintf(
      line, sizeof(line), "%-22s %-16s %-16s\n", "instances satisfied",
      StrCat(best.instances_satisfied, "/", s.instances_wanted).c_str(),
      StrCat(baseline.instances_satisfied, "/", s.instances_wanted).c_str());
  out << line;
  std::snprintf(
      line, sizeof(line), "%-22s %-16s %-16s\n", "slices satisfied",
      StrCat(best.slices_satisfied, "/", s.slices_wanted).c_str(),
      StrCat(baseline.slices_satisfied, "/", s.slices_wanted).c_str());
  out << line;
  std::snprintf(line, sizeof(line), "%-22s %-16d %-16d\n\n", "GPUs used",
                best.gpus_used, baseline.gpus_used);
  out << line;
  out << "Layout (draplane):\n";
  std::snprintf(line, sizeof(line), "%-16s %-4s %-16s %s\n", "NODE", "GPU",
                "MODEL", "INSTANCES (profile@first memory slice)");
  out << line;
  for (const PlannedGpu& g : best.gpus) {
    std::string instances;
    for (const PlannedInstance& i : g.instances) {
      StrAppend(&instances, instances.empty() ? "" : " ", i.profile, "@",
                i.placement.start);
    }
    std::snprintf(
        line, sizeof(line), "%-16s %-4d %-16s %s\n", g.node.c_str(), g.index,
        std::string(g.model->names.front()).c_str(),
        instances.empty() ? "(unused: whole GPU)" : instances.c_str());
    out << line;
  }
  out << "\nDemand:\n";
  std::snprintf(line, sizeof(line), "%-16s %-14s %-7s %-10s %s\n", "NAMESPACE",
                "PROFILE", "WANTED", "DRAPLANE", "FIRST-FIT");
  out << line;
  for (size_t d = 0; d < input.demand.size(); ++d) {
    const DemandItem& item = input.demand[d];
    std::snprintf(line, sizeof(line), "%-16s %-14s %-7d %-10d %d\n",
                  item.namespace_.empty() ? "-" : item.namespace_.c_str(),
                  item.profile.c_str(), item.count, best.satisfied[d],
                  baseline.satisfied[d]);
    out << line;
  }
  return out.str();
}

Json PlanJson(const PlanInput& input, const Plan& best, const Plan& baseline) {
  const PlanSummary s = Summarize(input);
  return {{"instancesWanted", s.instances_wanted},
          {"slicesWanted", s.slices_wanted},
          {"slicesUpperBound", s.slices_upper_bound},
          {"plan", ToJson(best, input)},
          {"baseline", ToJson(baseline, input)}};
}

}  // namespace draplane::mig_planner

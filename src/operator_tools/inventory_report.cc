#include "operator_tools/inventory_report.h"

#include <map>
#include <set>
#include <tuple>

#include "absl/strings/match.h"
#include "common/str_cat.h"
#include "controllers/device_inventory.h"
#include "operator_tools/internal/text_table.h"
#include "operator_tools/pool_view.h"

namespace draplane::operator_tools {
namespace {

std::string GpuResources(const api::ResourceList& list) {
  std::string out;
  for (const auto& [name, quantity] : list) {
    if (!IsGpuExtendedResource(name)) continue;
    StrAppend(&out, out.empty() ? "" : ",", name, "=", quantity.ToString());
  }
  return out;
}

std::string OrDash(const std::string& s) { return s.empty() ? "-" : s; }

}  // namespace

bool IsGpuExtendedResource(const std::string& name) {
  if (name.find('/') == std::string::npos) return false;  // cpu, memory...
  std::string lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(c));
  return lower.find("gpu") != std::string::npos ||
         absl::StartsWith(lower, "nvidia.com/mig-") ||
         absl::StartsWith(lower, "tencent.com/vcuda");
}

namespace {

// Pods with GPU extended resources, and their use per namespace.
void AddExtendedResourcePods(const ClusterSnapshot& snapshot,
                             InventoryReport& report) {
  // Pods with GPU extended resources.
  std::map<std::string, InventoryReport::NamespaceUsage> namespaces;
  for (const ObjectPtr& o : snapshot.pods) {
    const auto* pod = std::get_if<api::Pod>(&o->value);
    if (pod == nullptr) continue;
    std::map<std::string, int64_t> sums;
    for (const auto* list :
         {&pod->spec.containers, &pod->spec.init_containers}) {
      for (const api::Container& c : *list) {
        std::set<std::string> seen;
        for (const auto& [name, q] : c.resources.limits) {
          if (!IsGpuExtendedResource(name)) continue;
          sums[name] += q.Value();
          seen.insert(name);
        }
        for (const auto& [name, q] : c.resources.requests) {
          if (IsGpuExtendedResource(name) && seen.count(name) == 0) {
            sums[name] += q.Value();
          }
        }
      }
    }
    if (sums.empty()) continue;
    InventoryReport::ExtendedResourcePod row;
    row.namespace_ = pod->metadata.namespace_;
    row.name = pod->metadata.name;
    row.node = pod->spec.node_name;
    row.phase = pod->status.phase.empty() ? "Pending" : pod->status.phase;
    for (const auto& [name, n] : sums) {
      StrAppend(&row.resources, row.resources.empty() ? "" : ",", name, "=", n);
      row.gpus += n;
    }
    if (row.phase != "Succeeded" && row.phase != "Failed") {
      auto& ns = namespaces[row.namespace_];
      ns.namespace_ = row.namespace_;
      ++ns.pods;
      ns.gpus += row.gpus;
    }
    report.extended_pods.push_back(std::move(row));
  }
  std::sort(report.extended_pods.begin(), report.extended_pods.end(),
            [](const auto& a, const auto& b) {
              return std::tie(a.namespace_, a.name) <
                     std::tie(b.namespace_, b.name);
            });
  for (auto& [name, usage] : namespaces) report.namespaces.push_back(usage);
}

// Devices per model from the pools as the allocator sees them, and the
// nodes with GPU capacity or DRA devices.
void AddDevicesAndNodes(const ClusterSnapshot& snapshot,
                        InventoryReport& report) {
  // Devices, from the pools as the allocator sees them.
  PoolView pools(snapshot);
  std::set<std::tuple<std::string, std::string, std::string>> allocated;
  for (const ObjectPtr& o : snapshot.claims) {
    const auto* claim = std::get_if<api::ResourceClaim>(&o->value);
    if (claim == nullptr || !claim->status.allocation.has_value()) continue;
    for (const auto& r : claim->status.allocation->devices.results) {
      allocated.insert({r.driver, r.pool, r.device});
    }
  }
  std::map<std::pair<std::string, std::string>, InventoryReport::DeviceModel>
      models;
  std::map<std::pair<std::string, std::string>, std::set<std::string>>
      model_nodes;
  std::map<std::string, std::pair<int, std::set<std::string>>> node_devices;
  for (const PoolView::Pool& pool : pools.pools()) {
    if (!pool.complete()) continue;  // the allocator ignores it too
    for (const PoolView::DeviceRef& d : pool.devices) {
      std::string model = DeviceModelName(*d.device);
      auto& row = models[{pool.driver, model}];
      row.driver = pool.driver;
      row.model = model;
      ++row.devices;
      if (allocated.count({pool.driver, pool.name, d.device->name})) {
        ++row.allocated;
      }
      if (!d.node.empty()) {
        model_nodes[{pool.driver, model}].insert(d.node);
        auto& nd = node_devices[d.node];
        ++nd.first;
        nd.second.insert(pool.driver);
      }
    }
  }
  for (auto& [key, row] : models) {
    row.nodes = static_cast<int>(model_nodes[key].size());
    report.devices.push_back(row);
  }

  // Nodes with GPU capacity or DRA devices.
  for (const ObjectPtr& o : snapshot.nodes) {
    const auto* node = std::get_if<api::Node>(&o->value);
    if (node == nullptr) continue;
    InventoryReport::GpuNode row;
    row.name = node->metadata.name;
    row.ready = NodeReady(*node);
    row.capacity = GpuResources(node->status.capacity);
    row.allocatable = GpuResources(node->status.allocatable);
    auto nd = node_devices.find(row.name);
    if (nd != node_devices.end()) {
      row.dra_devices = nd->second.first;
      for (const std::string& d : nd->second.second) {
        StrAppend(&row.drivers, row.drivers.empty() ? "" : ",", d);
      }
    }
    if (row.capacity.empty() && row.dra_devices == 0) continue;
    report.nodes.push_back(std::move(row));
  }
  std::sort(report.nodes.begin(), report.nodes.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
}

// What each class selects, and the claims by state per namespace.
void AddClassesAndClaims(const ClusterSnapshot& snapshot,
                         InventoryReport& report) {
  // What each class selects.
  controllers::DeviceInventory inventory;
  controllers::Inventory counts = inventory.Compute(
      snapshot.slices, snapshot.device_classes, snapshot.claims);
  for (const auto& [name, selected] : counts.selected) {
    InventoryReport::ClassUsage row;
    row.name = name;
    row.selected = selected;
    for (const auto& [key, c] : counts.by_class) {
      if (key.first != name) continue;
      row.allocated += c.allocated;
      row.available += c.available;
    }
    auto err = counts.class_errors.find(name);
    if (err != counts.class_errors.end()) row.error = err->second;
    report.classes.push_back(std::move(row));
  }

  // Claims by state.
  std::map<std::string, InventoryReport::ClaimStates> claims;
  for (const ObjectPtr& o : snapshot.claims) {
    const auto* claim = std::get_if<api::ResourceClaim>(&o->value);
    if (claim == nullptr) continue;
    auto& row = claims[claim->metadata.namespace_];
    row.namespace_ = claim->metadata.namespace_;
    ++row.total;
    if (claim->metadata.deletion_timestamp.has_value()) {
      ++row.deleting;
    } else if (!claim->status.allocation.has_value()) {
      ++row.pending;
    } else if (claim->status.reserved_for.empty()) {
      ++row.allocated;
    } else {
      ++row.in_use;
    }
  }
  for (auto& [ns, row] : claims) report.claims.push_back(row);
}

}  // namespace

InventoryReport BuildInventory(const ClusterSnapshot& snapshot) {
  InventoryReport report;
  report.dra_served = snapshot.dra_served;
  AddExtendedResourcePods(snapshot, report);
  AddDevicesAndNodes(snapshot, report);
  AddClassesAndClaims(snapshot, report);
  return report;
}

std::string InventoryTable(const InventoryReport& r) {
  std::string out;
  auto section = [&](const std::string& title, const internal::TextTable& t,
                     const std::string& none) {
    StrAppend(&out, out.empty() ? "" : "\n", title, "\n");
    StrAppend(&out, t.rows() == 0 ? StrCat("  ", none, "\n") : t.Render());
  };
  internal::TextTable pods(
      {"NAMESPACE", "NAME", "NODE", "PHASE", "GPU RESOURCES"});
  for (const auto& p : r.extended_pods) {
    pods.AddRow({p.namespace_, p.name, OrDash(p.node), p.phase, p.resources});
  }
  section("Pods using GPUs as extended resources (migrate these):", pods,
          "none");
  internal::TextTable ns({"NAMESPACE", "PODS", "GPUS"});
  for (const auto& n : r.namespaces) {
    ns.AddRow({n.namespace_, std::to_string(n.pods), std::to_string(n.gpus)});
  }
  section("By namespace (active pods):", ns, "none");
  internal::TextTable nodes(
      {"NODE", "READY", "CAPACITY", "ALLOCATABLE", "DRA DEVICES", "DRIVERS"});
  for (const auto& n : r.nodes) {
    nodes.AddRow({n.name, n.ready ? "True" : "False", OrDash(n.capacity),
                  OrDash(n.allocatable), std::to_string(n.dra_devices),
                  OrDash(n.drivers)});
  }
  section("GPU nodes:", nodes, "none");
  if (!r.dra_served) {
    StrAppend(&out,
              "\nresource.k8s.io/v1 is not served by this cluster: no DRA "
              "devices, classes or claims.\n");
    return out;
  }
  internal::TextTable devices(
      {"DRIVER", "MODEL", "DEVICES", "ALLOCATED", "NODES"});
  for (const auto& d : r.devices) {
    devices.AddRow({d.driver, d.model, std::to_string(d.devices),
                    std::to_string(d.allocated), std::to_string(d.nodes)});
  }
  section("DRA devices (ResourceSlices, complete pools):", devices,
          "none published (is a DRA driver installed?)");
  internal::TextTable classes(
      {"DEVICECLASS", "SELECTS", "ALLOCATED", "AVAILABLE", "ERROR"});
  for (const auto& c : r.classes) {
    classes.AddRow({c.name, std::to_string(c.selected),
                    std::to_string(c.allocated), std::to_string(c.available),
                    OrDash(c.error)});
  }
  section("DeviceClasses:", classes, "none");
  internal::TextTable claims(
      {"NAMESPACE", "CLAIMS", "PENDING", "ALLOCATED", "IN USE", "DELETING"});
  for (const auto& c : r.claims) {
    claims.AddRow({c.namespace_, std::to_string(c.total),
                   std::to_string(c.pending), std::to_string(c.allocated),
                   std::to_string(c.in_use), std::to_string(c.deleting)});
  }
  section("ResourceClaims:", claims, "none");
  return out;
}

api::Json InventoryJson(const InventoryReport& r) {
  api::Json out = api::Json::object();
  out["draServed"] = r.dra_served;
  api::Json pods = api::Json::array();
  for (const auto& p : r.extended_pods) {
    pods.push_back({{"namespace", p.namespace_},
                    {"name", p.name},
                    {"node", p.node},
                    {"phase", p.phase},
                    {"resources", p.resources},
                    {"gpus", p.gpus}});
  }
  out["extendedResourcePods"] = std::move(pods);
  api::Json ns = api::Json::array();
  for (const auto& n : r.namespaces) {
    ns.push_back(
        {{"namespace", n.namespace_}, {"pods", n.pods}, {"gpus", n.gpus}});
  }
  out["namespaces"] = std::move(ns);
  api::Json nodes = api::Json::array();
  for (const auto& n : r.nodes) {
    nodes.push_back({{"name", n.name},
                     {"ready", n.ready},
                     {"capacity", n.capacity},
                     {"allocatable", n.allocatable},
                     {"draDevices", n.dra_devices},
                     {"drivers", n.drivers}});
  }
  out["nodes"] = std::move(nodes);
  api::Json devices = api::Json::array();
  for (const auto& d : r.devices) {
    devices.push_back({{"driver", d.driver},
                       {"model", d.model},
                       {"devices", d.devices},
                       {"allocated", d.allocated},
                       {"nodes", d.nodes}});
  }
  out["devices"] = std::move(devices);
  api::Json classes = api::Json::array();
  for (const auto& c : r.classes) {
    api::Json row = {{"name", c.name},
                     {"selected", c.selected},
                     {"allocated", c.allocated},
                     {"available", c.available}};
    if (!c.error.empty()) row["error"] = c.error;
    classes.push_back(std::move(row));
  }
  out["deviceClasses"] = std::move(classes);
  api::Json claims = api::Json::array();
  for (const auto& c : r.claims) {
    claims.push_back({{"namespace", c.namespace_},
                      {"total", c.total},
                      {"pending", c.pending},
                      {"allocated", c.allocated},
                      {"inUse", c.in_use},
                      {"deleting", c.deleting}});
  }
  out["claims"] = std::move(claims);
  return out;
}

}  // namespace draplane::operator_tools

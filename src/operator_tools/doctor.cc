#include "operator_tools/doctor.h"

#include <map>
#include <set>

#include "absl/strings/match.h"
#include "api/helpers/pod_claims.h"
#include "common/str_cat.h"
#include "controllers/device_inventory.h"
#include "operator_tools/cel_match.h"
#include "operator_tools/inventory_report.h"
#include "operator_tools/pending_explainer.h"
#include "operator_tools/pool_view.h"
#include "printers/table_printer.h"

namespace draplane::operator_tools {
namespace {

std::string Age(const ClusterSnapshot& s, const api::ObjectMeta& meta) {
  std::optional<absl::Time> t = ParseTime(meta.creation_timestamp);
  return t ? printers::HumanDuration(s.taken_at - *t) : "?";
}

std::string ClaimRef(const api::ObjectMeta& meta) {
  return StrCat("resourceclaim ", meta.namespace_, "/", meta.name);
}

CheckResult DraApi(const ClusterSnapshot& s) {
  CheckResult r{"dra-api", "resource.k8s.io/v1 is served", {}};
  if (!s.dra_served) {
    r.findings.push_back(
        {Severity::kError, "apiserver",
         StrCat("the DRA API resource.k8s.io/v1 is not served (", s.dra_error,
                "): DRA is GA and on by default from Kubernetes 1.34"),
         "kubectl version; kubectl api-resources --api-group=resource.k8s.io"});
  }
  return r;
}

CheckResult Drivers(const ClusterSnapshot& s, const DoctorOptions& o) {
  CheckResult r{"drivers", "DRA drivers publish devices", {}};
  if (!s.dra_served) return r;
  std::set<std::string> nodes_with_slices;
  for (const ObjectPtr& obj : s.slices) {
    const auto* slice = std::get_if<api::ResourceSlice>(&obj->value);
    if (slice != nullptr && slice->spec.node_name.has_value()) {
      nodes_with_slices.insert(*slice->spec.node_name);
    }
  }
  if (s.slices.empty()) {
    r.findings.push_back(
        {Severity::kError, "cluster",
         "no ResourceSlices: no DRA driver publishes devices, so no claim "
         "can be allocated",
         StrCat("kubectl get pods -n ", o.driver_namespace,
                "   # is the driver installed and running?")});
  }
  for (const ObjectPtr& obj : s.nodes) {
    const auto* node = std::get_if<api::Node>(&obj->value);
    if (node == nullptr || nodes_with_slices.count(node->metadata.name)) {
      continue;
    }
    std::string why;
    for (const auto& [name, q] : node->status.capacity) {
      if (IsGpuExtendedResource(name) && !q.IsZero()) {
        why = StrCat("capacity ", name, "=", q.ToString());
        break;
      }
    }
    auto label = node->metadata.labels.find("nvidia.com/gpu.present");
    if (why.empty() && label != node->metadata.labels.end() &&
        label->second == "true") {
      why = "label nvidia.com/gpu.present=true";
    }
    if (why.empty()) continue;
    r.findings.push_back(
        {Severity::kWarning, StrCat("node ", node->metadata.name),
         StrCat("has GPUs (", why,
                ") but publishes no ResourceSlice: its DRA kubelet plugin is "
                "not running or not registered"),
         StrCat("kubectl get pods -n ", o.driver_namespace, " -l ",
                o.driver_selector,
                " --field-selector spec.nodeName=", node->metadata.name)});
  }
  return r;
}

CheckResult Pools(const ClusterSnapshot& s, const DoctorOptions& o) {
  CheckResult r{"pools", "pools are complete and current", {}};
  PoolView view(s);
  for (const PoolView::Pool& pool : view.pools()) {
    std::string name = StrCat("pool ", pool.driver, "/", pool.name);
    if (!pool.complete()) {
      r.findings.push_back(
          {Severity::kWarning, name,
           StrCat("incomplete: ", pool.slices.size(), " of ",
                  pool.expected_slices, " slices of generation ",
                  pool.generation,
                  " are published; the scheduler ignores the pool's devices "
                  "until all are"),
           StrCat("kubectl get resourceslices --field-selector spec.driver=",
                  pool.driver, " -o wide")});
    }
    for (const api::ResourceSlice* stale : pool.stale) {
      r.findings.push_back(
          {Severity::kWarning, StrCat("resourceslice ", stale->metadata.name),
           StrCat("stale: generation ", stale->spec.pool.generation, " of ",
                  name, ", which is at generation ", pool.generation,
                  " (its driver did not delete it)"),
           StrCat("kubectl delete resourceslice ", stale->metadata.name)});
    }
    std::set<std::string> nodes;
    for (const api::ResourceSlice* slice : pool.slices) {
      if (slice->spec.node_name.has_value())
        nodes.insert(*slice->spec.node_name);
    }
    for (const std::string& node_name : nodes) {
      const api::Node* node = s.FindNode(node_name);
      if (node == nullptr) {
        r.findings.push_back(
            {Severity::kWarning, name,
             StrCat("published for node ", node_name, ", which does not exist"),
             StrCat("kubectl delete resourceslices --field-selector "
                    "spec.nodeName=",
                    node_name)});
      } else if (!NodeReady(*node)) {
        r.findings.push_back(
            {Severity::kWarning, name,
             StrCat("its node ", node_name,
                    " is not Ready: its devices may not be usable"),
             StrCat("kubectl describe node ", node_name,
                    "; kubectl get pods -n ", o.driver_namespace, " -l ",
                    o.driver_selector,
                    " --field-selector spec.nodeName=", node_name)});
      }
    }
  }
  return r;
}

CheckResult DeviceClasses(const ClusterSnapshot& s) {
  CheckResult r{"device-classes", "every DeviceClass selects devices", {}};
  if (!s.dra_served || s.slices.empty()) return r;
  controllers::DeviceInventory inventory;
  controllers::Inventory counts =
      inventory.Compute(s.slices, s.device_classes, s.claims);
  std::vector<api::Object> slices;
  for (const ObjectPtr& o : s.slices) slices.push_back(*o);
  for (const auto& [name, selected] : counts.selected) {
    auto err = counts.class_errors.find(name);
    if (err != counts.class_errors.end()) {
      r.findings.push_back(
          {Severity::kError, StrCat("deviceclass ", name),
           StrCat("its selectors do not compile: ", err->second),
           StrCat("kubectl edit deviceclass ", name)});
      continue;
    }
    if (selected > 0) continue;
    std::string hints;
    std::vector<api::Object> objects = slices;
    for (const ObjectPtr& o : s.device_classes) {
      if (o->type.kind == "DeviceClass" &&
          std::get<api::DeviceClass>(o->value).metadata.name == name) {
        objects.push_back(*o);
      }
    }
    CelMatchFilter filter;
    filter.device_class = name;
    auto reports = RunCelMatch(objects, filter);
    if (reports.ok()) {
      for (const SelectorReport& report : *reports) {
        for (const std::string& h : report.hints) {
          StrAppend(&hints, hints.empty() ? " (" : "; ", h);
        }
      }
      if (!hints.empty()) hints += ")";
    }
    r.findings.push_back(
        {Severity::kWarning, StrCat("deviceclass ", name),
         StrCat("selects none of the ", counts.published_devices,
                " published devices", hints,
                ": claims using it stay pending (failure case 4)"),
         StrCat("kubectl get resourceslices -o yaml > slices.yaml && kubectl "
                "get deviceclass ",
                name,
                " -o yaml > class.yaml && draplane cel match -f slices.yaml "
                "-f class.yaml")});
  }
  return r;
}

CheckResult PendingClaims(const ClusterSnapshot& s, const DoctorOptions& o) {
  CheckResult r{"pending-claims",
                StrCat("no claim pending longer than ",
                       printers::HumanDuration(o.pending_threshold)),
                {}};
  std::unique_ptr<PendingExplainer> explainer;  // built on first use
  for (const ObjectPtr& obj : s.claims) {
    const auto* claim = std::get_if<api::ResourceClaim>(&obj->value);
    if (claim == nullptr || claim->status.allocation.has_value() ||
        claim->metadata.deletion_timestamp.has_value()) {
      continue;
    }
    std::optional<absl::Time> created =
        ParseTime(claim->metadata.creation_timestamp);
    if (!created || s.taken_at - *created < o.pending_threshold) continue;
    std::string why;
    if (explainer == nullptr) explainer = std::make_unique<PendingExplainer>(s);
    absl::StatusOr<Explanation> e = explainer->Claim(
        claim->metadata.namespace_, claim->metadata.name, ExplainOptions{});
    if (e.ok()) {
      if (!e->blocker.empty()) {
        why = e->blocker;
      } else {
        int fit = 0;
        for (const NodeVerdict& v : e->nodes) fit += v.fits;
        why = StrCat(fit, "/", e->nodes.size(), " nodes could allocate it");
        for (const std::string& f : e->facts) {
          if (absl::StartsWith(f, "no pod uses it")) why += "; no pod uses it";
        }
      }
    }
    r.findings.push_back(
        {Severity::kWarning, ClaimRef(claim->metadata),
         StrCat("pending for ", Age(s, claim->metadata),
                why.empty() ? "" : StrCat(": ", why)),
         StrCat("draplane explain claim ", claim->metadata.name, " -n ",
                claim->metadata.namespace_)});
  }
  return r;
}

CheckResult Leaks(const ClusterSnapshot& s) {
  CheckResult r{"leaks", "no devices held for consumers that are gone", {}};
  for (const ObjectPtr& obj : s.claims) {
    const auto* claim = std::get_if<api::ResourceClaim>(&obj->value);
    if (claim == nullptr) continue;
    const api::ObjectMeta& meta = claim->metadata;
    const std::string ref = ClaimRef(meta);
    const bool generated = api::OwningPod(*claim).has_value();
    const std::string delete_fix = StrCat("kubectl delete resourceclaim ",
                                          meta.name, " -n ", meta.namespace_);
    if (meta.deletion_timestamp.has_value()) {
      std::optional<absl::Time> since = ParseTime(meta.deletion_timestamp);
      if (since && s.taken_at - *since > absl::Minutes(5)) {
        r.findings.push_back(
            {Severity::kWarning, ref,
             StrCat("being deleted for ",
                    printers::HumanDuration(s.taken_at - *since),
                    ", held by finalizers ",
                    meta.finalizers.empty() ? "-" : meta.finalizers.front(),
                    claim->status.reserved_for.empty()
                        ? ""
                        : " and reserved for a consumer"),
             "is the resourceclaim controller running? (kube-controller-"
             "manager, or draplane controller)"});
      }
      continue;
    }
    if (!claim->status.allocation.has_value()) continue;
    std::vector<std::string> gone;
    std::vector<std::string> done;
    for (const auto& c : claim->status.reserved_for) {
      if (c.resource != "pods") continue;
      const api::Pod* pod = s.FindPodByUid(c.uid);
      if (pod == nullptr) {
        gone.push_back(c.name);
      } else if (api::IsPodDone(*pod)) {
        done.push_back(StrCat(c.name, " (", pod->status.phase, ")"));
      }
    }
    if (!gone.empty() || !done.empty()) {
      std::string who;
      for (const std::string& g : gone) {
        StrAppend(&who, who.empty() ? "" : ", ", g, " (deleted)");
      }
      for (const std::string& d : done) {
        StrAppend(&who, who.empty() ? "" : ", ", d);
      }
      r.findings.push_back(
          {Severity::kWarning, ref,
           StrCat("holds ", claim->status.allocation->devices.results.size(),
                  " device(s) for pods that will not run again: ", who),
           generated ? StrCat(delete_fix,
                              "   # generated for a pod; the controller "
                              "should have deleted it: is it running?")
                     : StrCat("is the resourceclaim controller running? "
                              "Otherwise: ",
                              delete_fix)});
    } else if (claim->status.reserved_for.empty() &&
               s.taken_at -
                       ParseTime(meta.creation_timestamp).value_or(s.taken_at) >
                   absl::Minutes(1)) {
      r.findings.push_back(
          {Severity::kWarning, ref,
           "allocated but reserved for no consumer: the resourceclaim "
           "controller should have deallocated it",
           "is the resourceclaim controller running? (kube-controller-"
           "manager, or draplane controller)"});
    }
    // Devices on nodes that are gone or down (failure case 2).
    std::set<std::string> nodes;
    for (const auto& result : claim->status.allocation->devices.results) {
      if (const auto* pool = s.PoolNodes(result.driver, result.pool)) {
        nodes.insert(pool->begin(), pool->end());
      }
    }
    for (const std::string& n : nodes) {
      const api::Node* node = s.FindNode(n);
      if (node != nullptr && NodeReady(*node)) continue;
      r.findings.push_back(
          {Severity::kWarning, ref,
           StrCat("holds devices of node ", n,
                  node == nullptr ? ", which is gone" : ", which is not Ready",
                  " (failure case 2: devices leak when a node fails)"),
           StrCat("kubectl get pods -A --field-selector spec.nodeName=", n,
                  "   # delete the pods that used it, then: ", delete_fix)});
    }
  }
  return r;
}

CheckResult Quotas(const ClusterSnapshot& s, const DoctorOptions& o) {
  CheckResult r{"quota",
                StrCat("claim quotas below ",
                       static_cast<int>(o.quota_fraction * 100), " %"),
                {}};
  for (const ObjectPtr& obj : s.quotas) {
    const auto* quota = std::get_if<api::ResourceQuota>(&obj->value);
    if (quota == nullptr) continue;
    for (const auto& [name, hard] : quota->status.hard) {
      if (name.find("resourceclaims") == std::string::npos &&
          name.find("deviceclass.resource.k8s.io") == std::string::npos) {
        continue;
      }
      auto used = quota->status.used.find(name);
      if (used == quota->status.used.end() || hard.IsZero()) continue;
      double fraction =
          used->second.AsApproximateFloat64() / hard.AsApproximateFloat64();
      if (fraction < o.quota_fraction) continue;
      r.findings.push_back(
          {fraction >= 1 ? Severity::kError : Severity::kWarning,
           StrCat("resourcequota ", quota->metadata.namespace_, "/",
                  quota->metadata.name),
           StrCat(name, ": ", used->second.ToString(), " of ", hard.ToString(),
                  " used",
                  fraction >= 1 ? ": new claims are refused (failure case 5; "
                                  "Deployments with claim templates create "
                                  "one claim per replica)"
                                : ""),
           StrCat("kubectl describe resourcequota ", quota->metadata.name,
                  " -n ", quota->metadata.namespace_,
                  "   # raise spec.hard or free claims")});
    }
  }
  return r;
}

CheckResult PluginErrors(const ClusterSnapshot& s, const DoctorOptions& o) {
  CheckResult r{"plugin-errors",
                StrCat("no DRA plugin errors in the last ",
                       printers::HumanDuration(o.event_window)),
                {}};
  struct PerNode {
    int count = 0;
    std::string example;
    std::string pod;
  };
  std::map<std::string, PerNode> nodes;
  for (const ObjectPtr& obj : s.events) {
    const auto* e = std::get_if<api::Event>(&obj->value);
    if (e == nullptr) continue;
    if (e->reason != "FailedPrepareDynamicResources" &&
        e->reason != "FailedUnprepareDynamicResources") {
      continue;
    }
    std::optional<absl::Time> t = ParseTime(e->last_timestamp);
    if (!t) t = ParseTime(e->metadata.creation_timestamp);
    if (t && s.taken_at - *t > o.event_window) continue;
    std::string node = e->source->host;
    if (node.empty()) {
      const api::Pod* pod =
          s.FindPod(e->involved_object.namespace_, e->involved_object.name);
      node = pod != nullptr ? pod->spec.node_name : "";
    }
    PerNode& n = nodes[node.empty() ? "?" : node];
    n.count += std::max(1, e->count);
    n.example = e->message;
    n.pod = StrCat(e->involved_object.namespace_, "/", e->involved_object.name);
  }
  for (const auto& [node, n] : nodes) {
    r.findings.push_back(
        {n.count >= 5 ? Severity::kError : Severity::kWarning,
         StrCat("node ", node),
         StrCat(n.count, " failed prepare/unprepare call(s), e.g. pod ", n.pod,
                ": ", n.example),
         StrCat("kubectl logs -n ", o.driver_namespace, " -l ",
                o.driver_selector, " --tail=50   # on node ", node)});
  }
  return r;
}

CheckResult DeviceTaints(const ClusterSnapshot& s) {
  CheckResult r{"device-taints", "no devices tainted by their driver", {}};
  for (const ObjectPtr& obj : s.slices) {
    const auto* slice = std::get_if<api::ResourceSlice>(&obj->value);
    if (slice == nullptr) continue;
    for (const api::Device& d : slice->spec.devices) {
      for (const api::DeviceTaint& t : d.rare->taints) {
        if (t.effect != "NoSchedule" && t.effect != "NoExecute") continue;
        r.findings.push_back(
            {Severity::kWarning,
             StrCat("device ", slice->spec.driver, "/", slice->spec.pool.name,
                    "/", d.name),
             StrCat("tainted ", t.key, t.value.empty() ? "" : "=", t.value, ":",
                    t.effect,
                    slice->spec.node_name.has_value()
                        ? StrCat(" on node ", *slice->spec.node_name)
                        : "",
                    ": not allocated to claims without a toleration"),
             slice->spec.node_name.has_value()
                 ? StrCat("check the GPU on ", *slice->spec.node_name,
                          " (nvidia-smi -q); the driver clears the taint when "
                          "the device is healthy again")
                 : "check the device's health"});
      }
    }
  }
  return r;
}

Severity Worst(const CheckResult& r) {
  Severity worst = Severity::kInfo;
  for (const Finding& f : r.findings) {
    if (static_cast<int>(f.severity) > static_cast<int>(worst)) {
      worst = f.severity;
    }
  }
  return worst;
}

}  // namespace

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kError:
      return "error";
  }
  return "?";
}

std::vector<CheckResult> RunDoctor(const ClusterSnapshot& snapshot,
                                   const DoctorOptions& options) {
  return {DraApi(snapshot),
          Drivers(snapshot, options),
          Pools(snapshot, options),
          DeviceClasses(snapshot),
          PendingClaims(snapshot, options),
          Leaks(snapshot),
          Quotas(snapshot, options),
          PluginErrors(snapshot, options),
          DeviceTaints(snapshot)};
}

bool HasProblems(const std::vector<CheckResult>& results) {
  for (const CheckResult& r : results) {
    for (const Finding& f : r.findings) {
      if (f.severity != Severity::kInfo) return true;
    }
  }
  return false;
}

std::string DoctorText(const std::vector<CheckResult>& results) {
  std::string out;
  int problems = 0;
  for (const CheckResult& r : results) {
    std::string status =
        r.findings.empty()
            ? "ok"
            : StrCat(SeverityName(Worst(r)), " (", r.findings.size(), ")");
    StrAppend(&out, "[", status, "] ", r.id, ": ", r.title, "\n");
    for (const Finding& f : r.findings) {
      StrAppend(&out, "    ", SeverityName(f.severity), ": ", f.object, ": ",
                f.message, "\n      fix: ", f.fix, "\n");
      problems += f.severity != Severity::kInfo;
    }
  }
  StrAppend(&out, "\n",
            problems == 0 ? "No problems found."
                          : StrCat(problems, " problem(s) found."),
            "\n");
  return out;
}

api::Json DoctorJson(const std::vector<CheckResult>& results) {
  api::Json checks = api::Json::array();
  for (const CheckResult& r : results) {
    api::Json findings = api::Json::array();
    for (const Finding& f : r.findings) {
      findings.push_back({{"severity", std::string(SeverityName(f.severity))},
                          {"object", f.object},
                          {"message", f.message},
                          {"fix", f.fix}});
    }
    checks.push_back(
        {{"id", r.id},
         {"title", r.title},
         {"status", r.findings.empty() ? std::string("ok")
                                       : std::string(SeverityName(Worst(r)))},
         {"findings", std::move(findings)}});
  }
  return api::Json{{"checks", std::move(checks)}};
}

}  // namespace draplane::operator_tools

// Row printers of the kinds draplane serves. Each follows the print
// function of the same kind in upstream's
// pkg/printers/internalversion/printers.go (named in its comment), run
// with GenerateOptions{Wide: true} as the API server does.
#include "printers/internal/kind_printers.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "common/quantity.h"
#include "common/str_cat.h"
#include "printers/internal/column_descriptions.h"
#include "printers/internal/json_access.h"
#include "printers/internal/label_selector.h"
#include "printers/table_printer.h"

namespace draplane::printers::internal {
namespace {

using api::Json;

const Json* Metadata(const Json& object) { return Member(&object, "metadata"); }

std::string Name(const Json& object) {
  return StringValue(Member(Metadata(object), "name"));
}

std::string Age(const Json& object, absl::Time now) {
  return TimeSince(TimeValue(Member(Metadata(object), "creationTimestamp")),
                   now);
}

bool IsBeingDeleted(const Json& object) {
  return IsSet(Member(Metadata(object), "deletionTimestamp"));
}

std::string AsciiLower(std::string s) {
  absl::AsciiStrToLower(&s);
  return s;
}

// Go strings.TrimSpace for ASCII white space (\t \n \v \f \r and space).
std::string TrimSpace(std::string_view s) {
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  size_t begin = s.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return "";
  size_t end = s.find_last_not_of(kSpace);
  return std::string(s.substr(begin, end - begin + 1));
}

// layoutContainerCells: names and images of `containers`, comma-joined.
std::pair<std::string, std::string> ContainerCells(const Json* containers) {
  std::vector<std::string> names;
  std::vector<std::string> images;
  for (const Json& container : ArrayItems(containers)) {
    names.push_back(StringValue(Member(&container, "name")));
    images.push_back(StringValue(Member(&container, "image")));
  }
  return {absl::StrJoin(names, ","), absl::StrJoin(images, ",")};
}

// ---------------------------------------------------------------------------
// Pod: printPod.

// podutil.IsRestartableInitContainer.
bool IsRestartableInitContainer(const Json* container) {
  return container != nullptr &&
         StringValue(Member(container, "restartPolicy")) == "Always";
}

// Whether `conditions` has a condition of `type` with status "True". With
// `first_only`, only the first condition of that type counts (upstream's
// isPodInitializedConditionTrue and hasJobCondition); otherwise any does
// (hasPodReadyCondition).
bool HasConditionWithStatusTrue(const Json* conditions, std::string_view type,
                                bool first_only) {
  for (const Json& condition : ArrayItems(conditions)) {
    if (StringValue(Member(&condition, "type")) != type) continue;
    bool is_true = StringValue(Member(&condition, "status")) == "True";
    if (first_only || is_true) return is_true;
  }
  return false;
}

// The later of `current` and a container status's
// lastState.terminated.finishedAt (metav1.Time.Before on Go's zero time).
void NoteLastRestart(const Json& container_status,
                     std::optional<absl::Time>* current) {
  const Json* terminated = Path(&container_status, {"lastState", "terminated"});
  if (!IsSet(terminated)) return;
  std::optional<absl::Time> finished =
      TimeValue(Member(terminated, "finishedAt"));
  if (finished.has_value() &&
      (!current->has_value() || **current < *finished)) {
    *current = finished;
  }
}

std::string TerminatedReason(const Json* terminated, std::string_view prefix) {
  std::string reason = StringValue(Member(terminated, "reason"));
  if (!reason.empty()) return StrCat(prefix, reason);
  int64_t signal = IntValue(Member(terminated, "signal"));
  if (signal != 0) return StrCat(prefix, "Signal:", signal);
  return StrCat(prefix, "ExitCode:", IntValue(Member(terminated, "exitCode")));
}

// The wide cells of a pod's row: IP, NODE, NOMINATED NODE, READINESS
// GATES. The internal PodStatus.PodIPs is filled from status.podIP when
// status.podIPs is empty (core/v1 conversion).
std::vector<std::string> PodWideCells(const Json* spec, const Json* status,
                                      const Json* conditions) {
  std::string pod_ip;
  const Json& pod_ips = ArrayItems(Member(status, "podIPs"));
  if (!pod_ips.empty()) {
    pod_ip = StringValue(Member(&pod_ips[0], "ip"));
  } else {
    pod_ip = StringValue(Member(status, "podIP"));
  }
  if (pod_ip.empty()) pod_ip = "<none>";
  std::string node_name = StringValue(Member(spec, "nodeName"));
  if (node_name.empty()) node_name = "<none>";
  std::string nominated = StringValue(Member(status, "nominatedNodeName"));
  if (nominated.empty()) nominated = "<none>";
  std::string readiness_gates = "<none>";
  const Json& gates = ArrayItems(Member(spec, "readinessGates"));
  if (!gates.empty()) {
    int64_t true_conditions = 0;
    for (const Json& gate : gates) {
      const std::string type = StringValue(Member(&gate, "conditionType"));
      for (const Json& condition : ArrayItems(conditions)) {
        if (StringValue(Member(&condition, "type")) == type) {
          if (StringValue(Member(&condition, "status")) == "True") {
            ++true_conditions;
          }
          break;
        }
      }
    }
    readiness_gates = StrCat(true_conditions, "/", gates.size());
  }
  return {pod_ip, node_name, nominated, readiness_gates};
}

PrintedRow PrintPod(const Json& pod, absl::Time now) {
  PrintedRow row;
  const Json* spec = Member(&pod, "spec");
  const Json* status = Member(&pod, "status");
  const Json* conditions = Member(status, "conditions");

  int64_t restarts = 0;
  int64_t restartable_init_restarts = 0;
  int64_t total_containers = ArraySize(Member(spec, "containers"));
  int64_t ready_containers = 0;
  std::optional<absl::Time> last_restart;
  std::optional<absl::Time> last_restartable_init_restart;

  const std::string phase = StringValue(Member(status, "phase"));
  std::string reason = phase;
  const std::string status_reason = StringValue(Member(status, "reason"));
  if (!status_reason.empty()) reason = status_reason;

  for (const Json& condition : ArrayItems(conditions)) {
    if (StringValue(Member(&condition, "type")) == "PodScheduled" &&
        StringValue(Member(&condition, "reason")) == "SchedulingGated") {
      reason = "SchedulingGated";
    }
  }

  if (phase == "Succeeded" || phase == "Failed") {
    row.conditions = Json::array();
    row.conditions.push_back(Json{
        {"type", "Completed"},
        {"status", "True"},
        {"reason", phase},
        {"message", phase == "Succeeded" ? "The pod has completed successfully."
                                         : "The pod failed."}});
  }

  std::map<std::string, const Json*> init_containers;
  const Json* spec_init_containers = Member(spec, "initContainers");
  for (const Json& container : ArrayItems(spec_init_containers)) {
    init_containers[StringValue(Member(&container, "name"))] = &container;
    if (IsRestartableInitContainer(&container)) ++total_containers;
  }
  auto init_container = [&](const std::string& name) -> const Json* {
    auto it = init_containers.find(name);
    return it == init_containers.end() ? nullptr : it->second;
  };

  bool initializing = false;
  const Json& init_statuses =
      ArrayItems(Member(status, "initContainerStatuses"));
  for (size_t i = 0; i < init_statuses.size(); ++i) {
    const Json& container = init_statuses[i];
    const std::string container_name = StringValue(Member(&container, "name"));
    const bool restartable =
        IsRestartableInitContainer(init_container(container_name));
    restarts += IntValue(Member(&container, "restartCount"));
    NoteLastRestart(container, &last_restart);
    if (restartable) {
      restartable_init_restarts += IntValue(Member(&container, "restartCount"));
      NoteLastRestart(container, &last_restartable_init_restart);
    }
    const Json* terminated = Path(&container, {"state", "terminated"});
    const Json* waiting = Path(&container, {"state", "waiting"});
    const std::string waiting_reason = StringValue(Member(waiting, "reason"));
    const Json* started = Member(&container, "started");
    if (IsSet(terminated) && IntValue(Member(terminated, "exitCode")) == 0) {
      continue;
    }
    if (restartable && IsSet(started) && BoolValue(started)) {
      if (BoolValue(Member(&container, "ready"))) ++ready_containers;
      continue;
    }
    if (IsSet(terminated)) {
      // Initialization failed.
      reason = TerminatedReason(terminated, "Init:");
    } else if (IsSet(waiting) && !waiting_reason.empty() &&
               waiting_reason != "PodInitializing") {
      reason = StrCat("Init:", waiting_reason);
    } else {
      reason = StrCat("Init:", i, "/", ArraySize(spec_init_containers));
    }
    initializing = true;
    break;
  }

  if (!initializing || HasConditionWithStatusTrue(conditions, "Initialized",
                                                  /*first_only=*/true)) {
    restarts = restartable_init_restarts;
    last_restart = last_restartable_init_restart;
    bool has_running = false;
    std::string error_reason;
    const Json& statuses = ArrayItems(Member(status, "containerStatuses"));
    for (size_t i = statuses.size(); i-- > 0;) {
      const Json& container = statuses[i];
      restarts += IntValue(Member(&container, "restartCount"));
      NoteLastRestart(container, &last_restart);
      const Json* terminated = Path(&container, {"state", "terminated"});
      const Json* waiting = Path(&container, {"state", "waiting"});
      const std::string waiting_reason = StringValue(Member(waiting, "reason"));
      if (IsSet(waiting) && !waiting_reason.empty()) {
        reason = waiting_reason;
      } else if (IsSet(terminated)) {
        reason = TerminatedReason(terminated, "");
        if (IntValue(Member(terminated, "exitCode")) != 0) {
          error_reason = reason;
        }
      } else if (BoolValue(Member(&container, "ready")) &&
                 IsSet(Path(&container, {"state", "running"}))) {
        has_running = true;
        ++ready_containers;
      }
    }
    // Change the pod status back to "Running" if at least one container
    // still reports as running.
    if (reason == "Completed") {
      bool pod_ready = HasConditionWithStatusTrue(conditions, "Ready",
                                                  /*first_only=*/false);
      if (has_running && pod_ready) {
        reason = "Running";
      } else if (!error_reason.empty()) {
        reason = error_reason;
      } else if (has_running) {
        reason = "NotReady";
      }
    }
  }

  if (IsBeingDeleted(pod) && status_reason == "NodeLost") {
    reason = "Unknown";
  } else if (IsBeingDeleted(pod) && phase != "Failed" && phase != "Succeeded") {
    reason = "Terminating";
  }

  std::string restarts_cell = StrCat(restarts);
  if (restarts != 0 && last_restart.has_value()) {
    restarts_cell =
        StrCat(restarts, " (", TimeSince(last_restart, now), " ago)");
  }

  row.cells =
      Json::array({Name(pod), StrCat(ready_containers, "/", total_containers),
                   reason, restarts_cell, Age(pod, now)});
  for (std::string& cell : PodWideCells(spec, status, conditions)) {
    row.cells.push_back(std::move(cell));
  }
  return row;
}

// ---------------------------------------------------------------------------
// Node: printNode.

PrintedRow PrintNode(const Json& node, absl::Time now) {
  const Json* status = Member(&node, "status");
  const Json* node_info = Member(status, "nodeInfo");

  // Upstream keeps the last condition of each type (a map).
  const Json* ready = nullptr;
  for (const Json& condition : ArrayItems(Member(status, "conditions"))) {
    if (StringValue(Member(&condition, "type")) == "Ready") ready = &condition;
  }
  std::vector<std::string> node_status;
  if (ready != nullptr) {
    node_status.push_back(
        StringValue(Member(ready, "status")) == "True" ? "Ready" : "NotReady");
  } else {
    node_status.push_back("Unknown");
  }
  if (BoolValue(Path(&node, {"spec", "unschedulable"}))) {
    node_status.push_back("SchedulingDisabled");
  }

  // findNodeRoles: node-role.kubernetes.io/<role> label keys and the value
  // of the kubernetes.io/role label, sorted and deduplicated.
  constexpr std::string_view kRolePrefix = "node-role.kubernetes.io/";
  std::set<std::string> roles;
  const Json* labels = Member(Metadata(node), "labels");
  if (labels != nullptr && labels->is_object()) {
    for (auto it = labels->begin(); it != labels->end(); ++it) {
      std::string_view key = it.key();
      if (key.substr(0, kRolePrefix.size()) == kRolePrefix) {
        if (key.size() > kRolePrefix.size()) {
          roles.insert(std::string(key.substr(kRolePrefix.size())));
        }
      } else if (key == "kubernetes.io/role") {
        std::string value = StringValue(&it.value());
        if (!value.empty()) roles.insert(value);
      }
    }
  }
  std::string roles_cell = absl::StrJoin(roles, ",");
  if (roles_cell.empty()) roles_cell = "<none>";

  auto address = [&](std::string_view type) {
    for (const Json& entry : ArrayItems(Member(status, "addresses"))) {
      if (StringValue(Member(&entry, "type")) == type) {
        return StringValue(Member(&entry, "address"));
      }
    }
    return std::string("<none>");
  };
  auto or_unknown = [](const std::string& s) {
    return s.empty() ? std::string("<unknown>") : s;
  };
  std::string kernel =
      or_unknown(StringValue(Member(node_info, "kernelVersion")));
  std::string architecture = StringValue(Member(node_info, "architecture"));
  if (!architecture.empty()) StrAppend(&kernel, " (", architecture, ")");

  PrintedRow row;
  row.cells = Json::array(
      {Name(node), absl::StrJoin(node_status, ","), roles_cell, Age(node, now),
       StringValue(Member(node_info, "kubeletVersion")), address("InternalIP"),
       address("ExternalIP"),
       or_unknown(StringValue(Member(node_info, "osImage"))), kernel,
       or_unknown(StringValue(Member(node_info, "containerRuntimeVersion")))});
  return row;
}

// ---------------------------------------------------------------------------
// Event: printEvent.

PrintedRow PrintEvent(const Json& event, absl::Time now) {
  std::optional<absl::Time> first = TimeValue(Member(&event, "firstTimestamp"));
  std::string first_seen =
      first.has_value()
          ? TimeSince(first, now)
          : TimeSince(TimeValue(Member(&event, "eventTime")), now);
  std::optional<absl::Time> last = TimeValue(Member(&event, "lastTimestamp"));
  std::string last_seen = last.has_value() ? TimeSince(last, now) : first_seen;

  int64_t count = IntValue(Member(&event, "count"));
  const Json* series = Member(&event, "series");
  if (IsSet(series)) {
    last_seen = TimeSince(TimeValue(Member(series, "lastObservedTime")), now);
    count = IntValue(Member(series, "count"));
  } else if (count == 0) {
    // Singleton events don't have a count set in the new API.
    count = 1;
  }

  const Json* involved = Member(&event, "involvedObject");
  std::string target = AsciiLower(StringValue(Member(involved, "kind")));
  std::string involved_name = StringValue(Member(involved, "name"));
  if (!involved_name.empty()) StrAppend(&target, "/", involved_name);

  // formatEventSource: component (else reportingComponent), then
  // ", host" (else reportingInstance) when non-empty.
  auto first_non_empty = [](const std::string& a, const std::string& b) {
    return a.empty() ? b : a;
  };
  const Json* source = Member(&event, "source");
  std::string component =
      first_non_empty(StringValue(Member(source, "component")),
                      StringValue(Member(&event, "reportingComponent")));
  std::string instance =
      first_non_empty(StringValue(Member(source, "host")),
                      StringValue(Member(&event, "reportingInstance")));
  std::string source_cell =
      instance.empty() ? component : StrCat(component, ", ", instance);

  PrintedRow row;
  row.cells =
      Json::array({last_seen, StringValue(Member(&event, "type")),
                   StringValue(Member(&event, "reason")), target,
                   StringValue(Member(involved, "fieldPath")), source_cell,
                   TrimSpace(StringValue(Member(&event, "message"))),
                   first_seen, count, Name(event)});
  return row;
}

// ---------------------------------------------------------------------------
// Namespace, Lease: printNamespace, printLease.

PrintedRow PrintNamespace(const Json& ns, absl::Time now) {
  PrintedRow row;
  row.cells = Json::array(
      {Name(ns), StringValue(Path(&ns, {"status", "phase"})), Age(ns, now)});
  return row;
}

PrintedRow PrintLease(const Json& lease, absl::Time now) {
  PrintedRow row;
  row.cells = Json::array(
      {Name(lease), StringValue(Path(&lease, {"spec", "holderIdentity"})),
       Age(lease, now)});
  return row;
}

// ---------------------------------------------------------------------------
// ServiceAccount: printServiceAccount.

PrintedRow PrintServiceAccount(const Json& account, absl::Time now) {
  PrintedRow row;
  row.cells = Json::array({Name(account), Age(account, now)});
  return row;
}

// ---------------------------------------------------------------------------
// ResourceQuota: printResourceQuota.

// A quantity as upstream's Quantity.String() prints what it decoded from
// JSON (strings, and bare JSON numbers, which UnmarshalJSON accepts too).
std::string QuantityText(const Json* value) {
  std::string text;
  if (value == nullptr) return "0";  // The zero Quantity.
  if (value->is_string()) {
    text = value->get_ref<const std::string&>();
  } else if (value->is_number()) {
    text = value->dump();
  } else {
    return "0";
  }
  absl::StatusOr<Quantity> quantity = Quantity::ParseTrimmed(text);
  if (!quantity.ok()) return text;
  return quantity->ToString();
}

PrintedRow PrintResourceQuota(const Json& quota, absl::Time now) {
  const Json* hard = Path(&quota, {"status", "hard"});
  const Json* used = Path(&quota, {"status", "used"});
  std::vector<std::string> resources;
  if (hard != nullptr && hard->is_object()) {
    for (auto it = hard->begin(); it != hard->end(); ++it) {
      resources.push_back(it.key());
    }
  }
  std::sort(resources.begin(), resources.end());
  std::vector<std::string> requests;
  std::vector<std::string> limits;
  for (const std::string& resource : resources) {
    std::string entry =
        StrCat(resource, ": ", QuantityText(Member(used, resource)), "/",
               QuantityText(Member(hard, resource)));
    // A name with a "limits" segment before its first "." goes to LIMIT.
    size_t dot = resource.find('.');
    if (dot != std::string::npos && resource.substr(0, dot) == "limits") {
      limits.push_back(std::move(entry));
    } else {
      requests.push_back(std::move(entry));
    }
  }
  PrintedRow row;
  row.cells = Json::array({Name(quota), absl::StrJoin(requests, ", "),
                           absl::StrJoin(limits, ", "), Age(quota, now)});
  return row;
}

// ---------------------------------------------------------------------------
// Deployment: printDeployment.

PrintedRow PrintDeployment(const Json& deployment, absl::Time now) {
  const Json* spec = Member(&deployment, "spec");
  const Json* status = Member(&deployment, "status");
  // Stored Deployments always carry spec.replicas: apps/v1 defaulting sets
  // 1 when it is absent.
  const Json* replicas_json = Member(spec, "replicas");
  int64_t desired = IsSet(replicas_json) ? IntValue(replicas_json) : 1;
  absl::StatusOr<std::string> selector =
      LabelSelectorString(Member(spec, "selector"));
  auto [containers, images] =
      ContainerCells(Path(spec, {"template", "spec", "containers"}));
  PrintedRow row;
  row.cells = Json::array(
      {Name(deployment),
       StrCat(IntValue(Member(status, "readyReplicas")), "/", desired),
       IntValue(Member(status, "updatedReplicas")),
       IntValue(Member(status, "availableReplicas")), Age(deployment, now),
       containers, images, selector.ok() ? *selector : "<invalid>"});
  return row;
}

// ---------------------------------------------------------------------------
// Job: printJob.

PrintedRow PrintJob(const Json& job, absl::Time now) {
  const Json* spec = Member(&job, "spec");
  const Json* status = Member(&job, "status");
  const int64_t succeeded = IntValue(Member(status, "succeeded"));

  std::string completions;
  const Json* spec_completions = Member(spec, "completions");
  if (IsSet(spec_completions)) {
    completions = StrCat(succeeded, "/", IntValue(spec_completions));
  } else {
    int64_t parallelism = IntValue(Member(spec, "parallelism"));
    completions = parallelism > 1 ? StrCat(succeeded, "/1 of ", parallelism)
                                  : StrCat(succeeded, "/1");
  }

  std::string duration;
  std::optional<absl::Time> start = TimeValue(Member(status, "startTime"));
  std::optional<absl::Time> completion =
      TimeValue(Member(status, "completionTime"));
  if (start.has_value()) {
    duration =
        HumanDuration((completion.has_value() ? *completion : now) - *start);
  }

  // hasJobCondition: the first condition of the type decides.
  const Json* conditions = Member(status, "conditions");
  auto has = [&](std::string_view type) {
    return HasConditionWithStatusTrue(conditions, type, /*first_only=*/true);
  };
  std::string job_status;
  if (has("Complete")) {
    job_status = "Complete";
  } else if (has("Failed")) {
    job_status = "Failed";
  } else if (IsBeingDeleted(job)) {
    job_status = "Terminating";
  } else if (has("Suspended")) {
    job_status = "Suspended";
  } else if (has("FailureTarget")) {
    job_status = "FailureTarget";
  } else if (has("SuccessCriteriaMet")) {
    job_status = "SuccessCriteriaMet";
  } else {
    job_status = "Running";
  }

  // metav1.FormatLabelSelector.
  absl::StatusOr<std::string> selector =
      LabelSelectorString(Member(spec, "selector"));
  std::string selector_cell = "<error>";
  if (selector.ok()) selector_cell = selector->empty() ? "<none>" : *selector;

  auto [containers, images] =
      ContainerCells(Path(spec, {"template", "spec", "containers"}));
  PrintedRow row;
  row.cells = Json::array({Name(job), job_status, completions, duration,
                           Age(job, now), containers, images, selector_cell});
  return row;
}

// ---------------------------------------------------------------------------
// resource.k8s.io: printDeviceClass, printResourceClaim (resourceClaimState),
// printResourceClaimTemplate, printResourceSlice, printDeviceTaint.

PrintedRow PrintNameAge(const Json& object, absl::Time now) {
  PrintedRow row;
  row.cells = Json::array({Name(object), Age(object, now)});
  return row;
}

PrintedRow PrintResourceClaim(const Json& claim, absl::Time now) {
  std::vector<std::string> states;
  const bool deleted = IsBeingDeleted(claim);
  if (deleted) states.push_back("deleted");
  const Json* status = Member(&claim, "status");
  if (!IsSet(Member(status, "allocation"))) {
    if (!deleted) states.push_back("pending");
  } else {
    states.push_back("allocated");
    if (ArraySize(Member(status, "reservedFor")) > 0) {
      states.push_back("reserved");
    }
  }
  PrintedRow row;
  row.cells =
      Json::array({Name(claim), absl::StrJoin(states, ","), Age(claim, now)});
  return row;
}

PrintedRow PrintResourceSlice(const Json& slice, absl::Time now) {
  const Json* spec = Member(&slice, "spec");
  PrintedRow row;
  row.cells =
      Json::array({Name(slice), StringValue(Member(spec, "nodeName")),
                   StringValue(Member(spec, "driver")),
                   StringValue(Path(spec, {"pool", "name"})), Age(slice, now),
                   // draplane extension: the DEVICES column.
                   ArraySize(Member(spec, "devices"))});
  return row;
}

PrintedRow PrintDeviceTaintRule(const Json& rule, absl::Time now) {
  const Json* taint = Path(&rule, {"spec", "taint"});
  std::string time_added;
  const Json* added = Member(taint, "timeAdded");
  if (IsSet(added)) time_added = TimeSince(TimeValue(added), now);
  PrintedRow row;
  row.cells = Json::array({Name(rule), StringValue(Member(taint, "key")),
                           StringValue(Member(taint, "value")),
                           StringValue(Member(taint, "effect")), time_added,
                           Age(rule, now)});
  return row;
}

// ---------------------------------------------------------------------------
// Default table: apiserver registry/rest defaultTableConvertor.

PrintedRow PrintDefault(const Json& object, absl::Time now) {
  std::optional<absl::Time> created =
      TimeValue(Member(Metadata(object), "creationTimestamp"));
  // Go's zero time formats as 0001-01-01T00:00:00Z.
  absl::Time time = created.has_value()
                        ? *created
                        : absl::FromCivil(absl::CivilSecond(1, 1, 1, 0, 0, 0),
                                          absl::UTCTimeZone());
  // Go's time.RFC3339 layout pads the year to four digits.
  const absl::CivilSecond c = absl::ToCivilSecond(time, absl::UTCTimeZone());
  PrintedRow row;
  row.cells = Json::array(
      {Name(object),
       absl::StrFormat("%04d-%02d-%02dT%02d:%02d:%02dZ", c.year(), c.month(),
                       c.day(), c.hour(), c.minute(), c.second())});
  return row;
}

// ---------------------------------------------------------------------------
// RoleBinding, ClusterRoleBinding: printRoleBinding,
// printClusterRoleBinding (the server prints wide: users, groups and
// service accounts as rbac.SubjectsStrings lists them).

PrintedRow PrintBinding(const Json& binding, absl::Time now) {
  const Json* ref = Member(&binding, "roleRef");
  std::vector<std::string> users;
  std::vector<std::string> groups;
  std::vector<std::string> service_accounts;
  if (const Json* subjects = Member(&binding, "subjects");
      subjects != nullptr && subjects->is_array()) {
    for (const Json& s : *subjects) {
      const std::string kind = StringValue(Member(&s, "kind"));
      const std::string name = StringValue(Member(&s, "name"));
      if (kind == "ServiceAccount") {
        service_accounts.push_back(
            StrCat(StringValue(Member(&s, "namespace")), "/", name));
      } else if (kind == "User") {
        users.push_back(name);
      } else if (kind == "Group") {
        groups.push_back(name);
      }
    }
  }
  PrintedRow row;
  row.cells = Json::array({Name(binding),
                           StrCat(StringValue(Member(ref, "kind")), "/",
                                  StringValue(Member(ref, "name"))),
                           Age(binding, now), absl::StrJoin(users, ", "),
                           absl::StrJoin(groups, ", "),
                           absl::StrJoin(service_accounts, ", ")});
  return row;
}

// ---------------------------------------------------------------------------
// Column definitions.

constexpr ColumnDefinition NameColumn() {
  return {"Name", "string", "name", kObjectMetaName, 0};
}
constexpr ColumnDefinition AgeColumn() {
  return {"Age", "string", "", kObjectMetaCreationTimestamp, 0};
}
constexpr ColumnDefinition Column(std::string_view name,
                                  std::string_view description,
                                  int priority = 0,
                                  std::string_view type = "string") {
  return {name, type, "", description, priority};
}

constexpr std::string_view kContainersDescription =
    "Names of each container in the template.";
constexpr std::string_view kImagesDescription =
    "Images referenced by each container in the template.";

const std::vector<KindPrinter>& KindPrinters() {
  static const auto* printers = new std::vector<KindPrinter>{
      {"resource.k8s.io",
       "DeviceClass",
       {NameColumn(), AgeColumn()},
       &PrintNameAge},
      {"resource.k8s.io",
       "ResourceClaim",
       {NameColumn(),
        Column("State",
               "A summary of the current state (allocated, pending, reserved, "
               "etc.)."),
        AgeColumn()},
       &PrintResourceClaim},
      {"resource.k8s.io",
       "ResourceClaimTemplate",
       {NameColumn(), AgeColumn()},
       &PrintNameAge},
      {"resource.k8s.io",
       "ResourceSlice",
       {NameColumn(), Column("Node", kResourceSliceSpecNodeName),
        Column("Driver", kResourceSliceSpecDriver),
        Column("Pool", kResourcePoolName), AgeColumn(),
        Column("Devices",
               "The number of devices in spec.devices (a draplane column; "
               "upstream does not print it).",
               1, "integer")},
       &PrintResourceSlice},
      {"resource.k8s.io",
       "DeviceTaintRule",
       {NameColumn(), Column("Key", kDeviceTaintKey),
        Column("Value", kDeviceTaintValue),
        Column("Effect", kDeviceTaintEffect),
        Column("TimeAdded", kDeviceTaintTimeAdded), AgeColumn()},
       &PrintDeviceTaintRule},
      {"",
       "Namespace",
       {NameColumn(), Column("Status", "The status of the namespace"),
        AgeColumn()},
       &PrintNamespace},
      {"",
       "Node",
       {NameColumn(), Column("Status", "The status of the node"),
        Column("Roles", "The roles of the node"), AgeColumn(),
        Column("Version", kNodeSystemInfoKubeletVersion),
        Column("Internal-IP", kNodeStatusAddresses, 1),
        Column("External-IP", kNodeStatusAddresses, 1),
        Column("OS-Image", kNodeSystemInfoOSImage, 1),
        Column("Kernel-Version", kNodeSystemInfoKernelVersion, 1),
        Column("Container-Runtime", kNodeSystemInfoContainerRuntimeVersion, 1)},
       &PrintNode},
      {"",
       "Pod",
       {NameColumn(),
        Column("Ready",
               "The aggregate readiness state of this pod for accepting "
               "traffic."),
        Column("Status", "The aggregate status of the containers in this pod."),
        Column("Restarts",
               "The number of times the containers in this pod have been "
               "restarted and when the last container in this pod has "
               "restarted."),
        AgeColumn(), Column("IP", kPodStatusPodIP, 1),
        Column("Node", kPodSpecNodeName, 1),
        Column("Nominated Node", kPodStatusNominatedNodeName, 1),
        Column("Readiness Gates", kPodSpecReadinessGates, 1)},
       &PrintPod},
      {"",
       "Event",
       {Column("Last Seen", kEventLastTimestamp),
        Column("Type", kEventType),
        Column("Reason", kEventReason),
        Column("Object", kEventInvolvedObject),
        Column("Subobject", kObjectReferenceFieldPath, 1),
        Column("Source", kEventSource, 1),
        Column("Message", kEventMessage),
        Column("First Seen", kEventFirstTimestamp, 1),
        Column("Count", kEventCount, 1),
        {"Name", "string", "name", kObjectMetaName, 1}},
       &PrintEvent},
      {"",
       "ResourceQuota",
       {NameColumn(),
        Column("Request",
               "Request represents a minimum amount of cpu/memory that a "
               "container may consume."),
        Column("Limit",
               "Limits control the maximum amount of cpu/memory that a "
               "container may use independent of contention on the node."),
        AgeColumn()},
       &PrintResourceQuota},
      {"", "ServiceAccount", {NameColumn(), AgeColumn()}, &PrintServiceAccount},
      {"coordination.k8s.io",
       "Lease",
       {NameColumn(), Column("Holder", kLeaseSpecHolderIdentity), AgeColumn()},
       &PrintLease},
      {"apps",
       "Deployment",
       {NameColumn(), Column("Ready", "Number of the pod with ready state"),
        Column("Up-to-date", kDeploymentStatusUpdatedReplicas),
        Column("Available", kDeploymentStatusAvailableReplicas), AgeColumn(),
        Column("Containers", kContainersDescription, 1),
        Column("Images", kImagesDescription, 1),
        Column("Selector", kDeploymentSpecSelector, 1)},
       &PrintDeployment},
      {"batch",
       "Job",
       {NameColumn(), Column("Status", "Status of the job."),
        Column("Completions", kJobStatusSucceeded),
        Column("Duration", "Time required to complete the job."), AgeColumn(),
        Column("Containers", kContainersDescription, 1),
        Column("Images", kImagesDescription, 1),
        Column("Selector", kJobSpecSelector, 1)},
       &PrintJob},
      {"rbac.authorization.k8s.io",
       "RoleBinding",
       {NameColumn(),
        Column("Role",
               "roleRef can reference a Role in the current namespace or a "
               "ClusterRole in the global namespace. If the RoleRef cannot be "
               "resolved, the Authorizer must return an error."),
        AgeColumn(), Column("Users", "Users in the roleBinding", 1),
        Column("Groups", "Groups in the roleBinding", 1),
        Column("ServiceAccounts", "ServiceAccounts in the roleBinding", 1)},
       &PrintBinding},
      {"rbac.authorization.k8s.io",
       "ClusterRoleBinding",
       {NameColumn(),
        Column("Role",
               "roleRef can only reference a ClusterRole in the global "
               "namespace. If the RoleRef cannot be resolved, the Authorizer "
               "must return an error."),
        AgeColumn(), Column("Users", "Users in the clusterRoleBinding", 1),
        Column("Groups", "Groups in the clusterRoleBinding", 1),
        Column("ServiceAccounts", "ServiceAccounts in the clusterRoleBinding",
               1)},
       &PrintBinding},
  };
  return *printers;
}

}  // namespace

const KindPrinter* FindKindPrinter(std::string_view group,
                                   std::string_view kind) {
  for (const KindPrinter& printer : KindPrinters()) {
    if (printer.group == group && printer.kind == kind) return &printer;
  }
  return nullptr;
}

const KindPrinter& DefaultPrinter() {
  static const auto* printer = new KindPrinter{
      "",
      "",
      {NameColumn(),
       {"Created At", "date", "", kObjectMetaCreationTimestamp, 0}},
      &PrintDefault};
  return *printer;
}

}  // namespace draplane::printers::internal

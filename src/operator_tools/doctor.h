// `draplane doctor`: the guide's production checklist and failure
// cases, as far as a program can check them against a live cluster. Each
// check reports findings with the object, what is wrong and the command
// that fixes it (or finds out more).
//
// Checks, in order:
//   dra-api         resource.k8s.io/v1 is served
//   drivers         some driver publishes ResourceSlices; nodes with GPU
//                   capacity or GPU labels but no slices
//   pools           incomplete pools, stale slices of older generations,
//                   slices of nodes that are gone or not Ready
//   device-classes  classes whose selectors do not compile or select no
//                   published device (with the closest attribute names)
//   pending-claims  claims without allocation older than the threshold
//                   (default 5 minutes, the guide's alert), with the reason
//   leaks           allocated claims whose consumers are gone or finished,
//                   allocated claims reserved for nothing, claims stuck in
//                   deletion, devices allocated on nodes that are gone or
//                   not Ready (failure case 2)
//   quota           ResourceQuotas on claims or devices at >= 90 % of hard
//   plugin-errors   FailedPrepareDynamicResources / FailedUnprepare...
//                   events within the last hour, per node
//   device-taints   devices tainted NoSchedule/NoExecute by their driver
//                   (e.g. GPU XID errors)
#ifndef DRAPLANE_OPERATOR_TOOLS_DOCTOR_H_
#define DRAPLANE_OPERATOR_TOOLS_DOCTOR_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "api/meta_types.h"
#include "operator_tools/cluster_snapshot.h"

namespace draplane::operator_tools {

enum class Severity { kInfo, kWarning, kError };
std::string_view SeverityName(Severity s);  // "info" | "warning" | "error"

struct Finding {
  Severity severity = Severity::kWarning;
  std::string object;   // "resourceclaim ml/x", "node gpu-3"
  std::string message;  // what is wrong
  std::string fix;      // a command (or commands) to run
};

struct CheckResult {
  std::string id;     // "pending-claims"
  std::string title;  // "claims pending longer than 5m"
  std::vector<Finding> findings;
};

struct DoctorOptions {
  absl::Duration pending_threshold = absl::Minutes(5);
  double quota_fraction = 0.9;
  absl::Duration event_window = absl::Hours(1);
  // Where the driver's kubelet plugin runs, for the fix commands.
  std::string driver_namespace = "nvidia-dra-driver";
  std::string driver_selector = "app=nvidia-dra-driver-kubelet-plugin";
};

std::vector<CheckResult> RunDoctor(const ClusterSnapshot& snapshot,
                                   const DoctorOptions& options);

// Whether any finding is a warning or an error.
bool HasProblems(const std::vector<CheckResult>& results);

// One line per check (ok, or the number of findings), then the findings
// with their fixes.
std::string DoctorText(const std::vector<CheckResult>& results);
// {"checks": [{"id", "title", "status": "ok"|"info"|"warning"|"error",
//   "findings": [{"severity", "object", "message", "fix"}]}]}
api::Json DoctorJson(const std::vector<CheckResult>& results);

}  // namespace draplane::operator_tools

#endif  // DRAPLANE_OPERATOR_TOOLS_DOCTOR_H_

// `draplane cel match`: which devices each DRA selector matches, and why a
// selector matches none (the guide's failure case 4, "my DeviceClass
// matches nothing").
#ifndef DRAPLANE_OPERATOR_TOOLS_CEL_MATCH_H_
#define DRAPLANE_OPERATOR_TOOLS_CEL_MATCH_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "api/meta_types.h"
#include "api/object.h"

namespace draplane::operator_tools {

struct CelMatchFilter {
  // Only this DeviceClass ("" = all).
  std::string device_class;
  // Only this claim or claim template, "namespace/name" ("" = all).
  std::string claim;
};

// One device's outcome for one selector set.
struct DeviceMatch {
  std::string device;  // "driver/pool/device"
  enum class Result { kMatch, kNoMatch, kError };
  Result result = Result::kNoMatch;
  // kNoMatch: which selector said false (for requests: "class X selector
  // #0" or "request selector #1"); kError: the runtime error.
  std::string detail;
};

// The evaluation of one DeviceClass selector, or of one claim request
// (its class's selectors then its own, in upstream's order).
struct SelectorReport {
  // "deviceclass/gpu.nvidia.com-a100 selector #0" or
  // "resourceclaim/ml-workloads/training-gpu-claim request gpu".
  std::string source;
  std::vector<std::string> expressions;
  // Set when a selector does not compile or the request's class is
  // missing; then `devices` is empty.
  std::optional<std::string> error;
  std::vector<DeviceMatch> devices;
  int matched = 0;
  // For a report that matches no device: what the selectors read that no
  // device publishes, with the closest published names or values.
  std::vector<std::string> hints;
};

// Evaluates the selectors of the DeviceClasses, ResourceClaims and
// ResourceClaimTemplates in `objects` against every device of the
// ResourceSlices in `objects`. Fails (NotFound) when the filter names an
// object that is not there, or (InvalidArgument) when there are no
// ResourceSlices or a device cannot be converted for CEL.
absl::StatusOr<std::vector<SelectorReport>> RunCelMatch(
    const std::vector<api::Object>& objects, const CelMatchFilter& filter);

// Renders reports as the default table.
std::string FormatCelMatchTable(const std::vector<SelectorReport>& reports);
// Renders reports as JSON: {"selectors": [{"source", "expressions",
// "error"?, "matched", "devices": [{"device", "result", "detail"?}],
// "hints"}]}.
api::Json CelMatchJson(const std::vector<SelectorReport>& reports);

}  // namespace draplane::operator_tools

#endif  // DRAPLANE_OPERATOR_TOOLS_CEL_MATCH_H_

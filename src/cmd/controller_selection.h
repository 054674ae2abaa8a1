// Which controllers `draplane controller` runs, chosen as
// kube-controller-manager's --controllers chooses (IsControllerEnabled):
// a comma-separated list where "*" enables every controller that is on by
// default, "foo" enables foo and "-foo" disables it; the first entry that
// names a controller decides for it.
#ifndef DRAPLANE_CMD_CONTROLLER_SELECTION_H_
#define DRAPLANE_CMD_CONTROLLER_SELECTION_H_

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace draplane::cmd {

// kube-controller-manager's names for the controllers draplane shares with
// it, and draplane's own.
inline constexpr std::string_view kResourceClaimController =
    "resourceclaim-controller";
inline constexpr std::string_view kNodeLifecycleController =
    "node-lifecycle-controller";
inline constexpr std::string_view kResourceQuotaController =
    "resourcequota-controller";
inline constexpr std::string_view kDraMonitor = "dra-monitor";

// Every controller, all on by default.
std::vector<std::string> KnownControllers();

// The enabled controllers; InvalidArgument with kube-controller-manager's
// text ("\"foo\" is not in the list of known controllers") for an unknown
// name.
absl::StatusOr<std::set<std::string>> SelectControllers(std::string_view spec);

}  // namespace draplane::cmd

#endif  // DRAPLANE_CMD_CONTROLLER_SELECTION_H_

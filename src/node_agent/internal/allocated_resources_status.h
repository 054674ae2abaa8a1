// What the kubelet writes in a running pod's
// status.containerStatuses[].allocatedResourcesStatus (KEP-4680, kubelet
// 1.37's dra manager): for each claim a container uses, an entry named
// "claim:<pod claim name>" (or "claim:<name>/<request>" for a reference to
// one request) listing the devices prepared for it, each by its first CDI
// device ID (or "<driver>/<pool>/<device>" without one), with the health
// the plugin last reported ("Unknown" without a report) and its message.
#ifndef DRAPLANE_NODE_AGENT_INTERNAL_ALLOCATED_RESOURCES_STATUS_H_
#define DRAPLANE_NODE_AGENT_INTERNAL_ALLOCATED_RESOURCES_STATUS_H_

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "api/core_types.h"
#include "kubelet_plugin/dra_driver.h"

namespace draplane::node_agent::internal {

// The health last reported for a device of the driver; nullopt: none.
using HealthLookup = std::function<std::optional<kubelet_plugin::DeviceHealth>(
    const std::string& pool, const std::string& device)>;

// Container name -> its allocatedResourcesStatus (a JSON array), for the
// containers that have one. `uid_by_entry`: pod claim entry name -> claim
// UID; `prepared`: claim UID -> what the plugin prepared.
std::map<std::string, api::Json> AllocatedResourcesStatus(
    const api::Pod& pod, const std::map<std::string, std::string>& uid_by_entry,
    const std::map<std::string, kubelet_plugin::PrepareResult>& prepared,
    const std::string& driver, const HealthLookup& health);

}  // namespace draplane::node_agent::internal

#endif  // DRAPLANE_NODE_AGENT_INTERNAL_ALLOCATED_RESOURCES_STATUS_H_

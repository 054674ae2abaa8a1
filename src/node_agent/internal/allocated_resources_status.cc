#include "node_agent/internal/allocated_resources_status.h"

#include <algorithm>
#include <set>

#include "common/str_cat.h"

namespace draplane::node_agent::internal {

std::map<std::string, api::Json> AllocatedResourcesStatus(
    const api::Pod& pod, const std::map<std::string, std::string>& uid_by_entry,
    const std::map<std::string, kubelet_plugin::PrepareResult>& prepared,
    const std::string& driver, const HealthLookup& health) {
  using kubelet_plugin::DeviceHealthStatus;
  std::map<std::string, api::Json> out;
  for (const api::Container& c : pod.spec.containers) {
    api::Json statuses = api::Json::array();
    for (const api::ResourceClaimReference& ref : c.resources.claims) {
      auto uid = uid_by_entry.find(ref.name);
      if (uid == uid_by_entry.end()) continue;
      auto result = prepared.find(uid->second);
      if (result == prepared.end()) continue;
      // Subrequests ("req/sub") are reported under their request.
      const std::string request = ref.request.substr(0, ref.request.find('/'));
      api::Json resources = api::Json::array();
      std::set<std::string> seen;
      for (const kubelet_plugin::PreparedDevice& d : result->second.devices) {
        if (!request.empty() && !d.requests.empty() &&
            std::find(d.requests.begin(), d.requests.end(), request) ==
                d.requests.end()) {
          continue;
        }
        const std::string id = d.cdi_device_ids.empty()
                                   ? StrCat(driver, "/", d.pool, "/", d.device)
                                   : d.cdi_device_ids.front();
        if (!seen.insert(id).second) continue;
        api::Json entry = {{"resourceID", id}, {"health", "Unknown"}};
        if (auto h = health(d.pool, d.device)) {
          entry["health"] =
              h->health == DeviceHealthStatus::kHealthy     ? "Healthy"
              : h->health == DeviceHealthStatus::kUnhealthy ? "Unhealthy"
                                                            : "Unknown";
          if (!h->message.empty()) entry["message"] = h->message;
        }
        resources.push_back(std::move(entry));
      }
      if (resources.empty()) continue;
      statuses.push_back(
          {{"name", ref.request.empty()
                        ? StrCat("claim:", ref.name)
                        : StrCat("claim:", ref.name, "/", ref.request)},
           {"resources", std::move(resources)}});
    }
    if (!statuses.empty()) out[c.name] = std::move(statuses);
  }
  return out;
}

}  // namespace draplane::node_agent::internal

#include "api/helpers/quota_usage.h"

#include <algorithm>

#include "common/str_cat.h"

namespace draplane::api {

namespace {

int64_t Devices(std::string_view mode, int64_t count) {
  if (mode == kDeviceAllocationModeExactCount || mode.empty()) return count;
  if (mode == kDeviceAllocationModeAll) return kAllocationResultsMaxSize;
  return 0;  // an unknown mode does not count (upstream: after a downgrade)
}

}  // namespace

bool IsClaimQuotaResource(std::string_view name) {
  return name == kClaimCountQuotaName ||
         (name.size() > kDevicesPerClassQuotaSuffix.size() &&
          name.substr(name.size() - kDevicesPerClassQuotaSuffix.size()) ==
              kDevicesPerClassQuotaSuffix);
}

std::map<std::string, int64_t> ClaimQuotaUsage(const ResourceClaim& claim) {
  std::map<std::string, int64_t> usage;
  usage[std::string(kClaimCountQuotaName)] = 1;
  for (const DeviceRequest& request : claim.spec.devices.requests) {
    if (!request.first_available.empty()) {
      std::map<std::string, int64_t> worst;  // by class
      for (const DeviceSubRequest& sub : request.first_available) {
        int64_t& w =
            worst[StrCat(sub.device_class_name, kDevicesPerClassQuotaSuffix)];
        w = std::max(w, Devices(sub.allocation_mode, sub.count));
      }
      for (const auto& [name, n] : worst) usage[name] += n;
      continue;
    }
    if (!request.exactly.has_value()) continue;
    usage[StrCat(request.exactly->device_class_name,
                 kDevicesPerClassQuotaSuffix)] +=
        Devices(request.exactly->allocation_mode, request.exactly->count);
  }
  return usage;
}

}  // namespace draplane::api

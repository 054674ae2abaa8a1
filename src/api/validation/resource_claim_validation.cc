// ResourceClaim and ResourceClaimTemplate: the claim spec and the
// claim status (pkg/apis/resource/validation).

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <ctime>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/object_codec.h"
#include "api/validation/internal/validation_rules.h"
#include "common/go_strconv.h"
#include "common/name_validation.h"
#include "common/str_cat.h"
#include "common/str_split.h"

namespace draplane::api::validation_internal {

namespace {

// ------------------------------------------------ ResourceClaim spec

// Names of requests: request -> its subrequests (nullopt: no firstAvailable).
class RequestNames {
 public:
  explicit RequestNames(const DeviceClaim& claim) {
    for (const DeviceRequest& r : claim.requests) {
      if (r.first_available.empty()) {
        names_[r.name] = std::nullopt;
        continue;
      }
      std::set<std::string> subs;
      for (const DeviceSubRequest& s : r.first_available) subs.insert(s.name);
      names_[r.name] = std::move(subs);
    }
  }
  bool Has(std::string_view name) const {
    std::vector<std::string_view> segments = StrSplit(name, '/');
    if (segments.size() > 2) return false;
    auto it = names_.find(std::string(segments[0]));
    if (it == names_.end()) return false;
    if (segments.size() == 1) return true;
    return it->second.has_value() &&
           it->second->count(std::string(segments[1])) > 0;
  }

 private:
  std::map<std::string, std::optional<std::set<std::string>>> names_;
};

constexpr std::string_view kRequestRefMessage =
    "must be the name of a request in the claim or the name of a request and "
    "a subrequest separated by '/'";

Errs ValidateRequestNameRef(const std::string& name, const FieldPath& path,
                            const RequestNames& names) {
  std::vector<std::string_view> segments = StrSplit(name, '/');
  if (segments.size() > 2) return {Invalid(path, name, kRequestRefMessage)};
  Errs errs;
  for (std::string_view s : segments) {
    Extend(errs, ValidateDNS1123Label(s, path));
  }
  if (!names.Has(name)) errs.push_back(Invalid(path, name, kRequestRefMessage));
  return errs;
}

Errs ValidateRequestNameRefs(const std::vector<std::string>& refs,
                             const FieldPath& path, const RequestNames& names) {
  return ValidateSet(
      refs, kDeviceRequestsMaxSize,
      [&](const std::string& n, const FieldPath& p) {
        return ValidateRequestNameRef(n, p, names);
      },
      StringKey, path);
}

Errs ValidateDeviceClassName(const std::string& name, const FieldPath& path) {
  if (name.empty()) return {Required(path)};
  return ValidateDNS1123Subdomain(name, path);
}

Errs ValidateDeviceAllocationMode(const std::string& mode, int64_t count,
                                  const FieldPath& mode_path,
                                  const FieldPath& count_path) {
  if (mode == kDeviceAllocationModeAll) {
    if (count != 0) {
      return {Invalid(count_path, count,
                      "must not be specified when allocationMode is 'All'")};
    }
    return {};
  }
  if (mode == kDeviceAllocationModeExactCount) {
    if (count <= 0)
      return {Invalid(count_path, count, "must be greater than zero")};
    return {};
  }
  return {NotSupported(mode_path, mode, {"All", "ExactCount"})};
}

// The fields ExactDeviceRequest and DeviceSubRequest share, validated in
// upstream's order.
template <class Request>
Errs ValidateRequestCommon(const Request& r, const FieldPath& path,
                           const Context& ctx) {
  Errs errs = ValidateDeviceClassName(r.device_class_name,
                                      path.Child("deviceClassName"));
  Extend(errs,
         ValidateSelectorSlice(r.selectors, path.Child("selectors"), ctx));
  Extend(errs, ValidateDeviceAllocationMode(r.allocation_mode, r.count,
                                            path.Child("allocationMode"),
                                            path.Child("count")));
  Extend(errs, ValidateTolerations(r.tolerations, path.Child("tolerations")));
  return errs;
}

Errs ValidateExactDeviceRequest(const ExactDeviceRequest& r,
                                const FieldPath& path, const Context& ctx) {
  return ValidateRequestCommon(r, path, ctx);
}

Errs ValidateDeviceSubRequest(const DeviceSubRequest& r, const FieldPath& path,
                              const Context& ctx) {
  Errs errs = ValidateDNS1123Label(r.name, path.Child("name"));
  Extend(errs, ValidateRequestCommon(r, path, ctx));
  return errs;
}

Errs ValidateDeviceRequest(const DeviceRequest& r, const FieldPath& path,
                           const Context& ctx) {
  Errs errs = ValidateDNS1123Label(r.name, path.Child("name"));
  bool has_first_available = !r.first_available.empty();
  bool has_exactly = r.exactly.has_value();
  if (!has_first_available && !has_exactly) {
    errs.push_back(Required(
        path, "exactly one of `exactly` or `firstAvailable` is required"));
  } else if (has_first_available && has_exactly) {
    errs.push_back(Invalid(path, BadValue::Json("null"),
                           "exactly one of `exactly` or `firstAvailable` is "
                           "required, but multiple fields are set"));
  } else if (has_first_available) {
    Extend(errs,
           ValidateSet(
               r.first_available, kFirstAvailableDeviceRequestMaxSize,
               [&](const DeviceSubRequest& s, const FieldPath& p) {
                 return ValidateDeviceSubRequest(s, p, ctx);
               },
               [](const DeviceSubRequest& s) { return StringKey(s.name); },
               path.Child("firstAvailable")));
  } else {
    Extend(errs,
           ValidateExactDeviceRequest(*r.exactly, path.Child("exactly"), ctx));
  }
  return errs;
}

Errs ValidateDeviceConstraint(const DeviceConstraint& c, const FieldPath& path,
                              const RequestNames& names, const Context& ctx) {
  Errs errs =
      ValidateRequestNameRefs(c.requests, path.Child("requests"), names);
  if (c.match_attribute.has_value()) {
    Extend(errs, ValidateFullyQualifiedName(*c.match_attribute,
                                            path.Child("matchAttribute")));
  } else if (c.distinct_attribute.has_value()) {
    Extend(errs, ValidateFullyQualifiedName(*c.distinct_attribute,
                                            path.Child("distinctAttribute")));
  } else if (ctx.options.features.consumable_capacity) {
    errs.push_back(Required(path,
                            "exactly one of \"matchAttribute\" or "
                            "\"distinctAttribute\" is required, but multiple "
                            "fields are set"));
  } else {
    errs.push_back(Required(path.Child("matchAttribute")));
  }
  return errs;
}

Errs ValidateDeviceClaim(const DeviceClaim& claim, const FieldPath& path,
                         const Context& ctx) {
  RequestNames names(claim);
  Errs errs = ValidateSet(
      claim.requests, kDeviceRequestsMaxSize,
      [&](const DeviceRequest& r, const FieldPath& p) {
        return ValidateDeviceRequest(r, p, ctx);
      },
      [](const DeviceRequest& r) { return StringKey(r.name); },
      path.Child("requests"));
  Extend(errs, ValidateSlice(
                   claim.constraints, kDeviceConstraintsMaxSize,
                   [&](const DeviceConstraint& c, const FieldPath& p) {
                     return ValidateDeviceConstraint(c, p, names, ctx);
                   },
                   path.Child("constraints")));
  Extend(errs,
         ValidateSlice(
             claim.config, kDeviceConfigMaxSize,
             [&](const DeviceClaimConfiguration& c, const FieldPath& p) {
               Errs e = ValidateRequestNameRefs(c.requests, p.Child("requests"),
                                                names);
               Extend(e, ValidateDeviceConfiguration(c.opaque, p, ctx.stored));
               return e;
             },
             path.Child("config")));
  return errs;
}

}  // namespace

Errs ValidateResourceClaimSpec(const ResourceClaimSpec& spec,
                               const FieldPath& path, const Context& ctx) {
  return ValidateDeviceClaim(spec.devices, path.Child("devices"), ctx);
}
namespace {

// ------------------------------------------------ ResourceClaim status

// structured.SharedDeviceID(...).String().
std::string SharedDeviceID(const std::string& driver, const std::string& pool,
                           const std::string& device,
                           const std::optional<std::string>& share_id) {
  std::string id = StrCat(driver, "/", pool, "/", device);
  if (share_id.has_value() && !share_id->empty()) id += "/" + *share_id;
  return id;
}

Errs ValidateResourceClaimUserReference(const ResourceClaimConsumerReference& r,
                                        const FieldPath& path) {
  Errs errs;
  if (r.resource.empty()) errs.push_back(Required(path.Child("resource")));
  if (r.name.empty()) errs.push_back(Required(path.Child("name")));
  if (r.uid.empty()) errs.push_back(Required(path.Child("uid")));
  return errs;
}

Errs ValidateNetworkDeviceData(const std::optional<NetworkDeviceData>& data,
                               const FieldPath& path) {
  if (!data.has_value()) return {};
  Errs errs;
  if (data->interface_name.size() >
      static_cast<size_t>(kNetworkDeviceDataInterfaceNameMaxLength)) {
    errs.push_back(TooLong(path.Child("interfaceName"),
                           kNetworkDeviceDataInterfaceNameMaxLength));
  }
  if (data->hardware_address.size() >
      static_cast<size_t>(kNetworkDeviceDataHardwareAddressMaxLength)) {
    errs.push_back(TooLong(path.Child("hardwareAddress"),
                           kNetworkDeviceDataHardwareAddressMaxLength));
  }
  Extend(errs, ValidateSet(
                   data->ips, kNetworkDeviceDataMaxIPs,
                   [](const std::string& ip, const FieldPath& p) {
                     return InvalidEach(p, ip, nv::IsValidInterfaceAddress(ip));
                   },
                   StringKey, path.Child("ips")));
  return errs;
}

Errs ValidateDeviceStatus(const AllocatedDeviceStatus& d, const FieldPath& path,
                          const std::set<std::string>& allocated) {
  Errs errs = ValidateDriverName(d.driver, path.Child("driver"));
  Extend(errs, ValidatePoolName(d.pool, path.Child("pool")));
  Extend(errs, ValidateDNS1123Label(d.device, path.Child("device")));
  if (d.share_id.has_value()) {
    Extend(errs, ValidateUID(*d.share_id, path.Child("shareID")));
  }
  std::string id = SharedDeviceID(d.driver, d.pool, d.device, d.share_id);
  if (!allocated.count(id)) {
    errs.push_back(Invalid(path, BadValue::Json(id),
                           "must be an allocated device in the claim"));
  }
  if (d.conditions.size() >
      static_cast<size_t>(kAllocatedDeviceStatusMaxConditions)) {
    errs.push_back(TooMany(path.Child("conditions"),
                           static_cast<int64_t>(d.conditions.size()),
                           kAllocatedDeviceStatusMaxConditions));
  }
  Extend(errs, ValidateConditions(d.conditions, path.Child("conditions")));
  if (d.data.has_value() && !d.data->is_null()) {
    Extend(errs, ValidateRawExtension(*d.data, path.Child("data"), false,
                                      kAllocatedDeviceStatusDataMaxLength));
  }
  Extend(errs,
         ValidateNetworkDeviceData(d.network_data, path.Child("networkData")));
  return errs;
}

Errs ValidateAllocationConfigSource(const std::string& source,
                                    const FieldPath& path) {
  if (source.empty()) return {Required(path)};
  if (source == "FromClaim" || source == "FromClass") return {};
  return {NotSupported(path, source, {"FromClaim", "FromClass"})};
}

Errs ValidateDeviceRequestAllocationResult(
    const DeviceRequestAllocationResult& r, const FieldPath& path,
    const RequestNames& names) {
  Errs errs = ValidateRequestNameRef(r.request, path.Child("request"), names);
  Extend(errs, ValidateDriverName(r.driver, path.Child("driver")));
  Extend(errs, ValidatePoolName(r.pool, path.Child("pool")));
  Extend(errs, ValidateDNS1123Label(r.device, path.Child("device")));
  Extend(errs, ValidateDeviceBindingParameters(
                   r.binding_conditions, r.binding_failure_conditions, path));
  Extend(errs, ValidateTolerations(r.tolerations, path.Child("tolerations")));
  if (r.share_id.has_value()) {
    Extend(errs, ValidateUID(*r.share_id, path.Child("shareID")));
  }
  return errs;
}

Errs ValidateAllocationResult(const AllocationResult& allocation,
                              const FieldPath& path,
                              const RequestNames& names) {
  FieldPath dp = path.Child("devices");
  Errs errs = ValidateSlice(
      allocation.devices.results, kAllocationResultsMaxSize,
      [&](const DeviceRequestAllocationResult& r, const FieldPath& p) {
        return ValidateDeviceRequestAllocationResult(r, p, names);
      },
      dp.Child("results"));
  Extend(errs,
         ValidateSlice(
             allocation.devices.config, kAllocationConfigMaxSize,
             [&](const DeviceAllocationConfiguration& c, const FieldPath& p) {
               Errs e =
                   ValidateAllocationConfigSource(c.source, p.Child("source"));
               Extend(e, ValidateRequestNameRefs(c.requests,
                                                 p.Child("requests"), names));
               Extend(e, ValidateDeviceConfiguration(c.opaque, p, false));
               return e;
             },
             dp.Child("config")));
  if (allocation.node_selector.has_value()) {
    Extend(errs, ValidateNodeSelector(*allocation.node_selector,
                                      path.Child("nodeSelector")));
  }
  return errs;
}

std::string ConsumerKey(const ResourceClaimConsumerReference& r) {
  return StrCat(r.api_group, "\x1f", r.resource, "\x1f", r.name, "\x1f", r.uid);
}

}  // namespace

Errs ValidateResourceClaimStatusUpdate(const ResourceClaim& claim,
                                       const ResourceClaim& old) {
  const ResourceClaimStatus& status = claim.status;
  const ResourceClaimStatus& old_status = old.status;
  FieldPath path("status");
  RequestNames names(claim.spec.devices);
  Errs errs = ValidateSet(
      status.reserved_for, kResourceClaimReservedForMaxSize,
      ValidateResourceClaimUserReference,
      [](const ResourceClaimConsumerReference& r) { return StringKey(r.uid); },
      path.Child("reservedFor"));

  std::set<std::string> allocated;
  if (status.allocation.has_value()) {
    for (const auto& r : status.allocation->devices.results) {
      allocated.insert(SharedDeviceID(r.driver, r.pool, r.device, r.share_id));
    }
  }
  Extend(errs, ValidateSet(
                   status.devices, -1,
                   [&](const AllocatedDeviceStatus& d, const FieldPath& p) {
                     return ValidateDeviceStatus(d, p, allocated);
                   },
                   [](const AllocatedDeviceStatus& d) {
                     std::string id =
                         SharedDeviceID(d.driver, d.pool, d.device, d.share_id);
                     return SetKey{id, BadValue::Json(id)};
                   },
                   path.Child("devices")));

  if (!status.reserved_for.empty()) {
    if (!status.allocation.has_value()) {
      errs.push_back(
          Forbidden(path.Child("reservedFor"),
                    "may not be specified when `allocated` is not set"));
    } else if (claim.metadata.deletion_timestamp.has_value()) {
      std::set<std::string> old_set;
      for (const auto& r : old_status.reserved_for)
        old_set.insert(ConsumerKey(r));
      bool added = false;
      for (const auto& r : status.reserved_for) {
        if (!old_set.count(ConsumerKey(r))) added = true;
      }
      if (added) {
        errs.push_back(
            Forbidden(path.Child("reservedFor"),
                      "new entries may not be added while "
                      "`deallocationRequested` or `deletionTimestamp` "
                      "are set"));
      }
    }
  }

  if (old_status.allocation.has_value() && status.allocation.has_value()) {
    if (!Eq(*status.allocation, *old_status.allocation)) {
      errs.push_back(Invalid(path.Child("allocation"),
                             RenderJson(*status.allocation), kFieldImmutable));
    }
  } else if (status.allocation.has_value()) {
    Extend(errs, ValidateAllocationResult(*status.allocation,
                                          path.Child("allocation"), names));
  }
  return errs;
}

}  // namespace draplane::api::validation_internal

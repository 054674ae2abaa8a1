// The `device` variable of a DRA selector: how a ResourceSlice device looks
// to CEL in Kubernetes 1.37 (k8s.io/dynamic-resource-allocation/cel
// DeviceMatches).
//
//   device.driver                    string
//   device.allowMultipleAllocations  bool (false when unset)
//   device.attributes[domain][id]    int | bool | string | kubernetes.Semver
//                                    (lists of these with list attributes)
//   device.capacity[domain][id]      kubernetes.Quantity
//
// A qualified attribute or capacity name "domain/id" is filed under its
// domain; a bare name under the driver's name. The two outer maps answer
// an empty map for domains they do not hold (see
// Value::MapWithLookupDefault), so `device.attributes["x"].y` fails with
// "no such key: y" while `"x" in device.attributes` is false.
//
// Internal to the cel component.
#ifndef DRAPLANE_CEL_INTERNAL_DRA_DEVICE_H_
#define DRAPLANE_CEL_INTERNAL_DRA_DEVICE_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "api/resource_types.h"
#include "cel/internal/value.h"

namespace draplane::cel::internal {

inline constexpr char kDeviceVariable[] = "device";

// Builds the `device` value for `device` published by `driver`. Fails like
// upstream for a version attribute blang/semver cannot parse:
// "attribute <name>: parse semantic version: <blang message>".
absl::StatusOr<Value> MakeDeviceValue(std::string_view driver,
                                      const api::Device& device);

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_DRA_DEVICE_H_

#ifndef DRAPLANE_ALLOCATOR_FEATURES_H_
#define DRAPLANE_ALLOCATOR_FEATURES_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace draplane::allocator {

// The allocator's feature switches: upstream's structured.Features, one per
// feature gate (DeviceBindingAndStatus = DRADeviceBindingConditions and
// DRAResourceClaimDeviceStatus). Default() is Kubernetes 1.37's defaults.
struct Features {
  bool admin_access = false;
  bool compatibility_groups = false;
  bool consumable_capacity = false;
  bool derived_attributes = false;
  bool device_binding_and_status = false;
  bool device_taints = false;
  bool fractional_capacity_range = false;
  bool list_type_attributes = false;
  bool optional_node_operations = false;
  bool partitionable_devices = false;
  bool prioritized_list = false;

  // Kubernetes 1.37 defaults: every beta/GA feature on, alpha ones off.
  static Features Defaults();

  // Upstream's field names ("AdminAccess", ...), sorted.
  static const std::vector<std::string_view>& AllNames();
  static const std::vector<std::string_view>& DefaultNames();

  // Features from names; an unknown or repeated name is InvalidArgument
  // (draref's messages).
  static absl::StatusOr<Features> FromNames(
      const std::vector<std::string>& names);

  // True when the incubating variant of the upstream allocator (the one
  // draplane implements) supports every enabled feature, i.e. no alpha
  // feature (ListTypeAttributes, OptionalNodeOperations, DerivedAttributes,
  // CompatibilityGroups) is on.
  bool OnlyIncubating() const;
};

}  // namespace draplane::allocator

#endif  // DRAPLANE_ALLOCATOR_FEATURES_H_

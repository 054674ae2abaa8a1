// Finds what a DRA selector reads from `device`: the driver, attributes and
// capacities it names with constant keys, and the constants it compares
// them with through `==`. Used to explain a selector that matches nothing
// (`draplane cel match`); evaluation never needs it.
//
// Internal to the cel component.
#ifndef DRAPLANE_CEL_INTERNAL_DEVICE_REFERENCES_H_
#define DRAPLANE_CEL_INTERNAL_DEVICE_REFERENCES_H_

#include <optional>
#include <string>
#include <vector>

#include "cel/internal/ast.h"

namespace draplane::cel::internal {

struct DeviceReference {
  enum class Kind { kDriver, kAttribute, kCapacity };
  Kind kind = Kind::kDriver;
  // Attribute or capacity: the domain and name, as written
  // (device.attributes['gpu.nvidia.com'].productName).
  std::string domain;
  std::string name;
  // When the reference is one side of `==` and the other side a constant:
  // that constant.
  std::optional<Constant> equals;
};

// References in source order; a reference read twice is reported twice.
// Only the plain forms are recognised: `device.<x>[<const>].<name>`,
// `device.<x>[<const>][<const>]`, `.?name`, `.orValue(x)` and `has(...)`
// variants; keys
// computed at run time (variables, cel.bind aliases) are not followed.
std::vector<DeviceReference> FindDeviceReferences(const Expr& root);

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_DEVICE_REFERENCES_H_

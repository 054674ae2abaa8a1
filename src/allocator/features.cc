#include "allocator/features.h"

#include <map>
#include <set>

#include "common/str_cat.h"

namespace draplane::allocator {
namespace {

const std::map<std::string_view, bool Features::*>& FeatureFields() {
  static const auto* fields = new std::map<std::string_view, bool Features::*>{
      {"AdminAccess", &Features::admin_access},
      {"CompatibilityGroups", &Features::compatibility_groups},
      {"ConsumableCapacity", &Features::consumable_capacity},
      {"DerivedAttributes", &Features::derived_attributes},
      {"DeviceBindingAndStatus", &Features::device_binding_and_status},
      {"DeviceTaints", &Features::device_taints},
      {"FractionalCapacityRange", &Features::fractional_capacity_range},
      {"ListTypeAttributes", &Features::list_type_attributes},
      {"OptionalNodeOperations", &Features::optional_node_operations},
      {"PartitionableDevices", &Features::partitionable_devices},
      {"PrioritizedList", &Features::prioritized_list},
  };
  return *fields;
}

}  // namespace

const std::vector<std::string_view>& Features::AllNames() {
  static const auto* names = [] {
    auto* v = new std::vector<std::string_view>;
    for (const auto& [name, member] : FeatureFields()) v->push_back(name);
    return v;
  }();
  return *names;
}

const std::vector<std::string_view>& Features::DefaultNames() {
  static const auto* names = new std::vector<std::string_view>{
      "AdminAccess",    "ConsumableCapacity",      "DeviceBindingAndStatus",
      "DeviceTaints",   "FractionalCapacityRange", "PartitionableDevices",
      "PrioritizedList"};
  return *names;
}

Features Features::Defaults() {
  Features f;
  for (std::string_view name : DefaultNames())
    f.*(FeatureFields().at(name)) = true;
  return f;
}

absl::StatusOr<Features> Features::FromNames(
    const std::vector<std::string>& names) {
  Features f;
  std::set<std::string> seen;
  for (const std::string& name : names) {
    auto it = FeatureFields().find(name);
    if (it == FeatureFields().end()) {
      std::string known;
      for (std::string_view n : AllNames()) {
        StrAppend(&known, known.empty() ? "" : " ", n);
      }
      return absl::InvalidArgumentError(
          StrCat("unknown feature \"", name, "\" (known: [", known, "])"));
    }
    if (!seen.insert(name).second) {
      return absl::InvalidArgumentError(
          StrCat("feature \"", name, "\" listed twice"));
    }
    f.*(it->second) = true;
  }
  return f;
}

bool Features::OnlyIncubating() const {
  return !list_type_attributes && !optional_node_operations &&
         !derived_attributes && !compatibility_groups;
}

}  // namespace draplane::allocator

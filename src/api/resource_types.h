// The resource.k8s.io object model in its internal (v1) form, as of
// Kubernetes 1.37 (k8s.io/api resource/v1/types.go at v0.37.0-beta.0).
//
// v1beta2 has the same shape; v1beta1 differs (the `basic` device wrapper,
// flat device requests) and is converted at the codec edge (see
// object_codec.h). Every field of every version survives a decode/encode
// round trip. Defaulting and validation live in validation.h.
#ifndef DRAPLANE_API_RESOURCE_TYPES_H_
#define DRAPLANE_API_RESOURCE_TYPES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/compact.h"
#include "api/device_attribute.h"
#include "api/meta_types.h"
#include "common/quantity.h"

namespace draplane::api {

// ---------------------------------------------------------------- limits
// Upstream constants (resource/v1/types.go); validation.h enforces them.
inline constexpr int kResourceSliceMaxDevices = 128;
inline constexpr int kResourceSliceMaxDevicesWithTaintsOrConsumesCounters = 64;
inline constexpr int kResourceSliceMaxCounterSets = 8;
inline constexpr int kResourceSliceMaxCountersPerCounterSet = 32;
inline constexpr int kResourceSliceMaxDeviceCounterConsumptions = 2;
inline constexpr int kResourceSliceMaxCountersPerDeviceCounterConsumption = 32;
inline constexpr int kResourceSliceMaxAttributesAndCapacitiesPerDevice = 32;
inline constexpr int kResourceSliceMaxAttributeValuesPerDevice = 48;
inline constexpr int kDeviceMaxTaints = 16;
inline constexpr int kDeviceAttributeMaxValueLength = 64;
inline constexpr int kDeviceMaxIdLength = 32;
inline constexpr int kDeviceMaxDomainLength = 63;
inline constexpr int kDriverNameMaxLength = 63;
inline constexpr int kPoolNameMaxLength = 253;
inline constexpr int kDeviceRequestsMaxSize = 32;
inline constexpr int kFirstAvailableDeviceRequestMaxSize = 8;
inline constexpr int kDeviceSelectorsMaxSize = 32;
inline constexpr int kDeviceConstraintsMaxSize = 32;
inline constexpr int kDeviceConfigMaxSize = 32;
inline constexpr int kDeviceTolerationsMaxLength = 16;
inline constexpr int kAllocationResultsMaxSize = 32;
inline constexpr int kAllocationConfigMaxSize = 64;
inline constexpr int kResourceClaimReservedForMaxSize = 256;
inline constexpr int kCELSelectorExpressionMaxLength = 10 * 1024;
inline constexpr int64_t kCELSelectorExpressionMaxCost = 1000000;
inline constexpr int kOpaqueParametersMaxLength = 10 * 1024;
inline constexpr int kBindingConditionsMaxSize = 4;
inline constexpr int kBindingFailureConditionsMaxSize = 4;
inline constexpr int kCapacityPolicyValidValuesMaxLength = 10;
inline constexpr int kAllocatedDeviceStatusMaxConditions = 8;
inline constexpr int kAllocatedDeviceStatusDataMaxLength = 10 * 1024;
inline constexpr int kNetworkDeviceDataMaxIPs = 16;
inline constexpr int kNetworkDeviceDataInterfaceNameMaxLength = 256;
inline constexpr int kNetworkDeviceDataHardwareAddressMaxLength = 128;

// Well-known names (resource/v1 and the DRA KEPs).
inline constexpr char kGroupName[] = "resource.k8s.io";
inline constexpr char kDeviceAllocationModeExactCount[] = "ExactCount";
inline constexpr char kDeviceAllocationModeAll[] = "All";
inline constexpr char kFinalizerDeleteProtection[] =
    "resource.kubernetes.io/delete-protection";
inline constexpr char kAnnotationPodClaimName[] =
    "resource.kubernetes.io/pod-claim-name";
inline constexpr char kLabelAdminAccess[] =
    "resource.kubernetes.io/admin-access";

// ------------------------------------------------------------ selectors
struct CELDeviceSelector {
  std::string expression;
};

struct DeviceSelector {
  std::optional<CELDeviceSelector> cel;
};

// As UnstructuredObject (api/object.h).
// NOLINTNEXTLINE(bugprone-exception-escape)
struct OpaqueDeviceConfiguration {
  std::string driver;
  Json parameters;  // runtime.RawExtension: any JSON object.
};

// ---------------------------------------------------------- DeviceClass
struct DeviceClassConfiguration {
  std::optional<OpaqueDeviceConfiguration> opaque;
};

struct DeviceClassSpec {
  std::vector<DeviceSelector> selectors;
  std::vector<DeviceClassConfiguration> config;
  std::optional<std::string> extended_resource_name;
};

struct DeviceClass {
  ObjectMeta metadata;
  DeviceClassSpec spec;
};

// -------------------------------------------------------- ResourceClaim
struct DeviceToleration {
  std::string key;
  std::string operator_;
  std::string value;
  std::string effect;
  std::optional<int64_t> toleration_seconds;
};

struct CapacityRequirements {
  std::map<std::string, Quantity> requests;
};

struct ExactDeviceRequest {
  std::string device_class_name;
  std::vector<DeviceSelector> selectors;
  std::string allocation_mode;
  int64_t count = 0;
  std::optional<bool> admin_access;
  std::vector<DeviceToleration> tolerations;
  std::optional<CapacityRequirements> capacity;
};

struct DeviceSubRequest {
  std::string name;
  std::string device_class_name;
  std::vector<DeviceSelector> selectors;
  std::string allocation_mode;
  int64_t count = 0;
  std::vector<DeviceToleration> tolerations;
  std::optional<CapacityRequirements> capacity;
};

struct DeviceRequest {
  std::string name;
  std::optional<ExactDeviceRequest> exactly;
  std::vector<DeviceSubRequest> first_available;
};

struct DeviceConstraint {
  std::vector<std::string> requests;
  std::optional<std::string> match_attribute;
  std::optional<std::string> distinct_attribute;
};

struct DeviceClaimConfiguration {
  std::vector<std::string> requests;
  std::optional<OpaqueDeviceConfiguration> opaque;
};

struct DeviceClaim {
  std::vector<DeviceRequest> requests;
  std::vector<DeviceConstraint> constraints;
  std::vector<DeviceClaimConfiguration> config;
};

struct ResourceClaimSpec {
  DeviceClaim devices;
};

struct DeviceRequestAllocationResult {
  std::string request;
  std::string driver;
  std::string pool;
  std::string device;
  std::optional<bool> admin_access;
  std::vector<DeviceToleration> tolerations;
  std::vector<std::string> binding_conditions;
  std::vector<std::string> binding_failure_conditions;
  std::optional<std::string> share_id;
  std::map<std::string, Quantity> consumed_capacity;
};

struct DeviceAllocationConfiguration {
  std::string source;  // "FromClass" | "FromClaim"
  std::vector<std::string> requests;
  std::optional<OpaqueDeviceConfiguration> opaque;
};

struct DeviceAllocationResult {
  std::vector<DeviceRequestAllocationResult> results;
  std::vector<DeviceAllocationConfiguration> config;
};

struct AllocationResult {
  DeviceAllocationResult devices;
  std::optional<NodeSelector> node_selector;
  std::optional<Time> allocation_timestamp;
};

struct ResourceClaimConsumerReference {
  std::string api_group;
  std::string resource;
  std::string name;
  std::string uid;
};

struct NetworkDeviceData {
  std::string interface_name;
  std::vector<std::string> ips;
  std::string hardware_address;
};

struct AllocatedDeviceStatus {
  std::string driver;
  std::string pool;
  std::string device;
  std::optional<std::string> share_id;
  std::vector<Condition> conditions;
  std::optional<Json> data;
  std::optional<NetworkDeviceData> network_data;
};

struct ResourceClaimStatus {
  std::optional<AllocationResult> allocation;
  std::vector<ResourceClaimConsumerReference> reserved_for;
  std::vector<AllocatedDeviceStatus> devices;
};

struct ResourceClaim {
  ObjectMeta metadata;
  ResourceClaimSpec spec;
  ResourceClaimStatus status;
};

// ------------------------------------------------ ResourceClaimTemplate
struct ResourceClaimTemplateSpec {
  ObjectMeta metadata;
  ResourceClaimSpec spec;
};

struct ResourceClaimTemplate {
  ObjectMeta metadata;
  // Boxed so that a template (two ObjectMetas) does not set the size of
  // every api::Object (see the size contract in object.h).
  Box<ResourceClaimTemplateSpec> spec;
};

// -------------------------------------------------------- ResourceSlice
struct ResourcePool {
  std::string name;
  int64_t generation = 0;
  int64_t resource_slice_count = 0;
};

struct CapacityRequestPolicyRange {
  Quantity min;
  std::optional<Quantity> max;
  std::optional<Quantity> step;
};

struct CapacityRequestPolicy {
  std::optional<Quantity> default_;
  std::vector<Quantity> valid_values;
  std::optional<CapacityRequestPolicyRange> valid_range;
};

struct DeviceCapacity {
  Quantity value;
  // Out of line: most capacities have none.
  OptionalBox<CapacityRequestPolicy> request_policy;
};

struct Counter {
  Quantity value;
};

struct DeviceCounterConsumption {
  std::string counter_set;
  std::map<std::string, Counter> counters;
};

struct DeviceTaint {
  std::string key;
  std::string value;
  std::string effect;
  std::optional<Time> time_added;
};

struct NodeAllocatableResourceMapping {
  std::optional<std::string> capacity_key;
  std::optional<Quantity> allocation_multiplier;
};

// The members of a Device that most devices leave unset (partitionable
// devices, per-device node selection, taints, binding conditions,
// consumable capacity, extended resources), in upstream's order.
struct DeviceRareFields {
  std::vector<DeviceCounterConsumption> consumes_counters;
  std::optional<std::string> node_name;
  std::optional<NodeSelector> node_selector;
  std::optional<bool> all_nodes;
  std::vector<DeviceTaint> taints;
  std::optional<bool> binds_to_node;
  std::vector<std::string> binding_conditions;
  std::vector<std::string> binding_failure_conditions;
  std::optional<bool> allow_multiple_allocations;
  std::map<std::string, NodeAllocatableResourceMapping>
      node_allocatable_resource_mappings;
};

// A device's attributes and capacities by (qualified) name.
using DeviceAttributes = FlatMap<std::string, DeviceAttribute>;
using DeviceCapacities = FlatMap<std::string, DeviceCapacity>;

// One per published device, so kept small (88 bytes plus what is set): the
// attributes and capacities as sorted vectors, the rarely set members out
// of line (read `device.rare->taints`, write `device.rare.Mutable()`). In
// JSON the members of `rare` are the Device's own, after `capacity`.
struct Device {
  std::string name;
  DeviceAttributes attributes;
  DeviceCapacities capacity;
  Box<DeviceRareFields> rare;
};

struct CounterSet {
  std::string name;
  std::map<std::string, Counter> counters;
};

struct ResourceSliceSpec {
  std::string driver;
  ResourcePool pool;
  std::optional<std::string> node_name;
  std::optional<NodeSelector> node_selector;
  std::optional<bool> all_nodes;
  std::vector<Device> devices;
  std::optional<bool> per_device_node_selection;
  std::vector<CounterSet> shared_counters;
};

struct ResourceSlice {
  ObjectMeta metadata;
  ResourceSliceSpec spec;
};

// ------------------------------------------------------ DeviceTaintRule
struct DeviceTaintSelector {
  std::optional<std::string> driver;
  std::optional<std::string> pool;
  std::optional<std::string> device;
};

struct DeviceTaintRuleSpec {
  std::optional<DeviceTaintSelector> device_selector;
  DeviceTaint taint;
};

struct DeviceTaintRuleStatus {
  std::vector<Condition> conditions;
};

struct DeviceTaintRule {
  ObjectMeta metadata;
  DeviceTaintRuleSpec spec;
  DeviceTaintRuleStatus status;
};

}  // namespace draplane::api

#endif  // DRAPLANE_API_RESOURCE_TYPES_H_

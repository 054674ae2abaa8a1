// JSON member names of every modelled struct, in upstream declaration order
// (k8s.io/api v0.37 types.go; `json:"..."` tags). See json_mapping.h.
#ifndef DRAPLANE_API_INTERNAL_TYPE_MAPPINGS_H_
#define DRAPLANE_API_INTERNAL_TYPE_MAPPINGS_H_

#include <tuple>
#include <utility>

#include "api/core_types.h"
#include "api/internal/json_mapping.h"
#include "api/meta_types.h"
#include "api/rbac_types.h"
#include "api/resource_types.h"

namespace draplane::api::internal {

#define DRAPLANE_FIELDS(Type, ...) \
  template <>                      \
  inline constexpr auto FieldsOf<Type> = std::tuple(__VA_ARGS__)

// ------------------------------------------------------------------ meta
DRAPLANE_FIELDS(OwnerReference,
                Field("apiVersion", &OwnerReference::api_version, kEmitAlways),
                Field("kind", &OwnerReference::kind, kEmitAlways),
                Field("name", &OwnerReference::name, kEmitAlways),
                Field("uid", &OwnerReference::uid, kEmitAlways),
                Field("controller", &OwnerReference::controller),
                Field("blockOwnerDeletion",
                      &OwnerReference::block_owner_deletion));
DRAPLANE_FIELDS(ManagedFieldsEntry,
                Field("manager", &ManagedFieldsEntry::manager),
                Field("operation", &ManagedFieldsEntry::operation),
                Field("apiVersion", &ManagedFieldsEntry::api_version),
                Field("time", &ManagedFieldsEntry::time, kTimestamp),
                Field("fieldsType", &ManagedFieldsEntry::fields_type),
                Field("fieldsV1", &ManagedFieldsEntry::fields_v1),
                Field("subresource", &ManagedFieldsEntry::subresource));
DRAPLANE_FIELDS(
    ObjectMeta, Field("name", &ObjectMeta::name),
    Field("generateName", &ObjectMeta::generate_name),
    Field("namespace", &ObjectMeta::namespace_),
    Field("selfLink", &ObjectMeta::self_link), Field("uid", &ObjectMeta::uid),
    Field("resourceVersion", &ObjectMeta::resource_version),
    Field("generation", &ObjectMeta::generation),
    Field("creationTimestamp", &ObjectMeta::creation_timestamp, kTimestamp),
    Field("deletionTimestamp", &ObjectMeta::deletion_timestamp, kTimestamp),
    Field("deletionGracePeriodSeconds",
          &ObjectMeta::deletion_grace_period_seconds),
    Field("labels", &ObjectMeta::labels),
    Field("annotations", &ObjectMeta::annotations),
    Field("ownerReferences", &ObjectMeta::owner_references),
    Field("finalizers", &ObjectMeta::finalizers),
    Field("managedFields", &ObjectMeta::managed_fields));
DRAPLANE_FIELDS(Condition, Field("type", &Condition::type, kEmitAlways),
                Field("status", &Condition::status, kEmitAlways),
                Field("observedGeneration", &Condition::observed_generation),
                Field("lastTransitionTime", &Condition::last_transition_time,
                      kTimestamp),
                Field("reason", &Condition::reason, kEmitAlways),
                Field("message", &Condition::message, kEmitAlways));
DRAPLANE_FIELDS(NodeSelectorRequirement,
                Field("key", &NodeSelectorRequirement::key, kEmitAlways),
                Field("operator", &NodeSelectorRequirement::operator_,
                      kEmitAlways),
                Field("values", &NodeSelectorRequirement::values));
DRAPLANE_FIELDS(NodeSelectorTerm,
                Field("matchExpressions", &NodeSelectorTerm::match_expressions),
                Field("matchFields", &NodeSelectorTerm::match_fields));
DRAPLANE_FIELDS(NodeSelector,
                Field("nodeSelectorTerms", &NodeSelector::node_selector_terms,
                      kEmitAlways));

// ------------------------------------------------------ resource.k8s.io
DRAPLANE_FIELDS(CELDeviceSelector,
                Field("expression", &CELDeviceSelector::expression,
                      kEmitAlways));
DRAPLANE_FIELDS(DeviceSelector, Field("cel", &DeviceSelector::cel));
DRAPLANE_FIELDS(OpaqueDeviceConfiguration,
                Field("driver", &OpaqueDeviceConfiguration::driver,
                      kEmitAlways),
                Field("parameters", &OpaqueDeviceConfiguration::parameters,
                      kEmitAlways));
DRAPLANE_FIELDS(DeviceClassConfiguration,
                Field("opaque", &DeviceClassConfiguration::opaque));
DRAPLANE_FIELDS(DeviceClassSpec,
                Field("selectors", &DeviceClassSpec::selectors),
                Field("config", &DeviceClassSpec::config),
                Field("extendedResourceName",
                      &DeviceClassSpec::extended_resource_name));
DRAPLANE_FIELDS(DeviceClass, Field("metadata", &DeviceClass::metadata),
                Field("spec", &DeviceClass::spec));

DRAPLANE_FIELDS(DeviceToleration, Field("key", &DeviceToleration::key),
                Field("operator", &DeviceToleration::operator_),
                Field("value", &DeviceToleration::value),
                Field("effect", &DeviceToleration::effect),
                Field("tolerationSeconds",
                      &DeviceToleration::toleration_seconds));
DRAPLANE_FIELDS(CapacityRequirements,
                Field("requests", &CapacityRequirements::requests));
DRAPLANE_FIELDS(ExactDeviceRequest,
                Field("deviceClassName", &ExactDeviceRequest::device_class_name,
                      kEmitAlways),
                Field("selectors", &ExactDeviceRequest::selectors),
                Field("allocationMode", &ExactDeviceRequest::allocation_mode),
                Field("count", &ExactDeviceRequest::count),
                Field("adminAccess", &ExactDeviceRequest::admin_access),
                Field("tolerations", &ExactDeviceRequest::tolerations),
                Field("capacity", &ExactDeviceRequest::capacity));
DRAPLANE_FIELDS(DeviceSubRequest,
                Field("name", &DeviceSubRequest::name, kEmitAlways),
                Field("deviceClassName", &DeviceSubRequest::device_class_name,
                      kEmitAlways),
                Field("selectors", &DeviceSubRequest::selectors),
                Field("allocationMode", &DeviceSubRequest::allocation_mode),
                Field("count", &DeviceSubRequest::count),
                Field("tolerations", &DeviceSubRequest::tolerations),
                Field("capacity", &DeviceSubRequest::capacity));
DRAPLANE_FIELDS(DeviceRequest, Field("name", &DeviceRequest::name, kEmitAlways),
                Field("exactly", &DeviceRequest::exactly),
                Field("firstAvailable", &DeviceRequest::first_available));
DRAPLANE_FIELDS(DeviceConstraint,
                Field("requests", &DeviceConstraint::requests),
                Field("matchAttribute", &DeviceConstraint::match_attribute),
                Field("distinctAttribute",
                      &DeviceConstraint::distinct_attribute));
DRAPLANE_FIELDS(DeviceClaimConfiguration,
                Field("requests", &DeviceClaimConfiguration::requests),
                Field("opaque", &DeviceClaimConfiguration::opaque));
DRAPLANE_FIELDS(DeviceClaim, Field("requests", &DeviceClaim::requests),
                Field("constraints", &DeviceClaim::constraints),
                Field("config", &DeviceClaim::config));
DRAPLANE_FIELDS(ResourceClaimSpec,
                Field("devices", &ResourceClaimSpec::devices));
DRAPLANE_FIELDS(
    DeviceRequestAllocationResult,
    Field("request", &DeviceRequestAllocationResult::request, kEmitAlways),
    Field("driver", &DeviceRequestAllocationResult::driver, kEmitAlways),
    Field("pool", &DeviceRequestAllocationResult::pool, kEmitAlways),
    Field("device", &DeviceRequestAllocationResult::device, kEmitAlways),
    Field("adminAccess", &DeviceRequestAllocationResult::admin_access),
    Field("tolerations", &DeviceRequestAllocationResult::tolerations),
    Field("bindingConditions",
          &DeviceRequestAllocationResult::binding_conditions),
    Field("bindingFailureConditions",
          &DeviceRequestAllocationResult::binding_failure_conditions),
    Field("shareID", &DeviceRequestAllocationResult::share_id),
    Field("consumedCapacity",
          &DeviceRequestAllocationResult::consumed_capacity));
DRAPLANE_FIELDS(DeviceAllocationConfiguration,
                Field("source", &DeviceAllocationConfiguration::source,
                      kEmitAlways),
                Field("requests", &DeviceAllocationConfiguration::requests),
                Field("opaque", &DeviceAllocationConfiguration::opaque));
DRAPLANE_FIELDS(DeviceAllocationResult,
                Field("results", &DeviceAllocationResult::results),
                Field("config", &DeviceAllocationResult::config));
DRAPLANE_FIELDS(AllocationResult, Field("devices", &AllocationResult::devices),
                Field("nodeSelector", &AllocationResult::node_selector),
                Field("allocationTimestamp",
                      &AllocationResult::allocation_timestamp, kTimestamp));
DRAPLANE_FIELDS(
    ResourceClaimConsumerReference,
    Field("apiGroup", &ResourceClaimConsumerReference::api_group),
    Field("resource", &ResourceClaimConsumerReference::resource, kEmitAlways),
    Field("name", &ResourceClaimConsumerReference::name, kEmitAlways),
    Field("uid", &ResourceClaimConsumerReference::uid, kEmitAlways));
DRAPLANE_FIELDS(NetworkDeviceData,
                Field("interfaceName", &NetworkDeviceData::interface_name),
                Field("ips", &NetworkDeviceData::ips),
                Field("hardwareAddress", &NetworkDeviceData::hardware_address));
DRAPLANE_FIELDS(AllocatedDeviceStatus,
                Field("driver", &AllocatedDeviceStatus::driver, kEmitAlways),
                Field("pool", &AllocatedDeviceStatus::pool, kEmitAlways),
                Field("device", &AllocatedDeviceStatus::device, kEmitAlways),
                Field("shareID", &AllocatedDeviceStatus::share_id),
                Field("conditions", &AllocatedDeviceStatus::conditions),
                Field("data", &AllocatedDeviceStatus::data),
                Field("networkData", &AllocatedDeviceStatus::network_data));
DRAPLANE_FIELDS(ResourceClaimStatus,
                Field("allocation", &ResourceClaimStatus::allocation),
                Field("reservedFor", &ResourceClaimStatus::reserved_for),
                Field("devices", &ResourceClaimStatus::devices));
DRAPLANE_FIELDS(ResourceClaim, Field("metadata", &ResourceClaim::metadata),
                Field("spec", &ResourceClaim::spec),
                Field("status", &ResourceClaim::status));
DRAPLANE_FIELDS(ResourceClaimTemplateSpec,
                Field("metadata", &ResourceClaimTemplateSpec::metadata),
                Field("spec", &ResourceClaimTemplateSpec::spec));
DRAPLANE_FIELDS(ResourceClaimTemplate,
                Field("metadata", &ResourceClaimTemplate::metadata),
                Field("spec", &ResourceClaimTemplate::spec));

DRAPLANE_FIELDS(ResourcePool, Field("name", &ResourcePool::name, kEmitAlways),
                Field("generation", &ResourcePool::generation, kEmitAlways),
                Field("resourceSliceCount", &ResourcePool::resource_slice_count,
                      kEmitAlways));
DRAPLANE_FIELDS(DeviceAttributeFields,
                Field("int", &DeviceAttributeFields::int_value),
                Field("bool", &DeviceAttributeFields::bool_value),
                Field("string", &DeviceAttributeFields::string_value),
                Field("version", &DeviceAttributeFields::version_value),
                Field("ints", &DeviceAttributeFields::ints),
                Field("bools", &DeviceAttributeFields::bools),
                Field("strings", &DeviceAttributeFields::strings),
                Field("versions", &DeviceAttributeFields::versions));
template <>
struct WireForm<DeviceAttribute> {
  using type = DeviceAttributeFields;
  static DeviceAttributeFields ToWire(const DeviceAttribute& a) {
    return a.ToFields();
  }
  static DeviceAttribute FromWire(DeviceAttributeFields&& f) {
    return DeviceAttribute::FromFields(std::move(f));
  }
};
DRAPLANE_FIELDS(CapacityRequestPolicyRange,
                Field("min", &CapacityRequestPolicyRange::min),
                Field("max", &CapacityRequestPolicyRange::max),
                Field("step", &CapacityRequestPolicyRange::step));
DRAPLANE_FIELDS(CapacityRequestPolicy,
                Field("default", &CapacityRequestPolicy::default_),
                Field("validValues", &CapacityRequestPolicy::valid_values),
                Field("validRange", &CapacityRequestPolicy::valid_range));
DRAPLANE_FIELDS(DeviceCapacity, Field("value", &DeviceCapacity::value),
                Field("requestPolicy", &DeviceCapacity::request_policy));
DRAPLANE_FIELDS(Counter, Field("value", &Counter::value));
DRAPLANE_FIELDS(DeviceCounterConsumption,
                Field("counterSet", &DeviceCounterConsumption::counter_set,
                      kEmitAlways),
                Field("counters", &DeviceCounterConsumption::counters,
                      kEmitAlways));
DRAPLANE_FIELDS(DeviceTaint, Field("key", &DeviceTaint::key, kEmitAlways),
                Field("value", &DeviceTaint::value),
                Field("effect", &DeviceTaint::effect, kEmitAlways),
                Field("timeAdded", &DeviceTaint::time_added, kTimestamp));
DRAPLANE_FIELDS(NodeAllocatableResourceMapping,
                Field("capacityKey",
                      &NodeAllocatableResourceMapping::capacity_key),
                Field("allocationMultiplier",
                      &NodeAllocatableResourceMapping::allocation_multiplier));
DRAPLANE_FIELDS(DeviceRareFields,
                Field("consumesCounters", &DeviceRareFields::consumes_counters),
                Field("nodeName", &DeviceRareFields::node_name),
                Field("nodeSelector", &DeviceRareFields::node_selector),
                Field("allNodes", &DeviceRareFields::all_nodes),
                Field("taints", &DeviceRareFields::taints),
                Field("bindsToNode", &DeviceRareFields::binds_to_node),
                Field("bindingConditions",
                      &DeviceRareFields::binding_conditions),
                Field("bindingFailureConditions",
                      &DeviceRareFields::binding_failure_conditions),
                Field("allowMultipleAllocations",
                      &DeviceRareFields::allow_multiple_allocations),
                Field("nodeAllocatableResourceMappings",
                      &DeviceRareFields::node_allocatable_resource_mappings));
DRAPLANE_FIELDS(Device, Field("name", &Device::name, kEmitAlways),
                Field("attributes", &Device::attributes),
                Field("capacity", &Device::capacity), Embed(&Device::rare));
DRAPLANE_FIELDS(CounterSet, Field("name", &CounterSet::name, kEmitAlways),
                Field("counters", &CounterSet::counters, kEmitAlways));
DRAPLANE_FIELDS(ResourceSliceSpec,
                Field("driver", &ResourceSliceSpec::driver, kEmitAlways),
                Field("pool", &ResourceSliceSpec::pool),
                Field("nodeName", &ResourceSliceSpec::node_name),
                Field("nodeSelector", &ResourceSliceSpec::node_selector),
                Field("allNodes", &ResourceSliceSpec::all_nodes),
                Field("devices", &ResourceSliceSpec::devices),
                Field("perDeviceNodeSelection",
                      &ResourceSliceSpec::per_device_node_selection),
                Field("sharedCounters", &ResourceSliceSpec::shared_counters));
DRAPLANE_FIELDS(ResourceSlice, Field("metadata", &ResourceSlice::metadata),
                Field("spec", &ResourceSlice::spec));
DRAPLANE_FIELDS(DeviceTaintSelector,
                Field("driver", &DeviceTaintSelector::driver),
                Field("pool", &DeviceTaintSelector::pool),
                Field("device", &DeviceTaintSelector::device));
DRAPLANE_FIELDS(DeviceTaintRuleSpec,
                Field("deviceSelector", &DeviceTaintRuleSpec::device_selector),
                Field("taint", &DeviceTaintRuleSpec::taint));
DRAPLANE_FIELDS(DeviceTaintRuleStatus,
                Field("conditions", &DeviceTaintRuleStatus::conditions));
DRAPLANE_FIELDS(DeviceTaintRule, Field("metadata", &DeviceTaintRule::metadata),
                Field("spec", &DeviceTaintRule::spec),
                Field("status", &DeviceTaintRule::status));

// ----------------------------------------------------------------- core
DRAPLANE_FIELDS(NamespaceSpec, Field("finalizers", &NamespaceSpec::finalizers),
                Rest(&NamespaceSpec::unknown_fields));
DRAPLANE_FIELDS(NamespaceStatus, Field("phase", &NamespaceStatus::phase),
                Rest(&NamespaceStatus::unknown_fields));
DRAPLANE_FIELDS(Namespace, Field("metadata", &Namespace::metadata),
                Field("spec", &Namespace::spec),
                Field("status", &Namespace::status));
DRAPLANE_FIELDS(Taint, Field("key", &Taint::key, kEmitAlways),
                Field("value", &Taint::value),
                Field("effect", &Taint::effect, kEmitAlways),
                Field("timeAdded", &Taint::time_added, kTimestamp));
DRAPLANE_FIELDS(NodeSpec, Field("unschedulable", &NodeSpec::unschedulable),
                Field("taints", &NodeSpec::taints),
                Rest(&NodeSpec::unknown_fields));
DRAPLANE_FIELDS(NodeCondition, Field("type", &NodeCondition::type, kEmitAlways),
                Field("status", &NodeCondition::status, kEmitAlways),
                Field("lastHeartbeatTime", &NodeCondition::last_heartbeat_time,
                      kTimestamp),
                Field("lastTransitionTime",
                      &NodeCondition::last_transition_time, kTimestamp),
                Field("reason", &NodeCondition::reason),
                Field("message", &NodeCondition::message));
DRAPLANE_FIELDS(NodeStatus, Field("capacity", &NodeStatus::capacity),
                Field("allocatable", &NodeStatus::allocatable),
                Field("conditions", &NodeStatus::conditions),
                Rest(&NodeStatus::unknown_fields));
DRAPLANE_FIELDS(Node, Field("metadata", &Node::metadata),
                Field("spec", &Node::spec), Field("status", &Node::status));
DRAPLANE_FIELDS(ResourceClaimReference,
                Field("name", &ResourceClaimReference::name, kEmitAlways),
                Field("request", &ResourceClaimReference::request));
DRAPLANE_FIELDS(ResourceRequirements,
                Field("limits", &ResourceRequirements::limits),
                Field("requests", &ResourceRequirements::requests),
                Field("claims", &ResourceRequirements::claims));
DRAPLANE_FIELDS(Container, Field("name", &Container::name, kEmitAlways),
                Field("image", &Container::image),
                Field("command", &Container::command),
                Field("args", &Container::args),
                Field("resources", &Container::resources),
                Rest(&Container::unknown_fields));
DRAPLANE_FIELDS(PodResourceClaim,
                Field("name", &PodResourceClaim::name, kEmitAlways),
                Field("resourceClaimName",
                      &PodResourceClaim::resource_claim_name),
                Field("resourceClaimTemplateName",
                      &PodResourceClaim::resource_claim_template_name));
DRAPLANE_FIELDS(Toleration, Field("key", &Toleration::key),
                Field("operator", &Toleration::operator_),
                Field("value", &Toleration::value),
                Field("effect", &Toleration::effect),
                Field("tolerationSeconds", &Toleration::toleration_seconds));
DRAPLANE_FIELDS(PodSpec, Field("initContainers", &PodSpec::init_containers),
                Field("containers", &PodSpec::containers, kEmitAlways),
                Field("restartPolicy", &PodSpec::restart_policy),
                Field("nodeSelector", &PodSpec::node_selector),
                Field("nodeName", &PodSpec::node_name),
                Field("affinity", &PodSpec::affinity),
                Field("schedulerName", &PodSpec::scheduler_name),
                Field("tolerations", &PodSpec::tolerations),
                Field("resourceClaims", &PodSpec::resource_claims),
                Rest(&PodSpec::unknown_fields));
DRAPLANE_FIELDS(PodCondition, Field("type", &PodCondition::type, kEmitAlways),
                Field("status", &PodCondition::status, kEmitAlways),
                // metav1.Time: Go writes null for an unset one.
                Field("lastProbeTime", &PodCondition::last_probe_time,
                      kTimestamp | kEmitAlways),
                Field("lastTransitionTime", &PodCondition::last_transition_time,
                      kTimestamp | kEmitAlways),
                Field("reason", &PodCondition::reason),
                Field("message", &PodCondition::message),
                Rest(&PodCondition::unknown_fields));
DRAPLANE_FIELDS(PodResourceClaimStatus,
                Field("name", &PodResourceClaimStatus::name, kEmitAlways),
                Field("resourceClaimName",
                      &PodResourceClaimStatus::resource_claim_name));
DRAPLANE_FIELDS(PodStatus, Field("phase", &PodStatus::phase),
                Field("conditions", &PodStatus::conditions),
                Field("message", &PodStatus::message),
                Field("reason", &PodStatus::reason),
                Field("nominatedNodeName", &PodStatus::nominated_node_name),
                Field("resourceClaimStatuses",
                      &PodStatus::resource_claim_statuses),
                Rest(&PodStatus::unknown_fields));
DRAPLANE_FIELDS(Pod, Field("metadata", &Pod::metadata),
                Field("spec", &Pod::spec), Field("status", &Pod::status));
DRAPLANE_FIELDS(PodTemplateSpec, Field("metadata", &PodTemplateSpec::metadata),
                Field("spec", &PodTemplateSpec::spec));
DRAPLANE_FIELDS(ObjectReference, Field("kind", &ObjectReference::kind),
                Field("namespace", &ObjectReference::namespace_),
                Field("name", &ObjectReference::name),
                Field("uid", &ObjectReference::uid),
                Field("apiVersion", &ObjectReference::api_version),
                Field("resourceVersion", &ObjectReference::resource_version),
                Field("fieldPath", &ObjectReference::field_path));
DRAPLANE_FIELDS(LocalObjectReference,
                Field("name", &LocalObjectReference::name));
DRAPLANE_FIELDS(ServiceAccount, Field("metadata", &ServiceAccount::metadata),
                Field("secrets", &ServiceAccount::secrets),
                Field("imagePullSecrets", &ServiceAccount::image_pull_secrets),
                Field("automountServiceAccountToken",
                      &ServiceAccount::automount_service_account_token));
DRAPLANE_FIELDS(EventSource, Field("component", &EventSource::component),
                Field("host", &EventSource::host));
DRAPLANE_FIELDS(Event, Field("metadata", &Event::metadata),
                Field("involvedObject", &Event::involved_object),
                Field("reason", &Event::reason),
                Field("message", &Event::message),
                Field("source", &Event::source),
                Field("firstTimestamp", &Event::first_timestamp, kTimestamp),
                Field("lastTimestamp", &Event::last_timestamp, kTimestamp),
                Field("count", &Event::count), Field("type", &Event::type),
                Rest(&Event::unknown_fields));
DRAPLANE_FIELDS(ResourceQuotaSpec, Field("hard", &ResourceQuotaSpec::hard),
                Rest(&ResourceQuotaSpec::unknown_fields));
DRAPLANE_FIELDS(ResourceQuotaStatus, Field("hard", &ResourceQuotaStatus::hard),
                Field("used", &ResourceQuotaStatus::used));
DRAPLANE_FIELDS(ResourceQuota, Field("metadata", &ResourceQuota::metadata),
                Field("spec", &ResourceQuota::spec),
                Field("status", &ResourceQuota::status));
DRAPLANE_FIELDS(LeaseSpec, Field("holderIdentity", &LeaseSpec::holder_identity),
                Field("leaseDurationSeconds",
                      &LeaseSpec::lease_duration_seconds),
                Field("acquireTime", &LeaseSpec::acquire_time, kMicroTime),
                Field("renewTime", &LeaseSpec::renew_time, kMicroTime),
                Field("leaseTransitions", &LeaseSpec::lease_transitions),
                Field("strategy", &LeaseSpec::strategy),
                Field("preferredHolder", &LeaseSpec::preferred_holder));
DRAPLANE_FIELDS(Lease, Field("metadata", &Lease::metadata),
                Field("spec", &Lease::spec));
DRAPLANE_FIELDS(LabelSelector,
                Field("matchLabels", &LabelSelector::match_labels),
                Rest(&LabelSelector::unknown_fields));
DRAPLANE_FIELDS(DeploymentSpec, Field("replicas", &DeploymentSpec::replicas),
                Field("selector", &DeploymentSpec::selector),
                Field("template", &DeploymentSpec::template_),
                Rest(&DeploymentSpec::unknown_fields));
DRAPLANE_FIELDS(DeploymentStatus,
                Field("observedGeneration",
                      &DeploymentStatus::observed_generation),
                Field("replicas", &DeploymentStatus::replicas),
                Field("readyReplicas", &DeploymentStatus::ready_replicas),
                Field("availableReplicas",
                      &DeploymentStatus::available_replicas),
                Rest(&DeploymentStatus::unknown_fields));
DRAPLANE_FIELDS(Deployment, Field("metadata", &Deployment::metadata),
                Field("spec", &Deployment::spec),
                Field("status", &Deployment::status));
DRAPLANE_FIELDS(JobSpec, Field("parallelism", &JobSpec::parallelism),
                Field("completions", &JobSpec::completions),
                Field("backoffLimit", &JobSpec::backoff_limit),
                Field("template", &JobSpec::template_),
                Rest(&JobSpec::unknown_fields));
DRAPLANE_FIELDS(JobStatus, Field("active", &JobStatus::active),
                Field("succeeded", &JobStatus::succeeded),
                Field("failed", &JobStatus::failed),
                Rest(&JobStatus::unknown_fields));
DRAPLANE_FIELDS(Job, Field("metadata", &Job::metadata),
                Field("spec", &Job::spec), Field("status", &Job::status));

// rbac.authorization.k8s.io/v1
DRAPLANE_FIELDS(PolicyRule, Field("verbs", &PolicyRule::verbs, kEmitAlways),
                Field("apiGroups", &PolicyRule::api_groups),
                Field("resources", &PolicyRule::resources),
                Field("resourceNames", &PolicyRule::resource_names),
                Field("nonResourceURLs", &PolicyRule::non_resource_urls));
DRAPLANE_FIELDS(AggregationRule,
                Field("clusterRoleSelectors",
                      &AggregationRule::cluster_role_selectors));
DRAPLANE_FIELDS(Role, Field("metadata", &Role::metadata),
                Field("rules", &Role::rules, kEmitAlways));
DRAPLANE_FIELDS(ClusterRole, Field("metadata", &ClusterRole::metadata),
                Field("rules", &ClusterRole::rules, kEmitAlways),
                Field("aggregationRule", &ClusterRole::aggregation_rule));
DRAPLANE_FIELDS(Subject, Field("kind", &Subject::kind, kEmitAlways),
                Field("apiGroup", &Subject::api_group),
                Field("name", &Subject::name, kEmitAlways),
                Field("namespace", &Subject::namespace_));
DRAPLANE_FIELDS(RoleRef, Field("apiGroup", &RoleRef::api_group, kEmitAlways),
                Field("kind", &RoleRef::kind, kEmitAlways),
                Field("name", &RoleRef::name, kEmitAlways));
DRAPLANE_FIELDS(RoleBinding, Field("metadata", &RoleBinding::metadata),
                Field("subjects", &RoleBinding::subjects),
                Field("roleRef", &RoleBinding::role_ref));
DRAPLANE_FIELDS(ClusterRoleBinding,
                Field("metadata", &ClusterRoleBinding::metadata),
                Field("subjects", &ClusterRoleBinding::subjects),
                Field("roleRef", &ClusterRoleBinding::role_ref));
#undef DRAPLANE_FIELDS

}  // namespace draplane::api::internal

#endif  // DRAPLANE_API_INTERNAL_TYPE_MAPPINGS_H_

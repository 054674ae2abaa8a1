// The upstream OpenAPI model name of every struct of draplane's object model
// (src/api), e.g. api::ResourceClaim -> io.k8s.api.resource.v1.ResourceClaim
// in the resource.k8s.io/v1 document. resource.k8s.io types are named after
// the version of the document they appear in.
#ifndef DRAPLANE_OPENAPI_INTERNAL_MODEL_NAMES_H_
#define DRAPLANE_OPENAPI_INTERNAL_MODEL_NAMES_H_

#include <string>
#include <string_view>

#include "api/core_types.h"
#include "api/meta_types.h"
#include "api/rbac_types.h"
#include "api/resource_types.h"

namespace draplane::openapi::internal {

enum class ModelPackage {
  kMetaV1,
  kCoreV1,
  kResource,  // resource.k8s.io, in the document's version
  kCoordinationV1,
  kAppsV1,
  kBatchV1,
  kRbacV1,
};

// "io.k8s.api.resource.v1beta1" for (kResource, "v1beta1").
inline std::string ModelPrefix(ModelPackage package,
                               std::string_view resource_version) {
  switch (package) {
    case ModelPackage::kMetaV1:
      return "io.k8s.apimachinery.pkg.apis.meta.v1";
    case ModelPackage::kCoreV1:
      return "io.k8s.api.core.v1";
    case ModelPackage::kResource:
      return "io.k8s.api.resource." + std::string(resource_version);
    case ModelPackage::kCoordinationV1:
      return "io.k8s.api.coordination.v1";
    case ModelPackage::kAppsV1:
      return "io.k8s.api.apps.v1";
    case ModelPackage::kBatchV1:
      return "io.k8s.api.batch.v1";
    case ModelPackage::kRbacV1:
      return "io.k8s.api.rbac.v1";
  }
  return "";
}

// Model<T>::kPackage and Model<T>::kName (the Go type name). Undefined for
// types outside the table, so describing such a type fails to compile.
template <class T>
struct Model;

#define DRAPLANE_MODEL(Type, Package, GoName)                       \
  template <>                                                       \
  struct Model<Type> {                                              \
    static constexpr ModelPackage kPackage = ModelPackage::Package; \
    static constexpr std::string_view kName = GoName;               \
  }

// meta/v1
DRAPLANE_MODEL(api::ObjectMeta, kMetaV1, "ObjectMeta");
DRAPLANE_MODEL(api::OwnerReference, kMetaV1, "OwnerReference");
DRAPLANE_MODEL(api::ManagedFieldsEntry, kMetaV1, "ManagedFieldsEntry");
DRAPLANE_MODEL(api::Condition, kMetaV1, "Condition");
DRAPLANE_MODEL(api::LabelSelector, kMetaV1, "LabelSelector");
// core/v1
DRAPLANE_MODEL(api::NodeSelectorRequirement, kCoreV1,
               "NodeSelectorRequirement");
DRAPLANE_MODEL(api::NodeSelectorTerm, kCoreV1, "NodeSelectorTerm");
DRAPLANE_MODEL(api::NodeSelector, kCoreV1, "NodeSelector");
DRAPLANE_MODEL(api::Namespace, kCoreV1, "Namespace");
DRAPLANE_MODEL(api::NamespaceSpec, kCoreV1, "NamespaceSpec");
DRAPLANE_MODEL(api::NamespaceStatus, kCoreV1, "NamespaceStatus");
DRAPLANE_MODEL(api::Node, kCoreV1, "Node");
DRAPLANE_MODEL(api::NodeSpec, kCoreV1, "NodeSpec");
DRAPLANE_MODEL(api::NodeStatus, kCoreV1, "NodeStatus");
DRAPLANE_MODEL(api::NodeCondition, kCoreV1, "NodeCondition");
DRAPLANE_MODEL(api::Taint, kCoreV1, "Taint");
DRAPLANE_MODEL(api::Pod, kCoreV1, "Pod");
DRAPLANE_MODEL(api::PodSpec, kCoreV1, "PodSpec");
DRAPLANE_MODEL(api::PodStatus, kCoreV1, "PodStatus");
DRAPLANE_MODEL(api::PodCondition, kCoreV1, "PodCondition");
DRAPLANE_MODEL(api::Container, kCoreV1, "Container");
DRAPLANE_MODEL(api::ResourceRequirements, kCoreV1, "ResourceRequirements");
// core/v1 ResourceClaim: a container's reference to a pod's claim.
DRAPLANE_MODEL(api::ResourceClaimReference, kCoreV1, "ResourceClaim");
DRAPLANE_MODEL(api::PodResourceClaim, kCoreV1, "PodResourceClaim");
DRAPLANE_MODEL(api::PodResourceClaimStatus, kCoreV1, "PodResourceClaimStatus");
DRAPLANE_MODEL(api::Toleration, kCoreV1, "Toleration");
DRAPLANE_MODEL(api::PodTemplateSpec, kCoreV1, "PodTemplateSpec");
DRAPLANE_MODEL(api::ObjectReference, kCoreV1, "ObjectReference");
DRAPLANE_MODEL(api::LocalObjectReference, kCoreV1, "LocalObjectReference");
DRAPLANE_MODEL(api::ServiceAccount, kCoreV1, "ServiceAccount");
DRAPLANE_MODEL(api::EventSource, kCoreV1, "EventSource");
DRAPLANE_MODEL(api::Event, kCoreV1, "Event");
DRAPLANE_MODEL(api::ResourceQuota, kCoreV1, "ResourceQuota");
DRAPLANE_MODEL(api::ResourceQuotaSpec, kCoreV1, "ResourceQuotaSpec");
DRAPLANE_MODEL(api::ResourceQuotaStatus, kCoreV1, "ResourceQuotaStatus");
// coordination.k8s.io/v1, apps/v1, batch/v1
DRAPLANE_MODEL(api::Lease, kCoordinationV1, "Lease");
DRAPLANE_MODEL(api::LeaseSpec, kCoordinationV1, "LeaseSpec");
DRAPLANE_MODEL(api::Deployment, kAppsV1, "Deployment");
DRAPLANE_MODEL(api::DeploymentSpec, kAppsV1, "DeploymentSpec");
DRAPLANE_MODEL(api::DeploymentStatus, kAppsV1, "DeploymentStatus");
DRAPLANE_MODEL(api::Job, kBatchV1, "Job");
DRAPLANE_MODEL(api::JobSpec, kBatchV1, "JobSpec");
DRAPLANE_MODEL(api::JobStatus, kBatchV1, "JobStatus");
// rbac.authorization.k8s.io/v1
DRAPLANE_MODEL(api::PolicyRule, kRbacV1, "PolicyRule");
DRAPLANE_MODEL(api::AggregationRule, kRbacV1, "AggregationRule");
DRAPLANE_MODEL(api::Role, kRbacV1, "Role");
DRAPLANE_MODEL(api::ClusterRole, kRbacV1, "ClusterRole");
DRAPLANE_MODEL(api::Subject, kRbacV1, "Subject");
DRAPLANE_MODEL(api::RoleRef, kRbacV1, "RoleRef");
DRAPLANE_MODEL(api::RoleBinding, kRbacV1, "RoleBinding");
DRAPLANE_MODEL(api::ClusterRoleBinding, kRbacV1, "ClusterRoleBinding");
// resource.k8s.io
DRAPLANE_MODEL(api::CELDeviceSelector, kResource, "CELDeviceSelector");
DRAPLANE_MODEL(api::DeviceSelector, kResource, "DeviceSelector");
DRAPLANE_MODEL(api::OpaqueDeviceConfiguration, kResource,
               "OpaqueDeviceConfiguration");
DRAPLANE_MODEL(api::DeviceClassConfiguration, kResource,
               "DeviceClassConfiguration");
DRAPLANE_MODEL(api::DeviceClassSpec, kResource, "DeviceClassSpec");
DRAPLANE_MODEL(api::DeviceClass, kResource, "DeviceClass");
DRAPLANE_MODEL(api::DeviceToleration, kResource, "DeviceToleration");
DRAPLANE_MODEL(api::CapacityRequirements, kResource, "CapacityRequirements");
DRAPLANE_MODEL(api::ExactDeviceRequest, kResource, "ExactDeviceRequest");
DRAPLANE_MODEL(api::DeviceSubRequest, kResource, "DeviceSubRequest");
DRAPLANE_MODEL(api::DeviceRequest, kResource, "DeviceRequest");
DRAPLANE_MODEL(api::DeviceConstraint, kResource, "DeviceConstraint");
DRAPLANE_MODEL(api::DeviceClaimConfiguration, kResource,
               "DeviceClaimConfiguration");
DRAPLANE_MODEL(api::DeviceClaim, kResource, "DeviceClaim");
DRAPLANE_MODEL(api::ResourceClaimSpec, kResource, "ResourceClaimSpec");
DRAPLANE_MODEL(api::DeviceRequestAllocationResult, kResource,
               "DeviceRequestAllocationResult");
DRAPLANE_MODEL(api::DeviceAllocationConfiguration, kResource,
               "DeviceAllocationConfiguration");
DRAPLANE_MODEL(api::DeviceAllocationResult, kResource,
               "DeviceAllocationResult");
DRAPLANE_MODEL(api::AllocationResult, kResource, "AllocationResult");
DRAPLANE_MODEL(api::ResourceClaimConsumerReference, kResource,
               "ResourceClaimConsumerReference");
DRAPLANE_MODEL(api::NetworkDeviceData, kResource, "NetworkDeviceData");
DRAPLANE_MODEL(api::AllocatedDeviceStatus, kResource, "AllocatedDeviceStatus");
DRAPLANE_MODEL(api::ResourceClaimStatus, kResource, "ResourceClaimStatus");
DRAPLANE_MODEL(api::ResourceClaim, kResource, "ResourceClaim");
DRAPLANE_MODEL(api::ResourceClaimTemplateSpec, kResource,
               "ResourceClaimTemplateSpec");
DRAPLANE_MODEL(api::ResourceClaimTemplate, kResource, "ResourceClaimTemplate");
DRAPLANE_MODEL(api::ResourcePool, kResource, "ResourcePool");
DRAPLANE_MODEL(api::DeviceAttributeFields, kResource, "DeviceAttribute");
DRAPLANE_MODEL(api::CapacityRequestPolicyRange, kResource,
               "CapacityRequestPolicyRange");
DRAPLANE_MODEL(api::CapacityRequestPolicy, kResource, "CapacityRequestPolicy");
DRAPLANE_MODEL(api::DeviceCapacity, kResource, "DeviceCapacity");
DRAPLANE_MODEL(api::Counter, kResource, "Counter");
DRAPLANE_MODEL(api::DeviceCounterConsumption, kResource,
               "DeviceCounterConsumption");
DRAPLANE_MODEL(api::DeviceTaint, kResource, "DeviceTaint");
DRAPLANE_MODEL(api::NodeAllocatableResourceMapping, kResource,
               "NodeAllocatableResourceMapping");
DRAPLANE_MODEL(api::Device, kResource, "Device");
DRAPLANE_MODEL(api::CounterSet, kResource, "CounterSet");
DRAPLANE_MODEL(api::ResourceSliceSpec, kResource, "ResourceSliceSpec");
DRAPLANE_MODEL(api::ResourceSlice, kResource, "ResourceSlice");
DRAPLANE_MODEL(api::DeviceTaintSelector, kResource, "DeviceTaintSelector");
DRAPLANE_MODEL(api::DeviceTaintRuleSpec, kResource, "DeviceTaintRuleSpec");
DRAPLANE_MODEL(api::DeviceTaintRuleStatus, kResource, "DeviceTaintRuleStatus");
DRAPLANE_MODEL(api::DeviceTaintRule, kResource, "DeviceTaintRule");

#undef DRAPLANE_MODEL

template <class T>
std::string ModelName(std::string_view resource_version) {
  return ModelPrefix(Model<T>::kPackage, resource_version) + "." +
         std::string(Model<T>::kName);
}

}  // namespace draplane::openapi::internal

#endif  // DRAPLANE_OPENAPI_INTERNAL_MODEL_NAMES_H_

// Column descriptions of upstream's printers: the SwaggerDoc() texts that
// pkg/printers/internalversion/printers.go puts into its column
// definitions, taken verbatim (by a Go program calling the SwaggerDoc()
// methods) from k8s.io/api and k8s.io/apimachinery v0.37.2. Each constant
// names the Go type and JSON field it documents.
#ifndef DRAPLANE_PRINTERS_INTERNAL_COLUMN_DESCRIPTIONS_H_
#define DRAPLANE_PRINTERS_INTERNAL_COLUMN_DESCRIPTIONS_H_

#include <string_view>

namespace draplane::printers::internal {

// metav1.ObjectMeta name
inline constexpr std::string_view kObjectMetaName =
    "Name must be unique within a namespace. Is required when creating "
    "resources, although some resources may allow a client to request the "
    "generation of an appropriate name automatically. Name is primarily "
    "intended for creation idempotence and configuration definition. Cannot be "
    "updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
    "names#names";
// metav1.ObjectMeta creationTimestamp
inline constexpr std::string_view kObjectMetaCreationTimestamp =
    "CreationTimestamp is a timestamp representing the server time when this "
    "object was created. It is not guaranteed to be set in happens-before "
    "order across separate operations. Clients may not set this value. It is "
    "represented in RFC3339 form and is in UTC.\n\nPopulated by the system. "
    "Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"
    "api-conventions.md#metadata";
// core/v1 PodStatus podIP
inline constexpr std::string_view kPodStatusPodIP =
    "podIP address allocated to the pod. Routable at least within the cluster. "
    "Empty if not yet allocated.";
// core/v1 PodSpec nodeName
inline constexpr std::string_view kPodSpecNodeName =
    "NodeName indicates in which node this pod is scheduled. If empty, this "
    "pod is a candidate for scheduling by the scheduler defined in "
    "schedulerName. Once this field is set, the kubelet for this node becomes "
    "responsible for the lifecycle of this pod. This field should not be used "
    "to express a desire for the pod to be scheduled on a specific node. "
    "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/"
    "#nodename";
// core/v1 PodStatus nominatedNodeName
inline constexpr std::string_view kPodStatusNominatedNodeName =
    "nominatedNodeName is set only when this pod preempts other pods on the "
    "node, but it cannot be scheduled right away as preemption victims receive "
    "their graceful termination periods. This field does not guarantee that "
    "the pod will be scheduled on this node. Scheduler may decide to place the "
    "pod elsewhere if other nodes become available sooner. Scheduler may also "
    "decide to give the resources on this node to a higher priority pod that "
    "is created after preemption. As a result, this field may be different "
    "than PodSpec.nodeName when the pod is scheduled.";
// core/v1 PodSpec readinessGates
inline constexpr std::string_view kPodSpecReadinessGates =
    "If specified, all readiness gates will be evaluated for pod readiness. A "
    "pod is ready when all its containers are ready AND all conditions "
    "specified in the readiness gates have status equal to \"True\" More info: "
    "https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates";
// core/v1 NodeSystemInfo kubeletVersion
inline constexpr std::string_view kNodeSystemInfoKubeletVersion =
    "Kubelet Version reported by the node.";
// core/v1 NodeStatus addresses
inline constexpr std::string_view kNodeStatusAddresses =
    "List of addresses reachable to the node. Queried from cloud provider, if "
    "available. More info: "
    "https://kubernetes.io/docs/reference/node/node-status/#addresses Note: "
    "This field is declared as mergeable, but the merge key is not "
    "sufficiently unique, which can cause data corruption when it is merged. "
    "Callers should instead use a full-replacement patch. See "
    "https://pr.k8s.io/79391 for an example. Consumers should assume that "
    "addresses can change during the lifetime of a Node. However, there are "
    "some exceptions where this may not be possible, such as Pods that inherit "
    "a Node's address in its own status or consumers of the downward API "
    "(status.hostIP).";
// core/v1 NodeSystemInfo osImage
inline constexpr std::string_view kNodeSystemInfoOSImage =
    "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux "
    "7 (wheezy)).";
// core/v1 NodeSystemInfo kernelVersion
inline constexpr std::string_view kNodeSystemInfoKernelVersion =
    "Kernel Version reported by the node from 'uname -r' (e.g. "
    "3.16.0-0.bpo.4-amd64).";
// core/v1 NodeSystemInfo containerRuntimeVersion
inline constexpr std::string_view kNodeSystemInfoContainerRuntimeVersion =
    "ContainerRuntime Version reported by the node through runtime remote API "
    "(e.g. containerd://1.4.2).";
// core/v1 Event lastTimestamp
inline constexpr std::string_view kEventLastTimestamp =
    "The time at which the most recent occurrence of this event was recorded.";
// core/v1 Event type
inline constexpr std::string_view kEventType =
    "Type of this event (Normal, Warning), new types could be added in the "
    "future";
// core/v1 Event reason
inline constexpr std::string_view kEventReason =
    "This should be a short, machine understandable string that gives the "
    "reason for the transition into the object's current status.";
// core/v1 Event involvedObject
inline constexpr std::string_view kEventInvolvedObject =
    "The object that this event is about.";
// core/v1 ObjectReference fieldPath
inline constexpr std::string_view kObjectReferenceFieldPath =
    "If referring to a piece of an object instead of an entire object, this "
    "string should contain a valid JSON/Go field access statement, such as "
    "desiredState.manifest.containers[2]. For example, if the object reference "
    "is to a container within a pod, this would take on a value like: "
    "\"spec.containers{name}\" (where \"name\" refers to the name of the "
    "container that triggered the event) or if no container name is specified "
    "\"spec.containers[2]\" (container with index 2 in this pod). This syntax "
    "is chosen only to have some well-defined way of referencing a part of an "
    "object.";
// core/v1 Event source
inline constexpr std::string_view kEventSource =
    "The component reporting this event. Should be a short machine "
    "understandable string.";
// core/v1 Event message
inline constexpr std::string_view kEventMessage =
    "A human-readable description of the status of this operation.";
// core/v1 Event firstTimestamp
inline constexpr std::string_view kEventFirstTimestamp =
    "The time at which the event was first recorded. (Time of server receipt "
    "is in TypeMeta.)";
// core/v1 Event count
inline constexpr std::string_view kEventCount =
    "The number of times this event has occurred.";
// coordination/v1 LeaseSpec holderIdentity
inline constexpr std::string_view kLeaseSpecHolderIdentity =
    "holderIdentity contains the identity of the holder of a current lease. If "
    "Coordinated Leader Election is used, the holder identity must be equal to "
    "the elected LeaseCandidate.metadata.name field.";
// batch/v1 JobStatus succeeded
inline constexpr std::string_view kJobStatusSucceeded =
    "The number of pods which reached phase Succeeded. The value increases "
    "monotonically for a given spec. However, it may decrease in reaction to "
    "scale down of elastic indexed jobs.";
// batch/v1 JobSpec selector
inline constexpr std::string_view kJobSpecSelector =
    "A label query over pods that should match the pod count. Normally, the "
    "system sets this field for you. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/"
    "#label-selectors";
// apps/v1 DeploymentStatus updatedReplicas
inline constexpr std::string_view kDeploymentStatusUpdatedReplicas =
    "Total number of non-terminating pods targeted by this deployment that "
    "have the desired template spec.";
// apps/v1 DeploymentStatus availableReplicas
inline constexpr std::string_view kDeploymentStatusAvailableReplicas =
    "Total number of available non-terminating pods (ready for at least "
    "minReadySeconds) targeted by this deployment.";
// apps/v1 DeploymentSpec selector
inline constexpr std::string_view kDeploymentSpecSelector =
    "Label selector for pods. Existing ReplicaSets whose pods are selected by "
    "this will be the ones affected by this deployment. It must match the pod "
    "template's labels.";
// resource/v1 ResourceSliceSpec nodeName
inline constexpr std::string_view kResourceSliceSpecNodeName =
    "NodeName identifies the node which provides the resources in this pool. A "
    "field selector can be used to list only ResourceSlice objects belonging "
    "to a certain node.\n\nThis field can be used to limit access from nodes "
    "to ResourceSlices with the same node name. It also indicates to "
    "autoscalers that adding new nodes of the same type as some old node might "
    "also make new resources available.\n\nExactly one of NodeName, "
    "NodeSelector, AllNodes, and PerDeviceNodeSelection must be set. This "
    "field is immutable.";
// resource/v1 ResourceSliceSpec driver
inline constexpr std::string_view kResourceSliceSpecDriver =
    "Driver identifies the DRA driver providing the capacity information. A "
    "field selector can be used to list only ResourceSlice objects with a "
    "certain driver name.\n\nMust be a DNS subdomain and should end with a DNS "
    "domain owned by the vendor of the driver. It should use only lower case "
    "characters. This field is immutable.";
// resource/v1 ResourcePool name
inline constexpr std::string_view kResourcePoolName =
    "Name is used to identify the pool. For node-local devices, this is often "
    "the node name, but this is not required. A field selector can be used to "
    "list only ResourceSlice objects belonging to a certain pool.\n\nIt must "
    "not be longer than 253 characters and must consist of one or more DNS "
    "sub-domains separated by slashes. This field is immutable.";
// resource/v1 DeviceTaint key
inline constexpr std::string_view kDeviceTaintKey =
    "The taint key to be applied to a device. Must be a label name.";
// resource/v1 DeviceTaint value
inline constexpr std::string_view kDeviceTaintValue =
    "The taint value corresponding to the taint key. Must be a label value.";
// resource/v1 DeviceTaint effect
inline constexpr std::string_view kDeviceTaintEffect =
    "The effect of the taint on claims that do not tolerate the taint and "
    "through such claims on the pods using them.\n\nValid effects are None, "
    "NoSchedule and NoExecute. PreferNoSchedule as used for nodes is not valid "
    "here. More effects may get added in the future. Consumers must treat "
    "unknown effects like None.";
// resource/v1 DeviceTaint timeAdded
inline constexpr std::string_view kDeviceTaintTimeAdded =
    "TimeAdded represents the time at which the taint was added or (only in a "
    "DeviceTaintRule) the effect was modified. Added automatically during "
    "create or update if not set.\n\nIn addition, in a DeviceTaintRule a value "
    "provided during an update gets replaced with the current time if the "
    "provided value is the same as the old one and the new effect is "
    "different. Changing the key and/or value while keeping the effect "
    "unchanged is possible and does not update the time stamp because the "
    "eviction which uses it is either already started (NoExecute) or not "
    "started yet (NoEffect, NoSchedule).";

}  // namespace draplane::printers::internal

#endif  // DRAPLANE_PRINTERS_INTERNAL_COLUMN_DESCRIPTIONS_H_

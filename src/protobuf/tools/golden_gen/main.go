// Command golden_gen writes src/protobuf/testdata/go_golden.json: protobuf
// request bodies as upstream's Go code writes them (the apimachinery protobuf
// serializer: "k8s\0" + runtime.Unknown) and, for each, the JSON that Go's
// encoding/json writes for the object upstream decodes from those bytes.
// The C++ decoder must produce exactly that JSON.
//
// Cases: realistic objects of every kind draplane accepts in protobuf, the
// bodies captured from kubectl 1.32.4 (create namespace/quota/deployment/job/
// serviceaccount/token/role/clusterrole/rolebinding/clusterrolebinding, auth
// can-i, auth whoami), and randomly filled objects (fixed seeds) that reach
// every field.
//
// Usage: go run ./golden_gen > ../testdata/go_golden.json
package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/randfill"
)

type goldenCase struct {
	Name     string          `json:"name"`
	Protobuf string          `json:"protobuf"`
	JSON     json.RawMessage `json:"json"`
}

var (
	scheme = runtime.NewScheme()
	pb     *protobuf.Serializer
)

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "golden_gen:", err)
		os.Exit(1)
	}
}

func ptr[T any](v T) *T { return &v }

func ts(s string) metav1.Time {
	t, err := time.Parse(time.RFC3339, s)
	must(err)
	return metav1.NewTime(t)
}

func mts(s string) metav1.MicroTime {
	t, err := time.Parse(time.RFC3339Nano, s)
	must(err)
	return metav1.NewMicroTime(t)
}

func q(s string) resource.Quantity { return resource.MustParse(s) }

// caseFromBytes decodes `body` with upstream's serializer and records the JSON
// of the decoded object.
func caseFromBytes(name string, body []byte) goldenCase {
	obj, _, err := pb.Decode(body, nil, nil)
	must(err)
	js, err := json.Marshal(obj)
	must(err)
	return goldenCase{Name: name, Protobuf: hex.EncodeToString(body), JSON: js}
}

func caseFromObject(name string, obj runtime.Object) goldenCase {
	gvks, _, err := scheme.ObjectKinds(obj)
	must(err)
	obj.GetObjectKind().SetGroupVersionKind(gvks[0])
	var buf bytes.Buffer
	must(pb.Encode(obj, &buf))
	return caseFromBytes(name, buf.Bytes())
}

func realisticPodSpec() corev1.PodSpec {
	return corev1.PodSpec{
		Containers: []corev1.Container{{
			Name:       "trainer",
			Image:      "registry.example.com/ml/trainer:v2",
			Command:    []string{"python3", "-m", "train"},
			Args:       []string{"--epochs=10", "--data=/data"},
			WorkingDir: "/work",
			Env: []corev1.EnvVar{
				{Name: "MODE", Value: "fast"},
				{Name: "EMPTY"},
				{Name: "NODE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "spec.nodeName"}}},
				{Name: "CPU", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.cpu", Divisor: q("1m")}}},
			},
			EnvFrom: []corev1.EnvFromSource{{Prefix: "CFG_", ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}, Optional: ptr(true)}}},
			Ports:   []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}, {ContainerPort: 9090, HostPort: 19090, Protocol: corev1.ProtocolUDP}},
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{"cpu": q("500m"), "memory": q("1Gi")},
				Limits:   corev1.ResourceList{"cpu": q("2"), "memory": q("1.5Gi"), "nvidia.com/gpu": q("1")},
				Claims:   []corev1.ResourceClaim{{Name: "gpu"}, {Name: "nic", Request: "port0"}},
			},
			VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data", ReadOnly: true}, {Name: "scratch", MountPath: "/scratch"}},
			ReadinessProbe: &corev1.Probe{
				ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http"), Scheme: corev1.URISchemeHTTP}},
				InitialDelaySeconds: 5,
				PeriodSeconds:       10,
			},
			LivenessProbe: &corev1.Probe{
				ProbeHandler:     corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}},
				FailureThreshold: 3,
			},
			ImagePullPolicy: corev1.PullIfNotPresent,
			SecurityContext: &corev1.SecurityContext{
				RunAsNonRoot:             ptr(true),
				RunAsUser:                ptr(int64(1000)),
				AllowPrivilegeEscalation: ptr(false),
				Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			},
			TerminationMessagePath:   "/dev/termination-log",
			TerminationMessagePolicy: corev1.TerminationMessageReadFile,
		}},
		InitContainers: []corev1.Container{{Name: "init", Image: "busybox", Command: []string{"sh", "-c", "true"}}},
		Volumes: []corev1.Volume{
			{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "dataset", ReadOnly: true}}},
			{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory, SizeLimit: ptr(q("2Gi"))}}},
			{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}, DefaultMode: ptr(int32(0o644)), Items: []corev1.KeyToPath{{Key: "a", Path: "a.txt"}}}}},
		},
		RestartPolicy:                 corev1.RestartPolicyNever,
		TerminationGracePeriodSeconds: ptr(int64(30)),
		ActiveDeadlineSeconds:         ptr(int64(3600)),
		DNSPolicy:                     corev1.DNSClusterFirst,
		NodeSelector:                  map[string]string{"kubernetes.io/os": "linux", "gpu": "true"},
		ServiceAccountName:            "trainer",
		AutomountServiceAccountToken:  ptr(false),
		NodeName:                      "node-1",
		HostNetwork:                   false,
		SecurityContext:               &corev1.PodSecurityContext{FSGroup: ptr(int64(2000)), SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
		ImagePullSecrets:              []corev1.LocalObjectReference{{Name: "regcred"}},
		Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a", "b"}}}}},
		}}},
		SchedulerName: "default-scheduler",
		Tolerations: []corev1.Toleration{
			{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
			{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
		},
		Priority:           ptr(int32(0)),
		EnableServiceLinks: ptr(true),
		ResourceClaims: []corev1.PodResourceClaim{
			{Name: "gpu", ResourceClaimTemplateName: ptr("gpu-template")},
			{Name: "nic", ResourceClaimName: ptr("shared-nic")},
		},
		TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "trainer"}}}},
	}
}

func realisticCases() []goldenCase {
	var out []goldenCase
	out = append(out, caseFromObject("realistic/namespace", &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{Name: "team-a", Labels: map[string]string{"team": "a", "kubernetes.io/metadata.name": "team-a"}},
		Spec:       corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"kubernetes"}},
		Status:     corev1.NamespaceStatus{Phase: corev1.NamespaceActive},
	}))
	out = append(out, caseFromObject("realistic/resourcequota", &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "gpu-quota", Namespace: "team-a"},
		Spec: corev1.ResourceQuotaSpec{
			Hard:   corev1.ResourceList{"requests.cpu": q("10"), "requests.memory": q("64Gi"), "pods": q("100"), "count/resourceclaims.resource.k8s.io": q("8")},
			Scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeNotTerminating},
			ScopeSelector: &corev1.ScopeSelector{MatchExpressions: []corev1.ScopedResourceSelectorRequirement{
				{ScopeName: corev1.ResourceQuotaScopePriorityClass, Operator: corev1.ScopeSelectorOpIn, Values: []string{"high"}}}},
		},
		Status: corev1.ResourceQuotaStatus{Hard: corev1.ResourceList{"pods": q("100")}, Used: corev1.ResourceList{"pods": q("3")}},
	}))
	out = append(out, caseFromObject("realistic/pod", &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: "trainer-0", Namespace: "team-a", GenerateName: "trainer-", UID: "8f0e2a4c-1b7d-4c1e-9d3a-0a1b2c3d4e5f",
			ResourceVersion: "12345", Generation: 2,
			CreationTimestamp: ts("2025-03-01T12:00:00Z"),
			DeletionTimestamp: ptr(ts("2025-03-01T13:00:00Z")), DeletionGracePeriodSeconds: ptr(int64(30)),
			Labels:          map[string]string{"app": "trainer", "run": "trainer-0"},
			Annotations:     map[string]string{"note": "résumé ✓ <b>&amp;</b>"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "train", UID: "1111", Controller: ptr(true), BlockOwnerDeletion: ptr(true)}},
			Finalizers:      []string{"example.com/cleanup"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl-run", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
				Time: ptr(ts("2025-03-01T12:00:00Z")), FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{".":{},"f:run":{}}}}`)}}},
		},
		Spec: realisticPodSpec(),
		Status: corev1.PodStatus{
			Phase:      corev1.PodRunning,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: ts("2025-03-01T12:00:05Z")}, {Type: corev1.PodScheduled, Status: corev1.ConditionTrue}},
			HostIP:     "10.0.0.5",
			PodIP:      "10.244.1.7",
			PodIPs:     []corev1.PodIP{{IP: "10.244.1.7"}},
			StartTime:  ptr(ts("2025-03-01T12:00:01Z")),
			ContainerStatuses: []corev1.ContainerStatus{{Name: "trainer", Ready: true, RestartCount: 1, Image: "registry.example.com/ml/trainer:v2", ImageID: "sha256:abc",
				State:                corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: ts("2025-03-01T12:00:03Z")}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled", StartedAt: ts("2025-03-01T12:00:02Z")}},
				Started:              ptr(true)}},
			QOSClass: corev1.PodQOSBurstable,
		},
	}))
	out = append(out, caseFromObject("realistic/node", &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "node-1", Labels: map[string]string{"kubernetes.io/hostname": "node-1", "gpu": "true"}, CreationTimestamp: ts("2025-01-01T00:00:00Z")},
		Spec: corev1.NodeSpec{PodCIDR: "10.244.1.0/24", PodCIDRs: []string{"10.244.1.0/24"}, ProviderID: "fake://node-1", Unschedulable: true,
			Taints: []corev1.Taint{{Key: "node.kubernetes.io/unschedulable", Effect: corev1.TaintEffectNoSchedule, TimeAdded: ptr(ts("2025-03-01T00:00:00Z"))}, {Key: "gpu", Value: "true", Effect: corev1.TaintEffectPreferNoSchedule}}},
		Status: corev1.NodeStatus{
			Capacity:        corev1.ResourceList{"cpu": q("16"), "memory": q("65842396Ki"), "pods": q("110"), "nvidia.com/gpu": q("4"), "ephemeral-storage": q("100Gi")},
			Allocatable:     corev1.ResourceList{"cpu": q("15500m"), "memory": q("64Gi"), "pods": q("110")},
			Phase:           corev1.NodeRunning,
			Conditions:      []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: ts("2025-03-01T12:00:00Z"), LastTransitionTime: ts("2025-01-01T00:00:10Z"), Reason: "KubeletReady", Message: "kubelet is posting ready status"}},
			Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.5"}, {Type: corev1.NodeHostName, Address: "node-1"}},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
			NodeInfo:        corev1.NodeSystemInfo{MachineID: "m", KernelVersion: "6.1.0", OSImage: "Debian GNU/Linux 12", ContainerRuntimeVersion: "containerd://1.7.0", KubeletVersion: "v1.32.4", OperatingSystem: "linux", Architecture: "amd64"},
			Images:          []corev1.ContainerImage{{Names: []string{"busybox:latest"}, SizeBytes: 4261550}},
		},
	}))
	out = append(out, caseFromObject("realistic/event", &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "trainer-0.17f3a", Namespace: "team-a"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "team-a", Name: "trainer-0", UID: "8f0e", APIVersion: "v1", ResourceVersion: "12345", FieldPath: "spec.containers{trainer}"},
		Reason:         "Pulled", Message: "Successfully pulled image",
		Source:         corev1.EventSource{Component: "kubelet", Host: "node-1"},
		FirstTimestamp: ts("2025-03-01T12:00:02Z"), LastTimestamp: ts("2025-03-01T12:00:03Z"),
		Count: 2, Type: corev1.EventTypeNormal,
	}))
	out = append(out, caseFromObject("realistic/event-series", &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "e2", Namespace: "default"},
		InvolvedObject: corev1.ObjectReference{Kind: "Node", Name: "node-1"},
		Reason:         "Scheduled", Type: corev1.EventTypeWarning,
		EventTime:           mts("2025-03-01T12:00:00.123456Z"),
		Series:              &corev1.EventSeries{Count: 3, LastObservedTime: mts("2025-03-01T12:00:09.000001Z")},
		Action:              "Binding",
		Related:             &corev1.ObjectReference{Kind: "Pod", Name: "p"},
		ReportingController: "default-scheduler", ReportingInstance: "sched-1",
	}))
	out = append(out, caseFromObject("realistic/deployment", &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"app": "web"}, Generation: 3},
		Spec: appsv1.DeploymentSpec{
			Replicas:                ptr(int32(3)),
			Selector:                &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}, MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"db"}}}},
			Template:                corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.27", Ports: []corev1.ContainerPort{{ContainerPort: 80}}}}}},
			Strategy:                appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: ptr(intstr.FromInt32(0)), MaxSurge: ptr(intstr.FromString("25%"))}},
			MinReadySeconds:         5,
			RevisionHistoryLimit:    ptr(int32(10)),
			ProgressDeadlineSeconds: ptr(int32(600)),
		},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 2, AvailableReplicas: 2, UnavailableReplicas: 1,
			Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse, LastUpdateTime: ts("2025-03-01T12:00:00Z"), LastTransitionTime: ts("2025-03-01T12:00:00Z"), Reason: "MinimumReplicasUnavailable"}}},
	}))
	out = append(out, caseFromObject("realistic/job", &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "train", Namespace: "team-a"},
		Spec: batchv1.JobSpec{
			Parallelism: ptr(int32(2)), Completions: ptr(int32(4)), BackoffLimit: ptr(int32(6)), ActiveDeadlineSeconds: ptr(int64(7200)),
			TTLSecondsAfterFinished: ptr(int32(600)), Suspend: ptr(false), CompletionMode: ptr(batchv1.IndexedCompletion),
			PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
				{Action: batchv1.PodFailurePolicyActionFailJob, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{ContainerName: ptr("trainer"), Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{1, 42}}},
				{Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}},
			}},
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "trainer", Image: "trainer:v2",
				Resources: corev1.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: "gpu"}}}}},
				ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptr("gpu-template")}}}},
		},
		Status: batchv1.JobStatus{StartTime: ptr(ts("2025-03-01T12:00:00Z")), Active: 2, Succeeded: 1, Ready: ptr(int32(2)), Terminating: ptr(int32(0)),
			UncountedTerminatedPods: &batchv1.UncountedTerminatedPods{Succeeded: []types_UID{"a1"}}, CompletedIndexes: "0"},
	}))
	out = append(out, caseFromObject("realistic/lease", &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: "node-1", Namespace: "kube-node-lease", OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: "node-1", UID: "n1"}}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr("node-1"), LeaseDurationSeconds: ptr(int32(40)),
			AcquireTime: ptr(mts("2025-03-01T12:00:00.000000Z")), RenewTime: ptr(mts("2025-03-01T12:00:10.654321Z")), LeaseTransitions: ptr(int32(0))},
	}))
	out = append(out, caseFromObject("realistic/serviceaccount", &corev1.ServiceAccount{
		ObjectMeta:                   metav1.ObjectMeta{Name: "trainer", Namespace: "team-a", Annotations: map[string]string{"kubernetes.io/enforce-mountable-secrets": "true"}},
		Secrets:                      []corev1.ObjectReference{{Name: "trainer-token"}, {Kind: "Secret", Namespace: "team-a", Name: "extra"}},
		ImagePullSecrets:             []corev1.LocalObjectReference{{Name: "regcred"}},
		AutomountServiceAccountToken: ptr(false),
	}))
	readPods := rbacv1.PolicyRule{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"pods", "pods/log"}}
	out = append(out, caseFromObject("realistic/role", &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "pod-reader", Namespace: "team-a"},
		Rules: []rbacv1.PolicyRule{readPods,
			{Verbs: []string{"get", "update"}, APIGroups: []string{"resource.k8s.io"}, Resources: []string{"resourceclaims"}, ResourceNames: []string{"gpu-claim"}}},
	}))
	out = append(out, caseFromObject("realistic/role-no-rules", &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "empty", Namespace: "team-a"}}))
	out = append(out, caseFromObject("realistic/clusterrole", &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "monitoring", Labels: map[string]string{"rbac.example.com/aggregate-to-monitoring": "true"}},
		Rules:      []rbacv1.PolicyRule{readPods, {Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics", "/healthz/*"}}},
		AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
			{MatchLabels: map[string]string{"rbac.example.com/aggregate-to-monitoring": "true"}},
			{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpExists}}},
		}},
	}))
	out = append(out, caseFromObject("realistic/rolebinding", &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "read-pods", Namespace: "team-a"},
		Subjects: []rbacv1.Subject{
			{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "alice"},
			{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "system:serviceaccounts:team-a"},
			{Kind: rbacv1.ServiceAccountKind, Name: "trainer", Namespace: "team-a"},
		},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "pod-reader"},
	}))
	out = append(out, caseFromObject("realistic/clusterrolebinding", &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "monitoring"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "prometheus", Namespace: "monitoring"}},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "monitoring"},
	}))
	out = append(out, caseFromObject("realistic/clusterrolebinding-no-subjects", &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "nobody"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
	}))
	out = append(out, caseFromObject("realistic/selfsubjectaccessreview", &authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: "team-a", Verb: "list", Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaims",
			FieldSelector: &authorizationv1.FieldSelectorAttributes{RawSelector: "spec.nodeName=node-1",
				Requirements: []metav1.FieldSelectorRequirement{{Key: "spec.nodeName", Operator: metav1.FieldSelectorOpIn, Values: []string{"node-1"}}}},
			LabelSelector: &authorizationv1.LabelSelectorAttributes{
				Requirements: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"a", "b"}}, {Key: "gpu", Operator: metav1.LabelSelectorOpExists}}},
		}},
		Status: authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: "RBAC: allowed by RoleBinding \"read-pods/team-a\""},
	}))
	out = append(out, caseFromObject("realistic/selfsubjectaccessreview-non-resource", &authorizationv1.SelfSubjectAccessReview{
		Spec:   authorizationv1.SelfSubjectAccessReviewSpec{NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/healthz", Verb: "get"}},
		Status: authorizationv1.SubjectAccessReviewStatus{Denied: true, EvaluationError: "no RBAC policy matched"},
	}))
	out = append(out, caseFromObject("realistic/subjectaccessreview", &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "team-a", Verb: "create", Resource: "pods", Subresource: "binding", Name: "trainer-0"},
			User:               "system:serviceaccount:team-a:trainer",
			Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:team-a", "system:authenticated"},
			Extra: map[string]authorizationv1.ExtraValue{
				"authentication.kubernetes.io/credential-id": {"JTI=7f3e"},
				"authentication.kubernetes.io/node-name":     {"node-1", "node-2"},
				"empty":                                      {},
			},
			UID: "3c0d6ad4-0a44-4bd8-a6a4-8f2e1b9d4c11",
		},
	}))
	out = append(out, caseFromObject("realistic/localsubjectaccessreview", &authorizationv1.LocalSubjectAccessReview{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a"},
		Spec: authorizationv1.SubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "team-a", Verb: "get", Group: "apps", Resource: "deployments"},
			User:               "bob",
		},
		Status: authorizationv1.SubjectAccessReviewStatus{Allowed: false},
	}))
	out = append(out, caseFromObject("realistic/selfsubjectrulesreview", &authorizationv1.SelfSubjectRulesReview{
		Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "team-a"},
		Status: authorizationv1.SubjectRulesReviewStatus{
			ResourceRules: []authorizationv1.ResourceRule{
				{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"selfsubjectaccessreviews", "selfsubjectrulesreviews"}},
				{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}, ResourceNames: []string{"trainer-0"}},
			},
			NonResourceRules: []authorizationv1.NonResourceRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/api", "/api/*"}}},
			Incomplete:       true,
			EvaluationError:  "webhook authorizer: timeout",
		},
	}))
	out = append(out, caseFromObject("realistic/selfsubjectreview", &authenticationv1.SelfSubjectReview{
		ObjectMeta: metav1.ObjectMeta{CreationTimestamp: ts("2025-03-01T12:00:00Z")},
		Status: authenticationv1.SelfSubjectReviewStatus{UserInfo: authenticationv1.UserInfo{
			Username: "kubernetes-admin", UID: "admin-uid", Groups: []string{"kubeadm:cluster-admins", "system:authenticated"},
			Extra: map[string]authenticationv1.ExtraValue{"scopes": {"openid", "email"}, "none": {}},
		}},
	}))
	out = append(out, caseFromObject("realistic/tokenreview", &authenticationv1.TokenReview{
		Spec: authenticationv1.TokenReviewSpec{Token: "eyJhbGciOiJSUzI1NiJ9.e30.c2ln", Audiences: []string{"https://kubernetes.default.svc"}},
		Status: authenticationv1.TokenReviewStatus{
			Authenticated: true,
			User: authenticationv1.UserInfo{Username: "system:serviceaccount:team-a:trainer", UID: "sa-uid", Groups: []string{"system:serviceaccounts"},
				Extra: map[string]authenticationv1.ExtraValue{"authentication.kubernetes.io/pod-name": {"trainer-0"}}},
			Audiences: []string{"https://kubernetes.default.svc"},
		},
	}))
	out = append(out, caseFromObject("realistic/tokenreview-failed", &authenticationv1.TokenReview{
		Spec:   authenticationv1.TokenReviewSpec{Token: "bad"},
		Status: authenticationv1.TokenReviewStatus{Error: "invalid bearer token"},
	}))
	out = append(out, caseFromObject("realistic/tokenrequest", &authenticationv1.TokenRequest{
		ObjectMeta: metav1.ObjectMeta{Name: "trainer", Namespace: "team-a"},
		Spec: authenticationv1.TokenRequestSpec{
			Audiences:         []string{"https://kubernetes.default.svc", "vault"},
			ExpirationSeconds: ptr(int64(3600)),
			BoundObjectRef:    &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: "trainer-0", UID: "8f0e2a4c"},
			Attestations:      map[string]authenticationv1.AttestationValue{"example.com/tpm": {"quote-1", "quote-2"}, "example.com/empty": {}},
		},
		Status: authenticationv1.TokenRequestStatus{Token: "eyJhbGciOiJSUzI1NiJ9.e30.c2ln", ExpirationTimestamp: ts("2025-03-01T13:00:00Z")},
	}))
	out = append(out, caseFromObject("realistic/tokenrequest-empty", &authenticationv1.TokenRequest{}))
	return out
}

// kubectl 1.32.4 request bodies, captured with a plain-HTTP fake server.
var kubectlCaptures = []struct{ name, hex string }{
	{"kubectl/create-namespace", "6b3873000a0f0a02763112094e616d657370616365121d0a150a05746573743112001a0022002a003200380042001200" + "1a020a001a002200"},
	{"kubectl/create-quota", "6b3873000a130a027631120d5265736f7572636551756f746112320a120a02713112001a0022002a00320038004200121a0a0a0a0363707512030a01310a0c0a04706f647312040a0231301a001a002200"},
	{"kubectl/create-deployment", "6b3873000a150a07617070732f7631120a4465706c6f796d656e7412b9010a1d0a02643112001a0022002a003200380042005a090a03617070120264311289010802120b0a090a03617070120264311a700a1b0a0012001a0022002a003200380042005a090a0361707012026431125112330a056e67696e78120a6e67696e783a312e32372a00320a0a001000185022002a0042006a007200800100880100900100a201001a00320042004a0052005800600068008201008a01009a0100c2010022020a00280038001a0c0800100018002000280038001a002200"},
	{"kubectl/create-deployment-command", "6b3873000a150a07617070732f7631120a4465706c6f796d656e7412b9010a1d0a02643212001a0022002a003200380042005a090a03617070120264321289010801120b0a090a03617070120264321a700a1b0a0012001a0022002a003200380042005a090a0361707012026432125112330a0762757379626f78120762757379626f781a05736c6565701a04333630302a0042006a007200800100880100900100a201001a00320042004a0052005800600068008201008a01009a0100c2010022020a00280038001a0c0800100018002000280038001a002200"},
	{"kubectl/create-job", "6b3873000a0f0a0862617463682f763112034a6f621284010a120a026a3112001a0022002a00320038004200126432620a100a0012001a0022002a00320038004200124e122b0a026a31120762757379626f781a046563686f1a0268692a0042006a007200800100880100900100a201001a054e65766572320042004a0052005800600068008201008a01009a0100c201001a082000280030003a001a002200"},
	// kubectl create role r1 --verb=get,list --resource=pods,deployments.apps --resource-name=p1
	{"kubectl/create-role", "6b3873000a240a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f76311204526f6c6512510a120a02723112001a0022002a0032003800420012170a036765740a046c69737412001a04706f64732202703112220a036765740a046c6973741204617070731a0b6465706c6f796d656e7473220270311a002200"},
	// kubectl create clusterrole cr1 --verb=get --non-resource-url=/healthz
	{"kubectl/create-clusterrole", "6b3873000a2b0a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f7631120b436c7573746572526f6c6512260a130a0363723112001a0022002a00320038004200120f0a036765742a082f6865616c74687a1a002200"},
	// kubectl create clusterrole cr2 --aggregation-rule=rbac.example.com/aggregate-to-monitoring=true
	{"kubectl/create-clusterrole-aggregation", "6b3873000a2b0a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f7631120b436c7573746572526f6c65124b0a130a0363723212001a0022002a003200380042001a340a320a300a28726261632e6578616d706c652e636f6d2f6167677265676174652d746f2d6d6f6e69746f72696e671204747275651a002200"},
	// kubectl create rolebinding rb1 --role=r1 --user=alice --group=devs --serviceaccount=default:sa1
	{"kubectl/create-rolebinding", "6b3873000a2b0a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f7631120b526f6c6542696e64696e6712b6010a130a0372623112001a0022002a00320038004200122a0a04557365721219726261632e617574686f72697a6174696f6e2e6b38732e696f1a05616c6963652200122a0a0547726f75701219726261632e617574686f72697a6174696f6e2e6b38732e696f1a0464657673220012200a0e536572766963654163636f756e7412001a03736131220764656661756c741a250a19726261632e617574686f72697a6174696f6e2e6b38732e696f1204526f6c651a0272311a002200"},
	// kubectl create clusterrolebinding crb1 --clusterrole=cr1 --user=bob
	{"kubectl/create-clusterrolebinding", "6b3873000a320a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f76311212436c7573746572526f6c6542696e64696e67126f0a140a046372623112001a0022002a0032003800420012280a04557365721219726261632e617574686f72697a6174696f6e2e6b38732e696f1a03626f6222001a2d0a19726261632e617574686f72697a6174696f6e2e6b38732e696f120b436c7573746572526f6c651a036372311a002200"},
	// kubectl create serviceaccount sa1
	{"kubectl/create-serviceaccount", "6b3873000a140a027631120e536572766963654163636f756e7412150a130a0373613112001a0022002a003200380042001a002200"},
	// kubectl create token sa1 --audience=api --duration=10m --bound-object-kind=Pod --bound-object-name=p1 --bound-object-uid=u1
	{"kubectl/create-token", "6b3873000a280a1861757468656e7469636174696f6e2e6b38732e696f2f7631120c546f6b656e5265717565737412350a100a0012001a0022002a00320038004200121b0a036170691a110a03506f64120276311a0270312202753120d8041a040a0012001a002200"},
	// kubectl auth can-i get pods
	{"kubectl/auth-can-i", "6b3873000a320a17617574686f72697a6174696f6e2e6b38732e696f2f7631121753656c665375626a656374416363657373526576696577123c0a100a0012001a0022002a00320038004200121e0a1c0a0764656661756c7412036765741a0022002a04706f647332003a001a08080012001a0020001a002200"},
	// kubectl auth can-i create deployments.apps --subresource=scale -n team-a
	{"kubectl/auth-can-i-subresource", "6b3873000a320a17617574686f72697a6174696f6e2e6b38732e696f2f7631121753656c665375626a656374416363657373526576696577124e0a100a0012001a0022002a0032003800420012300a2e0a067465616d2d6112066372656174651a046170707322002a0b6465706c6f796d656e747332057363616c653a001a08080012001a0020001a002200"},
	// kubectl auth can-i get /healthz
	{"kubectl/auth-can-i-non-resource", "6b3873000a320a17617574686f72697a6174696f6e2e6b38732e696f2f7631121753656c665375626a656374416363657373526576696577122f0a100a0012001a0022002a003200380042001211120f0a082f6865616c74687a12036765741a08080012001a0020001a002200"},
	// kubectl auth can-i --list -n team-a
	{"kubectl/auth-can-i-list", "6b3873000a310a17617574686f72697a6174696f6e2e6b38732e696f2f7631121653656c665375626a65637452756c657352657669657712220a100a0012001a0022002a0032003800420012080a067465616d2d611a04180022001a002200"},
	// kubectl auth whoami
	{"kubectl/auth-whoami", "6b3873000a2d0a1861757468656e7469636174696f6e2e6b38732e696f2f7631121153656c665375626a656374526576696577121a0a100a0012001a0022002a0032003800420012060a040a0012001a002200"},
}

var quantities = []string{"0", "1", "100m", "1.5", "2Gi", "1536Mi", "500M", "1e3", "12345678901234", "0.001", "-3", "7Ki", "250u"}

func filler(seed int64) *randfill.Filler {
	return randfill.New().RandSource(rand.NewSource(seed)).NilChance(0.4).NumElements(1, 2).MaxDepth(12).Funcs(
		func(j *resource.Quantity, c randfill.Continue) {
			*j = resource.MustParse(quantities[c.Intn(len(quantities))])
		},
		func(j *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*j = intstr.FromInt32(c.Int31() - 1<<30)
			} else {
				*j = intstr.FromString(c.String(8))
			}
		},
		func(j *metav1.Time, c randfill.Continue) {
			if c.Intn(4) == 0 {
				*j = metav1.Time{}
				return
			}
			// Any second from year 0 to 9999.
			*j = metav1.Unix(c.Int63n(253402300799+62167219200)-62167219200, 0)
		},
		func(j *metav1.MicroTime, c randfill.Continue) {
			if c.Intn(4) == 0 {
				*j = metav1.MicroTime{}
				return
			}
			*j = metav1.NewMicroTime(time.Unix(c.Int63n(253402300799), c.Int63n(1e9)))
		},
		func(j *metav1.FieldsV1, c randfill.Continue) {
			j.Raw = []byte(fmt.Sprintf(`{"f:metadata":{"f:name":{}},"f:n":%d}`, c.Intn(100)))
		},
		func(j *metav1.TypeMeta, c randfill.Continue) {},
		func(j *int64, c randfill.Continue) {
			switch c.Intn(3) {
			case 0:
				*j = c.Int63() - c.Int63()
			case 1:
				*j = int64(c.Intn(100))
			}
		},
	)
}

type types_UID = types.UID

func randomCases() []goldenCase {
	kinds := []func() runtime.Object{
		func() runtime.Object { return &corev1.Namespace{} },
		func() runtime.Object { return &corev1.ResourceQuota{} },
		func() runtime.Object { return &corev1.Pod{} },
		func() runtime.Object { return &corev1.Node{} },
		func() runtime.Object { return &corev1.Event{} },
		func() runtime.Object { return &appsv1.Deployment{} },
		func() runtime.Object { return &batchv1.Job{} },
		func() runtime.Object { return &coordinationv1.Lease{} },
		// (Appended after the first kinds so that their seeds stay put.)
		func() runtime.Object { return &corev1.ServiceAccount{} },
		func() runtime.Object { return &rbacv1.Role{} },
		func() runtime.Object { return &rbacv1.ClusterRole{} },
		func() runtime.Object { return &rbacv1.RoleBinding{} },
		func() runtime.Object { return &rbacv1.ClusterRoleBinding{} },
		func() runtime.Object { return &authorizationv1.SelfSubjectAccessReview{} },
		func() runtime.Object { return &authorizationv1.SubjectAccessReview{} },
		func() runtime.Object { return &authorizationv1.SelfSubjectRulesReview{} },
		func() runtime.Object { return &authorizationv1.LocalSubjectAccessReview{} },
		func() runtime.Object { return &authenticationv1.SelfSubjectReview{} },
		func() runtime.Object { return &authenticationv1.TokenReview{} },
		func() runtime.Object { return &authenticationv1.TokenRequest{} },
	}
	var out []goldenCase
	for i, newObj := range kinds {
		for s := 0; s < 3; s++ {
			obj := newObj()
			filler(int64(1000*i + s)).Fill(obj)
			gvks, _, err := scheme.ObjectKinds(obj)
			must(err)
			out = append(out, caseFromObject(fmt.Sprintf("random/%s-%d", gvks[0].Kind, s), obj))
		}
	}
	return out
}

func main() {
	must(corev1.AddToScheme(scheme))
	must(appsv1.AddToScheme(scheme))
	must(batchv1.AddToScheme(scheme))
	must(coordinationv1.AddToScheme(scheme))
	must(rbacv1.AddToScheme(scheme))
	must(authorizationv1.AddToScheme(scheme))
	must(authenticationv1.AddToScheme(scheme))
	pb = protobuf.NewSerializer(scheme, scheme)
	_ = schema.GroupVersionKind{}

	var cases []goldenCase
	for _, c := range kubectlCaptures {
		body, err := hex.DecodeString(c.hex)
		must(err)
		cases = append(cases, caseFromBytes(c.name, body))
	}
	cases = append(cases, realisticCases()...)
	cases = append(cases, randomCases()...)

	var b bytes.Buffer
	b.WriteString("[\n")
	for i, c := range cases {
		line, err := json.Marshal(c)
		must(err)
		b.Write(line)
		if i+1 < len(cases) {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	os.Stdout.Write(b.Bytes())
}

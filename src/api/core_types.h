// The subset of core/v1, apps/v1, batch/v1 and coordination.k8s.io/v1 that
// draplane reads and writes, with typed access to the fields it uses.
//
// Contract: every struct with an `unknown_fields` member keeps the JSON
// members it does not model there, so a user's Pod keeps its volumes,
// probes, securityContext ... through a decode/encode round trip. Structs
// without it (PodResourceClaim, ResourceClaim references) are modelled in
// full, and an unknown member in them is reported as a strict-decoding
// error, as the Kubernetes API server does.
#ifndef DRAPLANE_API_CORE_TYPES_H_
#define DRAPLANE_API_CORE_TYPES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/compact.h"
#include "api/meta_types.h"
#include "common/quantity.h"

namespace draplane::api {

// Sorted by resource name like std::map; a FlatMap because nodes and pods
// hold a few entries each (memory per cached Node, see object.h).
using ResourceList = FlatMap<std::string, Quantity>;

// ------------------------------------------------------------ Namespace
struct NamespaceSpec {
  std::vector<std::string> finalizers;
  Json unknown_fields = Json::object();
};

struct NamespaceStatus {
  std::string phase;
  Json unknown_fields = Json::object();
};

struct Namespace {
  ObjectMeta metadata;
  NamespaceSpec spec;
  NamespaceStatus status;
};

// ----------------------------------------------------------------- Node
struct Taint {
  std::string key;
  std::string value;
  std::string effect;
  std::optional<Time> time_added;
};

struct NodeSpec {
  bool unschedulable = false;
  std::vector<Taint> taints;
  Json unknown_fields = Json::object();
};

struct NodeCondition {
  std::string type;
  std::string status;
  std::optional<Time> last_heartbeat_time;
  std::optional<Time> last_transition_time;
  std::string reason;
  std::string message;
};

struct NodeStatus {
  ResourceList capacity;
  ResourceList allocatable;
  std::vector<NodeCondition> conditions;
  Json unknown_fields = Json::object();
};

struct Node {
  ObjectMeta metadata;
  NodeSpec spec;
  NodeStatus status;
};

// ------------------------------------------------------------------ Pod
struct ResourceClaimReference {  // core/v1 ResourceClaim (in containers)
  std::string name;
  std::string request;
};

struct ResourceRequirements {
  ResourceList limits;
  ResourceList requests;
  std::vector<ResourceClaimReference> claims;
};

struct Container {
  std::string name;
  std::string image;
  std::vector<std::string> command;
  std::vector<std::string> args;
  ResourceRequirements resources;
  Json unknown_fields = Json::object();
};

struct PodResourceClaim {
  std::string name;
  std::optional<std::string> resource_claim_name;
  std::optional<std::string> resource_claim_template_name;
};

struct Toleration {
  std::string key;
  std::string operator_;
  std::string value;
  std::string effect;
  std::optional<int64_t> toleration_seconds;
};

struct PodSpec {
  std::vector<Container> init_containers;
  std::vector<Container> containers;
  std::string restart_policy;
  std::map<std::string, std::string> node_selector;
  std::string node_name;
  std::optional<Json> affinity;
  std::string scheduler_name;
  std::vector<Toleration> tolerations;
  std::vector<PodResourceClaim> resource_claims;
  Json unknown_fields = Json::object();
};

struct PodCondition {
  std::string type;
  std::string status;
  std::optional<Time> last_probe_time;
  std::optional<Time> last_transition_time;
  std::string reason;
  std::string message;
  Json unknown_fields = Json::object();
};

struct PodResourceClaimStatus {
  std::string name;
  std::optional<std::string> resource_claim_name;
};

struct PodStatus {
  std::string phase;
  std::vector<PodCondition> conditions;
  std::string message;
  std::string reason;
  std::string nominated_node_name;
  std::vector<PodResourceClaimStatus> resource_claim_statuses;
  Json unknown_fields = Json::object();
};

struct Pod {
  ObjectMeta metadata;
  PodSpec spec;
  PodStatus status;
};

struct PodTemplateSpec {
  ObjectMeta metadata;
  PodSpec spec;
};

// ---------------------------------------------------------------- Event
struct ObjectReference {
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string api_version;
  std::string resource_version;
  std::string field_path;
};

struct EventSource {
  std::string component;
  std::string host;
};

struct Event {
  ObjectMeta metadata;
  ObjectReference involved_object;
  std::string reason;
  std::string message;
  Box<EventSource> source;  // boxed: see the size contract in object.h
  std::optional<Time> first_timestamp;
  std::optional<Time> last_timestamp;
  int32_t count = 0;
  std::string type;
  Json unknown_fields = Json::object();  // eventTime, series, related, ...
};

// -------------------------------------------------------- ServiceAccount
struct LocalObjectReference {
  std::string name;
};

struct ServiceAccount {
  ObjectMeta metadata;
  std::vector<ObjectReference> secrets;
  std::vector<LocalObjectReference> image_pull_secrets;
  std::optional<bool> automount_service_account_token;
};

// -------------------------------------------------------- ResourceQuota
struct ResourceQuotaSpec {
  ResourceList hard;
  Json unknown_fields = Json::object();  // scopes, scopeSelector
};

struct ResourceQuotaStatus {
  ResourceList hard;
  ResourceList used;
};

struct ResourceQuota {
  ObjectMeta metadata;
  ResourceQuotaSpec spec;
  ResourceQuotaStatus status;
};

// ---------------------------------------------------------------- Lease
struct LeaseSpec {
  std::optional<std::string> holder_identity;
  std::optional<int32_t> lease_duration_seconds;
  std::optional<Time> acquire_time;
  std::optional<Time> renew_time;
  std::optional<int32_t> lease_transitions;
  std::optional<std::string> strategy;
  std::optional<std::string> preferred_holder;
};

struct Lease {
  ObjectMeta metadata;
  LeaseSpec spec;
};

// ------------------------------------------------- Deployment and Job
struct LabelSelector {
  std::map<std::string, std::string> match_labels;
  Json unknown_fields = Json::object();  // matchExpressions
};

// The pod templates of Deployments and Jobs are kept out of line: inline
// they made these the largest kinds, and so every api::Object (a variant
// of all kinds) a third larger.
struct DeploymentSpec {
  std::optional<int32_t> replicas;
  std::optional<LabelSelector> selector;
  Box<PodTemplateSpec> template_;
  Json unknown_fields = Json::object();
};

struct DeploymentStatus {
  int64_t observed_generation = 0;
  int32_t replicas = 0;
  int32_t ready_replicas = 0;
  int32_t available_replicas = 0;
  Json unknown_fields = Json::object();
};

struct Deployment {
  ObjectMeta metadata;
  DeploymentSpec spec;
  DeploymentStatus status;
};

struct JobSpec {
  std::optional<int32_t> parallelism;
  std::optional<int32_t> completions;
  std::optional<int32_t> backoff_limit;
  Box<PodTemplateSpec> template_;
  Json unknown_fields = Json::object();
};

struct JobStatus {
  int32_t active = 0;
  int32_t succeeded = 0;
  int32_t failed = 0;
  Json unknown_fields = Json::object();
};

struct Job {
  ObjectMeta metadata;
  JobSpec spec;
  JobStatus status;
};

}  // namespace draplane::api

#endif  // DRAPLANE_API_CORE_TYPES_H_

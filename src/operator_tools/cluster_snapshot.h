// What the operator tools (inventory, explain, doctor) read from a live
// cluster: one List per kind, taken one after another (not one atomic
// read; the tools report what they saw, and a change in between shows up
// at the next run). Works against draplane's server and any Kubernetes
// API server through the same client.
#ifndef DRAPLANE_OPERATOR_TOOLS_CLUSTER_SNAPSHOT_H_
#define DRAPLANE_OPERATOR_TOOLS_CLUSTER_SNAPSHOT_H_

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "api/object.h"
#include "client/client.h"

namespace draplane::operator_tools {

using ObjectPtr = std::shared_ptr<const api::Object>;

struct ClusterSnapshot {
  absl::Time taken_at = absl::UnixEpoch();
  // False when the server does not serve resource.k8s.io/v1 (a 404 on
  // DeviceClasses); then the DRA lists are empty and `dra_error` says why.
  bool dra_served = true;
  std::string dra_error;
  std::vector<ObjectPtr> nodes;
  std::vector<ObjectPtr> pods;
  std::vector<ObjectPtr> slices;
  std::vector<ObjectPtr> device_classes;
  std::vector<ObjectPtr> claims;
  std::vector<ObjectPtr> claim_templates;
  std::vector<ObjectPtr> taint_rules;  // empty where the kind is not served
  std::vector<ObjectPtr> quotas;
  std::vector<ObjectPtr> events;
  // Namespaces, for their admin-access label; `namespaces_listed` is false
  // when the caller may not list them (then admin access goes unchecked).
  std::vector<ObjectPtr> namespaces;
  bool namespaces_listed = true;

  // Lookups through the index (BuildIndex() after changing the lists;
  // TakeSnapshot and SnapshotOf build it).
  const api::Pod* FindPod(std::string_view ns, std::string_view name) const;
  const api::Pod* FindPodByUid(std::string_view uid) const;
  const api::ResourceClaim* FindClaim(std::string_view ns,
                                      std::string_view name) const;
  const api::Node* FindNode(std::string_view name) const;
  // The newest event's message for the object and reason ("" if none).
  std::string LastEventMessage(std::string_view kind, std::string_view ns,
                               std::string_view name,
                               std::string_view reason) const;
  // Pods whose spec.resourceClaims resolve to the claim ns/name.
  const std::vector<const api::Pod*>& PodsUsingClaim(
      std::string_view ns, std::string_view name) const;
  // Nodes of the slices of a pool ("driver/pool"), empty when unknown.
  const std::set<std::string>* PoolNodes(std::string_view driver,
                                         std::string_view pool) const;
  void BuildIndex();

 private:
  // "ns/name" (or "name") -> object; uid -> pod; "driver/pool" -> nodes.
  absl::flat_hash_map<std::string, const api::Pod*> pods_by_key_;
  absl::flat_hash_map<std::string, const api::Pod*> pods_by_uid_;
  absl::flat_hash_map<std::string, const api::ResourceClaim*> claims_by_key_;
  absl::flat_hash_map<std::string, const api::Node*> nodes_by_name_;
  absl::flat_hash_map<std::string, std::set<std::string>> pool_nodes_;
  // "kind/ns/name/reason" -> (time, message) of the newest event.
  absl::flat_hash_map<std::string, std::pair<std::string, std::string>>
      last_events_;
  // "ns/claim" -> pods using it.
  absl::flat_hash_map<std::string, std::vector<const api::Pod*>> claim_users_;
};

struct SnapshotOptions {
  bool pods = true;
  bool events = true;
  bool quotas = true;
};

// Lists every kind the tools use. Errors other than "DRA not served"
// (and a missing DeviceTaintRule kind, an alpha API) are returned.
absl::StatusOr<ClusterSnapshot> TakeSnapshot(client::Client& client,
                                             const SnapshotOptions& options);

// Sorts objects already in hand into a snapshot taken at `now`.
ClusterSnapshot SnapshotOf(const std::vector<api::Object>& objects,
                           absl::Time now);

// metadata.creationTimestamp (or another RFC 3339 time) as absl::Time;
// nullopt when unset or unparsable.
std::optional<absl::Time> ParseTime(const std::optional<std::string>& text);

// Whether a node's Ready condition is True.
bool NodeReady(const api::Node& node);

}  // namespace draplane::operator_tools

#endif  // DRAPLANE_OPERATOR_TOOLS_CLUSTER_SNAPSHOT_H_

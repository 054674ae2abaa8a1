#include "operator_tools/cluster_snapshot.h"

#include <algorithm>

#include "api/helpers/pod_claims.h"
#include "common/str_cat.h"

namespace draplane::operator_tools {
namespace {

std::string Key(std::string_view ns, std::string_view name) {
  return StrCat(ns, "/", name);
}

template <typename T>
const T* Lookup(const absl::flat_hash_map<std::string, const T*>& index,
                const std::string& key) {
  auto it = index.find(key);
  return it == index.end() ? nullptr : it->second;
}

absl::Status ListInto(client::Client& client, std::string_view kind,
                      std::vector<ObjectPtr>& out) {
  client::ListOptions options;
  options.drop_managed_fields = true;
  options.limit = 500;
  do {
    absl::StatusOr<client::ObjectList> list =
        client.List(client::Kind(kind), "", options);
    if (!list.ok()) return list.status();
    for (api::Object& o : list->items) {
      out.push_back(std::make_shared<const api::Object>(std::move(o)));
    }
    options.continue_token = list->continue_token;
  } while (!options.continue_token.empty());
  return absl::OkStatus();
}

}  // namespace

const api::Pod* ClusterSnapshot::FindPod(std::string_view ns,
                                         std::string_view name) const {
  return Lookup(pods_by_key_, Key(ns, name));
}

const api::Pod* ClusterSnapshot::FindPodByUid(std::string_view uid) const {
  return Lookup(pods_by_uid_, std::string(uid));
}

const api::ResourceClaim* ClusterSnapshot::FindClaim(
    std::string_view ns, std::string_view name) const {
  return Lookup(claims_by_key_, Key(ns, name));
}

const api::Node* ClusterSnapshot::FindNode(std::string_view name) const {
  return Lookup(nodes_by_name_, std::string(name));
}

const std::set<std::string>* ClusterSnapshot::PoolNodes(
    std::string_view driver, std::string_view pool) const {
  auto it = pool_nodes_.find(Key(driver, pool));
  return it == pool_nodes_.end() ? nullptr : &it->second;
}

std::string ClusterSnapshot::LastEventMessage(std::string_view kind,
                                              std::string_view ns,
                                              std::string_view name,
                                              std::string_view reason) const {
  auto it = last_events_.find(StrCat(kind, "/", ns, "/", name, "/", reason));
  return it == last_events_.end() ? "" : it->second.second;
}

const std::vector<const api::Pod*>& ClusterSnapshot::PodsUsingClaim(
    std::string_view ns, std::string_view name) const {
  static const std::vector<const api::Pod*> kNone;
  auto it = claim_users_.find(Key(ns, name));
  return it == claim_users_.end() ? kNone : it->second;
}

void ClusterSnapshot::BuildIndex() {
  pods_by_key_.clear();
  pods_by_uid_.clear();
  claims_by_key_.clear();
  nodes_by_name_.clear();
  pool_nodes_.clear();
  last_events_.clear();
  claim_users_.clear();
  for (const ObjectPtr& o : pods) {
    if (const auto* p = std::get_if<api::Pod>(&o->value)) {
      pods_by_key_[Key(p->metadata.namespace_, p->metadata.name)] = p;
      if (!p->metadata.uid.empty()) pods_by_uid_[p->metadata.uid] = p;
      for (const api::PodResourceClaim& prc : p->spec.resource_claims) {
        absl::StatusOr<api::PodClaimName> ref =
            api::ResolvePodClaimName(*p, prc);
        if (!ref.ok() || !ref->name.has_value()) continue;
        auto& users = claim_users_[Key(p->metadata.namespace_, *ref->name)];
        if (users.empty() || users.back() != p) users.push_back(p);
      }
    }
  }
  for (const ObjectPtr& o : events) {
    const auto* e = std::get_if<api::Event>(&o->value);
    if (e == nullptr) continue;
    std::string time =
        e->last_timestamp.value_or(e->metadata.creation_timestamp.value_or(""));
    auto [it, inserted] = last_events_.try_emplace(
        StrCat(e->involved_object.kind, "/", e->involved_object.namespace_, "/",
               e->involved_object.name, "/", e->reason),
        time, e->message);
    if (!inserted && time >= it->second.first) {
      it->second = {time, e->message};
    }
  }
  for (const ObjectPtr& o : claims) {
    if (const auto* c = std::get_if<api::ResourceClaim>(&o->value)) {
      claims_by_key_[Key(c->metadata.namespace_, c->metadata.name)] = c;
    }
  }
  for (const ObjectPtr& o : nodes) {
    if (const auto* n = std::get_if<api::Node>(&o->value)) {
      nodes_by_name_[n->metadata.name] = n;
    }
  }
  for (const ObjectPtr& o : slices) {
    const auto* slice = std::get_if<api::ResourceSlice>(&o->value);
    if (slice == nullptr) continue;
    std::set<std::string>& nodes_of_pool =
        pool_nodes_[Key(slice->spec.driver, slice->spec.pool.name)];
    if (slice->spec.node_name.has_value()) {
      nodes_of_pool.insert(*slice->spec.node_name);
    }
  }
}

absl::StatusOr<ClusterSnapshot> TakeSnapshot(client::Client& client,
                                             const SnapshotOptions& options) {
  ClusterSnapshot s;
  s.taken_at = absl::Now();
  absl::Status dra = ListInto(client, "DeviceClass", s.device_classes);
  if (client::IsNotFound(dra)) {
    s.dra_served = false;
    s.dra_error = std::string(dra.message());
  } else if (!dra.ok()) {
    return dra;
  }
  if (s.dra_served) {
    for (auto [kind, out] :
         {std::pair<std::string_view, std::vector<ObjectPtr>*>{"ResourceSlice",
                                                               &s.slices},
          {"ResourceClaim", &s.claims},
          {"ResourceClaimTemplate", &s.claim_templates}}) {
      if (absl::Status st = ListInto(client, kind, *out); !st.ok()) return st;
    }
    absl::Status rules = ListInto(client, "DeviceTaintRule", s.taint_rules);
    if (!rules.ok() && !client::IsNotFound(rules)) return rules;
  }
  if (absl::Status st = ListInto(client, "Node", s.nodes); !st.ok()) return st;
  if (absl::Status st = ListInto(client, "Namespace", s.namespaces);
      absl::IsPermissionDenied(st)) {
    s.namespaces_listed = false;
  } else if (!st.ok()) {
    return st;
  }
  if (options.pods) {
    if (absl::Status st = ListInto(client, "Pod", s.pods); !st.ok()) return st;
  }
  if (options.quotas) {
    if (absl::Status st = ListInto(client, "ResourceQuota", s.quotas);
        !st.ok()) {
      return st;
    }
  }
  if (options.events) {
    if (absl::Status st = ListInto(client, "Event", s.events); !st.ok()) {
      return st;
    }
  }
  s.BuildIndex();
  return s;
}

ClusterSnapshot SnapshotOf(const std::vector<api::Object>& objects,
                           absl::Time now) {
  ClusterSnapshot s;
  s.taken_at = now;
  for (const api::Object& o : objects) {
    auto p = std::make_shared<const api::Object>(o);
    const std::string_view kind = o.type.kind;
    if (kind == "Node") s.nodes.push_back(p);
    if (kind == "Pod") s.pods.push_back(p);
    if (kind == "ResourceSlice") s.slices.push_back(p);
    if (kind == "DeviceClass") s.device_classes.push_back(p);
    if (kind == "ResourceClaim") s.claims.push_back(p);
    if (kind == "ResourceClaimTemplate") s.claim_templates.push_back(p);
    if (kind == "DeviceTaintRule") s.taint_rules.push_back(p);
    if (kind == "ResourceQuota") s.quotas.push_back(p);
    if (kind == "Event") s.events.push_back(p);
    if (kind == "Namespace") s.namespaces.push_back(p);
  }
  // Objects in hand without any Namespace say nothing about the labels.
  s.namespaces_listed = !s.namespaces.empty();
  s.BuildIndex();
  return s;
}

std::optional<absl::Time> ParseTime(const std::optional<std::string>& text) {
  if (!text.has_value()) return std::nullopt;
  absl::Time t;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, *text, &t, &error)) {
    return std::nullopt;
  }
  return t;
}

bool NodeReady(const api::Node& node) {
  for (const api::NodeCondition& c : node.status.conditions) {
    if (c.type == "Ready") return c.status == "True";
  }
  return false;
}

}  // namespace draplane::operator_tools

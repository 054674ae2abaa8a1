#include "apiserver/internal/garbage_collector.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"

namespace draplane::apiserver::internal {
namespace {

using api::Json;

// What a pass needs of one stored object: computed when the object changed
// since the previous pass (the collector runs every second over the whole
// store; parsing or even walking every object's JSON each time dominated
// the server's CPU with tens of thousands of objects).
struct Summary {
  int64_t mod_revision = 0;
  const ResourceInfo* resource = nullptr;
  std::string ns, name, uid;
  std::vector<std::string> owner_uids;
  bool deleting = false;
  bool foreground = false;  // deleting with the foregroundDeletion finalizer
  bool orphan = false;      // deleting with the orphan finalizer
  uint64_t seen = 0;        // the last pass that found the object
  // When a pass first saw `mod_revision` (the object's last write, to a
  // pass's precision).
  absl::Time written;
};

struct CollectorState {
  absl::Mutex mu;  // one pass at a time
  uint64_t pass = 0;
  std::map<std::string, Summary> objects;  // by store key
};

CollectorState& StateFor(Registry& registry) {
  std::shared_ptr<void>& state = registry.collector_state();
  if (state == nullptr) state = std::make_shared<CollectorState>();
  return *static_cast<CollectorState*>(state.get());
}

const Json& Meta(const Json& object) { return object.at("metadata"); }

std::string Uid(const Json& object) { return Meta(object).value("uid", ""); }

bool HasFinalizer(const Json& object, const char* name) {
  for (const Json& f : Meta(object).value("finalizers", Json::array())) {
    if (f == name) return true;
  }
  return false;
}

std::vector<std::string> OwnerUids(const Json& object) {
  std::vector<std::string> out;
  for (const Json& ref : Meta(object).value("ownerReferences", Json::array())) {
    if (ref.is_object()) out.push_back(ref.value("uid", ""));
  }
  return out;
}

// Fills `s` from `object` (false when it has no metadata).
bool Summarise(const Json& object, Summary& s) {
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return false;
  s.ns = NamespaceOf(object);
  s.name = NameOf(object);
  s.uid = Uid(object);
  s.owner_uids = OwnerUids(object);
  s.deleting = meta->contains("deletionTimestamp");
  s.foreground = s.deleting && HasFinalizer(object, kForegroundFinalizer);
  s.orphan = s.deleting && HasFinalizer(object, kOrphanFinalizer);
  return true;
}

// Brings state.objects up to date with the store: summarises new and
// changed objects, forgets deleted ones. False when the store could not be
// listed: an incomplete view would make live owners look gone.
bool Refresh(Registry& registry, CollectorState& state) {
  const uint64_t pass = ++state.pass;
  for (const ResourceInfo& r : Resources()) {
    store::ListOptions options;
    options.prefix = Registry::Prefix(r, "");
    auto list = registry.store().List(options);
    if (!list.ok()) return false;
    for (const store::Record& rec : list->records) {
      auto [it, inserted] = state.objects.try_emplace(rec.key);
      Summary& s = it->second;
      if (inserted || s.mod_revision != rec.mod_revision) {
        if (!Summarise(*registry.StoredObject(rec.value), s)) {
          state.objects.erase(it);
          continue;
        }
        s.mod_revision = rec.mod_revision;
        s.written = registry.clock().Now();
      }
      s.resource = &r;
      s.seen = pass;
    }
  }
  std::erase_if(state.objects,
                [&](const auto& entry) { return entry.second.seen != pass; });
  return true;
}

// Rewrites the object through the registry (a main-resource update with
// the stored resourceVersion as precondition).
bool Rewrite(Registry& registry, const Summary& s,
             const std::function<void(Json&)>& change) {
  auto result =
      registry.Modify(*s.resource, s.ns, s.name,
                      [&](const Json& current) -> absl::StatusOr<Json> {
                        Json updated = current;
                        change(updated);
                        return updated;
                      },
                      {});
  return result.ok();
}

void RemoveFinalizer(Json& object, const char* name) {
  Json& meta = object["metadata"];
  Json kept = Json::array();
  for (const Json& f : meta.value("finalizers", Json::array())) {
    if (f != name) kept.push_back(f);
  }
  if (kept.empty()) {
    meta.erase("finalizers");
  } else {
    meta["finalizers"] = std::move(kept);
  }
}

}  // namespace

int ExpireEvents(Registry& registry, absl::Duration ttl) {
  CollectorState& state = StateFor(registry);
  absl::MutexLock lock(&state.mu);
  const absl::Time cutoff = registry.clock().Now() - ttl;
  std::vector<const Summary*> expired;
  for (const auto& entry : state.objects) {
    const Summary& s = entry.second;
    if (s.resource != nullptr && s.resource->kind != nullptr &&
        s.resource->kind->kind == "Event" && s.written < cutoff) {
      expired.push_back(&s);
    }
  }
  int deleted = 0;
  for (const Summary* s : expired) {
    DeleteOptions options;
    options.precondition_resource_version = std::to_string(s->mod_revision);
    if (registry.Delete(*s->resource, s->ns, s->name, options).ok()) ++deleted;
  }
  return deleted;
}

int CollectGarbage(Registry& registry) {
  CollectorState& state = StateFor(registry);
  absl::MutexLock lock(&state.mu);
  if (!Refresh(registry, state)) return 0;
  absl::flat_hash_set<std::string_view> live;
  live.reserve(state.objects.size());
  for (const auto& [key, s] : state.objects) live.insert(s.uid);
  int changed = 0;
  for (const auto& entry : state.objects) {
    const Summary& s = entry.second;  // not a structured binding: captured
    // Foreground: delete dependents, then release the owner.
    if (s.foreground) {
      bool dependents = false;
      for (const auto& [dkey, d] : state.objects) {
        for (const std::string& owner : d.owner_uids) {
          if (owner != s.uid) continue;
          dependents = true;
          (void)registry.Delete(*d.resource, d.ns, d.name, {});
          ++changed;
        }
      }
      if (!dependents && Rewrite(registry, s, [](Json& o) {
            RemoveFinalizer(o, kForegroundFinalizer);
          })) {
        ++changed;
      }
      continue;
    }
    // Orphan: dependents forget this owner, then release it.
    if (s.orphan) {
      for (const auto& [dkey, d] : state.objects) {
        if (std::find(d.owner_uids.begin(), d.owner_uids.end(), s.uid) ==
            d.owner_uids.end()) {
          continue;
        }
        Rewrite(registry, d, [&](Json& o) {
          Json kept = Json::array();
          for (const Json& ref : o["metadata"]["ownerReferences"]) {
            if (ref.value("uid", "") != s.uid) kept.push_back(ref);
          }
          if (kept.empty()) {
            o["metadata"].erase("ownerReferences");
          } else {
            o["metadata"]["ownerReferences"] = std::move(kept);
          }
        });
        ++changed;
      }
      if (Rewrite(registry, s,
                  [](Json& o) { RemoveFinalizer(o, kOrphanFinalizer); })) {
        ++changed;
      }
      continue;
    }
    // Background: a dependent whose owners are all gone goes too.
    if (s.owner_uids.empty() || s.deleting) continue;
    bool any_owner = false;
    for (const std::string& owner : s.owner_uids) {
      any_owner = any_owner || live.contains(owner);
    }
    if (!any_owner) {
      (void)registry.Delete(*s.resource, s.ns, s.name, {});
      ++changed;
    }
  }
  return changed;
}

int FinalizeNamespaces(Registry& registry) {
  const ResourceInfo& nsr = *FindResource("", "namespaces");
  auto list = registry.List(nsr, {});
  if (!list.ok()) return 0;
  int changed = 0;
  for (const Json& ns : list->items) {
    if (!Meta(ns).contains("deletionTimestamp")) continue;
    const std::string name = NameOf(ns);
    bool empty = true;
    for (const ResourceInfo& r : Resources()) {
      if (!r.namespaced()) continue;
      ListQuery q;
      q.namespace_ = name;
      auto items = registry.List(r, q);
      if (!items.ok()) {
        empty = false;
        continue;
      }
      for (const Json& item : items->items) {
        if (!Meta(item).contains("deletionTimestamp")) ++changed;
        (void)registry.Delete(r, name, NameOf(item), {});
      }
      if (!items->items.empty()) {
        auto left = registry.List(r, q);
        if (!left.ok() || !left->items.empty()) empty = false;
      }
    }
    if (!empty) continue;
    // Every object is gone: drop the "kubernetes" finalizer; with no
    // metadata finalizers left that removes the namespace.
    WriteOptions finalize;
    finalize.subresource = "finalize";
    auto done = registry.Modify(
        nsr, "", name,
        [](const Json& current) -> absl::StatusOr<Json> {
          Json next = current;
          if (next.contains("spec")) next["spec"].erase("finalizers");
          return next;
        },
        finalize);
    if (done.ok()) ++changed;
  }
  return changed;
}

}  // namespace draplane::apiserver::internal

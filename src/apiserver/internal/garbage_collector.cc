#include "apiserver/internal/garbage_collector.h"

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace draplane::apiserver::internal {
namespace {

using api::Json;

struct Stored {
  const ResourceInfo* resource;
  std::shared_ptr<const Json> shared;  // {"metadata": ...}
  const Json& object;                  // *shared
};

// The metadata of every stored object, parsed only when the object changed
// since the previous scan (the collector runs every second over the whole
// store; parsing every object each time dominated the server's CPU).
struct MetaCache {
  struct Entry {
    int64_t mod_revision = 0;
    std::shared_ptr<const Json> object;  // {"metadata": ...} only
  };
  std::mutex mu;
  std::map<std::string, Entry> entries;
};

MetaCache& CacheFor(Registry& registry) {
  std::shared_ptr<void>& state = registry.collector_state();
  if (state == nullptr) state = std::make_shared<MetaCache>();
  return *static_cast<MetaCache*>(state.get());
}

std::vector<Stored> Everything(Registry& registry) {
  MetaCache& cache = CacheFor(registry);
  std::lock_guard<std::mutex> lock(cache.mu);
  std::map<std::string, MetaCache::Entry> seen;
  std::vector<Stored> out;
  for (const ResourceInfo& r : Resources()) {
    store::ListOptions options;
    options.prefix = Registry::Prefix(r, "");
    auto list = registry.store().List(options);
    if (!list.ok()) continue;
    for (const store::Record& rec : list->records) {
      auto it = cache.entries.find(rec.key);
      MetaCache::Entry entry;
      if (it != cache.entries.end() &&
          it->second.mod_revision == rec.mod_revision) {
        entry = std::move(it->second);
      } else {
        std::shared_ptr<const Json> full = registry.StoredObject(rec.value);
        auto meta = full->find("metadata");
        if (meta == full->end() || !meta->is_object()) continue;
        entry.mod_revision = rec.mod_revision;
        entry.object = std::make_shared<const Json>(Json{{"metadata", *meta}});
      }
      out.push_back({&r, entry.object, *entry.object});
      seen.emplace(rec.key, std::move(entry));
    }
  }
  cache.entries = std::move(seen);
  return out;
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

// Rewrites the object through the registry (a main-resource update with
// the stored resourceVersion as precondition).
bool Rewrite(Registry& registry, const Stored& s,
             const std::function<void(Json&)>& change) {
  auto result =
      registry.Modify(*s.resource, NamespaceOf(s.object), NameOf(s.object),
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

int CollectGarbage(Registry& registry) {
  const std::vector<Stored> all = Everything(registry);
  std::set<std::string> live;
  for (const Stored& s : all) live.insert(Uid(s.object));
  int changed = 0;
  for (const Stored& s : all) {
    const std::string uid = Uid(s.object);
    const bool deleting = Meta(s.object).contains("deletionTimestamp");
    // Foreground: delete dependents, then release the owner.
    if (deleting && HasFinalizer(s.object, kForegroundFinalizer)) {
      bool dependents = false;
      for (const Stored& d : all) {
        for (const std::string& owner : OwnerUids(d.object)) {
          if (owner != uid) continue;
          dependents = true;
          (void)registry.Delete(*d.resource, NamespaceOf(d.object),
                                NameOf(d.object), {});
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
    if (deleting && HasFinalizer(s.object, kOrphanFinalizer)) {
      for (const Stored& d : all) {
        const auto owners = OwnerUids(d.object);
        if (std::find(owners.begin(), owners.end(), uid) == owners.end()) {
          continue;
        }
        Rewrite(registry, d, [&](Json& o) {
          Json kept = Json::array();
          for (const Json& ref : o["metadata"]["ownerReferences"]) {
            if (ref.value("uid", "") != uid) kept.push_back(ref);
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
    const auto owners = OwnerUids(s.object);
    if (owners.empty() || deleting) continue;
    bool any_owner = false;
    for (const std::string& owner : owners) {
      any_owner = any_owner || live.contains(owner);
    }
    if (!any_owner) {
      (void)registry.Delete(*s.resource, NamespaceOf(s.object),
                            NameOf(s.object), {});
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

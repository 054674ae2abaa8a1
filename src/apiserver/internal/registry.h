// Objects in the store, with upstream's REST semantics: keys, metadata
// management (names, uid, timestamps, generation, resourceVersion),
// status subresource rules, optimistic concurrency, finalizers, admission
// (defaulting, validation with CEL compilation, namespace checks).
//
// Objects are JSON in the storage version (v1 for resource.k8s.io);
// conversion to the version a client asked for happens at the HTTP edge.
// metadata.resourceVersion is never stored: it is the store's mod_revision,
// filled in on every read.
#ifndef DRAPLANE_APISERVER_INTERNAL_REGISTRY_H_
#define DRAPLANE_APISERVER_INTERNAL_REGISTRY_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "api/meta_types.h"
#include "apiserver/admission.h"
#include "apiserver/internal/admin_access.h"
#include "apiserver/internal/allocation_guard.h"
#include "apiserver/internal/decoded_values.h"
#include "apiserver/internal/resources.h"
#include "auth/user_info.h"
#include "clock/clock.h"
#include "store/store.h"

namespace draplane::apiserver::internal {

// Selects objects of a list or watch (label and field selectors).
using ObjectFilter = std::function<bool(const api::Json& object)>;

struct ListQuery {
  std::string namespace_;  // "" = every namespace (or cluster-scoped)
  ObjectFilter filter;     // null = everything
  int64_t limit = 0;       // 0 = no limit
  std::string continue_token;
  std::string resource_version;        // "", "0" or a number
  std::string resource_version_match;  // "", "NotOlderThan", "Exact"
};

struct ListResult {
  std::vector<api::Json> items;
  int64_t revision = 0;
  std::string continue_token;
  std::optional<int64_t> remaining;  // only for unfiltered lists
};

struct WriteOptions {
  bool dry_run = false;
  // "" for the main resource, "status" for the status subresource.
  std::string subresource;
  // The field manager recorded with operation "Update" for the fields this
  // write changes ("" records nothing: server-side apply records its own).
  std::string manager;
  std::string manager_api_version;  // the version the client wrote in
  auth::UserInfo user;              // who asks (admission)
};

struct WriteResult {
  std::shared_ptr<const api::Json> object;  // never null on success
  bool created = false;
  std::vector<std::string> warnings;
  // The stored value `object` reads, at its `revision`, for its typed
  // form (Registry::TypedObject); null for a dry run or a deletion.
  store::Value value;
  int64_t revision = 0;
  // `object` typed, less metadata.managedFields, when the write had it in
  // hand (what TypedObject(value, revision) returns, shared with the
  // watchers); null otherwise.
  std::shared_ptr<const api::Object> typed;
};

struct DeleteOptions {
  bool dry_run = false;
  auth::UserInfo user;  // who asks (admission)
  // "Background" (or ""), "Foreground" or "Orphan": how dependents
  // (objects whose ownerReferences name this one) are treated; see
  // garbage_collector.h.
  std::string propagation;
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
};

// A change to an object as a watcher sees it (v1 JSON with
// resourceVersion set).
struct ObjectEvent {
  enum Type { kAdded, kModified, kDeleted } type = kAdded;
  int64_t revision = 0;
  std::shared_ptr<const api::Json> object;

  // kModified / kDeleted: the object before (its resourceVersion may be
  // missing); null for kAdded. Parsed on first use (only filtered watches
  // need it), once for every watcher sharing the event. Thread-safe.
  std::shared_ptr<const api::Json> PrevObject() const;

 private:
  friend class Registry;
  struct Previous {
    store::Value value;
    DecodedValues* decoded = nullptr;
    std::once_flag once;
    std::shared_ptr<const api::Json> object;
  };
  std::shared_ptr<Previous> previous_;  // null when there is none
};

class Registry {
 public:
  // `store` (and `clock`) outlive the registry. `admission` plugins run in
  // order after the built-in admission of every create, update and delete.
  // `clock` (null: RealClock()) stamps creation, deletion and managedFields
  // times.
  explicit Registry(
      store::Store* store,
      std::vector<std::shared_ptr<AdmissionPlugin>> admission = {},
      Clock* clock = nullptr);
  Clock& clock() const { return clock_; }

  store::Store& store() { return *store_; }
  // State the garbage collector keeps between its passes (its own type;
  // created by the collector, lives as long as the registry).
  std::shared_ptr<void>& collector_state() { return collector_state_; }

  absl::StatusOr<api::Json> Get(const ResourceInfo& r, std::string_view ns,
                                std::string_view name) const;
  absl::StatusOr<ListResult> List(const ResourceInfo& r,
                                  const ListQuery& query) const;

  // `object` is the v1 JSON the client sent (already converted).
  absl::StatusOr<WriteResult> Create(const ResourceInfo& r, std::string_view ns,
                                     api::Json object,
                                     const WriteOptions& options);
  // PUT: replaces the object (or its status), with the body's
  // resourceVersion as precondition.
  absl::StatusOr<WriteResult> Update(const ResourceInfo& r, std::string_view ns,
                                     std::string_view name, api::Json object,
                                     const WriteOptions& options);
  // Read-modify-write, retried on conflicts: `mutate` gets the current
  // object and returns the object to write as a PUT body would be (its
  // resourceVersion, if set, is a precondition). With `create` set, a
  // missing object is created from mutate(null).
  using Mutation =
      std::function<absl::StatusOr<api::Json>(const api::Json& current)>;
  absl::StatusOr<WriteResult> Modify(const ResourceInfo& r, std::string_view ns,
                                     std::string_view name,
                                     const Mutation& mutate,
                                     const WriteOptions& options,
                                     bool create = false);
  // Upstream's storage-level GuaranteedUpdate, as pods/binding uses it:
  // `mutate` edits a copy of the current object, typed (less
  // managedFields, resourceVersion set to the stored one), and the result
  // is written as it is: no update strategy, admission, validation or
  // managedFields recording (the stored managedFields stay). Retried on
  // conflicts with a fresh copy; an error from `mutate` is returned as it
  // is. The kind must be a typed one (not api::UnstructuredObject) and not
  // ResourceClaim (whose writes the allocation guard checks: an internal
  // error).
  using TypedMutation = std::function<absl::Status(api::Object& object)>;
  absl::StatusOr<WriteResult> GuaranteedUpdate(const ResourceInfo& r,
                                               std::string_view ns,
                                               std::string_view name,
                                               const TypedMutation& mutate,
                                               bool dry_run);
  // Deletes, or marks for deletion when finalizers remain. Returns the
  // deleted (or marked) object.
  absl::StatusOr<api::Json> Delete(const ResourceInfo& r, std::string_view ns,
                                   std::string_view name,
                                   const DeleteOptions& options);

  // Watches objects of `r` in `ns` ("" = all) changed after
  // `after_revision`. The sink runs under the store's lock (see
  // store::WatchSink): queue the raw event and decode it elsewhere with
  // ToObjectEvent().
  absl::StatusOr<std::unique_ptr<store::Watch>> Watch(const ResourceInfo& r,
                                                      std::string_view ns,
                                                      int64_t after_revision,
                                                      store::WatchSink sink);
  ObjectEvent ToObjectEvent(const store::Event& event) const;
  // The object a stored value holds (resourceVersion possibly missing),
  // parsed once for recent writes; for scans over every object.
  std::shared_ptr<const api::Json> StoredObject(
      const store::Value& value) const {
    return decoded_.Get(value, 0, /*remember=*/false);
  }

  // The typed object a stored value holds at its own `revision`, less
  // metadata.managedFields (DecodedValues::Typed): decoded once for the
  // watchers and the next update's validation. Null when it does not
  // decode.
  std::shared_ptr<const api::Object> TypedObject(const store::Value& value,
                                                 int64_t revision) const {
    return decoded_.Typed(value, revision);
  }

  // The store key prefix of `r` in `ns`.
  static std::string Prefix(const ResourceInfo& r, std::string_view ns);

 private:
  // `current` is the object read at `current_revision`.
  absl::StatusOr<WriteResult> WriteUpdate(
      const ResourceInfo& r, std::string_view ns, std::string_view name,
      const store::Value& current_value,
      const std::shared_ptr<const api::Json>& current, int64_t current_revision,
      api::Json desired, const WriteOptions& options);
  // Fills `result` with the write just `applied`: `object` (its stored
  // form, resourceVersion placed and empty) and `typed` (what its typed
  // decode would be, when the writer has it) with their resourceVersion
  // set, remembered as the parsed forms of the applied value in place of
  // `superseded`'s (the value the write replaced; null for a create).
  // Called from the store's AppliedFn, so that a watcher never parses what
  // the writer has in hand; the entries this pushes out of the parsed
  // values go to `evicted`, to be destroyed after the store's lock.
  void Publish(const ResourceInfo& r, api::Json object,
               std::optional<api::Object> typed, const store::Record& applied,
               const store::Value& superseded, WriteResult& result,
               std::vector<DecodedValues::Entry>& evicted);
  // The object `value` holds, read at `revision` (its resourceVersion).
  std::shared_ptr<const api::Json> Read(const store::Value& value,
                                        int64_t revision) const;
  // Whether a namespace carries the admin-access label (admin_access.h).
  AdminNamespaceLookup AdminNamespace() const;
  absl::Status CheckNamespace(const ResourceInfo& r, std::string_view ns,
                              std::string_view name) const;

  absl::Status RunAdmission(AdmissionRequest::Operation operation,
                            const ResourceInfo& r, std::string_view ns,
                            std::string_view name,
                            const std::string& subresource, bool dry_run,
                            const auth::UserInfo& user, const api::Json* old,
                            api::Json& object,
                            bool* may_have_changed = nullptr) const;

  store::Store* store_;
  std::vector<std::shared_ptr<AdmissionPlugin>> admission_;
  Clock& clock_;
  // Exclusive device allocations across ResourceClaims (beyond upstream).
  std::shared_ptr<AllocationGuard> allocation_guard_;
  std::shared_ptr<void> collector_state_;
  mutable DecodedValues decoded_;
};

// Helpers shared with the HTTP layer.
// The object's metadata.name / namespace ("" when absent).
std::string NameOf(const api::Json& object);
std::string NamespaceOf(const api::Json& object);
// The object's metadata member, created (as {}) when absent or not an
// object.
api::Json& MutableMetadata(api::Json& object);
// RFC 3339 with second precision, UTC.
std::string Timestamp(absl::Time t);

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_REGISTRY_H_

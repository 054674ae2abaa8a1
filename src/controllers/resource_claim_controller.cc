#include "controllers/resource_claim_controller.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <map>
#include <set>
#include <thread>
#include <unordered_set>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "api/helpers/pod_claims.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "common/str_cat.h"
#include "component_helpers/work_queue.h"
#include "logging/log.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"

namespace draplane::controllers {

namespace {

constexpr std::string_view kFieldManager = "ResourceClaimController";
constexpr std::string_view kPodKeyPrefix = "pod:";
constexpr std::string_view kClaimKeyPrefix = "claim:";
// Upstream maxUIDCacheEntries.
constexpr size_t kMaxDeletedUids = 500;

std::string Key(const api::ObjectMeta& m) {
  return StrCat(m.namespace_, "/", m.name);
}

// Upstream podNeedsClaims: whether the pod may still run.
bool PodNeedsClaims(const api::Pod& pod, bool deleted) {
  if (deleted) return false;
  if (pod.status.phase == "Succeeded" || pod.status.phase == "Failed") {
    return false;
  }
  return !(pod.metadata.deletion_timestamp.has_value() &&
           pod.spec.node_name.empty());
}

// The uids of pods known to be deleted, the newest kMaxDeletedUids
// (upstream's uidCache): their reservations can go without asking the API
// server.
class DeletedUids {
 public:
  void Add(const std::string& uid) {
    if (!set_.insert(uid).second) return;
    order_.push_back(uid);
    if (order_.size() > kMaxDeletedUids) {
      set_.erase(order_.front());
      order_.pop_front();
    }
  }
  bool Has(const std::string& uid) const { return set_.count(uid) > 0; }

 private:
  std::deque<std::string> order_;
  std::unordered_set<std::string> set_;
};

}  // namespace

std::string GeneratePodClaimName(std::string_view pod_name,
                                 std::string_view pod_claim_name) {
  constexpr size_t kMaxBaseLen = 57;
  std::string name = StrCat(pod_name, "-", pod_claim_name, "-");
  if (name.size() > kMaxBaseLen) {
    size_t len = name.size();
    name = StrCat(
        pod_name.substr(0, pod_name.size() * kMaxBaseLen / len), "-",
        pod_claim_name.substr(0, pod_claim_name.size() * kMaxBaseLen / len));
  }
  return name;
}

class ResourceClaimController::Impl {
 public:
  Impl(client::Client* client, ResourceClaimControllerOptions options)
      : client_(client),
        options_(options),
        clock_(options.clock != nullptr ? *options.clock : RealClock()),
        queue_(options.initial_backoff, options.max_backoff, &clock_) {
    if (options_.metrics != nullptr) {
      creates_ = &prometheus::BuildCounter()
                      .Name(
                          "dynamic_resource_allocation_resourceclaim_"
                          "creates_total")
                      .Help(
                          "Number of ResourceClaims creation requests, "
                          "categorized by creation status and admin access")
                      .Register(options_.metrics->prometheus());
      leaked_counter_ =
          &prometheus::BuildCounter()
               .Name("dra_leaked_devices_total")
               .Help(
                   "Devices found allocated to ResourceClaims whose "
                   "consumers were gone for longer than a leak-check "
                   "period; the controller then freed them (draplane's).")
               .Register(options_.metrics->prometheus())
               .Add({});
    }
  }

  absl::Status Start(absl::Duration sync_timeout) {
    if (options_.record_events) {
      recorder_ = std::make_unique<client::EventRecorder>(
          client_, client::EventRecorderOptions{.component = "resource_claim",
                                                .clock = &clock_});
    }
    templates_ = client::NewInformer(client_, "ResourceClaimTemplate");
    claims_ = client::NewInformer(client_, "ResourceClaim");
    client::EventHandler ch;
    ch.on_add = [this](const client::ObjectPtr& o) { OnClaim(nullptr, o); };
    ch.on_update = [this](const client::ObjectPtr& old,
                          const client::ObjectPtr& o) { OnClaim(old, o); };
    ch.on_delete = [this](const client::ObjectPtr& o) { OnClaim(o, nullptr); };
    claims_->AddHandler(std::move(ch));

    pods_ = client::NewInformer(client_, "Pod");
    client::EventHandler ph;
    ph.on_add = [this](const client::ObjectPtr& o) {
      OnPod(nullptr, o, false);
    };
    ph.on_update = [this](const client::ObjectPtr& old,
                          const client::ObjectPtr& o) { OnPod(old, o, false); };
    ph.on_delete = [this](const client::ObjectPtr& o) {
      OnPod(o, nullptr, true);
    };
    pods_->AddHandler(std::move(ph));

    if (!client::StartAndSync({templates_.get(), claims_.get(), pods_.get()},
                              sync_timeout)) {
      return absl::DeadlineExceededError(
          "resourceclaim controller: informers did not sync in time");
    }
    for (int i = 0; i < std::max(1, options_.workers); ++i) {
      workers_.emplace_back([this] {
        component_helpers::RunWorker(
            queue_, "resourceclaim controller",
            [this](const std::string& key) { return Sync(key); });
      });
    }
    if (options_.leak_check_period > absl::ZeroDuration()) {
      leak_thread_ = std::thread([this] { LeakLoop(); });
    }
    if (options_.metrics != nullptr) {
      collector_ = options_.metrics->AddCollector([this] {
        std::vector<prometheus::MetricFamily> out;
        out.push_back(ClaimsFamily());
        return out;
      });
    }
    return absl::OkStatus();
  }

  void Stop() {
    collector_.reset();
    {
      absl::MutexLock lock(&leak_mu_);
      leak_stop_ = true;
    }
    leak_cv_.SignalAll();
    if (leak_thread_.joinable()) leak_thread_.join();
    queue_.ShutDown();
    for (auto& t : workers_) t.join();
    workers_.clear();
    for (auto* i : {pods_.get(), claims_.get(), templates_.get()}) {
      if (i != nullptr) i->Stop();
    }
    recorder_.reset();
  }

  int64_t created() const { return created_; }

  ResourceClaimControllerStats stats() const {
    ResourceClaimControllerStats s;
    s.resource_claims = num_claims_;
    s.allocated_resource_claims = num_allocated_;
    s.create_attempts = create_attempts_;
    s.create_failures = create_failures_;
    s.leaked_devices = leaked_devices_;
    return s;
  }

 private:
  // ------------------------------------------------------------ handlers

  // Upstream enqueuePod, plus the pod-by-claim index it reads.
  void OnPod(const client::ObjectPtr& old, const client::ObjectPtr& o,
             bool deleted) {
    const auto& pod = std::get<api::Pod>((deleted ? old : o)->value);
    IndexPodClaims(pod, deleted);
    EnqueuePod(pod, deleted);
  }

  void EnqueuePod(const api::Pod& pod, bool deleted) {
    if (pod.spec.resource_claims.empty()) return;
    if (deleted) {
      absl::MutexLock lock(&mu_);
      deleted_uids_.Add(pod.metadata.uid);
    }
    if (!PodNeedsClaims(pod, deleted)) {
      // Release the reservations of a deleted or finished pod.
      for (const auto& entry : pod.spec.resource_claims) {
        absl::StatusOr<api::PodClaimName> name =
            api::ResolvePodClaimName(pod, entry);
        if (name.ok() && name->name.has_value()) {
          queue_.Add(StrCat(kClaimKeyPrefix, pod.metadata.namespace_, "/",
                            *name->name));
        }
      }
    }
    if (PodNeedsWork(pod)) {
      queue_.Add(StrCat(kPodKeyPrefix, Key(pod.metadata)));
    }
  }

  // Upstream podNeedsWork (including its early return at an entry whose
  // claim is not needed).
  bool PodNeedsWork(const api::Pod& pod) {
    if (pod.metadata.deletion_timestamp.has_value()) return false;
    for (const auto& entry : pod.spec.resource_claims) {
      absl::StatusOr<api::PodClaimName> name =
          api::ResolvePodClaimName(pod, entry);
      if (!name.ok()) return true;
      if (!name->name.has_value()) return false;
      client::ObjectPtr object =
          claims_->Get(pod.metadata.namespace_, *name->name);
      if (object == nullptr) {
        // A template claim is ours to create; a named one the user's.
        return entry.resource_claim_template_name.has_value();
      }
      const auto& claim = std::get<api::ResourceClaim>(object->value);
      if (name->must_check_owner && !api::IsForPod(pod, claim).ok()) {
        return false;
      }
      if (pod.spec.node_name.empty()) continue;
      if (claim.status.allocation.has_value() &&
          !api::IsReservedForPod(pod, claim) && api::CanBeReserved(claim)) {
        return true;  // bound without the scheduler: reserve
      }
    }
    return false;
  }

  // Upstream enqueueResourceClaim.
  void OnClaim(const client::ObjectPtr& old, const client::ObjectPtr& o) {
    const api::ResourceClaim* old_claim =
        old ? &std::get<api::ResourceClaim>(old->value) : nullptr;
    const api::ResourceClaim* claim =
        o ? &std::get<api::ResourceClaim>(o->value) : nullptr;
    bool was = old_claim && old_claim->status.allocation.has_value();
    bool is = claim && claim->status.allocation.has_value();
    if (old_claim == nullptr) ++num_claims_;
    if (claim == nullptr) --num_claims_;
    num_allocated_ += static_cast<int>(is) - static_cast<int>(was);

    const api::ResourceClaim& any = claim ? *claim : *old_claim;
    IndexOwnedClaim(any, claim != nullptr);
    std::string key = Key(any.metadata);
    // Every claim is checked when seen (stale reservations at start-up, a
    // pod added to reservedFor that is already gone).
    if (claim != nullptr) queue_.Add(StrCat(kClaimKeyPrefix, key));
    // And the pods using it may have work now.
    std::vector<std::string> pods;
    {
      absl::MutexLock lock(&mu_);
      auto it = pods_by_claim_.find(key);
      if (it != pods_by_claim_.end())
        pods.assign(it->second.begin(), it->second.end());
    }
    for (const std::string& pod_key : pods) {
      size_t slash = pod_key.find('/');
      client::ObjectPtr pod =
          pods_->Get(pod_key.substr(0, slash), pod_key.substr(slash + 1));
      if (pod != nullptr) EnqueuePod(std::get<api::Pod>(pod->value), false);
    }
  }

  // Upstream podResourceClaimIndex: "<ns>/<claim>" -> pods using it.
  void IndexPodClaims(const api::Pod& pod, bool deleted) {
    std::string pod_key = Key(pod.metadata);
    std::vector<std::string> keys;
    if (!deleted) {
      for (const auto& entry : pod.spec.resource_claims) {
        absl::StatusOr<api::PodClaimName> name =
            api::ResolvePodClaimName(pod, entry);
        if (name.ok() && name->name.has_value()) {
          keys.push_back(StrCat(pod.metadata.namespace_, "/", *name->name));
        }
      }
    }
    absl::MutexLock lock(&mu_);
    std::vector<std::string>& indexed = claims_of_pod_[pod_key];
    for (const std::string& k : indexed) {
      auto it = pods_by_claim_.find(k);
      if (it == pods_by_claim_.end()) continue;
      it->second.erase(pod_key);
      if (it->second.empty()) pods_by_claim_.erase(it);
    }
    for (const std::string& k : keys) pods_by_claim_[k].insert(pod_key);
    if (keys.empty()) {
      claims_of_pod_.erase(pod_key);
    } else {
      indexed = std::move(keys);
    }
  }

  // Upstream claimPodOwnerIndex plus the annotation findPodResourceClaim
  // checks: "<pod uid>/<entry>" -> generated claim. Also holds claims this
  // controller created that the informer does not show yet (upstream's
  // mutation cache).
  void IndexOwnedClaim(const api::ResourceClaim& claim, bool present) {
    auto a = claim.metadata.annotations.find(api::kAnnotationPodClaimName);
    if (a == claim.metadata.annotations.end()) return;
    std::optional<api::OwnerPod> owner = api::OwningPod(claim);
    if (!owner.has_value()) return;
    absl::MutexLock lock(&mu_);
    std::string key = StrCat(owner->uid, "/", a->second);
    if (present) {
      owned_[key] = claim.metadata.name;
    } else if (auto it = owned_.find(key);
               it != owned_.end() && it->second == claim.metadata.name) {
      owned_.erase(it);
    }
  }

  std::string OwnedClaim(const std::string& pod_uid, const std::string& entry) {
    absl::MutexLock lock(&mu_);
    auto it = owned_.find(StrCat(pod_uid, "/", entry));
    return it == owned_.end() ? "" : it->second;
  }

  // --------------------------------------------------------------- sync

  absl::Status Sync(const std::string& key) {
    size_t colon = key.find(':');
    size_t slash = key.find('/', colon);
    std::string ns = key.substr(colon + 1, slash - colon - 1);
    std::string name = key.substr(slash + 1);
    if (key.compare(0, colon + 1, kPodKeyPrefix) == 0) return SyncPod(ns, name);
    return SyncClaim(ns, name);
  }

  absl::Status SyncPod(const std::string& ns, const std::string& name) {
    client::ObjectPtr object = pods_->Get(ns, name);
    if (object == nullptr) return absl::OkStatus();  // gone
    const auto& pod = std::get<api::Pod>(object->value);
    if (pod.metadata.deletion_timestamp.has_value()) return absl::OkStatus();

    std::map<std::string, std::string> new_claims;  // entry -> claim
    for (const auto& entry : pod.spec.resource_claims) {
      if (absl::Status s = HandleClaim(pod, entry, new_claims); !s.ok()) {
        if (recorder_ != nullptr) {
          recorder_->Event(
              "Pod", "v1", pod.metadata, "Warning",
              "FailedResourceClaimCreation",
              StrCat("PodResourceClaim ", entry.name, ": ", s.message()));
        }
        return absl::Status(s.code(),
                            StrCat("pod ", ns, "/", name, ", PodResourceClaim ",
                                   entry.name, ": ", s.message()));
      }
    }
    if (!new_claims.empty()) {
      if (absl::Status s = ApplyClaimStatuses(pod, new_claims); !s.ok()) {
        return s;
      }
    }

    if (pod.spec.node_name.empty()) return absl::OkStatus();  // scheduler's
    // Bound without the scheduler: reserve the allocated claims.
    for (const auto& entry : pod.spec.resource_claims) {
      absl::StatusOr<api::PodClaimName> claim_name =
          api::ResolvePodClaimName(pod, entry);
      if (!claim_name.ok()) return claim_name.status();
      if (!claim_name->name.has_value()) continue;
      client::ObjectPtr claim_object = claims_->Get(ns, *claim_name->name);
      if (claim_object == nullptr) return absl::OkStatus();
      const auto& claim = std::get<api::ResourceClaim>(claim_object->value);
      if (claim_name->must_check_owner) {
        if (absl::Status s = api::IsForPod(pod, claim); !s.ok()) return s;
      }
      if (claim.status.allocation.has_value() &&
          !api::IsReservedForPod(pod, claim) && api::CanBeReserved(claim)) {
        api::Object updated = *claim_object;
        auto& c = std::get<api::ResourceClaim>(updated.value);
        api::ResourceClaimConsumerReference ref;
        ref.resource = "pods";
        ref.name = pod.metadata.name;
        ref.uid = pod.metadata.uid;
        c.status.reserved_for.push_back(std::move(ref));
        absl::StatusOr<api::Object> written = client_->UpdateStatus(updated);
        if (!written.ok()) {
          return absl::Status(written.status().code(),
                              StrCat("reserve claim ", Key(claim.metadata),
                                     " for pod: ", written.status().message()));
        }
      }
    }
    return absl::OkStatus();
  }

  // Upstream handleClaim: creates the entry's claim if it has none (or the
  // recorded one is no longer the pod's) and adds it to `new_claims`.
  absl::Status HandleClaim(const api::Pod& pod,
                           const api::PodResourceClaim& entry,
                           std::map<std::string, std::string>& new_claims) {
    absl::StatusOr<api::PodClaimName> claim_name =
        api::ResolvePodClaimName(pod, entry);
    if (!claim_name.ok()) {
      if (!absl::IsNotFound(claim_name.status())) {
        return absl::Status(claim_name.status().code(),
                            StrCat("checking for claim before creating it: ",
                                   claim_name.status().message()));
      }
    } else if (!claim_name->name.has_value()) {
      return absl::OkStatus();  // not needed
    } else {
      client::ObjectPtr existing =
          claims_->Get(pod.metadata.namespace_, *claim_name->name);
      if (existing != nullptr) {
        const auto& claim = std::get<api::ResourceClaim>(existing->value);
        absl::Status owned = claim_name->must_check_owner
                                 ? api::IsForPod(pod, claim)
                                 : absl::OkStatus();
        if (owned.ok()) return absl::OkStatus();  // already created
        // kube-controller-manager's message (resourceclaim controller).
        logging::Info(
            "Claim that was created for the pod is no longer owned by the "
            "pod, creating a new one",
            {{"pod", Key(pod.metadata)}, {"err", owned}});
      }
    }
    if (!entry.resource_claim_template_name.has_value()) {
      return absl::OkStatus();
    }
    // An orphan from an earlier attempt (created, status write lost)?
    std::string name = OwnedClaim(pod.metadata.uid, entry.name);
    if (name.empty()) {
      absl::StatusOr<std::string> created = CreateClaim(pod, entry);
      if (!created.ok()) return created.status();
      name = *created;
    }
    new_claims[entry.name] = name;
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> CreateClaim(const api::Pod& pod,
                                          const api::PodResourceClaim& entry) {
    const std::string& ns = pod.metadata.namespace_;
    const std::string& template_name = *entry.resource_claim_template_name;
    client::ObjectPtr tmpl = templates_->Get(ns, template_name);
    if (tmpl == nullptr) {
      return absl::NotFoundError(
          StrCat("resource claim template \"", template_name,
                 "\": resourceclaimtemplate.resource.k8s.io \"", template_name,
                 "\" not found"));
    }
    const auto& t = std::get<api::ResourceClaimTemplate>(tmpl->value);
    api::ResourceClaim claim;
    claim.metadata.generate_name =
        GeneratePodClaimName(pod.metadata.name, entry.name);
    claim.metadata.namespace_ = ns;
    claim.metadata.labels = t.spec->metadata.labels;
    claim.metadata.annotations = t.spec->metadata.annotations;
    claim.metadata.annotations[api::kAnnotationPodClaimName] = entry.name;
    api::OwnerReference owner;
    owner.api_version = "v1";
    owner.kind = "Pod";
    owner.name = pod.metadata.name;
    owner.uid = pod.metadata.uid;
    owner.controller = true;
    owner.block_owner_deletion = true;
    claim.metadata.owner_references.push_back(owner);
    claim.spec = t.spec->spec;
    ++create_attempts_;
    const bool admin_access = AdminAccess(claim);
    absl::StatusOr<api::Object> created = client_->Create(
        api::Object{{"resource.k8s.io/v1", "ResourceClaim"}, std::move(claim)});
    if (creates_ != nullptr) {
      creates_
          ->Add({{"status", created.ok() ? "success" : "failure"},
                 {"admin_access", admin_access ? "true" : "false"}})
          .Increment();
    }
    if (!created.ok()) {
      ++create_failures_;
      // Upstream names the claim by its (empty) name here.
      return absl::Status(
          created.status().code(),
          StrCat("create ResourceClaim : ", created.status().message()));
    }
    ++created_;
    // Remember it before the informer shows it: a second sync of this pod
    // (its status not yet visible) must not create another claim.
    const auto& c = std::get<api::ResourceClaim>(created->value);
    IndexOwnedClaim(c, true);
    return c.metadata.name;
  }

  // pod.status.resourceClaimStatuses: the pod's entries plus `new_claims`.
  absl::Status ApplyClaimStatuses(
      const api::Pod& pod,
      const std::map<std::string, std::string>& new_claims) {
    api::Json statuses = api::Json::array();
    for (const auto& s : pod.status.resource_claim_statuses) {
      if (new_claims.count(s.name) > 0) continue;
      api::Json entry = {{"name", s.name}};
      if (s.resource_claim_name.has_value()) {
        entry["resourceClaimName"] = *s.resource_claim_name;
      }
      statuses.push_back(entry);
    }
    for (const auto& [entry, claim] : new_claims) {
      statuses.push_back({{"name", entry}, {"resourceClaimName", claim}});
    }
    api::Json apply = {
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata",
         {{"name", pod.metadata.name}, {"namespace", pod.metadata.namespace_}}},
        {"status", {{"resourceClaimStatuses", statuses}}}};
    client::PatchOptions o;
    o.field_manager = std::string(kFieldManager);
    o.force = true;
    o.subresource = "status";
    absl::StatusOr<api::Object> patched = client_->Patch(
        client::Kind("Pod"), pod.metadata.namespace_, pod.metadata.name,
        client::PatchType::kApply, api::DumpJson(apply), o);
    if (!patched.ok() && !client::IsNotFound(patched.status())) {
      return absl::Status(
          patched.status().code(),
          StrCat("update pod ", Key(pod.metadata),
                 " ResourceClaimStatuses: ", patched.status().message()));
    }
    return absl::OkStatus();
  }

  // Whether a reservedFor entry's pod still needs the claim (upstream
  // syncClaim's three cases: known deleted, cached, or asked for).
  absl::StatusOr<bool> KeepReservation(
      const std::string& ns, const api::ResourceClaimConsumerReference& r) {
    {
      absl::MutexLock lock(&mu_);
      if (deleted_uids_.Has(r.uid)) return false;
    }
    client::ObjectPtr cached = pods_->Get(ns, r.name);
    if (cached == nullptr) {
      // Not in the informer yet? The scheduler may be scheduling it:
      // only the API server can tell.
      absl::StatusOr<api::Object> live =
          client_->Get(client::Kind("Pod"), ns, r.name);
      if (!live.ok()) {
        if (client::IsNotFound(live.status())) return false;
        return live.status();
      }
      return live->metadata()->uid == r.uid;
    }
    const auto& pod = std::get<api::Pod>(cached->value);
    return pod.metadata.uid == r.uid && !api::IsPodDone(pod);
  }

  // Upstream syncClaim.
  absl::Status SyncClaim(const std::string& ns, const std::string& name) {
    client::ObjectPtr object = claims_->Get(ns, name);
    if (object == nullptr) return absl::OkStatus();  // gone
    const auto& claim = std::get<api::ResourceClaim>(object->value);

    std::vector<api::ResourceClaimConsumerReference> valid;
    for (const auto& r : claim.status.reserved_for) {
      if (!r.api_group.empty() || r.resource != "pods") {
        return absl::UnimplementedError(
            StrCat("unsupported ReservedFor entry: {", r.api_group, " ",
                   r.resource, " ", r.name, " ", r.uid, "}"));
      }
      absl::StatusOr<bool> keep = KeepReservation(ns, r);
      if (!keep.ok()) return keep.status();
      if (*keep) valid.push_back(r);
    }

    const auto& finalizers = claim.metadata.finalizers;
    bool has_finalizer =
        std::find(finalizers.begin(), finalizers.end(),
                  api::kFinalizerDeleteProtection) != finalizers.end();
    if (valid.size() < claim.status.reserved_for.size()) {
      api::Object updated = *object;
      auto& c = std::get<api::ResourceClaim>(updated.value);
      c.status.reserved_for = valid;
      // Deallocate as soon as the last consumer is gone (DRA allocations
      // are always delayed), so the devices can serve other claims.
      if (valid.empty() && has_finalizer) c.status.allocation.reset();
      absl::StatusOr<api::Object> written = client_->UpdateStatus(updated);
      if (!written.ok()) return written.status();
      if (absl::Status s = RemoveFinalizer(*written); !s.ok()) return s;
    } else if (has_finalizer && claim.metadata.deletion_timestamp.has_value() &&
               valid.empty()) {
      api::Object updated = *object;
      if (claim.status.allocation.has_value()) {
        // Allocated, unused, and now deleted: deallocate first.
        std::get<api::ResourceClaim>(updated.value).status.allocation.reset();
        absl::StatusOr<api::Object> written = client_->UpdateStatus(updated);
        if (!written.ok()) return written.status();
        updated = *std::move(written);
      }
      if (absl::Status s = RemoveFinalizer(updated); !s.ok()) return s;
    }

    if (valid.empty()) {
      // A generated claim whose pod will not run: delete it now rather
      // than when the pod object goes.
      std::optional<api::OwnerPod> owner = api::OwningPod(claim);
      if (owner.has_value()) {
        client::ObjectPtr pod_object = pods_->Get(ns, owner->name);
        if (pod_object != nullptr) {
          const auto& pod = std::get<api::Pod>(pod_object->value);
          if (pod.metadata.uid != owner->uid || api::IsPodDone(pod)) {
            absl::Status s =
                client_->Delete(client::Kind("ResourceClaim"), ns, name);
            if (!s.ok() && !client::IsNotFound(s)) {
              return absl::Status(s.code(), StrCat("delete claim ", ns, "/",
                                                   name, ": ", s.message()));
            }
          }
        }
        // Not in the informer (yet): the garbage collector deletes the
        // claim if the pod is truly gone.
      }
    }
    return absl::OkStatus();
  }

  // Removes the delete-protection finalizer from `object` (as written by
  // the status update) if it has one and no allocation.
  absl::Status RemoveFinalizer(api::Object object) {
    auto& c = std::get<api::ResourceClaim>(object.value);
    auto& f = c.metadata.finalizers;
    auto it = std::find(f.begin(), f.end(), api::kFinalizerDeleteProtection);
    if (it == f.end() || c.status.allocation.has_value()) {
      return absl::OkStatus();
    }
    f.erase(it);
    absl::StatusOr<api::Object> written = client_->Update(object);
    return written.ok() ? absl::OkStatus() : written.status();
  }

  // ----------------------------------------------------------- leak check

  void LeakLoop() {
    while (true) {
      {
        absl::MutexLock lock(&leak_mu_);
        if (clock_.WaitFor(leak_cv_, leak_mu_, options_.leak_check_period,
                           [this] {
                             leak_mu_.AssertHeld();
                             return leak_stop_;
                           })) {
          return;
        }
      }
      LeakCheck();
    }
  }

  // Whether an allocated claim has no consumer that may still run.
  absl::StatusOr<bool> Abandoned(const api::ResourceClaim& claim) {
    const std::string& ns = claim.metadata.namespace_;
    if (!claim.status.reserved_for.empty()) {
      for (const auto& r : claim.status.reserved_for) {
        if (!r.api_group.empty() || r.resource != "pods") return false;
        absl::StatusOr<bool> keep = KeepReservation(ns, r);
        if (!keep.ok()) return keep.status();
        if (*keep) return false;
      }
      return true;
    }
    std::optional<api::OwnerPod> owner = api::OwningPod(claim);
    if (!owner.has_value()) return false;  // a user's claim may wait unused
    client::ObjectPtr cached = pods_->Get(ns, owner->name);
    if (cached != nullptr) {
      const auto& pod = std::get<api::Pod>(cached->value);
      return pod.metadata.uid != owner->uid || api::IsPodDone(pod);
    }
    absl::StatusOr<api::Object> live =
        client_->Get(client::Kind("Pod"), ns, owner->name);
    if (!live.ok()) {
      if (client::IsNotFound(live.status())) return true;
      return live.status();
    }
    return live->metadata()->uid != owner->uid ||
           api::IsPodDone(std::get<api::Pod>(live->value));
  }

  void LeakCheck() {
    std::map<std::string, std::string> suspects;  // uid -> resourceVersion
    for (const client::ObjectPtr& o : claims_->List()) {
      const auto& claim = std::get<api::ResourceClaim>(o->value);
      if (!claim.status.allocation.has_value() ||
          claim.metadata.deletion_timestamp.has_value()) {
        continue;
      }
      absl::StatusOr<bool> abandoned = Abandoned(claim);
      if (!abandoned.ok() || !*abandoned) continue;
      const std::string& uid = claim.metadata.uid;
      suspects[uid] = claim.metadata.resource_version;
      auto seen = suspects_.find(uid);
      if (seen == suspects_.end() ||
          seen->second != claim.metadata.resource_version) {
        continue;  // first sighting: normal processing may be under way
      }
      const int64_t devices =
          static_cast<int64_t>(claim.status.allocation->devices.results.size());
      leaked_devices_ += devices;
      if (leaked_counter_ != nullptr) {
        leaked_counter_->Increment(static_cast<double>(devices));
      }
      logging::Warning(
          "Leak check: claim holds devices without a consumer; freeing them",
          {{"claim", Key(claim.metadata)}, {"devices", devices}});
      if (claim.status.reserved_for.empty()) {
        // Unreserved and generated for a pod that will not run.
        client::DeleteOptions d;
        d.precondition_uid = uid;
        absl::Status deleted =
            client_->Delete(client::Kind("ResourceClaim"),
                            claim.metadata.namespace_, claim.metadata.name, d);
        if (!deleted.ok() && !client::IsNotFound(deleted)) {
          logging::Error("Leak check: deleting the claim failed",
                         {{"claim", Key(claim.metadata)}, {"err", deleted}});
        }
      } else {
        queue_.Add(StrCat(kClaimKeyPrefix, Key(claim.metadata)));
      }
      suspects.erase(uid);  // counted once
    }
    suspects_ = std::move(suspects);
  }

  static bool AdminAccess(const api::ResourceClaim& claim) {
    for (const auto& r : claim.spec.devices.requests) {
      if (r.exactly.has_value() && r.exactly->admin_access.value_or(false)) {
        return true;
      }
    }
    return false;
  }

  // Upstream's dynamic_resource_allocation_resource_claims.
  prometheus::MetricFamily ClaimsFamily() {
    std::map<std::vector<std::string>, double> counts;
    for (const client::ObjectPtr& o : claims_->List()) {
      const auto& c = std::get<api::ResourceClaim>(o->value);
      std::string source;
      if (c.metadata.annotations.count(api::kAnnotationPodClaimName) > 0) {
        source = "resource_claim_template";
      } else if (c.metadata.annotations.count(
                     "resource.kubernetes.io/extended-resource-claim") > 0) {
        source = "extended_resource";
      }
      ++counts[{c.status.allocation.has_value() ? "true" : "false",
                AdminAccess(c) ? "true" : "false", source}];
    }
    return metrics::GaugeFamily(
        "dynamic_resource_allocation_resource_claims",
        "Number of ResourceClaims, categorized by allocation status, admin "
        "access, and source. Source can be 'resource_claim_template' "
        "(created from a template), 'extended_resource' (extended "
        "resources), or empty (manually created by a user).",
        {"allocated", "admin_access", "source"}, counts);
  }

  client::Client* client_;
  ResourceClaimControllerOptions options_;
  prometheus::Family<prometheus::Counter>* creates_ = nullptr;
  std::unique_ptr<metrics::Registry::Collector> collector_;
  Clock& clock_;
  component_helpers::WorkQueue queue_;
  std::unique_ptr<client::EventRecorder> recorder_;
  std::unique_ptr<client::Informer> templates_;
  std::unique_ptr<client::Informer> claims_;
  std::unique_ptr<client::Informer> pods_;
  std::vector<std::thread> workers_;

  absl::Mutex mu_;
  // "<pod uid>/<entry>" -> claim
  std::map<std::string, std::string> owned_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::set<std::string>> pods_by_claim_
      ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::vector<std::string>> claims_of_pod_
      ABSL_GUARDED_BY(mu_);
  DeletedUids deleted_uids_ ABSL_GUARDED_BY(mu_);

  std::atomic<int64_t> created_{0};
  std::atomic<int64_t> num_claims_{0};
  std::atomic<int64_t> num_allocated_{0};
  std::atomic<int64_t> create_attempts_{0};
  std::atomic<int64_t> create_failures_{0};
  std::atomic<int64_t> leaked_devices_{0};

  prometheus::Counter* leaked_counter_ = nullptr;
  std::thread leak_thread_;
  absl::Mutex leak_mu_;
  absl::CondVar leak_cv_;
  bool leak_stop_ ABSL_GUARDED_BY(leak_mu_) = false;
  std::map<std::string, std::string> suspects_;  // leak thread only
};

ResourceClaimController::ResourceClaimController(
    client::Client* client, ResourceClaimControllerOptions options)
    : impl_(std::make_unique<Impl>(client, options)) {}

ResourceClaimController::~ResourceClaimController() { Stop(); }

absl::Status ResourceClaimController::Start(absl::Duration sync_timeout) {
  return impl_->Start(sync_timeout);
}

void ResourceClaimController::Stop() { impl_->Stop(); }

int64_t ResourceClaimController::claims_created() const {
  return impl_->created();
}

ResourceClaimControllerStats ResourceClaimController::stats() const {
  return impl_->stats();
}

}  // namespace draplane::controllers

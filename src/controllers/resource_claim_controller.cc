#include "controllers/resource_claim_controller.h"

#include <atomic>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "client/informer.h"
#include "common/str_cat.h"
#include "controllers/work_queue.h"

namespace draplane::controllers {

namespace {

constexpr std::string_view kFieldManager = "ResourceClaimController";

std::string PodKey(const api::ObjectMeta& m) {
  return StrCat(m.namespace_, "/", m.name);
}

// Template entries of the pod that have no status entry yet.
std::vector<const api::PodResourceClaim*> Missing(const api::Pod& pod) {
  std::vector<const api::PodResourceClaim*> out;
  for (const auto& prc : pod.spec.resource_claims) {
    if (!prc.resource_claim_template_name.has_value()) continue;
    bool recorded = false;
    for (const auto& s : pod.status.resource_claim_statuses) {
      recorded |= s.name == prc.name;
    }
    if (!recorded) out.push_back(&prc);
  }
  return out;
}

bool Done(const api::Pod& pod) {
  return pod.metadata.deletion_timestamp.has_value() ||
         pod.status.phase == "Succeeded" || pod.status.phase == "Failed";
}

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
        queue_(options.initial_backoff, options.max_backoff) {}

  absl::Status Start(absl::Duration sync_timeout) {
    client::InformerOptions po;
    po.kind = &client::Kind("Pod");
    pods_ = std::make_unique<client::Informer>(client_, po);
    client::EventHandler ph;
    ph.on_add = [this](const client::ObjectPtr& o) { OnPod(o); };
    ph.on_update = [this](const client::ObjectPtr&,
                          const client::ObjectPtr& o) { OnPod(o); };
    pods_->AddHandler(std::move(ph));

    client::InformerOptions co;
    co.kind = &client::Kind("ResourceClaim");
    claims_ = std::make_unique<client::Informer>(client_, co);
    client::EventHandler ch;
    ch.on_add = [this](const client::ObjectPtr& o) { IndexClaim(o, true); };
    ch.on_update = [this](const client::ObjectPtr&,
                          const client::ObjectPtr& o) { IndexClaim(o, true); };
    ch.on_delete = [this](const client::ObjectPtr& o) { IndexClaim(o, false); };
    claims_->AddHandler(std::move(ch));

    claims_->Start();
    pods_->Start();
    if (!claims_->WaitForSync(sync_timeout) ||
        !pods_->WaitForSync(sync_timeout)) {
      return absl::DeadlineExceededError(
          "resourceclaim controller: informers did not sync in time");
    }
    for (int i = 0; i < std::max(1, options_.workers); ++i) {
      workers_.emplace_back([this] { Work(); });
    }
    return absl::OkStatus();
  }

  void Stop() {
    queue_.ShutDown();
    for (auto& t : workers_) t.join();
    workers_.clear();
    if (pods_) pods_->Stop();
    if (claims_) claims_->Stop();
  }

  int64_t created() const { return created_; }

 private:
  void OnPod(const client::ObjectPtr& o) {
    const auto& pod = std::get<api::Pod>(o->value);
    if (!Done(pod) && !Missing(pod).empty()) queue_.Add(PodKey(pod.metadata));
  }

  // Index of claims by controlling pod uid and pod-claim-name annotation.
  void IndexClaim(const client::ObjectPtr& o, bool present) {
    const auto& claim = std::get<api::ResourceClaim>(o->value);
    auto a =
        claim.metadata.annotations.find(std::string(kPodClaimNameAnnotation));
    if (a == claim.metadata.annotations.end()) return;
    for (const auto& ref : claim.metadata.owner_references) {
      if (!ref.controller.value_or(false) || ref.kind != "Pod") continue;
      std::lock_guard<std::mutex> lock(mu_);
      std::string key = StrCat(ref.uid, "/", a->second);
      if (present) {
        owned_[key] = claim.metadata.name;
      } else {
        owned_.erase(key);
      }
    }
  }

  std::string OwnedClaim(const std::string& pod_uid, const std::string& entry) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = owned_.find(StrCat(pod_uid, "/", entry));
    return it == owned_.end() ? "" : it->second;
  }

  void Work() {
    while (std::optional<std::string> key = queue_.Get()) {
      absl::Status s = Sync(*key);
      if (s.ok()) {
        queue_.Forget(*key);
      } else {
        std::cerr << "resourceclaim controller: pod " << *key << ": " << s
                  << "\n";
        queue_.AddRateLimited(*key);
      }
      queue_.Done(*key);
    }
  }

  absl::Status Sync(const std::string& key) {
    size_t slash = key.find('/');
    std::string ns = key.substr(0, slash);
    std::string name = key.substr(slash + 1);
    client::ObjectPtr object = pods_->Get(ns, name);
    if (object == nullptr) return absl::OkStatus();
    const auto& pod = std::get<api::Pod>(object->value);
    if (Done(pod)) return absl::OkStatus();
    std::vector<const api::PodResourceClaim*> missing = Missing(pod);
    if (missing.empty()) return absl::OkStatus();

    api::Json statuses = api::Json::array();
    for (const auto& s : pod.status.resource_claim_statuses) {
      api::Json entry = {{"name", s.name}};
      if (s.resource_claim_name.has_value()) {
        entry["resourceClaimName"] = *s.resource_claim_name;
      }
      statuses.push_back(entry);
    }
    for (const api::PodResourceClaim* prc : missing) {
      std::string claim_name = OwnedClaim(pod.metadata.uid, prc->name);
      if (claim_name.empty()) {
        absl::StatusOr<std::string> created = CreateClaim(pod, *prc);
        if (!created.ok()) return created.status();
        claim_name = *created;
      }
      statuses.push_back(
          {{"name", prc->name}, {"resourceClaimName", claim_name}});
    }
    api::Json apply = {
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", {{"name", pod.metadata.name}, {"namespace", ns}}},
        {"status", {{"resourceClaimStatuses", statuses}}}};
    client::PatchOptions o;
    o.field_manager = std::string(kFieldManager);
    o.force = true;
    o.subresource = "status";
    absl::StatusOr<api::Object> patched =
        client_->Patch(client::Kind("Pod"), ns, pod.metadata.name,
                       client::PatchType::kApply, api::DumpJson(apply), o);
    if (!patched.ok() && !client::IsNotFound(patched.status())) {
      return patched.status();
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> CreateClaim(const api::Pod& pod,
                                          const api::PodResourceClaim& prc) {
    const std::string& ns = pod.metadata.namespace_;
    absl::StatusOr<api::Object> tmpl =
        client_->Get(client::Kind("ResourceClaimTemplate"), ns,
                     *prc.resource_claim_template_name);
    if (!tmpl.ok()) {
      return absl::Status(tmpl.status().code(),
                          StrCat("resource claim template \"",
                                 *prc.resource_claim_template_name,
                                 "\": ", tmpl.status().message()));
    }
    const auto& t = std::get<api::ResourceClaimTemplate>(tmpl->value);
    api::ResourceClaim claim;
    claim.metadata.generate_name =
        GeneratePodClaimName(pod.metadata.name, prc.name);
    claim.metadata.namespace_ = ns;
    claim.metadata.labels = t.spec->metadata.labels;
    claim.metadata.annotations = t.spec->metadata.annotations;
    claim.metadata.annotations[std::string(kPodClaimNameAnnotation)] = prc.name;
    api::OwnerReference owner;
    owner.api_version = "v1";
    owner.kind = "Pod";
    owner.name = pod.metadata.name;
    owner.uid = pod.metadata.uid;
    owner.controller = true;
    owner.block_owner_deletion = true;
    claim.metadata.owner_references.push_back(owner);
    claim.spec = t.spec->spec;
    absl::StatusOr<api::Object> created = client_->Create(
        api::Object{{"resource.k8s.io/v1", "ResourceClaim"}, std::move(claim)});
    if (!created.ok()) return created.status();
    ++created_;
    // Remember it before the informer shows it: a second sync of this pod
    // (its status not yet visible) must not create another claim.
    client::ObjectPtr p =
        std::make_shared<const api::Object>(*std::move(created));
    IndexClaim(p, true);
    return p->metadata()->name;
  }

  client::Client* client_;
  ResourceClaimControllerOptions options_;
  WorkQueue queue_;
  std::unique_ptr<client::Informer> pods_;
  std::unique_ptr<client::Informer> claims_;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::map<std::string, std::string> owned_;  // "<pod uid>/<entry>" -> claim
  std::atomic<int64_t> created_{0};
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

}  // namespace draplane::controllers

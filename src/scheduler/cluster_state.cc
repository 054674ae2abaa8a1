#include "scheduler/cluster_state.h"

#include <algorithm>
#include <atomic>
#include <utility>

#include "absl/strings/numbers.h"
#include "allocator/device_taint_rules.h"
#include "common/str_cat.h"

namespace draplane::scheduler {

namespace {

template <typename T>
const T& As(const ObjectPtr& object) {
  return std::get<T>(object->value);
}

// resourceVersions are etcd revisions in practice; upstream's assume cache
// compares them as integers too. Unparsable versions count as 0.
uint64_t ParseVersion(const std::string& rv) {
  uint64_t v = 0;
  if (!absl::SimpleAtoi(rv, &v)) return 0;
  return v;
}

bool PodTerminal(const api::Pod& pod) {
  return pod.status.phase == "Succeeded" || pod.status.phase == "Failed";
}

}  // namespace

bool SameDevices(const api::AllocationResult& a,
                 const api::AllocationResult& b) {
  const auto& x = a.devices.results;
  const auto& y = b.devices.results;
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i].driver != y[i].driver || x[i].pool != y[i].pool ||
        x[i].device != y[i].device || x[i].share_id != y[i].share_id ||
        x[i].admin_access != y[i].admin_access ||
        x[i].consumed_capacity != y[i].consumed_capacity) {
      return false;
    }
  }
  return true;
}

std::string ObjectKey(const api::ObjectMeta& meta) {
  if (meta.namespace_.empty()) return meta.name;
  return StrCat(meta.namespace_, "/", meta.name);
}

const api::ResourceClaim& ClusterState::ClaimEntry::claim() const {
  return As<api::ResourceClaim>(latest());
}

ClusterState::ClusterState(allocator::Features features)
    : features_(features) {}

ClusterState::~ClusterState() = default;

// ------------------------------------------------------------------ nodes

ClusterState::NodeInfo& ClusterState::EnsureNode(std::string_view name) {
  auto it = nodes_.find(name);
  if (it == nodes_.end()) {
    static std::atomic<uint64_t> next_id{1};
    auto info = std::make_unique<NodeInfo>();
    info->id = next_id++;
    it = nodes_.emplace(std::string(name), std::move(info)).first;
    node_order_dirty_ = true;
    // Device counts of a node that appears after its slices.
    allocator_dirty_ = true;
  }
  return *it->second;
}

void ClusterState::SetNode(ObjectPtr node) {
  const std::string& name = As<api::Node>(node).metadata.name;
  NodeInfo& info = EnsureNode(name);
  info.object = std::move(node);
  info.node_ptr = &As<api::Node>(info.object);
  info.allocatable = node_filters::ComputeNodeAllocatable(*info.node_ptr);
  info.facts = node_filters::ComputeNodeFacts(*info.node_ptr);
  ++info.epoch;
}

void ClusterState::RemoveNode(std::string_view name) {
  auto it = nodes_.find(name);
  if (it == nodes_.end()) return;
  nodes_.erase(it);
  node_order_dirty_ = true;
}

const std::vector<const ClusterState::NodeInfo*>& ClusterState::Nodes() {
  RebuildAllocatorIfNeeded();
  if (node_order_dirty_) {
    node_order_.clear();
    for (const auto& [name, info] : nodes_) {
      if (info->object != nullptr) node_order_.push_back(info.get());
    }
    node_order_dirty_ = false;
  }
  return node_order_;
}

// ------------------------------------------------- slices, classes, rules

void ClusterState::SlicesChanged() {
  allocator_dirty_ = true;
  ++global_epoch_;
}

void ClusterState::SetSlice(ObjectPtr slice) {
  slices_[As<api::ResourceSlice>(slice).metadata.name] = std::move(slice);
  SlicesChanged();
}

void ClusterState::RemoveSlice(std::string_view name) {
  auto it = slices_.find(name);
  if (it == slices_.end()) return;
  slices_.erase(it);
  SlicesChanged();
}

void ClusterState::SetDeviceClass(ObjectPtr device_class) {
  classes_[As<api::DeviceClass>(device_class).metadata.name] =
      std::move(device_class);
  SlicesChanged();
}

void ClusterState::RemoveDeviceClass(std::string_view name) {
  auto it = classes_.find(name);
  if (it == classes_.end()) return;
  classes_.erase(it);
  SlicesChanged();
}

void ClusterState::SetNamespace(const ObjectPtr& ns) {
  const api::ObjectMeta& meta = As<api::Namespace>(ns).metadata;
  auto label = meta.labels.find(api::kLabelAdminAccess);
  if (label != meta.labels.end() && label->second == "true") {
    admin_namespaces_.insert(meta.name);
  } else {
    RemoveNamespace(meta.name);
  }
}

void ClusterState::RemoveNamespace(std::string_view name) {
  auto it = admin_namespaces_.find(name);
  if (it != admin_namespaces_.end()) admin_namespaces_.erase(it);
}

bool ClusterState::AdminAccessAllowed(std::string_view ns) const {
  return admin_namespaces_.contains(ns);
}

void ClusterState::SetTaintRule(ObjectPtr rule) {
  taint_rules_[As<api::DeviceTaintRule>(rule).metadata.name] = std::move(rule);
  SlicesChanged();
}

void ClusterState::RemoveTaintRule(std::string_view name) {
  auto it = taint_rules_.find(name);
  if (it == taint_rules_.end()) return;
  taint_rules_.erase(it);
  SlicesChanged();
}

const api::DeviceClass* ClusterState::FindDeviceClass(
    std::string_view name) const {
  auto it = classes_.find(name);
  return it == classes_.end() ? nullptr : &As<api::DeviceClass>(it->second);
}

void ClusterState::RebuildAllocatorIfNeeded() {
  if (!allocator_dirty_) return;
  allocator_dirty_ = false;
  // The allocator shares the informer's slice objects (aliasing pointers);
  // only DeviceTaintRules make modified copies.
  std::vector<std::shared_ptr<const api::ResourceSlice>> slices;
  slices.reserve(slices_.size());
  for (const auto& [name, slice] : slices_) {
    slices.emplace_back(slice, &As<api::ResourceSlice>(slice));
  }
  if (!taint_rules_.empty() && features_.device_taints) {
    std::vector<api::DeviceTaintRule> rules;
    for (const auto& [name, rule] : taint_rules_) {
      rules.push_back(As<api::DeviceTaintRule>(rule));
    }
    std::vector<api::ResourceSlice> copies;
    copies.reserve(slices.size());
    for (const auto& s : slices) copies.push_back(*s);
    copies = allocator::ApplyTaintRules(std::move(copies), rules);
    slices.clear();
    for (auto& c : copies) {
      slices.push_back(
          std::make_shared<const api::ResourceSlice>(std::move(c)));
    }
  }
  pool_nodes_.clear();
  for (auto& [name, node] : nodes_) {
    node->slices.clear();
    node->devices_total = 0;
    node->devices_used = 0;
    ++node->epoch;
  }
  for (const auto& shared : slices) {
    const api::ResourceSlice& slice = *shared;
    std::string pool = StrCat(slice.spec.driver, "/", slice.spec.pool.name);
    std::string node = slice.spec.node_name.value_or("");
    auto [it, inserted] = pool_nodes_.emplace(pool, node);
    if (!inserted && it->second != node) it->second.clear();
    if (!node.empty()) {
      NodeInfo& info = EnsureNode(node);
      info.devices_total += static_cast<int>(slice.spec.devices.size());
      info.slices.push_back(shared);
    }
  }
  std::vector<api::DeviceClass> classes;
  classes.reserve(classes_.size());
  for (const auto& [name, c] : classes_) {
    classes.push_back(As<api::DeviceClass>(c));
  }
  allocator_ = std::make_unique<allocator::Allocator>(
      features_, std::move(slices), std::move(classes));
  for (const auto& [key, allocation] : effective_) {
    TouchDevices(allocation, +1);
  }
  ++global_epoch_;
}

allocator::Allocator& ClusterState::Allocator() {
  RebuildAllocatorIfNeeded();
  return *allocator_;
}

// ----------------------------------------------------------------- claims

void ClusterState::SetClaim(ObjectPtr claim) {
  std::string key = ObjectKey(As<api::ResourceClaim>(claim).metadata);
  ClaimEntry& entry = claims_[key];
  entry.informer = std::move(claim);
  if (entry.assumed != nullptr &&
      ParseVersion(
          As<api::ResourceClaim>(entry.informer).metadata.resource_version) >=
          ParseVersion(As<api::ResourceClaim>(entry.assumed)
                           .metadata.resource_version)) {
    entry.assumed.reset();
  }
  Refresh(key);
}

void ClusterState::AssumeClaim(ObjectPtr claim) {
  std::string key = ObjectKey(As<api::ResourceClaim>(claim).metadata);
  ClaimEntry& entry = claims_[key];
  if (entry.informer != nullptr &&
      ParseVersion(
          As<api::ResourceClaim>(entry.informer).metadata.resource_version) >=
          ParseVersion(
              As<api::ResourceClaim>(claim).metadata.resource_version)) {
    return;  // the informer is already there (or further)
  }
  entry.assumed = std::move(claim);
  Refresh(key);
}

void ClusterState::RemoveClaim(std::string_view key) {
  auto it = claims_.find(key);
  if (it == claims_.end()) return;
  std::string k(key);
  claims_.erase(it);
  Refresh(k);
}

const api::ResourceClaim* ClusterState::FindClaim(std::string_view ns,
                                                  std::string_view name) const {
  ObjectPtr object = FindClaimObject(ns, name);
  return object == nullptr ? nullptr : &As<api::ResourceClaim>(object);
}

ObjectPtr ClusterState::FindClaimObject(std::string_view ns,
                                        std::string_view name) const {
  auto it = claims_.find(StrCat(ns, "/", name));
  if (it == claims_.end()) return nullptr;
  return it->second.latest();
}

void ClusterState::AddInFlight(const std::string& claim_key,
                               std::string pod_uid,
                               api::AllocationResult allocation) {
  in_flight_[claim_key] = InFlight{std::move(pod_uid), std::move(allocation)};
  Refresh(claim_key);
}

void ClusterState::RemoveInFlight(const std::string& claim_key) {
  if (in_flight_.erase(claim_key) > 0) Refresh(claim_key);
}

const std::string* ClusterState::InFlightOwner(
    std::string_view claim_key) const {
  auto it = in_flight_.find(claim_key);
  return it == in_flight_.end() ? nullptr : &it->second.pod_uid;
}

void ClusterState::Refresh(const std::string& claim_key) {
  const api::AllocationResult* now = nullptr;
  if (auto f = in_flight_.find(claim_key); f != in_flight_.end()) {
    now = &f->second.allocation;
  } else if (auto c = claims_.find(claim_key); c != claims_.end()) {
    const auto& status = c->second.claim().status;
    if (status.allocation.has_value()) now = &*status.allocation;
  }
  auto before = effective_.find(claim_key);
  if (before == effective_.end()) {
    if (now == nullptr) return;
    effective_.emplace(claim_key, *now);
    TouchDevices(*now, +1);
    if (!allocated_dirty_ && allocated_ != nullptr) {
      allocated_->AddAllocation(*now, features_.consumable_capacity, claim_key);
    }
    return;
  }
  if (now != nullptr && SameDevices(before->second, *now)) return;
  // A removal or a change: the state is rebuilt on its next use.
  TouchDevices(before->second, -1);
  allocated_dirty_ = true;
  if (now == nullptr) {
    effective_.erase(before);
  } else {
    before->second = *now;
    TouchDevices(*now, +1);
  }
}

void ClusterState::TouchDevices(const api::AllocationResult& allocation,
                                int delta) {
  for (const auto& r : allocation.devices.results) {
    if (r.admin_access.value_or(false)) continue;
    auto it = pool_nodes_.find(StrCat(r.driver, "/", r.pool));
    if (it == pool_nodes_.end() || it->second.empty()) {
      ++global_epoch_;
      continue;
    }
    auto node = nodes_.find(it->second);
    if (node == nodes_.end()) continue;
    node->second->devices_used += delta;
    ++node->second->epoch;
  }
}

const allocator::AllocatedState& ClusterState::Allocated() {
  RebuildAllocatorIfNeeded();
  if (allocated_dirty_ || allocated_ == nullptr) {
    allocated_ = std::make_unique<allocator::AllocatedState>();
    for (const auto& [key, allocation] : effective_) {
      allocated_->AddAllocation(allocation, features_.consumable_capacity, key);
    }
    allocated_dirty_ = false;
  }
  return *allocated_;
}

const std::vector<ClusterState::DeviceUse>& ClusterState::NodeDevices(
    const NodeInfo& node) {
  const allocator::AllocatedState& allocated = Allocated();
  NodeDeviceCache& cache = node_devices_[node.id];
  // Entries point into `allocated` (owners): a rebuilt state has a new uid.
  const uint64_t state_uid = allocated.Version().first;
  if (cache.valid && cache.epoch == node.epoch &&
      cache.global_epoch == global_epoch_ && cache.state_uid == state_uid) {
    return cache.devices;
  }
  cache.valid = true;
  cache.state_uid = state_uid;
  cache.epoch = node.epoch;
  cache.global_epoch = global_epoch_;
  cache.devices.clear();
  for (const auto& slice : node.slices) {
    for (const api::Device& device : slice->spec.devices) {
      DeviceUse use{allocator::DeviceIdView(slice->spec.driver,
                                            slice->spec.pool.name, device.name),
                    &device, 1000, nullptr};
      if (const auto* entry = allocated.Find(use.id); entry != nullptr) {
        use.owners = &entry->owners;
        if (entry->exclusive) {
          use.free_milli = 0;
        } else if (entry->aggregated != nullptr) {
          for (const auto& [name, consumed] : *entry->aggregated) {
            auto cap = device.capacity.find(name);
            if (cap == device.capacity.end()) continue;
            const int64_t total = cap->second.value.MilliValue();
            if (total <= 0) continue;
            const int64_t free = (total - consumed.MilliValue()) * 1000 / total;
            use.free_milli =
                std::clamp<int64_t>(std::min(use.free_milli, free), 0, 1000);
          }
        }
      }
      cache.devices.push_back(use);
    }
  }
  return cache.devices;
}

// ------------------------------------------------------------------- pods

void ClusterState::CountPod(const std::string& key, const ObjectPtr& pod,
                            const std::string& node) {
  UncountPod(key);
  // A pod whose requests do not parse counts as a pod without requests (the
  // API server validated it; the scheduler reports it when scheduling).
  absl::StatusOr<node_filters::PodNodeRequirements> requirements =
      node_filters::PodNodeRequirements::Parse(As<api::Pod>(pod));
  Counted counted{node, requirements.ok()
                            ? *std::move(requirements)
                            : node_filters::PodNodeRequirements{}};
  EnsureNode(node).usage.Add(counted.requirements);
  counted_pods_[key] = std::move(counted);
}

void ClusterState::UncountPod(const std::string& key) {
  auto it = counted_pods_.find(key);
  if (it == counted_pods_.end()) return;
  auto node = nodes_.find(it->second.node);
  if (node != nodes_.end()) node->second->usage.Remove(it->second.requirements);
  counted_pods_.erase(it);
}

void ClusterState::SetPod(const ObjectPtr& pod) {
  const api::Pod& p = As<api::Pod>(pod);
  std::string key = ObjectKey(p.metadata);
  pods_[key] = pod;
  if (p.spec.node_name.empty()) {
    // Assumed pods stay counted until bound; others are not counted.
    if (assumed_pods_.count(key) == 0) UncountPod(key);
    return;
  }
  assumed_pods_.erase(key);
  if (PodTerminal(p)) {
    UncountPod(key);
    return;
  }
  CountPod(key, pod, p.spec.node_name);
}

void ClusterState::RemovePod(std::string_view key) {
  std::string k(key);
  pods_.erase(k);
  assumed_pods_.erase(k);
  UncountPod(k);
}

ObjectPtr ClusterState::FindPod(std::string_view key) const {
  auto it = pods_.find(key);
  return it == pods_.end() ? nullptr : it->second;
}

void ClusterState::AssumePod(const api::Pod& pod, const std::string& node) {
  std::string key = ObjectKey(pod.metadata);
  assumed_pods_[key] = node;
  CountPod(key, std::make_shared<const api::Object>(api::Object{{}, pod}),
           node);
}

void ClusterState::ForgetPod(std::string_view pod_key) {
  auto it = assumed_pods_.find(pod_key);
  if (it == assumed_pods_.end()) return;
  std::string key(pod_key);
  assumed_pods_.erase(it);
  UncountPod(key);
}

}  // namespace draplane::scheduler

#include "kubelet_plugin/resource_slice_publisher.h"

#include <algorithm>
#include <cstdio>

#include "api/object.h"
#include "api/object_codec.h"
#include "common/str_cat.h"

namespace draplane::kubelet_plugin {
namespace {

const api::KindInfo& SliceKind() {
  static const api::KindInfo* kind =
      api::FindKind("resource.k8s.io", "ResourceSlice");
  return *kind;
}

api::Object SliceObject(api::ResourceSlice slice) {
  api::Object o;
  o.type = {"resource.k8s.io/v1", "ResourceSlice"};
  o.value = std::move(slice);
  return o;
}

// The spec as JSON with what the API server may add (taints' timeAdded)
// removed, for comparing desired and published slices.
api::Json ComparableSpec(const api::ResourceSlice& slice) {
  api::ResourceSlice copy;
  copy.spec = slice.spec;
  for (api::Device& d : copy.spec.devices) {
    if (!d.rare.allocated()) continue;
    for (api::DeviceTaint& t : d.rare.Mutable().taints) t.time_added.reset();
  }
  auto json = api::EncodeObject(SliceObject(std::move(copy)));
  return json.ok() ? (*json)["spec"] : api::Json();
}

}  // namespace

ResourceSlicePublisher::ResourceSlicePublisher(client::Client* api,
                                               std::string driver,
                                               std::string node_name)
    : api_(api), driver_(std::move(driver)), node_name_(std::move(node_name)) {}

absl::StatusOr<std::vector<api::ResourceSlice>>
ResourceSlicePublisher::ListPool() {
  client::ListOptions options;
  options.field_selector =
      StrCat("spec.nodeName=", node_name_, ",spec.driver=", driver_);
  auto list = api_->List(SliceKind(), "", options);
  if (!list.ok()) return list.status();
  std::vector<api::ResourceSlice> slices;
  for (api::Object& o : list->items) {
    if (auto* s = std::get_if<api::ResourceSlice>(&o.value)) {
      // The pool is ours; slices of the node under another pool name (an
      // older layout) are replaced as well.
      slices.push_back(std::move(*s));
    }
  }
  std::sort(slices.begin(), slices.end(),
            [](const api::ResourceSlice& a, const api::ResourceSlice& b) {
              return a.metadata.name < b.metadata.name;
            });
  return slices;
}

absl::StatusOr<int64_t> ResourceSlicePublisher::Publish(
    std::vector<api::ResourceSliceSpec> slices) {
  auto existing = ListPool();
  if (!existing.ok()) return existing.status();
  int64_t generation = 0;
  bool uniform = true;
  for (const api::ResourceSlice& s : *existing) {
    generation = std::max(generation, s.spec.pool.generation);
  }
  for (const api::ResourceSlice& s : *existing) {
    uniform = uniform && s.spec.pool.generation == generation;
  }
  std::vector<api::ResourceSlice> desired;
  for (api::ResourceSliceSpec& spec : slices) {
    api::ResourceSlice s;
    spec.driver = driver_;
    spec.node_name = node_name_;
    spec.pool.name = node_name_;
    spec.pool.resource_slice_count = static_cast<int64_t>(slices.size());
    spec.pool.generation = generation;
    s.spec = std::move(spec);
    desired.push_back(std::move(s));
  }
  if (uniform && existing->size() == desired.size() && generation > 0) {
    bool same = true;
    for (size_t i = 0; same && i < desired.size(); ++i) {
      same = ComparableSpec((*existing)[i]) == ComparableSpec(desired[i]);
    }
    if (same) return generation;
  }
  ++generation;
  // The Node owns its slices (deleted with it). A node that is not (yet)
  // there publishes without an owner.
  std::optional<api::OwnerReference> owner;
  static const api::KindInfo* node_kind = api::FindKind("", "Node");
  if (auto node = api_->Get(*node_kind, "", node_name_); node.ok()) {
    if (const api::ObjectMeta* m = node->metadata()) {
      owner = api::OwnerReference{"v1",   "Node", node_name_,
                                  m->uid, true,   std::nullopt};
    }
  }
  for (size_t i = 0; i < desired.size(); ++i) {
    api::ResourceSlice& s = desired[i];
    s.spec.pool.generation = generation;
    if (owner) s.metadata.owner_references = {*owner};
    if (i < existing->size()) {
      s.metadata.name = (*existing)[i].metadata.name;
      s.metadata.resource_version = (*existing)[i].metadata.resource_version;
      s.metadata.uid = (*existing)[i].metadata.uid;
      auto updated = api_->Update(SliceObject(s));
      if (!updated.ok()) return updated.status();
    } else {
      char prefix[24];  // 16 hex digits of a size_t at most, and the NUL
      std::snprintf(prefix, sizeof prefix, "%05zx", i);
      s.metadata.generate_name =
          StrCat(prefix, "-", driver_, "-", node_name_, "-");
      auto created = api_->Create(SliceObject(s));
      if (!created.ok()) return created.status();
    }
    ++writes_;
  }
  for (size_t i = desired.size(); i < existing->size(); ++i) {
    absl::Status s =
        api_->Delete(SliceKind(), "", (*existing)[i].metadata.name);
    if (!s.ok() && !client::IsNotFound(s)) return s;
    ++writes_;
  }
  return generation;
}

absl::Status ResourceSlicePublisher::DeleteAll() {
  auto existing = ListPool();
  if (!existing.ok()) return existing.status();
  for (const api::ResourceSlice& s : *existing) {
    absl::Status st = api_->Delete(SliceKind(), "", s.metadata.name);
    if (!st.ok() && !client::IsNotFound(st)) return st;
    ++writes_;
  }
  return absl::OkStatus();
}

}  // namespace draplane::kubelet_plugin

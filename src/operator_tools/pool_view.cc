#include "operator_tools/pool_view.h"

#include <map>

#include "absl/strings/match.h"
#include "common/str_cat.h"

namespace draplane::operator_tools {
namespace {

std::optional<std::string> StringAttribute(const api::Device& device,
                                           std::string_view name) {
  for (const auto& [key, value] : device.attributes) {
    std::string_view k = key;
    size_t slash = k.rfind('/');
    std::string_view local =
        slash == std::string_view::npos ? k : k.substr(slash + 1);
    if (local != name) continue;
    if (std::optional<std::string_view> s = value.string_value()) {
      return std::string(*s);
    }
  }
  return std::nullopt;
}

}  // namespace

PoolView::PoolView(const ClusterSnapshot& snapshot) {
  std::map<std::pair<std::string, std::string>, Pool> pools;
  for (const ObjectPtr& o : snapshot.slices) {
    const auto* slice = std::get_if<api::ResourceSlice>(&o->value);
    if (slice == nullptr) continue;
    Pool& pool = pools[{slice->spec.driver, slice->spec.pool.name}];
    pool.driver = slice->spec.driver;
    pool.name = slice->spec.pool.name;
    const int64_t gen = slice->spec.pool.generation;
    if (pool.slices.empty() || gen > pool.generation) {
      for (const api::ResourceSlice* s : pool.slices) pool.stale.push_back(s);
      pool.slices.clear();
      pool.generation = gen;
      pool.expected_slices = slice->spec.pool.resource_slice_count;
    }
    if (gen == pool.generation) {
      pool.slices.push_back(slice);
    } else {
      pool.stale.push_back(slice);
    }
  }
  for (auto& [key, pool] : pools) {
    for (const api::ResourceSlice* s : pool.slices) {
      for (const api::Device& d : s->spec.devices) {
        std::string node = s->spec.node_name.value_or("");
        if (node.empty() && d.rare->node_name.has_value()) {
          node = *d.rare->node_name;
        }
        pool.devices.push_back({&d, node});
      }
    }
    pools_.push_back(std::move(pool));
  }
}

std::string DeviceModelName(const api::Device& device) {
  std::string model = StringAttribute(device, "productName").value_or("");
  std::optional<std::string> profile = StringAttribute(device, "profile");
  if (profile.has_value()) {
    StrAppend(&model, model.empty() ? "MIG " : " MIG ", *profile);
  }
  return model.empty() ? "-" : model;
}

}  // namespace draplane::operator_tools

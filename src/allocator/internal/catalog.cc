#include "allocator/internal/catalog.h"

#include <algorithm>
#include <utility>

namespace draplane::allocator::internal {

Catalog::Catalog(std::vector<std::shared_ptr<const api::ResourceSlice>> slices,
                 std::vector<api::DeviceClass> classes,
                 cel::DeviceFeatures cel_features)
    : compiler_(cel::Compiler::Shared(cel_features)) {
  slices_.reserve(slices.size());
  size_t total = 0;
  size_t with_node = 0;
  for (auto& s : slices) {
    total += s->spec.devices.size();
    if (!s->spec.node_name.value_or("").empty()) ++with_node;
    const api::ResourceSlice& ref = *s;
    slices_.push_back(Slice{std::move(s), ref, 0});
  }
  device_slice_.reserve(total);
  slices_by_node_.reserve(with_node);
  for (uint32_t i = 0; i < slices_.size(); ++i) {
    Slice& s = slices_[i];
    s.first_device = static_cast<uint32_t>(device_slice_.size());
    device_slice_.insert(device_slice_.end(), s.slice.spec.devices.size(), i);
    const std::optional<std::string>& node = s.slice.spec.node_name;
    if (!node.has_value() || node->empty()) {
      slices_without_node_.push_back(i);
    } else {
      slices_by_node_.emplace_back(*node, i);
    }
  }
  // Sorted by name, then index: each node's slices stay in input order.
  std::sort(slices_by_node_.begin(), slices_by_node_.end());
  for (api::DeviceClass& c : classes) {
    std::string name = c.metadata.name;
    classes_.emplace(std::move(name), std::move(c));
  }
}

std::vector<uint32_t> Catalog::SlicesForNode(const std::string& node) const {
  std::vector<uint32_t> out;
  auto first = std::lower_bound(
      slices_by_node_.begin(), slices_by_node_.end(), node,
      [](const std::pair<std::string_view, uint32_t>& entry,
         const std::string& name) { return entry.first < name; });
  for (auto it = first; it != slices_by_node_.end() && it->first == node;
       ++it) {
    out.push_back(it->second);
  }
  out.insert(out.end(), slices_without_node_.begin(),
             slices_without_node_.end());
  return out;
}

const api::DeviceClass* Catalog::FindClass(const std::string& name) const {
  auto it = classes_.find(name);
  return it == classes_.end() ? nullptr : &it->second;
}

int Catalog::SelectorId(const std::string& expression) {
  auto it = selector_ids_.find(expression);
  if (it != selector_ids_.end()) return it->second;
  Selector s;
  auto program = compiler_.CompileSelector(expression);
  if (program.ok()) {
    s.program = *std::move(program);
  } else {
    s.compile_error = std::string(program.status().message());
  }
  s.results.assign(num_devices(), 2);
  const int id = static_cast<int>(selectors_.size());
  selectors_.push_back(std::move(s));
  selector_ids_.emplace(expression, id);
  return id;
}

const std::string* Catalog::CompileError(int selector) const {
  const Selector& s = selectors_[selector];
  return s.program ? nullptr : &s.compile_error;
}

const cel::Device* Catalog::CelDevice(uint32_t global,
                                      const std::string** error) {
  if (cel_global_ != global) {
    cel_global_ = global;
    cel_device_.reset();
    cel_error_.clear();
    const Slice& s = slices_[device_slice_[global]];
    auto converted = cel::Device::Create(
        s.slice.spec.driver, s.slice.spec.devices[global - s.first_device]);
    if (converted.ok()) {
      cel_device_.emplace(*std::move(converted));
    } else {
      cel_error_ = std::string(converted.status().message());
    }
  }
  if (!cel_device_) *error = &cel_error_;
  return cel_device_ ? &*cel_device_ : nullptr;
}

int Catalog::Evaluate(int selector, uint32_t global,
                      const std::string** error) {
  Selector& s = selectors_[selector];
  int8_t& cached = s.results[global];
  if (cached == 2) {
    const std::string* conversion_error = nullptr;
    const cel::Device* device = CelDevice(global, &conversion_error);
    if (device == nullptr) {
      s.errors[global] = *conversion_error;
      cached = -1;
    } else {
      auto matches = s.program->Matches(*device);
      if (matches.ok()) {
        cached = *matches ? 1 : 0;
      } else {
        s.errors[global] = std::string(matches.status().message());
        cached = -1;
      }
    }
  }
  if (cached == -1 && error != nullptr) *error = &s.errors.at(global);
  return cached;
}

}  // namespace draplane::allocator::internal

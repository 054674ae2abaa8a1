#include "allocator/internal/catalog.h"

#include <utility>

namespace draplane::allocator::internal {

Catalog::Catalog(std::vector<std::shared_ptr<const api::ResourceSlice>> slices,
                 std::vector<api::DeviceClass> classes,
                 cel::DeviceFeatures cel_features)
    : compiler_(cel_features) {
  slices_.reserve(slices.size());
  size_t total = 0;
  for (auto& s : slices) {
    total += s->spec.devices.size();
    const api::ResourceSlice& ref = *s;
    slices_.push_back(Slice{std::move(s), ref, 0});
  }
  devices_.reserve(total);
  for (uint32_t i = 0; i < slices_.size(); ++i) {
    Slice& s = slices_[i];
    s.first_device = static_cast<uint32_t>(devices_.size());
    for (const api::Device& d : s.slice.spec.devices) {
      devices_.push_back(DeviceEntry{
          &d, DeviceId{s.slice.spec.driver, s.slice.spec.pool.name, d.name},
          std::nullopt, "", false});
    }
    const std::string node = s.slice.spec.node_name.value_or("");
    if (node.empty()) {
      slices_without_node_.push_back(i);
    } else {
      slices_by_node_[node].push_back(i);
    }
  }
  // Convert every device for CEL now: the conversion costs microseconds per
  // device, and paying it once here keeps it out of every Allocate call
  // (upstream converts per device and request on each call).
  for (DeviceEntry& d : devices_) Convert(d);
  for (api::DeviceClass& c : classes) {
    std::string name = c.metadata.name;
    classes_.emplace(std::move(name), std::move(c));
  }
}

std::vector<uint32_t> Catalog::SlicesForNode(const std::string& node) const {
  std::vector<uint32_t> out;
  auto it = slices_by_node_.find(node);
  if (it != slices_by_node_.end()) out = it->second;
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
  s.results.assign(devices_.size(), 2);
  const int id = static_cast<int>(selectors_.size());
  selectors_.push_back(std::move(s));
  selector_ids_.emplace(expression, id);
  return id;
}

const std::string* Catalog::CompileError(int selector) const {
  const Selector& s = selectors_[selector];
  return s.program ? nullptr : &s.compile_error;
}

void Catalog::Convert(DeviceEntry& d) {
  if (d.converted) return;
  d.converted = true;
  auto converted = cel::Device::Create(d.id.driver, *d.device);
  if (converted.ok()) {
    d.cel.emplace(*std::move(converted));
  } else {
    d.cel_error = std::string(converted.status().message());
  }
}

int Catalog::Evaluate(int selector, uint32_t global,
                      const std::string** error) {
  Selector& s = selectors_[selector];
  int8_t& cached = s.results[global];
  if (cached == 2) {
    DeviceEntry& d = devices_[global];
    Convert(d);
    if (!d.cel) {
      s.errors[global] = d.cel_error;
      cached = -1;
    } else {
      auto matches = s.program->Matches(*d.cel);
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

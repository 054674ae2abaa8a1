#ifndef DRAPLANE_ALLOCATOR_INTERNAL_CATALOG_H_
#define DRAPLANE_ALLOCATOR_INTERNAL_CATALOG_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "allocator/allocated_state.h"
#include "api/resource_types.h"
#include "cel/cel.h"

namespace draplane::allocator::internal {

// The cluster's ResourceSlices and DeviceClasses as the allocator reads
// them: every device has a global index (slice by slice, in input order);
// selector results are cached per (expression, device) for the catalog's
// lifetime. Per device the catalog keeps only the index of its slice: the
// device, its DeviceId and its CEL value are derived when asked for (the
// CEL value only for a selector result not cached yet, and only the one
// device evaluated last is kept). Not thread-safe.
class Catalog {
 public:
  // The slices are shared, not copied (a scheduler's cache holds them).
  Catalog(std::vector<std::shared_ptr<const api::ResourceSlice>> slices,
          std::vector<api::DeviceClass> classes,
          cel::DeviceFeatures cel_features);

  struct Slice {
    std::shared_ptr<const api::ResourceSlice> owner;
    const api::ResourceSlice& slice;  // *owner
    uint32_t first_device = 0;        // global index of spec.devices[0]
  };
  const std::vector<Slice>& slices() const { return slices_; }
  const Slice& slice(uint32_t index) const { return slices_[index]; }

  // Upstream's slicesForNode: the slices whose spec.nodeName is `node`, then
  // every slice without a node name, each group in input order.
  std::vector<uint32_t> SlicesForNode(const std::string& node) const;

  size_t num_devices() const { return device_slice_.size(); }
  const api::Device& device(uint32_t global) const {
    const Slice& s = slices_[device_slice_[global]];
    return s.slice.spec.devices[global - s.first_device];
  }
  // Refers to the catalog's slices: valid for the catalog's lifetime.
  DeviceIdView device_id(uint32_t global) const {
    const Slice& s = slices_[device_slice_[global]];
    return DeviceIdView(s.slice.spec.driver, s.slice.spec.pool.name,
                        s.slice.spec.devices[global - s.first_device].name);
  }

  // nullptr when there is no such class.
  const api::DeviceClass* FindClass(const std::string& name) const;

  // A selector expression, compiled once (the scheduler's
  // StoredExpressions environment).
  int SelectorId(const std::string& expression);
  // The compile error of a selector, or nullptr.
  const std::string* CompileError(int selector) const;

  // Evaluates selector `selector` on device `global`, cached:
  // 1 = true, 0 = false, -1 = runtime error (text in *error; upstream's
  // message including the "no such key" hint). Must not be called for a
  // selector with a compile error.
  int Evaluate(int selector, uint32_t global, const std::string** error);

 private:
  struct Selector {
    std::shared_ptr<const cel::Program> program;
    std::string compile_error;
    std::vector<int8_t> results;  // per device: 2 = not evaluated yet
    absl::flat_hash_map<uint32_t, std::string> errors;
  };

  // The CEL value of device `global` (converted unless it was the last one
  // asked for), or nullptr with the conversion error in *error.
  const cel::Device* CelDevice(uint32_t global, const std::string** error);

  const cel::Compiler& compiler_;  // process-wide, per feature set
  std::vector<Slice> slices_;
  std::vector<uint32_t> device_slice_;  // global device -> slice index
  // (spec.nodeName, slice index) of the slices with a node name, sorted:
  // the names point into the slices.
  std::vector<std::pair<std::string_view, uint32_t>> slices_by_node_;
  std::vector<uint32_t> slices_without_node_;
  absl::flat_hash_map<std::string, api::DeviceClass> classes_;
  absl::flat_hash_map<std::string, int> selector_ids_;
  std::vector<Selector> selectors_;
  // The device CelDevice converted last: selectors are evaluated device by
  // device (a device's class selectors, then its request selectors), and
  // their results are cached, so one converted device is all that is
  // reused.
  static constexpr uint32_t kNoDevice = ~uint32_t{0};
  uint32_t cel_global_ = kNoDevice;
  std::optional<cel::Device> cel_device_;
  std::string cel_error_;
};

}  // namespace draplane::allocator::internal

#endif  // DRAPLANE_ALLOCATOR_INTERNAL_CATALOG_H_

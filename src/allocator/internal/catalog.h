#ifndef DRAPLANE_ALLOCATOR_INTERNAL_CATALOG_H_
#define DRAPLANE_ALLOCATOR_INTERNAL_CATALOG_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "allocator/allocated_state.h"
#include "api/resource_types.h"
#include "cel/cel.h"

namespace draplane::allocator::internal {

// The cluster's ResourceSlices and DeviceClasses as the allocator reads
// them, converted once: every device has a global index, its DeviceId and
// its CEL value (converted when the catalog is built); selector results
// are cached per (expression, device) for the catalog's lifetime. Not
// thread-safe.
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

  size_t num_devices() const { return devices_.size(); }
  const api::Device& device(uint32_t global) const {
    return *devices_[global].device;
  }
  const DeviceId& device_id(uint32_t global) const {
    return devices_[global].id;
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
  struct DeviceEntry {
    const api::Device* device;
    DeviceId id;
    std::optional<cel::Device> cel;
    std::string cel_error;  // conversion failed
    bool converted = false;
  };
  struct Selector {
    std::shared_ptr<const cel::Program> program;
    std::string compile_error;
    std::vector<int8_t> results;  // per device: 2 = not evaluated yet
    absl::flat_hash_map<uint32_t, std::string> errors;
  };

  void Convert(DeviceEntry& d);

  cel::Compiler compiler_;
  std::vector<Slice> slices_;
  std::vector<DeviceEntry> devices_;
  absl::flat_hash_map<std::string, std::vector<uint32_t>> slices_by_node_;
  std::vector<uint32_t> slices_without_node_;
  absl::flat_hash_map<std::string, api::DeviceClass> classes_;
  absl::flat_hash_map<std::string, int> selector_ids_;
  std::vector<Selector> selectors_;
};

}  // namespace draplane::allocator::internal

#endif  // DRAPLANE_ALLOCATOR_INTERNAL_CATALOG_H_

// Which published devices each DeviceClass selects, and how many of them
// are in use: the guide's dra_devices_available / dra_devices_allocated,
// the warning on classes that select nothing, and the operator tools.
//
// Counting rules (the allocator's view of a pool, simplified to counts):
// - a pool is its newest generation's slices, and only a complete pool
//   (as many slices as resourceSliceCount says) counts;
// - a class selects a device when every CEL selector of the class is true
//   for it (compiled in the scheduler's StoredExpressions environment; an
//   evaluation error is "not selected", a compile error is reported);
// - a device is allocated when a claim's status.allocation names it
//   (adminAccess results excluded, as the scheduler excludes them);
// - a device is available when it is not allocated and, if it consumes
//   shared counters (partitionable devices, e.g. MIG), every counter it
//   consumes still has enough left after the allocated devices' use.
// Thread-compatible: one Compute() at a time per object (it caches
// compiled selectors and converted devices between calls).
#ifndef DRAPLANE_CONTROLLERS_DEVICE_INVENTORY_H_
#define DRAPLANE_CONTROLLERS_DEVICE_INVENTORY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "api/object.h"

namespace draplane::controllers {

struct ClassDriverCounts {
  int64_t devices = 0;    // published devices the class selects
  int64_t allocated = 0;  // of which allocated
  int64_t available = 0;  // of which allocatable now
};

struct Inventory {
  // (class, driver) -> counts; a class that selects nothing has no entry.
  std::map<std::pair<std::string, std::string>, ClassDriverCounts> by_class;
  // Every class -> devices it selects (0 included).
  std::map<std::string, int64_t> selected;
  // Classes whose selectors do not compile -> the first error.
  std::map<std::string, std::string> class_errors;
  int64_t published_devices = 0;  // in complete pools
};

class DeviceInventory {
 public:
  DeviceInventory();
  ~DeviceInventory();
  DeviceInventory(const DeviceInventory&) = delete;
  DeviceInventory& operator=(const DeviceInventory&) = delete;

  Inventory Compute(
      const std::vector<std::shared_ptr<const api::Object>>& slices,
      const std::vector<std::shared_ptr<const api::Object>>& classes,
      const std::vector<std::shared_ptr<const api::Object>>& claims);

 private:
  class Cache;
  std::unique_ptr<Cache> cache_;
};

}  // namespace draplane::controllers

#endif  // DRAPLANE_CONTROLLERS_DEVICE_INVENTORY_H_

#ifndef DRAPLANE_ALLOCATOR_INTERNAL_POOLS_H_
#define DRAPLANE_ALLOCATOR_INTERNAL_POOLS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "allocator/features.h"
#include "allocator/internal/catalog.h"
#include "api/core_types.h"

namespace draplane::allocator::internal {

// One resource pool as seen from a node (upstream incubating Pool).
struct Pool {
  std::string driver;
  std::string name;
  bool incomplete =
      false;             // fewer slices of the newest generation than declared
  bool invalid = false;  // duplicate devices, unknown counter sets...
  std::string invalid_reason;
  // Catalog slice indices, sorted by slice name: device slices relevant to
  // the node (the candidates), and the pool's other device slices (only
  // their counter consumption matters).
  std::vector<uint32_t> device_slices;
  std::vector<uint32_t> other_slices;
  // Counter sets of the pool by name.
  std::map<std::string, const api::CounterSet*> counter_sets;

  std::string IdString() const { return driver + "/" + name; }
};

// Upstream incubating GatherPools: the pools with slices relevant to
// `node`, newest generation only, completeness checked against every slice
// of the catalog, sorted by driver then pool name with pools that have
// devices with binding conditions last. Errors (an unparsable node
// selector) carry upstream's text.
absl::StatusOr<std::vector<Pool>> GatherPools(const Catalog& catalog,
                                              const api::Node& node,
                                              const Features& features);

}  // namespace draplane::allocator::internal

#endif  // DRAPLANE_ALLOCATOR_INTERNAL_POOLS_H_

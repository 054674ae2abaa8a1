#include "allocator/allocator.h"

#include <utility>

#include "allocator/internal/catalog.h"
#include "allocator/internal/search.h"
#include "allocator/internal/search_state.h"
#include "common/str_cat.h"

namespace draplane::allocator {

const char* OutcomeKindName(OutcomeKind kind) {
  switch (kind) {
    case OutcomeKind::kAllocated:
      return "allocated";
    case OutcomeKind::kUnallocatable:
      return "unallocatable";
    case OutcomeKind::kFatal:
      return "fatal";
    case OutcomeKind::kInvalidPools:
      return "invalid-pools";
    case OutcomeKind::kTimeout:
      return "timeout";
  }
  return "";
}

const char* OutcomeErrorClass(OutcomeKind kind) {
  return kind == OutcomeKind::kAllocated || kind == OutcomeKind::kUnallocatable
             ? ""
             : OutcomeKindName(kind);
}

namespace {
std::vector<std::shared_ptr<const api::ResourceSlice>> Share(
    std::vector<api::ResourceSlice> slices) {
  std::vector<std::shared_ptr<const api::ResourceSlice>> out;
  out.reserve(slices.size());
  for (auto& s : slices) {
    out.push_back(std::make_shared<const api::ResourceSlice>(std::move(s)));
  }
  return out;
}
}  // namespace

Allocator::Allocator(Features features, std::vector<api::ResourceSlice> slices,
                     std::vector<api::DeviceClass> classes)
    : Allocator(features, Share(std::move(slices)), std::move(classes)) {}

Allocator::Allocator(
    Features features,
    std::vector<std::shared_ptr<const api::ResourceSlice>> slices,
    std::vector<api::DeviceClass> classes)
    : features_(features),
      catalog_(std::make_unique<internal::Catalog>(
          std::move(slices), std::move(classes),
          cel::DeviceFeatures{features.consumable_capacity,
                              features.list_type_attributes})),
      cache_(std::make_unique<internal::AllocatorCache>()) {}

Allocator::~Allocator() = default;

Outcome Allocator::Allocate(
    const api::Node& node, const std::vector<const api::ResourceClaim*>& claims,
    const AllocatedState& state, const AllocateOptions& options) {
  if (!features_.OnlyIncubating()) {
    Outcome out;
    out.kind = OutcomeKind::kFatal;
    out.message =
        "draplane implements upstream's incubating allocator; the alpha "
        "features ListTypeAttributes, OptionalNodeOperations, "
        "DerivedAttributes and CompatibilityGroups are not supported yet";
    return out;
  }
  return internal::RunAllocation(*catalog_, *cache_, features_, node, claims,
                                 state, options);
}

}  // namespace draplane::allocator

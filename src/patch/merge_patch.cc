// RFC 7386 JSON merge patch, as gopkg.in/evanphx/json-patch.v4 MergePatch
// (merge.go: doMergePatch, mergeDocs, merge, pruneNulls).

#include <exception>
#include <string>
#include <utility>

#include "absl/base/attributes.h"
#include "absl/status/status.h"
#include "common/str_cat.h"
#include "patch/internal/go_values.h"
#include "patch/patch.h"

namespace draplane::patch {
namespace {

// pruneNulls: drops null object members and null array elements, at every
// level.
void PruneNulls(Json& value) {
  if (!value.is_structured()) return;
  for (auto it = value.begin(); it != value.end();) {
    if (it->is_null()) {
      it = value.erase(it);
    } else {
      PruneNulls(*it);
      ++it;
    }
  }
}

// doc[key] = patch value, pruned: the value of a key `doc` lacks (or has
// as null).
ABSL_ATTRIBUTE_NOINLINE void SetPruned(Json& doc, const std::string& key,
                                       Json value) {
  PruneNulls(value);
  doc[key] = std::move(value);
}

// merge() for anything but an object patch into an object: the patch
// replaces, pruned unless it replaces an object (as v4 does).
ABSL_ATTRIBUTE_NOINLINE void Replace(Json& current, Json patch) {
  if (!current.is_object()) PruneNulls(patch);
  current = std::move(patch);
}

// mergeDocs, merging in place. Recurses once per nesting level, so its frame
// is kept small.
void MergeObjects(Json& doc, Json& patch) {
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    if (it->is_null()) {
      doc.erase(it.key());
      continue;
    }
    auto current = doc.find(it.key());
    if (current == doc.end() || current->is_null()) {
      SetPruned(doc, it.key(), std::move(*it));
    } else if (current->is_object() && it->is_object()) {
      MergeObjects(*current, *it);
    } else {
      Replace(*current, std::move(*it));
    }
  }
}

absl::StatusOr<Json> MergePatch(const Json& original, const Json& patch) {
  if (absl::Status s = internal::CheckDepth(original, patch); !s.ok()) {
    return s;
  }
  if (original.is_null()) {
    return absl::InternalError("Invalid JSON Document");
  }
  if (patch.is_null()) return absl::InvalidArgumentError("Invalid JSON Patch");
  if (!original.is_object() || !patch.is_object()) {
    // "Not an error, just not a doc, so we turn straight into the patch."
    if (!patch.is_structured()) {
      return absl::InvalidArgumentError("Invalid JSON Patch");
    }
    Json result = patch;
    PruneNulls(result);
    return result;
  }
  Json result = original;
  Json patch_copy = patch;
  MergeObjects(result, patch_copy);
  return result;
}

}  // namespace

absl::StatusOr<Json> ApplyMergePatch(const Json& original, const Json& patch) {
  try {
    return MergePatch(original, patch);
  } catch (const std::exception& e) {
    return absl::InternalError(StrCat("merge patch: ", e.what()));
  }
}

}  // namespace draplane::patch

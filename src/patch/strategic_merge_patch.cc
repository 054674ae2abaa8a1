// Strategic merge patch, as k8s.io/apimachinery v0.37.2
// pkg/util/strategicpatch applies it for the apiserver
// (StrategicMergeMapPatch with MergeParallelList and IgnoreUnmatchedNulls).
// Function names below follow upstream's (mergeMap, mergeSlice, ...), so the
// two can be read side by side.
//
// Where upstream's Go panics (comparing maps with ==, a list whose first
// element is null), this code compares deeply or reports an error instead.

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/str_cat.h"
#include "patch/internal/go_values.h"
#include "patch/patch.h"

namespace draplane::patch {
namespace {

using internal::GoEqual;
using internal::GoKind;
using internal::GoString;
using internal::GoTypeName;
using internal::KindOf;
using TypeId = PatchSchema::TypeId;
using OptionalType = std::optional<TypeId>;

constexpr std::string_view kDirectiveMarker = "$patch";
constexpr std::string_view kDeleteDirective = "delete";
constexpr std::string_view kReplaceDirective = "replace";
constexpr std::string_view kMergeDirective = "merge";
constexpr std::string_view kRetainKeysDirective = "$retainKeys";
constexpr std::string_view kDeleteFromPrimitiveListPrefix =
    "$deleteFromPrimitiveList";
constexpr std::string_view kSetElementOrderPrefix = "$setElementOrder";

// mergepatch errors (k8s.io/apimachinery pkg/util/mergepatch/errors.go),
// with the status code the apiserver's interpretStrategicMergePatchError
// gives them.
absl::Status ErrBadPatchFormatForPrimitiveList() {
  return absl::InvalidArgumentError("invalid patch format of primitive list");
}
absl::Status ErrBadPatchFormatForRetainKeys() {
  return absl::InvalidArgumentError("invalid patch format of retainKeys");
}
absl::Status ErrBadPatchFormatForSetElementOrderList() {
  return absl::InvalidArgumentError(
      "invalid patch format of setElementOrder list");
}
absl::Status ErrNoListOfLists() {
  return absl::FailedPreconditionError("lists of lists are not supported");
}
absl::Status ErrNoMergeKey(const Json& map, std::string_view key) {
  return absl::InternalError(StrCat(
      "map: ", GoString(map), " does not contain declared merge key: ", key));
}
absl::Status ErrBadArgType(std::string_view expected, const Json& actual) {
  return absl::InternalError(
      StrCat("expected a ", expected, ", but received a ", GoTypeName(actual)));
}
constexpr std::string_view kMapType = "map[string]interface {}";
constexpr std::string_view kSliceType = "[]interface {}";

// %s of a value: strings bare, other scalars as fmt prints a bad verb
// ("%!s(float64=1.5)"); objects and arrays approximated by %v.
std::string GoPercentS(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "%!s(<nil>)";
  if (value.is_structured()) return GoString(value);
  return StrCat("%!s(", GoTypeName(value), "=", GoString(value), ")");
}
absl::Status ErrBadPatchType(const Json& type, const Json& map) {
  return absl::InternalError(StrCat("unknown patch type: ", GoPercentS(type),
                                    " in map: ", GoString(map)));
}

bool IsDirective(const Json& value, std::string_view directive) {
  return value.is_string() && value.get_ref<const std::string&>() == directive;
}

bool HasPrefix(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// containsDirectiveMarker.
bool ContainsDirectiveMarker(const Json& item) {
  return item.is_object() && item.contains(kDirectiveMarker);
}

// extractKey: "<prefix>/<key>" -> key.
absl::StatusOr<std::string> ExtractKey(std::string_view s,
                                       std::string_view prefix) {
  size_t slash = s.find('/');
  if (slash == std::string_view::npos || s.substr(0, slash) != prefix) {
    return prefix == kDeleteFromPrimitiveListPrefix
               ? ErrBadPatchFormatForPrimitiveList()
               : ErrBadPatchFormatForSetElementOrderList();
  }
  return std::string(s.substr(slash + 1));
}

// removeDirectives: drops every object carrying "$patch" (as a member or
// element; false when `value` itself is one).
bool RemoveDirectives(Json& value) {
  if (value.is_object()) {
    if (value.contains(kDirectiveMarker)) return false;
    for (auto it = value.begin(); it != value.end();) {
      if (RemoveDirectives(*it)) {
        ++it;
      } else {
        it = value.erase(it);
      }
    }
  } else if (value.is_array()) {
    Json kept = Json::array();
    for (Json& element : value) {
      if (RemoveDirectives(element)) kept.push_back(std::move(element));
    }
    value = std::move(kept);
  }
  return true;
}

// discardNullValuesFromPatch: drops null object members at every level
// (null array elements stay).
void DiscardNullValues(Json& value) {
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end();) {
      if (it->is_null()) {
        it = value.erase(it);
      } else {
        DiscardNullValues(*it);
        ++it;
      }
    }
  } else if (value.is_array()) {
    for (Json& element : value) DiscardNullValues(element);
  }
}

// The value upstream uses for a patch value it copies in as is.
std::optional<Json> PatchValueForNewKey(Json value) {
  DiscardNullValues(value);
  if (!RemoveDirectives(value)) return std::nullopt;
  return value;
}

// sliceElementType: the common kind of the elements of both lists.
absl::StatusOr<GoKind> SliceElementKind(const Json& a, const Json& b) {
  std::optional<GoKind> kind;
  for (const Json* list : {&a, &b}) {
    for (const Json& element : *list) {
      GoKind current = KindOf(element);
      if (!kind.has_value()) {
        if (current == GoKind::kArray) return ErrNoListOfLists();
        if (current != GoKind::kNull) {
          kind = current;
          continue;
        }
        // Upstream panics on a leading null element.
      }
      if (current != kind) {
        return absl::InternalError(
            StrCat("list element types are not identical: [",
                   GoString(a.is_array() ? a : Json::array()), " ",
                   GoString(b.is_array() ? b : Json::array()), "]"));
      }
    }
  }
  if (!kind.has_value()) {
    return absl::InternalError("no elements in any of the given slices");
  }
  return *kind;
}

// Positions of values in a list, found by GoEqual. Scalars (all merge key
// values and primitive list elements in practice) are hashed, so lookups
// in long lists stay cheap; other values are compared one by one.
class ValueIndex {
 public:
  // Records `value` at `position` unless an equal value is recorded.
  void Add(const Json& value, int position) {
    if (std::optional<std::string> key = ScalarKey(value)) {
      scalars_.emplace(std::move(*key), position);
    } else if (Find(value) < 0) {
      composites_.emplace_back(value, position);
    }
  }

  // The position recorded for a value GoEqual to `value`, or -1.
  int Find(const Json& value) const {
    if (std::optional<std::string> key = ScalarKey(value)) {
      auto it = scalars_.find(*key);
      return it == scalars_.end() ? -1 : it->second;
    }
    for (const auto& [composite, position] : composites_) {
      if (GoEqual(composite, value)) return position;
    }
    return -1;
  }

 private:
  // Equal scalars (by GoEqual) have equal keys, distinct ones distinct keys.
  static std::optional<std::string> ScalarKey(const Json& value) {
    switch (KindOf(value)) {
      case GoKind::kNull:
        return "n";
      case GoKind::kBool:
        return value.get<bool>() ? "t" : "f";
      case GoKind::kString:
        return StrCat("s", value.get_ref<const std::string&>());
      case GoKind::kInt:
        return value.is_number_unsigned() ? StrCat("i", value.get<uint64_t>())
                                          : StrCat("i", value.get<int64_t>());
      case GoKind::kFloat: {
        double d = value.get<double>();
        if (d == 0) return "d0";  // 0 == -0
        char buf[32];
        auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), d);
        return StrCat("d", std::string_view(buf, end - buf));
      }
      default:
        return std::nullopt;
    }
  }

  std::unordered_map<std::string, int> scalars_;
  std::vector<std::pair<Json, int>> composites_;
};

// An index of `list` for findMapInSliceBasedOnKeyValue: the `key` values of
// its objects (objects without `key` are skipped). *first_non_object is the
// position of the first element that is not an object, or -1: upstream's
// scan fails there ("value for key N is not a map") unless it found a match
// before it.
ValueIndex IndexMapsByKey(const Json& list, std::string_view key,
                          int* first_non_object) {
  ValueIndex index;
  *first_non_object = -1;
  for (size_t i = 0; i < list.size(); ++i) {
    const Json& element = list[i];
    if (!element.is_object()) {
      if (*first_non_object < 0) *first_non_object = static_cast<int>(i);
      continue;
    }
    auto it = element.find(key);
    if (it != element.end()) index.Add(*it, static_cast<int>(i));
  }
  return index;
}

// Looks `value` up in an IndexMapsByKey index, as
// findMapInSliceBasedOnKeyValue does: -1 if absent.
absl::StatusOr<int> FindInMapIndex(const ValueIndex& index,
                                   int first_non_object, const Json& value) {
  int found = index.Find(value);
  if (first_non_object >= 0 && (found < 0 || found > first_non_object)) {
    return absl::InternalError(
        StrCat("value for key ", first_non_object, " is not a map"));
  }
  return found;
}

// mergeKeyValueEqual.
absl::StatusOr<bool> MergeKeyValueEqual(const Json& left, const Json& right,
                                        std::string_view merge_key) {
  if (merge_key.empty()) return GoEqual(left, right);
  if (!left.is_object()) return ErrBadArgType(kMapType, left);
  if (!right.is_object()) return ErrBadArgType(kMapType, right);
  auto l = left.find(merge_key);
  if (l == left.end()) return ErrNoMergeKey(left, merge_key);
  auto r = right.find(merge_key);
  if (r == right.end()) return ErrNoMergeKey(right, merge_key);
  return GoEqual(*l, *r);
}

// extractToDeleteItems: splits off the objects marked "$patch": "delete".
absl::Status ExtractToDeleteItems(const Json& list, Json* keep,
                                  Json* to_delete) {
  *keep = Json::array();
  *to_delete = Json::array();
  for (const Json& element : list) {
    if (!element.is_object()) return ErrBadArgType(kMapType, element);
    auto d = element.find(kDirectiveMarker);
    if (d != element.end() && IsDirective(*d, kDeleteDirective)) {
      to_delete->push_back(element);
    } else {
      keep->push_back(element);
    }
  }
  return absl::OkStatus();
}

// validatePatchWithSetOrderList: the patch list's elements (directives
// aside) must appear in the $setElementOrder list, in the same order.
absl::Status ValidatePatchWithSetOrderList(const Json& patch_list,
                                           const Json& order,
                                           std::string_view merge_key) {
  if (order.empty() || patch_list.empty()) return absl::OkStatus();
  Json non_delete = patch_list;
  if (!merge_key.empty()) {
    Json to_delete;
    if (absl::Status s =
            ExtractToDeleteItems(patch_list, &non_delete, &to_delete);
        !s.ok()) {
      return s;
    }
  }
  size_t patch_index = 0;
  size_t order_index = 0;
  while (patch_index < non_delete.size() && order_index < order.size()) {
    if (ContainsDirectiveMarker(non_delete[patch_index])) {
      ++patch_index;
      continue;
    }
    absl::StatusOr<bool> equal = MergeKeyValueEqual(
        non_delete[patch_index], order[order_index], merge_key);
    if (!equal.ok()) return equal.status();
    if (*equal) ++patch_index;
    ++order_index;
  }
  if (patch_index < non_delete.size() && order_index >= order.size()) {
    return absl::InternalError(StrCat(
        "The order in patch list:\n", GoString(patch_list), "\n doesn't match ",
        kSetElementOrderPrefix, " list:\n", GoString(order), "\n"));
  }
  return absl::OkStatus();
}

// What upstream's index() compares: an object list's items by merge key
// (null when missing), other items by themselves.
const Json& IndexKey(const Json& item, std::string_view merge_key,
                     GoKind kind) {
  static const Json* const kNil = new Json();
  if (kind != GoKind::kObject) return item;
  if (!item.is_object()) return *kNil;
  auto it = item.find(merge_key);
  return it == item.end() ? *kNil : *it;
}

// An index for upstream's index(): the first position of each item of
// `list`.
ValueIndex IndexList(const Json& list, std::string_view merge_key,
                     GoKind kind) {
  ValueIndex index;
  for (size_t i = 0; i < list.size(); ++i) {
    index.Add(IndexKey(list[i], merge_key, kind), static_cast<int>(i));
  }
  return index;
}

// normalizeSliceOrder: sorts `items` by their position in `order`; objects
// marked "$patch": "delete" go last.
absl::StatusOr<Json> NormalizeSliceOrder(const Json& items, const Json& order,
                                         std::string_view merge_key,
                                         GoKind kind) {
  Json to_sort = items;
  Json to_delete = Json::array();
  if (kind == GoKind::kObject) {
    for (const Json* list : {&items, &order}) {
      for (const Json& item : *list) {
        if (!item.is_object()) return ErrBadArgType(kMapType, item);
        if (!item.contains(merge_key)) return ErrNoMergeKey(item, merge_key);
      }
    }
    if (absl::Status s = ExtractToDeleteItems(items, &to_sort, &to_delete);
        !s.ok()) {
      return s;
    }
  }
  // Every item is found in practice; an unfound one would sort last.
  ValueIndex positions = IndexList(order, merge_key, kind);
  std::vector<std::pair<int, size_t>> keys;
  keys.reserve(to_sort.size());
  for (size_t i = 0; i < to_sort.size(); ++i) {
    int index = positions.Find(IndexKey(to_sort[i], merge_key, kind));
    keys.emplace_back(index < 0 ? std::numeric_limits<int>::max() : index, i);
  }
  std::stable_sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) {
    return a.first < b.first;
  });
  Json sorted = Json::array();
  for (const auto& [index, i] : keys) sorted.push_back(std::move(to_sort[i]));
  for (Json& item : to_delete) sorted.push_back(std::move(item));
  return sorted;
}

// mergeSortedSlice: interleaves the server-only items (`left`) into the
// patch items (`right`), keeping both orders. A server-only item goes first
// only while it precedes the next patch item in `server_order`; a patch
// item that is not in `server_order` is taken at once.
Json MergeSortedSlice(Json left, Json right, const Json& server_order,
                      std::string_view merge_key, GoKind kind) {
  ValueIndex positions = IndexList(server_order, merge_key, kind);
  Json out = Json::array();
  size_t i = 0;
  size_t j = 0;
  while (i < left.size() || j < right.size()) {
    if (i >= left.size()) {
      out.push_back(std::move(right[j++]));
    } else if (j >= right.size()) {
      out.push_back(std::move(left[i++]));
    } else {
      int li = positions.Find(IndexKey(left[i], merge_key, kind));
      int ri = positions.Find(IndexKey(right[j], merge_key, kind));
      if (li >= 0 && ri >= 0 && li < ri) {
        out.push_back(std::move(left[i++]));
      } else {
        out.push_back(std::move(right[j++]));
      }
    }
  }
  return out;
}

// normalizeElementOrder.
absl::StatusOr<Json> NormalizeElementOrder(
    const Json& patch_items, const Json& server_only, const Json& patch_order,
    const Json& server_order, std::string_view merge_key, GoKind kind) {
  absl::StatusOr<Json> patch_sorted =
      NormalizeSliceOrder(patch_items, patch_order, merge_key, kind);
  if (!patch_sorted.ok()) return patch_sorted.status();
  absl::StatusOr<Json> server_sorted =
      NormalizeSliceOrder(server_only, server_order, merge_key, kind);
  if (!server_sorted.ok()) return server_sorted.status();
  return MergeSortedSlice(std::move(*server_sorted), std::move(*patch_sorted),
                          server_order, merge_key, kind);
}

// partitionPrimitivesByPresentInList / partitionMapsByPresentInList: the
// items of `list` present in `partition_by`, and the others.
absl::Status PartitionByPresence(const Json& list, const Json& partition_by,
                                 std::string_view merge_key, Json* present,
                                 Json* absent) {
  *present = Json::array();
  *absent = Json::array();
  int first_non_object = -1;
  ValueIndex index;
  if (merge_key.empty()) {
    for (size_t i = 0; i < partition_by.size(); ++i) {
      index.Add(partition_by[i], static_cast<int>(i));
    }
  } else {
    index = IndexMapsByKey(partition_by, merge_key, &first_non_object);
  }
  for (const Json& item : list) {
    bool found = false;
    if (merge_key.empty()) {
      found = index.Find(item) >= 0;
    } else {
      if (!item.is_object()) return ErrBadArgType(kMapType, item);
      auto key = item.find(merge_key);
      if (key == item.end()) return ErrNoMergeKey(item, merge_key);
      absl::StatusOr<int> position =
          FindInMapIndex(index, first_non_object, *key);
      if (!position.ok()) return position.status();
      found = *position >= 0;
    }
    (found ? present : absent)->push_back(item);
  }
  return absl::OkStatus();
}

// deleteMatchingEntries, for each "$patch": "delete" element in turn: removes
// the objects of `list` whose `merge_key` equals one of `keys`. All elements
// of `list` are objects.
//
// If `aliased` is set (see MergeSlice), it is updated as Go's in-place
// deletions update the backing array: each deletion shifts the tail left,
// so the slot that leaves the list keeps the element that was last before
// that deletion. Linear in the list's length (upstream's loop is quadratic).
void DeleteMatchingEntries(Json& list, std::string_view merge_key,
                           const std::vector<const Json*>& keys,
                           Json* aliased) {
  // Positions of the elements of each key value.
  ValueIndex group_of;
  std::vector<std::vector<size_t>> groups;
  for (size_t i = 0; i < list.size(); ++i) {
    auto key = list[i].find(merge_key);
    if (key == list[i].end()) continue;
    int group = group_of.Find(*key);
    if (group < 0) {
      group = static_cast<int>(groups.size());
      group_of.Add(*key, group);
      groups.emplace_back();
    }
    groups[group].push_back(i);
  }
  std::vector<bool> deleted(list.size(), false);
  size_t live = list.size();
  size_t end = list.size();  // one past the last live element
  for (const Json* key : keys) {
    int group = group_of.Find(*key);
    if (group < 0) continue;
    for (size_t position : groups[group]) {
      if (deleted[position]) continue;
      if (aliased != nullptr) {
        while (deleted[end - 1]) --end;
        (*aliased)[live - 1] = list[end - 1];
      }
      deleted[position] = true;
      --live;
    }
    groups[group].clear();
  }
  Json kept = Json::array();
  for (size_t i = 0; i < list.size(); ++i) {
    if (!deleted[i]) kept.push_back(std::move(list[i]));
  }
  list = std::move(kept);
  if (aliased != nullptr) {
    for (size_t i = 0; i < list.size(); ++i) (*aliased)[i] = list[i];
  }
}

class StrategicMerger {
 public:
  explicit StrategicMerger(const PatchSchema& schema) : schema_(schema) {}

  // mergeMap: merges `patch` into `original`, in place. Both are objects;
  // `patch` is consumed. On error `original` is left partly merged.
  absl::Status MergeMap(Json& original, Json& patch, OptionalType type);

 private:
  const PatchSchema::Field* FindField(OptionalType type,
                                      std::string_view name) const {
    return type.has_value() ? schema_.FindField(*type, name) : nullptr;
  }

  ABSL_ATTRIBUTE_NOINLINE static absl::Status HandleDirectiveInMergeMap(
      Json& original, Json& patch);
  ABSL_ATTRIBUTE_NOINLINE absl::Status PrepareMergeMap(Json& original,
                                                       Json& patch,
                                                       OptionalType type);
  ABSL_ATTRIBUTE_NOINLINE absl::Status MergeMember(Json& original,
                                                   const std::string& patch_key,
                                                   Json& patch_value,
                                                   OptionalType type);
  ABSL_ATTRIBUTE_NOINLINE static absl::Status DeletionListKey(
      const std::string& patch_key, std::string* list_key);
  ABSL_ATTRIBUTE_NOINLINE static void SetFromPatch(Json& original,
                                                   const std::string& key,
                                                   Json value);
  absl::Status ApplyRetainKeysDirective(Json& original, Json& patch);
  absl::Status MergePatchIntoOriginal(Json& original, Json& patch,
                                      OptionalType type);
  // The list functions merge `patch` into the list `original`, in place.
  absl::Status MergeSliceHandler(Json& original, Json& patch,
                                 const PatchSchema::Field* field,
                                 std::string_view name, bool is_delete_list,
                                 Json* aliased_original = nullptr);
  absl::Status MergeSlice(Json& original, Json& patch,
                          OptionalType element_type, std::string_view merge_key,
                          std::string_view name, bool is_delete_list,
                          Json* aliased_original);

  const PatchSchema& schema_;
};

// applyRetainKeysDirective.
absl::Status StrategicMerger::ApplyRetainKeysDirective(Json& original,
                                                       Json& patch) {
  auto it = patch.find(kRetainKeysDirective);
  if (it == patch.end()) return absl::OkStatus();
  Json retain = std::move(*it);
  patch.erase(std::string(kRetainKeysDirective));
  if (!retain.is_array()) return ErrBadPatchFormatForRetainKeys();
  auto retained = [&](const std::string& key) {
    for (const Json& k : retain) {
      if (k.is_string() && k.get_ref<const std::string&>() == key) {
        return true;
      }
    }
    return false;
  };
  for (auto p = patch.begin(); p != patch.end(); ++p) {
    if (p->is_null() || HasPrefix(p.key(), kDeleteFromPrimitiveListPrefix) ||
        HasPrefix(p.key(), kSetElementOrderPrefix)) {
      continue;
    }
    if (!retained(p.key())) return ErrBadPatchFormatForRetainKeys();
  }
  std::vector<std::string> drop;
  for (auto o = original.begin(); o != original.end(); ++o) {
    if (!retained(o.key())) drop.push_back(o.key());
  }
  for (const std::string& key : drop) original.erase(key);
  return absl::OkStatus();
}

// mergePatchIntoOriginal: merges each list named by a
// "$setElementOrder/<list>" directive and puts it in the directive's order.
absl::Status StrategicMerger::MergePatchIntoOriginal(Json& original,
                                                     Json& patch,
                                                     OptionalType type) {
  std::vector<std::string> directives;
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    if (HasPrefix(it.key(), kSetElementOrderPrefix)) {
      directives.push_back(it.key());
    }
  }
  for (const std::string& directive : directives) {
    Json order = std::move(patch[directive]);
    patch.erase(directive);
    if (!order.is_array()) return ErrBadArgType(kSliceType, order);
    absl::StatusOr<std::string> key =
        ExtractKey(directive, kSetElementOrderPrefix);
    if (!key.ok()) return key.status();

    auto original_it = original.find(*key);
    bool found_original = original_it != original.end();
    auto patch_it = patch.find(*key);
    bool found_patch = patch_it != patch.end();
    Json original_list = Json::array();
    Json patch_list = Json::array();
    if (found_original) {
      if (!original_it->is_array()) {
        return ErrBadArgType(kSliceType, *original_it);
      }
      original_list = *original_it;
    }
    if (found_patch) {
      if (!patch_it->is_array()) return ErrBadArgType(kSliceType, *patch_it);
      patch_list = *patch_it;
    }
    const PatchSchema::Field* field = FindField(type, *key);
    std::string merge_key = field ? field->strategy.merge_key : "";
    if (absl::Status s =
            ValidatePatchWithSetOrderList(patch_list, order, merge_key);
        !s.ok()) {
      return s;
    }

    Json merged;
    Json server_order = original_list;
    if (found_original && !found_patch) {
      merged = original_list;
    } else if (!found_original && found_patch) {
      merged = patch_list;
      RemoveDirectives(merged);
    } else if (found_original && found_patch) {
      merged = original_list;
      Json patch_copy = patch_list;
      if (absl::Status s = MergeSliceHandler(merged, patch_copy, field, *key,
                                             false, &server_order);
          !s.ok()) {
        return s;
      }
    } else {
      continue;
    }

    Json patch_items;
    Json server_only;
    if (absl::Status s = PartitionByPresence(merged, order, merge_key,
                                             &patch_items, &server_only);
        !s.ok()) {
      return s;
    }
    absl::StatusOr<GoKind> kind = SliceElementKind(original_list, patch_list);
    if (!kind.ok()) return kind.status();
    // Upstream orders by its view of the original list after mergeSlice
    // changed it in place (see MergeSlice).
    absl::StatusOr<Json> normalized = NormalizeElementOrder(
        patch_items, server_only, order, server_order, merge_key, *kind);
    if (!normalized.ok()) return normalized.status();
    original[*key] = std::move(*normalized);
    patch.erase(*key);
  }
  return absl::OkStatus();
}

// mergeSliceHandler: merge lists (and parallel deletion lists) merge; other
// lists are replaced by the patch's list, taken as is.
absl::Status StrategicMerger::MergeSliceHandler(Json& original, Json& patch,
                                                const PatchSchema::Field* field,
                                                std::string_view name,
                                                bool is_delete_list,
                                                Json* aliased_original) {
  bool merge = field != nullptr && field->strategy.merge;
  if (merge || is_delete_list) {
    return MergeSlice(original, patch, field ? field->value_type : std::nullopt,
                      field ? field->strategy.merge_key : "", name,
                      is_delete_list, aliased_original);
  }
  original = std::move(patch);
  return absl::OkStatus();
}

// mergeSlice.
//
// If `aliased_original` is set, it receives what upstream's caller then
// sees through its own slice header on the original list: Go deletes
// elements by shifting the tail left in place (the last slot keeps a stale
// copy) and appends new elements into the slots so freed. The backing array
// is assumed to have no spare capacity (as when the list was built with
// exactly its length), so further appends reallocate.
absl::Status StrategicMerger::MergeSlice(Json& original, Json& patch,
                                         OptionalType element_type,
                                         std::string_view merge_key,
                                         std::string_view name,
                                         bool is_delete_list,
                                         Json* aliased_original) {
  if (aliased_original != nullptr) *aliased_original = original;
  if (original.empty() && patch.empty()) return absl::OkStatus();
  absl::StatusOr<GoKind> kind = SliceElementKind(original, patch);
  if (!kind.ok()) return kind.status();

  Json merged = Json::array();
  if (*kind != GoKind::kObject) {
    if (is_delete_list) {
      // deleteFromSlice.
      ValueIndex to_delete;
      for (const Json& item : patch) to_delete.Add(item, 0);
      for (Json& item : original) {
        if (to_delete.Find(item) < 0) merged.push_back(std::move(item));
      }
      original = std::move(merged);
      return absl::OkStatus();
    }
    // The set union; the order is fixed by NormalizeElementOrder below.
    ValueIndex seen;
    for (const Json* list : {&original, &patch}) {
      for (const Json& item : *list) {
        if (seen.Find(item) >= 0) continue;
        seen.Add(item, 0);
        merged.push_back(item);
      }
    }
  } else {
    if (merge_key.empty()) {
      return absl::InternalError(
          StrCat("cannot merge lists without merge key for ", name));
    }
    // mergeSliceWithSpecialElements.
    Json plain = Json::array();
    bool replace = false;
    bool aliased = true;  // `original` still shares upstream's backing array
    std::vector<const Json*> delete_keys;
    for (const Json& item : patch) {
      auto d = item.find(kDirectiveMarker);
      if (d == item.end()) {
        plain.push_back(item);
      } else if (IsDirective(*d, kDeleteDirective)) {
        auto key = item.find(merge_key);
        if (key == item.end()) return ErrNoMergeKey(item, merge_key);
        delete_keys.push_back(&*key);
      } else if (IsDirective(*d, kReplaceDirective)) {
        replace = true;
      } else if (IsDirective(*d, kMergeDirective)) {
        return absl::InternalError(
            "merging lists cannot yet be specified in the patch");
      } else {
        return ErrBadPatchType(*d, item);
      }
    }
    if (!delete_keys.empty()) {
      DeleteMatchingEntries(original, merge_key, delete_keys, aliased_original);
    }
    if (replace) {
      original = std::move(plain);
      patch = Json::array();
      aliased = false;
    } else {
      patch = std::move(plain);
    }
    // mergeSliceWithoutSpecialElements. All elements are objects here
    // (SliceElementKind), so the lookups cannot fail.
    merged = original;
    int no_non_object;
    ValueIndex merged_keys = IndexMapsByKey(merged, merge_key, &no_non_object);
    for (const Json& item : patch) {
      auto key = item.find(merge_key);
      if (key == item.end()) return ErrNoMergeKey(item, merge_key);
      int index = merged_keys.Find(*key);
      if (index >= 0) {
        // MergeMap consumes its patch, and `item` is still needed.
        Json item_copy = item;
        if (absl::Status s = MergeMap(merged[static_cast<size_t>(index)],
                                      item_copy, element_type);
            !s.ok()) {
          return s;
        }
      } else {
        if (aliased_original != nullptr && aliased &&
            merged.size() < aliased_original->size()) {
          (*aliased_original)[merged.size()] = item;
        } else {
          aliased = false;
        }
        merged_keys.Add(*key, static_cast<int>(merged.size()));
        merged.push_back(item);
      }
    }
  }

  Json patch_items;
  Json server_only;
  if (absl::Status s = PartitionByPresence(merged, patch, merge_key,
                                           &patch_items, &server_only);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<Json> normalized = NormalizeElementOrder(
      patch_items, server_only, patch, original, merge_key, *kind);
  if (!normalized.ok()) return normalized.status();
  original = std::move(*normalized);
  return absl::OkStatus();
}

// mergeMap. Kept lean, with the work of each level in non-inlined helpers:
// it recurses once per nesting level (up to kMaxJsonDepth), so its frame
// size bounds the stack used.
absl::Status StrategicMerger::MergeMap(Json& original, Json& patch,
                                       OptionalType type) {
  if (patch.contains(kDirectiveMarker)) {
    return HandleDirectiveInMergeMap(original, patch);
  }
  if (absl::Status s = PrepareMergeMap(original, patch, type); !s.ok()) {
    return s;
  }
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    if (absl::Status s = MergeMember(original, it.key(), it.value(), type);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

// handleDirectiveInMergeMap: "$patch": "replace" keeps the patch (without
// the directive), "delete" leaves an empty object.
absl::Status StrategicMerger::HandleDirectiveInMergeMap(Json& original,
                                                        Json& patch) {
  const Json& directive = patch[std::string(kDirectiveMarker)];
  if (IsDirective(directive, kReplaceDirective)) {
    patch.erase(std::string(kDirectiveMarker));
    original = std::move(patch);
    return absl::OkStatus();
  }
  if (IsDirective(directive, kDeleteDirective)) {
    original = Json::object();
    return absl::OkStatus();
  }
  return ErrBadPatchType(directive, patch);
}

// The directives processed before the members: $retainKeys, then the lists
// named by $setElementOrder.
absl::Status StrategicMerger::PrepareMergeMap(Json& original, Json& patch,
                                              OptionalType type) {
  if (absl::Status s = ApplyRetainKeysDirective(original, patch); !s.ok()) {
    return s;
  }
  return MergePatchIntoOriginal(original, patch, type);
}

// The body of mergeMap's loop for one patch member.
absl::Status StrategicMerger::MergeMember(Json& original,
                                          const std::string& patch_key,
                                          Json& patch_value,
                                          OptionalType type) {
  // preprocessDeletionListForMerging.
  std::string list_key;
  bool is_delete_list = HasPrefix(patch_key, kDeleteFromPrimitiveListPrefix);
  if (is_delete_list) {
    if (absl::Status s = DeletionListKey(patch_key, &list_key); !s.ok()) {
      return s;
    }
  }
  const std::string& key = is_delete_list ? list_key : patch_key;

  if (patch_value.is_null()) {
    original.erase(key);
    return absl::OkStatus();
  }
  auto current = original.find(key);
  if (current == original.end() || KindOf(*current) != KindOf(patch_value)) {
    // Absent, or of another type: take the patch value.
    if (!is_delete_list) SetFromPatch(original, key, std::move(patch_value));
    return absl::OkStatus();
  }
  const PatchSchema::Field* field = FindField(type, key);
  switch (KindOf(*current)) {
    case GoKind::kObject:
      return MergeMap(*current, patch_value,
                      field ? field->value_type : std::nullopt);
    case GoKind::kArray:
      return MergeSliceHandler(*current, patch_value, field, key,
                               is_delete_list);
    default:
      *current = std::move(patch_value);  // a scalar
      return absl::OkStatus();
  }
}

// The list a "$deleteFromPrimitiveList/<list>" key names.
absl::Status StrategicMerger::DeletionListKey(const std::string& patch_key,
                                              std::string* list_key) {
  absl::StatusOr<std::string> extracted =
      ExtractKey(patch_key, kDeleteFromPrimitiveListPrefix);
  if (!extracted.ok()) return extracted.status();
  *list_key = std::move(*extracted);
  return absl::OkStatus();
}

// Sets original[key] to a patch value taken as is (nulls discarded,
// directives removed), or removes it if the value is itself a directive.
void StrategicMerger::SetFromPatch(Json& original, const std::string& key,
                                   Json value) {
  std::optional<Json> cleaned = PatchValueForNewKey(std::move(value));
  if (cleaned.has_value()) {
    original[key] = std::move(*cleaned);
  } else {
    original.erase(key);
  }
}

absl::StatusOr<Json> StrategicMergePatch(const Json& original,
                                         const Json& patch,
                                         const PatchSchema& schema) {
  if (absl::Status s = internal::CheckDepth(original, patch); !s.ok()) {
    return s;
  }
  if (!original.is_object() && !original.is_null()) {
    return absl::InvalidArgumentError("invalid JSON document");
  }
  if (patch.is_null()) {
    return original.is_null() ? Json::object() : original;
  }
  if (!patch.is_object()) {
    std::string_view word = patch.is_array()     ? "array"
                            : patch.is_string()  ? "string"
                            : patch.is_boolean() ? "bool"
                                                 : "number";
    return absl::InvalidArgumentError(
        StrCat("json: cannot unmarshal ", word,
               " into Go value of type map[string]interface {}"));
  }
  Json result = original.is_null() ? Json::object() : original;
  Json patch_copy = patch;
  StrategicMerger merger(schema);
  if (absl::Status s =
          merger.MergeMap(result, patch_copy, PatchSchema::kRootType);
      !s.ok()) {
    return s;
  }
  return result;
}

}  // namespace

absl::StatusOr<Json> ApplyStrategicMergePatch(const Json& original,
                                              const Json& patch,
                                              const PatchSchema& schema) {
  try {
    return StrategicMergePatch(original, patch, schema);
  } catch (const std::exception& e) {
    return absl::InternalError(StrCat("strategic merge patch: ", e.what()));
  }
}

}  // namespace draplane::patch

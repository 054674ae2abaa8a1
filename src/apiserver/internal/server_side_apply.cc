#include "apiserver/internal/server_side_apply.h"

#include <set>
#include <vector>

#include "absl/time/clock.h"
#include "api/json_members.h"
#include "apiserver/internal/api_errors.h"
#include "apiserver/internal/registry.h"
#include "common/str_cat.h"
#include "patch/patch.h"

namespace draplane::apiserver::internal {
namespace {

using api::Json;
using Path = std::vector<std::string>;
using TypeId = patch::PatchSchema::TypeId;

// Fields that identify the object or are the server's: never owned.
bool IsIdentity(const Path& parent, const std::string& key) {
  if (parent.empty()) return key == "apiVersion" || key == "kind";
  if (parent.size() == 1 && parent[0] == "f:metadata") {
    return key == "name" || key == "namespace" || key == "uid" ||
           key == "resourceVersion" || key == "generation" ||
           key == "creationTimestamp" || key == "managedFields" ||
           key == "deletionTimestamp" || key == "selfLink";
  }
  return false;
}

void Build(const patch::PatchSchema* schema, std::optional<TypeId> type,
           const Json& value, const Path& path, Json& out) {
  if (!value.is_object()) return;  // a leaf: `out` stays {}
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (IsIdentity(path, it.key())) continue;
    const Json& v = it.value();
    if (v.is_null()) continue;
    const std::string key = StrCat("f:", it.key());
    const patch::PatchSchema::Field* field =
        schema != nullptr && type ? schema->FindField(*type, it.key())
                                  : nullptr;
    Json& child = out[key];
    child = Json::object();
    Path child_path = path;
    child_path.push_back(key);
    if (v.is_array() && field != nullptr && field->strategy.merge) {
      for (const Json& element : v) {
        if (!field->strategy.merge_key.empty() && element.is_object() &&
            element.contains(field->strategy.merge_key)) {
          Json k = Json::object();
          k[field->strategy.merge_key] = element[field->strategy.merge_key];
          Json& e = child[StrCat("k:", api::DumpJson(k))];
          e = Json{{".", Json::object()}};
          Path element_path = child_path;
          element_path.push_back("k");
          Build(schema, field->value_type, element, element_path, e);
        } else if (!element.is_object() && !element.is_array()) {
          child[StrCat("v:", api::DumpJson(element))] = Json::object();
        }
      }
    } else if (v.is_object()) {
      Build(schema, field != nullptr ? field->value_type : std::nullopt, v,
            child_path, child);
    }
  }
}

// Why `value` (at `where`, as ".spec.containers") cannot be applied: a
// member named like a strategic-merge-patch directive ("$patch",
// "$setElementOrder/...": no schema declares such a field, and an apply
// configuration is not a patch), an element of an associative list that
// is not an object holding the merge key, or two elements with the same
// key; "" when it can. Upstream's structured-merge-diff refuses all three,
// on creation as on update. Free-form members (opaque driver parameters,
// device status data) are not looked into.
std::string ApplyConfigProblem(const patch::PatchSchema* schema,
                               std::optional<TypeId> type, const Json& value,
                               const std::string& where) {
  if (value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i) {
      std::string inner = ApplyConfigProblem(nullptr, std::nullopt, value[i],
                                             StrCat(where, "[", i, "]"));
      if (!inner.empty()) return inner;
    }
    return "";
  }
  if (!value.is_object()) return "";
  for (auto it = value.begin(); it != value.end(); ++it) {
    const std::string at = StrCat(where, ".", it.key());
    if (!it.key().empty() && it.key()[0] == '$') {
      return StrCat(at, ": field not declared in schema");
    }
    // Opaque driver parameters and a device's status data are free-form
    // JSON (RawExtensions).
    if (it.key() == "parameters" || it.key() == "data") continue;
    const Json& v = it.value();
    const patch::PatchSchema::Field* field =
        schema != nullptr && type ? schema->FindField(*type, it.key())
                                  : nullptr;
    if (field == nullptr) {
      std::string inner = ApplyConfigProblem(nullptr, std::nullopt, v, at);
      if (!inner.empty()) return inner;
      continue;
    }
    if (v.is_array() && field->strategy.merge &&
        !field->strategy.merge_key.empty()) {
      const std::string& key = field->strategy.merge_key;
      std::set<std::string> seen;
      for (size_t i = 0; i < v.size(); ++i) {
        const Json& element = v[i];
        if (!element.is_object() || !element.contains(key) ||
            element[key].is_null()) {
          return StrCat(at, ": element ", i,
                        ": associative list with keys has an element that "
                        "omits key field \"",
                        key, "\" (and doesn't have default value)");
        }
        const std::string id = StrCat(key, "=", api::DumpJson(element[key]));
        if (!seen.insert(id).second) {
          return StrCat(at, ": duplicate entries for key [", id, "]");
        }
        std::string inner = ApplyConfigProblem(
            schema, field->value_type, element, StrCat(at, "[", id, "]"));
        if (!inner.empty()) return inner;
      }
    } else {
      std::string inner = ApplyConfigProblem(
          schema, v.is_object() ? field->value_type : std::nullopt, v, at);
      if (!inner.empty()) return inner;
    }
  }
  return "";
}

// Whether Build would give `value` (at `path`) any member.
bool HasMembers(const Json& value, const Path& path) {
  if (!value.is_object()) return false;
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (!IsIdentity(path, it.key()) && !it.value().is_null()) return true;
  }
  return false;
}

// The list element a "k:" or "v:" segment names, or nullptr.
const Json* FindElementIn(const Json* list, const std::string& segment);

// Appends, in the order LeavesOf(Build(...)) lists them, the leaf paths of
// `value`'s field set whose values differ from `before`'s (the value at
// the same path of the other object; nullptr when absent there). A member
// equal in both is skipped whole: every leaf under it is unchanged.
void ChangedLeaves(const patch::PatchSchema* schema, std::optional<TypeId> type,
                   const Json& value, const Json* before, Path& path,
                   std::vector<Path>& out) {
  if (!value.is_object()) return;
  if (before != nullptr && !before->is_object()) before = nullptr;
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (IsIdentity(path, it.key())) continue;
    const Json& v = it.value();
    if (v.is_null()) continue;
    const Json* b = nullptr;
    if (before != nullptr) {
      auto found = before->find(it.key());
      if (found != before->end()) b = &*found;
    }
    if (b != nullptr && *b == v) continue;
    const patch::PatchSchema::Field* field =
        schema != nullptr && type ? schema->FindField(*type, it.key())
                                  : nullptr;
    path.push_back(StrCat("f:", it.key()));
    bool leaf = true;  // the member's own set is empty
    if (v.is_array() && field != nullptr && field->strategy.merge) {
      const Json* b_list = b != nullptr && b->is_array() ? b : nullptr;
      for (const Json& element : v) {
        if (!field->strategy.merge_key.empty() && element.is_object() &&
            element.contains(field->strategy.merge_key)) {
          leaf = false;
          Json k = Json::object();
          k[field->strategy.merge_key] = element[field->strategy.merge_key];
          path.push_back(StrCat("k:", api::DumpJson(k)));
          const Json* b_element = FindElementIn(b_list, path.back());
          if (b_element == nullptr || *b_element != element) {
            out.push_back(path);
            ChangedLeaves(schema, field->value_type, element, b_element, path,
                          out);
          }
          path.pop_back();
        } else if (!element.is_object() && !element.is_array()) {
          leaf = false;
          path.push_back(StrCat("v:", api::DumpJson(element)));
          if (FindElementIn(b_list, path.back()) == nullptr) {
            out.push_back(path);
          }
          path.pop_back();
        }
      }
    } else if (v.is_object() && HasMembers(v, path)) {
      leaf = false;
      ChangedLeaves(schema, field != nullptr ? field->value_type : std::nullopt,
                    v, b, path, out);
    }
    if (leaf) out.push_back(path);  // b differs from v (or is absent)
    path.pop_back();
  }
}

// Leaf paths of a fieldsV1 set: empty sets, and "." markers of elements.
void Leaves(const Json& set, Path& path, std::vector<Path>& out) {
  if (!set.is_object()) return;
  if (set.empty()) {
    out.push_back(path);
    return;
  }
  for (auto it = set.begin(); it != set.end(); ++it) {
    if (it.key() == ".") {
      out.push_back(path);
      continue;
    }
    path.push_back(it.key());
    Leaves(it.value(), path, out);
    path.pop_back();
  }
}

// !LeavesOf(set).empty(), without listing them.
bool HasLeaf(const Json& set) {
  if (!set.is_object()) return false;
  if (set.empty()) return true;
  for (auto it = set.begin(); it != set.end(); ++it) {
    if (it.key() == "." || HasLeaf(it.value())) return true;
  }
  return false;
}

}  // namespace

std::vector<Path> LeavesOf(const Json& set) {
  std::vector<Path> out;
  Path path;
  Leaves(set, path, out);
  return out;
}

namespace {

// The list element a "k:" or "v:" segment names, or end.
Json::iterator FindElement(Json& list, const std::string& segment) {
  const Json key = Json::parse(segment.substr(2), nullptr, false);
  for (auto it = list.begin(); it != list.end(); ++it) {
    if (segment[0] == 'v') {
      if (*it == key) return it;
      continue;
    }
    if (!it->is_object() || !key.is_object()) continue;
    bool match = true;
    for (auto k = key.begin(); k != key.end(); ++k) {
      match = match && it->contains(k.key()) && (*it)[k.key()] == k.value();
    }
    if (match) return it;
  }
  return list.end();
}

const Json* FindElementIn(const Json* list, const std::string& segment) {
  if (list == nullptr || !list->is_array()) return nullptr;
  Json& l = const_cast<Json&>(*list);
  auto it = FindElement(l, segment);
  return it == l.end() ? nullptr : &*it;
}

}  // namespace

const Json* ValueAt(const Json& object, const Path& path) {
  const Json* node = &object;
  for (const std::string& segment : path) {
    if (segment.rfind("f:", 0) == 0) {
      if (!node->is_object()) return nullptr;
      auto it = node->find(segment.substr(2));
      if (it == node->end()) return nullptr;
      node = &*it;
    } else {
      if (!node->is_array()) return nullptr;
      Json& list = const_cast<Json&>(*node);
      auto it = FindElement(list, segment);
      if (it == list.end()) return nullptr;
      node = &*it;
    }
  }
  return node;
}

namespace {

void RemoveAt(Json& object, const Path& path) {
  if (path.empty()) return;
  Json* node = &object;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    const std::string& segment = path[i];
    if (segment.rfind("f:", 0) == 0) {
      if (!node->is_object() || !node->contains(segment.substr(2))) return;
      node = &(*node)[segment.substr(2)];
    } else {
      if (!node->is_array()) return;
      auto it = FindElement(*node, segment);
      if (it == node->end()) return;
      node = &*it;
    }
  }
  const std::string& last = path.back();
  if (last.rfind("f:", 0) == 0) {
    if (node->is_object()) node->erase(last.substr(2));
  } else if (node->is_array()) {
    auto it = FindElement(*node, last);
    if (it != node->end()) node->erase(it);
  }
}

// Removes `path` from a fieldsV1 set.
void RemoveFromSet(Json& set, const Path& path) {
  Json* node = &set;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    if (!node->contains(path[i])) return;
    node = &(*node)[path[i]];
  }
  if (!path.empty()) node->erase(path.back());
}

// A managedFields entry's fieldsV1 set (empty when absent or not an
// object): entries come from stored objects and are read without trusting
// their shape.
Json EntryFields(const Json& entry) {
  const auto it = entry.find("fieldsV1");
  return it != entry.end() && it->is_object() ? *it : Json::object();
}

std::string PathString(const Path& path) {
  std::string out;
  for (const std::string& segment : path) {
    if (segment.rfind("f:", 0) == 0) {
      StrAppend(&out, ".", segment.substr(2));
    } else {
      StrAppend(&out, "[", segment.substr(2), "]");
    }
  }
  return out;
}

}  // namespace

Json FieldSetOf(const ResourceInfo& r, const Json& object) {
  const patch::PatchSchema* schema =
      patch::PatchSchemaFor(r.group(), r.kind->kind);
  Json out = Json::object();
  Build(schema, patch::PatchSchema::kRootType, object, {}, out);
  return out;
}

absl::StatusOr<Json> ServerSideApply(const ResourceInfo& r, const Json& current,
                                     const Json& applied,
                                     const ApplyRequest& request) {
  if (!applied.is_object()) {
    return BadRequest("an apply patch must be an object");
  }
  if (std::string problem =
          ApplyConfigProblem(patch::PatchSchemaFor(r.group(), r.kind->kind),
                             patch::PatchSchema::kRootType, applied, "");
      !problem.empty()) {
    return ApiError(422, "Invalid",
                    StrCat("failed to create typed patch object: ", problem));
  }
  const Json fields = FieldSetOf(r, applied);
  Json entry{
      {"manager", request.manager},        {"operation", "Apply"},
      {"apiVersion", request.api_version}, {"time", Timestamp(request.now)},
      {"fieldsType", "FieldsV1"},          {"fieldsV1", fields}};
  if (!request.subresource.empty()) entry["subresource"] = request.subresource;
  const patch::PatchSchema* schema =
      patch::PatchSchemaFor(r.group(), r.kind->kind);
  Json patch_doc = applied;
  if (auto metadata = patch_doc.find("metadata");
      metadata != patch_doc.end() && metadata->is_object()) {
    metadata->erase("managedFields");
  }
  // The configuration merged into `base` as into every object: null
  // members are no value, on creation as on update.
  auto merge = [&](const Json& base) {
    return schema != nullptr
               ? patch::ApplyStrategicMergePatch(base, patch_doc, *schema)
               : patch::ApplyMergePatch(base, patch_doc);
  };
  if (current.is_null()) {
    auto created = merge(Json::object());
    if (!created.ok()) {
      return ApiError(422, "Invalid", std::string(created.status().message()));
    }
    Json& metadata = (*created)["metadata"];
    if (!metadata.is_object()) {
      return BadRequest("an apply patch's metadata must be an object");
    }
    metadata["managedFields"] = Json::array({entry});
    return created;
  }
  Json managed = Json::array();
  if (const auto metadata = current.find("metadata");
      metadata != current.end() && metadata->is_object()) {
    if (const auto mf = metadata->find("managedFields");
        mf != metadata->end() && mf->is_array()) {
      managed = *mf;
    }
  }
  Json previous = Json::object();
  std::set<Path> owned_by_others;
  std::vector<std::pair<std::string, Path>> conflicts;
  const std::vector<Path> applying = LeavesOf(fields);
  const std::set<Path> applying_set(applying.begin(), applying.end());
  for (Json& m : managed) {
    if (!m.is_object()) continue;
    if (api::StringMemberOrEmpty(m, "manager") == request.manager &&
        api::StringMemberOrEmpty(m, "subresource") == request.subresource) {
      if (api::StringMemberOrEmpty(m, "operation") == "Apply") {
        previous = EntryFields(m);
      }
      continue;  // a manager never conflicts with itself
    }
    for (const Path& p : LeavesOf(EntryFields(m))) {
      if (applying_set.contains(p)) {
        const Json* have = ValueAt(current, p);
        const Json* want = ValueAt(applied, p);
        if (have != nullptr && want != nullptr && *have != *want) {
          if (!request.force) {
            conflicts.emplace_back(api::StringMemberOrEmpty(m, "manager"), p);
            continue;
          }
          RemoveFromSet(m["fieldsV1"], p);  // force: ownership moves
          continue;
        }
      }
      owned_by_others.insert(p);
    }
  }
  if (!conflicts.empty()) {
    std::string message =
        StrCat("Apply failed with ", conflicts.size(),
               conflicts.size() == 1 ? " conflict:" : " conflicts:");
    for (const auto& [manager, path] : conflicts) {
      StrAppend(&message, " conflict with \"", manager,
                "\": ", PathString(path));
      if (&path != &conflicts.back().second) message += ",";
    }
    return ApiError(
        409, "Conflict", message,
        Json{{"causes", [&] {
                Json causes = Json::array();
                for (const auto& [manager, path] : conflicts) {
                  causes.push_back(Json{
                      {"reason", "FieldManagerConflict"},
                      {"message", StrCat("conflict with \"", manager, "\"")},
                      {"field", PathString(path)}});
                }
                return causes;
              }()}});
  }
  Json result = current;
  // Fields this applier no longer applies and nobody else owns go.
  for (const Path& p : LeavesOf(previous)) {
    if (!applying_set.contains(p) && !owned_by_others.contains(p)) {
      RemoveAt(result, p);
    }
  }
  auto merged = merge(result);
  if (!merged.ok()) {
    return ApiError(422, "Invalid", std::string(merged.status().message()));
  }
  Json next_managed = Json::array();
  bool placed = false;
  for (Json& m : managed) {
    if (!m.is_object()) continue;
    if (api::StringMemberOrEmpty(m, "manager") == request.manager &&
        api::StringMemberOrEmpty(m, "operation") == "Apply" &&
        api::StringMemberOrEmpty(m, "subresource") == request.subresource) {
      next_managed.push_back(entry);
      placed = true;
    } else if (!LeavesOf(EntryFields(m)).empty()) {
      next_managed.push_back(std::move(m));
    }
  }
  if (!placed) next_managed.push_back(entry);
  Json& metadata = (*merged)["metadata"];
  if (!metadata.is_object()) {
    return BadRequest("an apply patch's metadata must be an object");
  }
  metadata["managedFields"] = std::move(next_managed);
  return merged;
}

void RecordUpdateManager(const ResourceInfo& r, const Json& current, Json& next,
                         const std::string& manager,
                         const std::string& api_version,
                         const std::string& subresource, absl::Time now) {
  if (manager.empty() || !next.is_object()) return;
  std::vector<Path> changed;
  Path path;
  ChangedLeaves(patch::PatchSchemaFor(r.group(), r.kind->kind),
                patch::PatchSchema::kRootType, next,
                current.is_null() ? nullptr : &current, path, changed);
  if (changed.empty()) return;
  Json& meta = next["metadata"];
  if (meta.is_null()) meta = Json::object();
  if (!meta.is_object()) return;  // validation refuses such an object
  Json managed = Json::array();
  if (auto mf = meta.find("managedFields");
      mf != meta.end() && mf->is_array()) {
    managed = std::move(*mf);
  }
  Json out = Json::array();
  Json mine = Json::object();
  for (Json& m : managed) {
    if (!m.is_object()) continue;
    const bool is_mine =
        api::StringMemberOrEmpty(m, "manager") == manager &&
        api::StringMemberOrEmpty(m, "operation") == "Update" &&
        api::StringMemberOrEmpty(m, "subresource") == subresource;
    if (is_mine) {
      mine = EntryFields(m);
      continue;
    }
    Json& fields = m["fieldsV1"];
    if (!fields.is_object()) fields = Json::object();
    for (const Path& p : changed) RemoveFromSet(fields, p);
    if (HasLeaf(fields)) out.push_back(std::move(m));
  }
  for (const Path& p : changed) {
    Json* node = &mine;
    for (const std::string& segment : p) {
      Json& child = (*node)[segment];
      if (!child.is_object()) child = Json::object();
      node = &child;
    }
    if (p.size() > 0 && (p.back()[0] == 'k')) (*node)["."] = Json::object();
  }
  Json entry{{"manager", manager},        {"operation", "Update"},
             {"apiVersion", api_version}, {"time", Timestamp(now)},
             {"fieldsType", "FieldsV1"},  {"fieldsV1", std::move(mine)}};
  if (!subresource.empty()) entry["subresource"] = subresource;
  out.push_back(std::move(entry));
  meta["managedFields"] = std::move(out);
}

}  // namespace draplane::apiserver::internal

// The three patch types a Kubernetes API server applies to PATCH requests,
// on JSON values, with upstream's semantics (Kubernetes 1.37:
// k8s.io/apiserver pkg/endpoints/handlers/patch.go; JSON Patch and JSON
// merge patch as gopkg.in/evanphx/json-patch.v4 v4.13.0 implements them;
// strategic merge patch as k8s.io/apimachinery pkg/util/strategicpatch).
//
//   Content-Type                              function
//   application/merge-patch+json              ApplyMergePatch
//   application/json-patch+json               ApplyJsonPatch
//   application/strategic-merge-patch+json    ApplyStrategicMergePatch
//
// Server-side apply (application/apply-patch+yaml) is not here.
//
// Errors. No function throws. Error messages are upstream's texts (the
// inner message; the HTTP layer adds its own wrapper). Each error's code
// says which HTTP status upstream answers with:
//   kInvalidArgument     400 BadRequest: the patch document is malformed.
//   kFailedPrecondition  422 UnprocessableEntity: the patch does not apply to
//                        this document (missing path, failed "test", list
//                        of lists in a strategic merge patch).
//   kResourceExhausted   413 RequestEntityTooLarge: more than
//                        kMaxJsonPatchOperations operations.
//   kInternal            500 InternalError: errors upstream does not
//                        classify, which its handler reports as
//                        "Internal error occurred: <message>" (e.g. a merge
//                        list element without its merge key). Also any
//                        unexpected internal failure.
//
// Documents and patches nested deeper than kMaxJsonDepth are refused with
// kInvalidArgument, and so is a JSON Patch whose result could exceed that
// depth. The functions recurse once per nesting level (a few hundred bytes
// of stack each), so the limit bounds their stack use.
//
// Key order: results keep the original's member order; members a patch adds
// come last, in the patch's order. (Upstream emits members sorted, because
// Go maps are unordered; clients decode objects, so order is not part of
// the contract.)
#ifndef DRAPLANE_PATCH_PATCH_H_
#define DRAPLANE_PATCH_PATCH_H_

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/meta_types.h"

namespace draplane::patch {

using api::Json;

// apiserver patch.go maxJSONPatchOperations.
inline constexpr size_t kMaxJsonPatchOperations = 10000;
// Total bytes "copy" operations of one JSON Patch may add: the apiserver's
// default JSONPatchMaxCopyBytes (3 MiB), measured as compact JSON.
inline constexpr size_t kMaxJsonPatchCopyBytes = 3 * 1024 * 1024;
// Deepest nesting of arrays and objects accepted, the same as
// api::kMaxNestingDepth for manifests. (Go's decoder allows 10000 levels;
// no Kubernetes object comes near either.)
inline constexpr int kMaxJsonDepth = 512;

// RFC 7386 JSON merge patch, as evanphx/json-patch v4 MergePatch:
//  - a patch object merges into an object recursively: a null member
//    deletes the key, an object member merges into an object member, any
//    other member replaces;
//  - values the patch adds or replaces have their null object members
//    removed, recursively, and so have their null array elements (v4 prunes
//    arrays too, unlike RFC 7386) -- except an array replacing an object,
//    which v4 copies verbatim;
//  - if `original` is not an object, the result is the patch (pruned);
//  - a patch that is an array yields that array, null elements removed.
// Errors (kInvalidArgument): a null or scalar patch ("Invalid JSON Patch");
// kInternal "Invalid JSON Document" for a null original.
absl::StatusOr<Json> ApplyMergePatch(const Json& original, const Json& patch);

// RFC 6902 JSON Patch, as evanphx/json-patch v4 Patch.Apply. `patch` must be
// an array of operation objects (null: no operations). Operations apply in
// order; the first failure aborts and nothing is returned. Pointers use
// RFC 6901 escapes (~1 is "/", ~0 is "~"); "-" appends to an array in
// "add" (and as a "move"/"copy" target). Upstream v4 behaviours kept, which
// differ from the RFC:
//  - "replace" of a missing object member adds it (v4 only fails for a
//    missing parent or an array index out of range);
//  - negative array indices count from the end (-1 is the last element);
//    indices may have a sign or leading zeros ("+1", "01");
//  - the text before a pointer's first "/" is ignored ("a/b" is "/b"); a
//    pointer without "/" is missing (so "add" at "" fails, while "replace"
//    and "test" at "" replace / compare the whole document);
//  - "test" with a null or absent value succeeds on a missing member;
//  - "copy" from a missing object member copies null;
//  - "test" compares numbers by type and value: 1 and 1.0 differ (v4
//    compares the JSON text).
// Errors:
//  - kInvalidArgument when `patch` is not an array of objects, with Go's
//    decoding message ("json: cannot unmarshal object into Go value of
//    type jsonpatch.Patch");
//  - kResourceExhausted "The allowed maximum operations in a JSON patch is
//    10000, got N";
//  - kFailedPrecondition with v4's message when an operation does not
//    apply, e.g. `testing value /a failed: test failed`, `Unexpected kind:
//    frobnicate`, `add operation does not apply: doc is missing path:
//    "/a/b": missing value`, or when "copy" operations add more than
//    kMaxJsonPatchCopyBytes ("Unable to complete the copy, the accumulated
//    size increase of copy is N, exceeding the limit M").
absl::StatusOr<Json> ApplyJsonPatch(const Json& original, const Json& patch);

// How a strategic merge patch treats one field: the Go struct tags
// `patchStrategy` and `patchMergeKey`.
struct FieldPatchStrategy {
  // patchStrategy includes "merge": the list merges with the patch's list
  // (lists of objects by `merge_key`, lists of scalars as a set) instead of
  // being replaced by it.
  bool merge = false;
  // patchStrategy includes "retainKeys". Informational: like upstream, the
  // `$retainKeys` directive is honoured wherever a patch carries it.
  bool retain_keys = false;
  // patchMergeKey; empty for lists of scalars.
  std::string merge_key;
};

// Which fields of a kind strategic merge patch treats specially: the
// `patchStrategy`/`patchMergeKey` tags of the kind's Go structs. A schema is
// a set of struct types; type kRootType is the kind's top-level object.
// Types may refer to each other and to themselves, so one declaration of
// PodSpec serves Pod.spec and Deployment.spec.template.spec alike.
//
// Fields not declared have no strategy: their lists are replaced, their
// objects merge like JSON merge patch, and nothing below them is declared.
// (Upstream fails with "unable to find api field" for an undeclared field
// holding an object or list in both the original and the patch; draplane
// does not model every field, so it treats them as undeclared instead.)
//
// Immutable once built; safe to share between threads.
class PatchSchema {
 public:
  using TypeId = int;
  static constexpr TypeId kRootType = 0;

  struct Field {
    FieldPatchStrategy strategy;
    // The struct type of the field's value, or of its list's elements.
    std::optional<TypeId> value_type;
  };

  // A schema with only the root type, which has no declared fields.
  PatchSchema();

  // Adds a struct type without fields and returns its id.
  TypeId AddType();

  // Declares the list (or map) field at `path`, dot-separated JSON field
  // names below `type` ("spec.containers"; list elements add no segment),
  // with `strategy` and, if given, the struct type of its elements.
  // Intermediate fields not yet declared are declared with new types.
  // REQUIRES: `type` and `element_type` are ids of this schema; `path` has
  // no empty segment.
  void SetField(TypeId type, std::string_view path, FieldPatchStrategy strategy,
                std::optional<TypeId> element_type = std::nullopt);

  // Declares that the field at `path` below `type` holds struct type
  // `value_type` (or a list of them), keeping its strategy if declared.
  // REQUIRES: as SetField.
  void SetFieldType(TypeId type, std::string_view path, TypeId value_type);

  // The declaration of field `name` of struct `type`; nullptr if undeclared.
  const Field* FindField(TypeId type, std::string_view name) const;

  // The declaration at dot-separated `path` below the root type; nullptr if
  // any segment is undeclared.
  const Field* FindPath(std::string_view path) const;

 private:
  TypeId Walk(TypeId type, std::string_view path, std::string* last);

  std::vector<std::map<std::string, Field, std::less<>>> types_;
};

// The schema of a kind draplane serves (api::ServedKinds: group "" for core),
// from the patchStrategy/patchMergeKey tags of k8s.io/api v0.37.2. The same
// for every version of the kind (the tags agree across v1beta1, v1beta2 and
// v1). Lists inside lists that are replaced whole (e.g. ContainerStatus's
// volumeMounts inside the atomic status.containerStatuses) are not declared:
// upstream never reaches them either.
//
// nullptr for any other group/kind. Upstream accepts strategic merge patch
// only for the built-in types compiled into the server (all kinds draplane
// serves, resource.k8s.io included); for custom resources and other kinds
// without Go types it answers 415 UnsupportedMediaType ("the body of the
// request was in an unknown format - accepted media types include:
// application/json-patch+json, application/merge-patch+json,
// application/apply-patch+yaml"). Callers report exactly that for nullptr.
//
// The returned schema lives for the whole program.
const PatchSchema* PatchSchemaFor(std::string_view group,
                                  std::string_view kind);

// Strategic merge patch, as apimachinery's StrategicMergePatch (the
// apiserver's options: parallel deletion lists are applied, nulls the
// original does not have are dropped). On top of JSON merge patch:
//  - a list with `merge` strategy merges: elements of an object list are
//    matched by merge key and merged recursively, unmatched patch elements
//    are added; scalar lists become the set union. Other lists are
//    replaced by the patch's list.
//  - order: patch elements keep the patch's order and server-only elements
//    the original's, interleaved where the original had them; an element
//    the original lacks goes before the server-only elements not yet
//    placed, so with no ordering directive new elements come first;
//  - `"$patch": "replace"` in an object replaces it by the rest of the
//    patch object; `"$patch": "delete"` makes it {}; in an element of a
//    merge list, `"$patch": "delete"` (with the merge key) deletes the
//    matching elements and `{"$patch": "replace"}` replaces the list by the
//    other patch elements;
//  - `"$setElementOrder/<list>": [...]` gives the final order of the
//    elements it names (by merge key, or by value for scalars);
//  - `"$retainKeys": [...]` removes the object's other keys;
//  - `"$deleteFromPrimitiveList/<list>": [...]` removes those values from
//    the list (whatever its strategy);
//  - a null member deletes the key.
// `patch` must be an object (null: no change); `original` must be an
// object. Errors carry upstream's messages, with values printed as Go's %v
// prints them; codes as in the comment at the top:
//  - kInvalidArgument: "invalid JSON document" (the original), "json:
//    cannot unmarshal array into Go value of type map[string]interface {}"
//    (the patch), "invalid patch format of setElementOrder list" (or "of
//    retainKeys", "of primitive list");
//  - kFailedPrecondition: "lists of lists are not supported";
//  - kInternal: e.g. "map: map[value:b] does not contain declared merge
//    key: name", "The order in patch list:\n...\n doesn't match
//    $setElementOrder list:\n...\n", "unknown patch type: foo in map:
//    map[$patch:foo]", "cannot merge lists without merge key for
//    <field>" (upstream names the element's Go type instead of the field).
// Results equal upstream's, element order included (its quirks too: the
// $setElementOrder ordering reads the original list after Go's in-place
// deletions and appends changed it, emulated for a list without spare
// capacity). Where upstream's outcome depends on Go's random map order
// (e.g. "$deleteFromPrimitiveList/x" and "x" naming the same value, or
// errors in two lists), members are processed in the patch's order.
// Lookups in lists are hashed, so long lists cost about linear time
// (upstream's are quadratic).
absl::StatusOr<Json> ApplyStrategicMergePatch(const Json& original,
                                              const Json& patch,
                                              const PatchSchema& schema);

}  // namespace draplane::patch

#endif  // DRAPLANE_PATCH_PATCH_H_

// Server-side Tables (meta.k8s.io/v1 Table) for the kinds draplane serves:
// what `kubectl get` asks for with
//   Accept: application/json;as=Table;v=v1;g=meta.k8s.io
// and prints as its human-readable output.
//
// Columns (names, types, formats, descriptions, priorities) and cell values
// follow upstream's printers (k8s.io/kubernetes
// pkg/printers/internalversion/printers.go, the version that serves
// resource.k8s.io/v1 and DeviceTaintRule), run the way the API server runs
// them (pkg/printers/storage TableConvertor: GenerateOptions{Wide: true}),
// so every row carries the priority-1 ("-o wide") cells too; kubectl hides
// those columns unless -o wide is given. Per kind:
//
//   resource.k8s.io DeviceClass          NAME AGE
//   resource.k8s.io ResourceClaim        NAME STATE AGE
//       STATE: "deleted" when metadata.deletionTimestamp is set, then
//       "pending" (no status.allocation, not being deleted) or "allocated"
//       plus "reserved" when status.reservedFor is non-empty; comma-joined.
//   resource.k8s.io ResourceClaimTemplate NAME AGE
//   resource.k8s.io ResourceSlice        NAME NODE DRIVER POOL AGE | DEVICES
//       DEVICES (priority 1, integer: the number of entries in
//       spec.devices) is a DRAPLANE EXTENSION; upstream has no such column.
//   resource.k8s.io DeviceTaintRule      NAME KEY VALUE EFFECT TIMEADDED AGE
//   core Namespace                       NAME STATUS AGE
//   core Node      NAME STATUS ROLES AGE VERSION | INTERNAL-IP EXTERNAL-IP
//                  OS-IMAGE KERNEL-VERSION CONTAINER-RUNTIME
//   core Pod       NAME READY STATUS RESTARTS AGE | IP NODE NOMINATED NODE
//                  READINESS GATES        (STATUS as upstream's printPod)
//   core Event     LAST SEEN TYPE REASON OBJECT | SUBOBJECT SOURCE | MESSAGE
//                  | FIRST SEEN COUNT NAME
//   core ResourceQuota                   NAME REQUEST LIMIT AGE
//   coordination.k8s.io Lease            NAME HOLDER AGE
//   apps Deployment NAME READY UP-TO-DATE AVAILABLE AGE | CONTAINERS IMAGES
//                   SELECTOR
//   batch Job       NAME STATUS COMPLETIONS DURATION AGE | CONTAINERS IMAGES
//                   SELECTOR
//   ("|" separates priority-0 from priority-1 columns.)
//
// Any other group/kind gets upstream's default table
// (apiserver pkg/registry/rest/table.go): columns "Name" and "Created At"
// (type "date"), the cell being metadata.creationTimestamp in RFC 3339 UTC.
//
// The printers read the objects' JSON, not typed structs, so that every
// served version (resource.k8s.io v1, v1beta2, v1beta1) prints the same:
// every field used has the same path in all of them. A field that is
// missing or has the wrong JSON type is treated as unset (its Go zero
// value), never as an error.
#ifndef DRAPLANE_PRINTERS_TABLE_PRINTER_H_
#define DRAPLANE_PRINTERS_TABLE_PRINTER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "api/meta_types.h"

namespace draplane::printers {

// What rows[].object holds (the includeObject query parameter).
enum class IncludeObject {
  // PartialObjectMetadata {kind, apiVersion: meta.k8s.io/v1, metadata}: the
  // default. kubectl reads metadata.namespace (-A) and metadata.labels
  // (--show-labels, -L) from it.
  kMetadata,
  // The object as given (kubectl asks for this with --sort-by).
  kObject,
  // "object": null.
  kNone,
};

// Parses the includeObject query parameter: "" and "Metadata" ->
// kMetadata, "Object" -> kObject, "None" -> kNone. Anything else fails with
// InvalidArgument and upstream's message (a 400 BadRequest there):
//   unrecognized includeObject value: "<value>"
absl::StatusOr<IncludeObject> ParseIncludeObject(std::string_view value);

struct TableOptions {
  // The time AGE and the other relative columns are computed against
  // (upstream uses time.Now()).
  absl::Time now = absl::UnixEpoch();
  IncludeObject include_object = IncludeObject::kMetadata;
  // Leaves "columnDefinitions" null, as upstream does for every watch event
  // after the first (TableOptions.NoHeaders).
  bool no_headers = false;
  // Copied into the Table's metadata, each omitted when empty/unset
  // (metav1.ListMeta's omitempty). For a list: the list's resourceVersion,
  // continue token and remainingItemCount. For a single object upstream
  // uses the object's metadata.resourceVersion.
  std::string resource_version;
  std::string continue_token;
  std::optional<int64_t> remaining_item_count;
};

// Converts `objects` (whole objects of one group/kind, in the JSON of the
// version they are served in; a list's items or a single object) to a
// Table:
//   {"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{...},
//    "columnDefinitions":[{"name","type","format","description",
//                          "priority"}, ...],
//    "rows":[{"cells":[...],"conditions":[...],"object":{...}}, ...]}
// in exactly the key order and encoding upstream's Go structs produce.
// Cells are JSON strings or integers as upstream's cells are string or
// int64. "conditions" appears only on Pod rows whose phase is Succeeded or
// Failed (upstream's "Completed" row condition). For the default table
// "rows" is null when `objects` is empty, as upstream's default convertor
// leaves it; kind-specific tables have [] then.
//
// With IncludeObject::kMetadata, rows[].object.metadata is the object's
// "metadata" member as given ({} when it has none); with kObject the object
// is copied as given (upstream converts it to the requested version, which
// is the version the caller serves it in).
//
// `group` is "" for the core group. Fails with InvalidArgument when an
// element of `objects` is not a JSON object. Never throws. Thread-safe: it
// reads only its arguments and immutable tables.
absl::StatusOr<api::Json> PrintTable(const std::vector<api::Json>& objects,
                                     std::string_view group,
                                     std::string_view kind,
                                     const TableOptions& options);

// True when `group`/`kind` has kind-specific columns; false when it gets
// the default (Name, Created At) table.
bool HasKindColumns(std::string_view group, std::string_view kind);

// Upstream's duration.HumanDuration (k8s.io/apimachinery/pkg/util/
// duration): ~2-3 significant figures, e.g. "59s", "119s", "2m", "2m1s",
// "10m", "179m", "3h", "3h30m", "8h", "47h", "2d", "2d1h", "8d", "729d",
// "2y", "2y1d", "8y". Less than -1s gives "<invalid>", (-2s, 0) gives "0s".
// Durations beyond Go's time.Duration range (about 292 years) saturate
// like Go's Time.Sub.
std::string HumanDuration(absl::Duration d);

}  // namespace draplane::printers

#endif  // DRAPLANE_PRINTERS_TABLE_PRINTER_H_

// Migration of workload manifests from extended resources
// (`nvidia.com/gpu: N` in a container's limits or requests) to Dynamic
// Resource Allocation: a ResourceClaimTemplate per distinct request shape,
// `spec.resourceClaims` in the pod spec, `resources.claims` in the
// containers, the extended resources removed.
//
// Contract:
// - Kinds: Pod, PodTemplate, Deployment, ReplicaSet, ReplicationController,
//   StatefulSet, DaemonSet, Job, CronJob, and the same inside `kind: List`.
//   Every other document is passed through byte for byte.
// - Containers and init containers are converted. Each GPU-using container
//   gets its own claim (containers of a pod never share extended-resource
//   devices either). A plain init container (not a restartable sidecar)
//   shares the claim of the first app container that asks for at least as
//   many devices of the same resource, as the device plugin reuses an init
//   container's devices for the app containers; otherwise it gets its own.
// - Templates are named `<vendor>-<resource>-<count>` (`nvidia-gpu-2`,
//   `nvidia-mig-1g.10gb-1`) in the workload's namespace, emitted once
//   before the first document that uses them, and not at all when the
//   input already has a template of that name and spec (a template of that
//   name with another spec gets a `-2`, `-3`... name instead).
// - Pod claims from the guide's inline form (`resourceClaims[].source`,
//   never upstream API) become templates named `<workload>-<claim>`; an old
//   `source.resourceClaimName` / `source.resourceClaimTemplateName` is
//   moved up one level.
// - Unchanged documents keep their text exactly. Changed block-style
//   documents are edited in place (comments and formatting kept); the
//   edited text is parsed back and compared with the intended object, and
//   where they differ (flow style, JSON input, lists) the document is
//   re-emitted as YAML instead (its comments are lost; a note says so).
// - What cannot be converted is refused with the field path and the
//   reason: fractional or zero-count GPUs are fine only as 0 (removed);
//   fractions, limits != requests, GPU-sharing resources of other plugins
//   (HAMi, Aliyun, Volcano, Tencent, NVIDIA's time-slicing rename) and
//   GPU-looking resources missing from the class map are refused.
// - Migrating the output again changes nothing.
#ifndef DRAPLANE_MIGRATE_MIGRATE_H_
#define DRAPLANE_MIGRATE_MIGRATE_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace draplane::migrate {

struct MigrateOptions {
  // Extended resource name -> DeviceClass. `nvidia.com/mig-<profile>`
  // resources not listed here map to `mig_class` with a selector on the
  // profile attribute.
  std::map<std::string, std::string> class_map = {
      {"nvidia.com/gpu", "gpu.nvidia.com"}};
  std::string mig_class = "mig.nvidia.com";
};

// One workload that was refused.
struct Refusal {
  std::string source;  // file name
  int line = 0;        // 1-based line of the document
  std::string object;  // "Deployment ml/trainer"
  std::string field;   // "spec.template.spec.containers[0].resources..."
  std::string reason;
};

struct FileResult {
  std::string text;                // the migrated file
  std::vector<std::string> notes;  // what was converted, comments lost...
  std::vector<Refusal> refusals;   // documents left unchanged
  int converted = 0;               // workloads converted
  int templates_added = 0;
};

class Migrator {
 public:
  explicit Migrator(MigrateOptions options);
  ~Migrator();
  Migrator(const Migrator&) = delete;
  Migrator& operator=(const Migrator&) = delete;

  // Records the ResourceClaimTemplates a file already holds, so that the
  // files migrated afterwards reuse them. Call it for every input before
  // the first Migrate when several files are migrated together.
  absl::Status IndexTemplates(std::string_view text, std::string_view source);

  // Migrates one file (a YAML stream or JSON). InvalidArgument with the
  // position when the text is not valid manifests. Templates emitted for
  // one file are not emitted again for the next.
  absl::StatusOr<FileResult> Migrate(std::string_view text,
                                     std::string_view source);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace draplane::migrate

#endif  // DRAPLANE_MIGRATE_MIGRATE_H_

// The Alibaba GPU cluster trace 2023 ("openb") as the FGD paper's
// simulator reads it: node lists (sn, cpu_milli, memory_mib, gpu, model)
// and pod lists (name, cpu_milli, memory_mib, num_gpu, gpu_milli and, when
// present, gpu_spec). Columns are found by header name; other columns
// (qos, phase, times) are ignored, as the FGD protocol ignores them.
#ifndef DRAPLANE_SIM_TRACE_H_
#define DRAPLANE_SIM_TRACE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace draplane::sim {

struct TraceNode {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int gpus = 0;
  std::string model;  // "" on CPU-only nodes
};

struct TracePod {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int num_gpu = 0;
  // Per-GPU share in thousandths: 1..999 for a GPU-sharing pod (num_gpu
  // 1), 1000 for whole GPUs, 0 for CPU-only pods.
  int64_t gpu_milli = 0;
  // Allowed GPU models (gpu_spec split at '|', sorted, duplicates
  // dropped); empty = any model.
  std::vector<std::string> gpu_spec;

  // GPU demand in thousandths of a GPU: num_gpu * gpu_milli.
  int64_t GpuMilli() const { return num_gpu * gpu_milli; }
};

// Parses a node list; `file` names it in errors ("file:line: ...").
// Errors: a missing column, a value that is not a non-negative integer, a
// GPU node without a model, a duplicate node name.
absl::StatusOr<std::vector<TraceNode>> ParseNodeList(std::string_view text,
                                                     std::string_view file);
// Parses a pod list. Errors as for nodes, and gpu_milli outside 0..1000,
// a fraction (gpu_milli < 1000) with num_gpu other than 1, GPUs without a
// share or a share without GPUs.
absl::StatusOr<std::vector<TracePod>> ParsePodList(std::string_view text,
                                                   std::string_view file);

// The same, reading `path`.
absl::StatusOr<std::vector<TraceNode>> LoadNodeList(const std::string& path);
absl::StatusOr<std::vector<TracePod>> LoadPodList(const std::string& path);

}  // namespace draplane::sim

#endif  // DRAPLANE_SIM_TRACE_H_

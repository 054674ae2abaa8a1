// Output of `draplane sim fgd`: JSON, a text table, and a self-contained
// HTML report with inline SVG charts (unallocated GPU vs arrived demand
// against the paper's published curves, fragmentation over the run, a
// per-node GPU occupancy heat map at the end of the first seed).
#ifndef DRAPLANE_SIM_FGD_REPORT_H_
#define DRAPLANE_SIM_FGD_REPORT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "api/object.h"
#include "sim/fgd_simulator.h"

namespace draplane::sim {

// The arrived-demand percentages reported in JSON and tables.
const std::vector<int>& ReportedPercents();

// {"policy", "seeds", "target", "gpus", "unallocated_pct": {"90": x, ...},
//  "unallocated_sd": {...}, "fragmentation_rate_pct": {...},
//  "failed_pods": {type: mean}, "per_seed": [...], "wall_seconds"}.
api::Json FgdResultJson(const FgdResult& result);

// Per seed and mean: unallocated % at the reported percentages,
// fragmentation rate at 100 %, failed pods by type, seconds.
std::string FgdResultTable(const FgdResult& result);

struct ReportInput {
  std::vector<const FgdResult*> results;  // one per policy
  std::string workload_name;              // the pod list's path or name
  // analysis_allo_discrete.csv of the paper; "" = the one under
  // $DRAPLANE_SHARED_DIR, none when that is unset.
  std::string published_path;
};

// Writes DIR/index.html (charts inline as SVG) and DIR/*.svg.
absl::Status WriteFgdReport(const std::string& dir, const ReportInput& input);

}  // namespace draplane::sim

#endif  // DRAPLANE_SIM_FGD_REPORT_H_

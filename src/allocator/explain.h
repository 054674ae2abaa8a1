#ifndef DRAPLANE_ALLOCATOR_EXPLAIN_H_
#define DRAPLANE_ALLOCATOR_EXPLAIN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "api/meta_types.h"

namespace draplane::allocator {

// Why a request could not be satisfied on a node: the funnel from the
// devices the node's pools offer down to the ones left for the request,
// each filter naming what removed devices. Counts are of distinct devices.
struct RequestExplanation {
  std::string request;       // "gpu" or "gpu/large"
  std::string device_class;  // the (sub)request's class
  std::string mode;          // "ExactCount" | "All"
  int64_t needed = 0;        // count (ExactCount); devices found (All)

  int offered = 0;  // devices in complete, valid pools on the node
  // Pools on the node that offered nothing: "driver/pool" plus why.
  std::vector<std::string> incomplete_pools;
  std::vector<std::string> invalid_pools;

  // Selectors in evaluation order (class first); `kept` counts the devices
  // still selected after this selector.
  struct Selector {
    std::string
        source;  // "class gpu.nvidia.com selector #0" | "request selector #1"
    std::string expression;
    int kept = 0;
  };
  std::vector<Selector> selectors;
  int selected = 0;  // passed every selector (and per-device node selection)

  int in_use = 0;  // selected, but allocated to other claims
  std::vector<std::string> in_use_by;  // a few "ns/name" holders
  int taint_blocked = 0;               // selected and free, taint not tolerated
  std::vector<std::string>
      taints;               // the untolerated taints, "key=value:Effect"
  int capacity_short = 0;   // selected and free, capacity request cannot fit
  int counters_short = 0;   // selected and free, shared counters exhausted
  int binding_blocked = 0;  // has binding conditions, feature off
  int available = 0;        // left after all of the above

  // Constraints of the claim that apply to this request, with the
  // attribute values seen on the available devices.
  struct Constraint {
    std::string kind;  // "matchAttribute" | "distinctAttribute"
    std::string attribute;
    std::vector<std::pair<std::string, int>> values;  // value -> devices
    int missing = 0;  // available devices without the attribute
    // The most available devices this constraint lets the request take:
    // the largest group with one value (match), the number of distinct
    // values (distinct).
    int usable = 0;
  };
  std::vector<Constraint> constraints;

  // One short paragraph for humans (pod events, `draplane allocate`).
  std::string summary;
};

struct ClaimExplanation {
  std::string namespace_;
  std::string name;
  std::vector<RequestExplanation> requests;
  // Set when every request has enough devices on its own, so the failure
  // comes from combining them (shared devices, constraints, other claims).
  std::string combination;
};

// Fills `summary` from the other members.
void Summarize(RequestExplanation& request);

api::Json ToJson(const ClaimExplanation& claim);

// "claim <ns>/<name>: " and the requests' summaries, then the combination
// text: one line for an event or a report.
std::string ClaimSummary(const ClaimExplanation& claim);

}  // namespace draplane::allocator

#endif  // DRAPLANE_ALLOCATOR_EXPLAIN_H_

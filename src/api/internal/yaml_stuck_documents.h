// A guard against yaml-cpp 0.7's endless document loop (fixed upstream in
// jbeder/yaml-cpp#1319, not in Debian 12's 0.7.0): when a document's first
// token is one no node can start with (",", or "," after a tag or a
// complete top-level scalar), YAML::LoadAll reports an empty document at
// the same position forever, growing its result until memory runs out.
#ifndef DRAPLANE_API_INTERNAL_YAML_STUCK_DOCUMENTS_H_
#define DRAPLANE_API_INTERNAL_YAML_STUCK_DOCUMENTS_H_

#include <optional>
#include <string>

#include "yaml-cpp/mark.h"

namespace draplane::api::internal {

// Walks the events of every document in `text` once (building no nodes)
// and returns the position where the parser stops advancing, or nullopt
// when every document ends. YAML syntax errors are thrown as yaml-cpp
// throws them (YAML::Exception), exactly as YAML::LoadAll would.
std::optional<YAML::Mark> FindStuckDocument(const std::string& text);

}  // namespace draplane::api::internal

#endif  // DRAPLANE_API_INTERNAL_YAML_STUCK_DOCUMENTS_H_

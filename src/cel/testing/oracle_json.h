// Test support: CEL values in the JSON form that the reference tool prints
// (`draref cel eval --plain`), so that expected results can be taken from
// it verbatim. The rendering is the product's own (internal/value_json.h,
// reference style); what makes the comparison independent is the
// reference tool's recorded output. Compare with nlohmann::json's
// operator==, which treats 3 and 3.0 alike, as the reference's output does.
#ifndef DRAPLANE_CEL_TESTING_ORACLE_JSON_H_
#define DRAPLANE_CEL_TESTING_ORACLE_JSON_H_

#include "api/meta_types.h"
#include "cel/internal/value.h"
#include "cel/internal/value_json.h"
#include "nlohmann/json.hpp"

namespace draplane::cel::testing {

// `v` as the reference tool prints it (internal/value_json.h's reference
// style), as nlohmann::json for comparing with its parsed output.
inline nlohmann::json OracleJson(const internal::Value& v) {
  return nlohmann::json::parse(
      api::DumpJson(internal::ValueToJson(v, internal::kReferenceToolStyle)));
}

// The CEL value of a JSON document as the reference binds --var values.
inline internal::Value FromOracleJson(const nlohmann::json& j) {
  return internal::JsonToValue(api::Json::parse(j.dump()));
}

}  // namespace draplane::cel::testing

#endif  // DRAPLANE_CEL_TESTING_ORACLE_JSON_H_

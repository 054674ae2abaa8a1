// Generic JSON encoding and semantic equality of any modelled type, for
// code outside the api library that reports or compares typed values (the
// validation rules render struct-valued bad values as JSON and compare with
// apimachinery's equality.Semantic.DeepEqual).
#ifndef DRAPLANE_API_TYPED_JSON_H_
#define DRAPLANE_API_TYPED_JSON_H_

#include "api/internal/json_mapping.h"
#include "api/internal/type_mappings.h"
#include "api/meta_types.h"

namespace draplane::api::typed_json {

// In a namespace of their own so that argument-dependent lookup of the
// api library's own ToJson/SemanticEqual overloads never finds them.

// apimachinery's equality.Semantic.DeepEqual: quantities compare by value,
// everything else member by member.
template <class T>
bool SemanticEqual(const T& a, const T& b) {
  return internal::SemanticEqual(a, b);
}

// The v1 JSON of `value`, as Go's encoding/json writes the upstream type.
template <class T>
Json ToJson(const T& value) {
  return internal::ToJson(value);
}

}  // namespace draplane::api::typed_json

#endif  // DRAPLANE_API_TYPED_JSON_H_

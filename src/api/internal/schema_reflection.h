// Read-only reflection over the JSON mapping of the object model, for code
// that describes the model rather than decoding it (the OpenAPI generator in
// src/openapi). It exposes exactly what FieldsOf<S> declares in
// type_mappings.h: each member's JSON name, its flags and its C++ type, and
// whether the struct keeps unmodelled members (a Rest() entry).
//
// Usage:
//   ForEachMappedField<api::Pod>([&](std::string_view json_name,
//                                    unsigned flags, auto type) {
//     using M = typename decltype(type)::type;  // e.g. api::PodSpec
//   });
#ifndef DRAPLANE_API_INTERNAL_SCHEMA_REFLECTION_H_
#define DRAPLANE_API_INTERNAL_SCHEMA_REFLECTION_H_

#include <string_view>
#include <tuple>
#include <type_traits>

#include "api/internal/json_mapping.h"
#include "api/internal/type_mappings.h"

namespace draplane::api::internal {

// True when S declares a Rest() member: JSON members S does not model are
// kept verbatim (so they are valid, not strict-decoding errors).
template <class S>
requires Mapped<S>
constexpr bool KeepsUnknownFields() {
  return std::apply(
      [](const auto&... spec) {
        return (kIsRest<std::remove_cvref_t<decltype(spec)>> || ...);
      },
      FieldsOf<S>);
}

// Calls fn(json_name, flags, std::type_identity<M>{}) for every named member
// of S, in declaration order (upstream's field order); the members of an
// Embed()ded struct in its place. Rest() entries are skipped (see
// KeepsUnknownFields).
template <class S, class Fn>
requires Mapped<S>
void ForEachMappedField(Fn&& fn) {
  std::apply(
      [&](const auto&... spec) {
        (
            [&] {
              using Spec = std::remove_cvref_t<decltype(spec)>;
              using M = std::remove_cvref_t<decltype(std::declval<S&>().*
                                                     (spec.member))>;
              if constexpr (kIsEmbed<Spec>) {
                ForEachMappedField<typename M::value_type>(fn);
              } else if constexpr (!kIsRest<Spec>) {
                fn(spec.name, spec.flags, std::type_identity<M>{});
              }
            }(),
            ...);
      },
      FieldsOf<S>);
}

}  // namespace draplane::api::internal

#endif  // DRAPLANE_API_INTERNAL_SCHEMA_REFLECTION_H_

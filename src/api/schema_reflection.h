// Read-only reflection over the JSON mapping of the object model, for code
// that describes the model rather than decoding it (the OpenAPI generator in
// src/openapi). It exposes exactly what the api library's field tables
// declare (internal/type_mappings.h): each member's JSON name, its flags and
// its C++ type, whether the struct keeps unmodelled members (a Rest()
// entry), and the plain struct a compactly held type is coded through. The
// field tables themselves stay private to the api library.
//
// Usage:
//   ForEachMappedField<api::Pod>([&](std::string_view json_name,
//                                    unsigned flags, auto type) {
//     using M = typename decltype(type)::type;  // e.g. api::PodSpec
//   });
#ifndef DRAPLANE_API_SCHEMA_REFLECTION_H_
#define DRAPLANE_API_SCHEMA_REFLECTION_H_

#include <string_view>
#include <tuple>
#include <type_traits>

#include "api/internal/json_mapping.h"
#include "api/internal/type_mappings.h"

namespace draplane::api::schema_reflection {

// S has a field table (every modelled struct).
template <class S>
concept Mapped = internal::Mapped<S>;
// T is held compactly and coded as WireFormOf<T> (a Mapped struct).
template <class T>
concept HasWireForm = internal::HasWireForm<T>;
template <class T>
using WireFormOf = typename internal::WireForm<T>::type;

// Member flags passed to ForEachMappedField's callback.
inline constexpr unsigned kTimestampField = internal::kTimestamp;

// True when S declares a Rest() member: JSON members S does not model are
// kept verbatim (so they are valid, not strict-decoding errors).
template <class S>
requires Mapped<S>
constexpr bool KeepsUnknownFields() {
  using internal::kIsRest;
  return std::apply(
      [](const auto&... spec) {
        return (kIsRest<std::remove_cvref_t<decltype(spec)>> || ...);
      },
      internal::FieldsOf<S>);
}

// Calls fn(json_name, flags, std::type_identity<M>{}) for every named member
// of S, in declaration order (upstream's field order); the members of an
// Embed()ded struct in its place. Rest() entries are skipped (see
// KeepsUnknownFields).
template <class S, class Fn>
requires Mapped<S>
void ForEachMappedField(Fn&& fn) {
  using internal::kIsEmbed;
  using internal::kIsRest;
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
      internal::FieldsOf<S>);
}

}  // namespace draplane::api::schema_reflection

#endif  // DRAPLANE_API_SCHEMA_REFLECTION_H_

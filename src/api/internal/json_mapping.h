// Generic JSON <-> struct mapping for the object model.
//
// Each modelled struct S declares its JSON members once, in upstream
// declaration order, by specialising FieldsOf<S>:
//
//   template <> inline constexpr auto FieldsOf<ResourcePool> = std::tuple(
//       Field("name", &ResourcePool::name, kEmitAlways),
//       Field("generation", &ResourcePool::generation, kEmitAlways), ...);
//
// Decoding and encoding then follow Go's encoding/json rules as used by
// Kubernetes: std::optional = pointer (omitted when unset, emitted when set
// even if zero), omitempty for plain strings/numbers/bools/slices/maps unless
// kEmitAlways, nested structs always emitted. A member registered with Rest()
// receives the JSON members the struct does not model; without one, such
// members are strict-decoding errors ("unknown field"). A Box<R> member
// registered with Embed() holds members of the struct that are kept out of
// line: R's FieldsOf members are coded as the struct's own, at the Embed()
// position.
//
// The compact containers of api/compact.h are coded as what they stand for
// (FlatMap as std::map, OptionalBox as std::optional, Box<T> as T), and a
// type with a WireForm specialisation through its wire struct.
//
// Internal to the api component.
#ifndef DRAPLANE_API_INTERNAL_JSON_MAPPING_H_
#define DRAPLANE_API_INTERNAL_JSON_MAPPING_H_

#include <concepts>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "api/compact.h"
#include "api/meta_types.h"
#include "common/field_errors.h"
#include "common/quantity.h"
#include "common/str_cat.h"

namespace draplane::api::internal {

enum FieldFlags : unsigned {
  kOmitEmpty = 0,
  kEmitAlways = 1,  // Go field without `omitempty`.
  kTimestamp = 2,   // RFC 3339 text, checked on decode.
  kMicroTime = 4,   // metav1.MicroTime: RFC 3339 with exactly 6 fraction
                    // digits, checked on decode (upstream's parse fails).
};

template <class S, class M>
struct FieldSpec {
  std::string_view name;
  M S::*member;
  unsigned flags;
};

template <class S, class M>
constexpr FieldSpec<S, M> Field(std::string_view name, M S::*member,
                                unsigned flags = kOmitEmpty) {
  return {name, member, flags};
}

template <class S>
struct RestSpec {
  Json S::*member;
};

template <class S>
constexpr RestSpec<S> Rest(Json S::*member) {
  return {member};
}

template <class S, class R>
struct EmbedSpec {
  Box<R> S::*member;
};

template <class S, class R>
constexpr EmbedSpec<S, R> Embed(Box<R> S::*member) {
  return {member};
}

template <class Spec>
inline constexpr bool kIsRest = false;
template <class S>
inline constexpr bool kIsRest<RestSpec<S>> = true;
template <class Spec>
inline constexpr bool kIsEmbed = false;
template <class S, class R>
inline constexpr bool kIsEmbed<EmbedSpec<S, R>> = true;

// The struct an Embed() spec holds out of line.
template <class Spec>
struct EmbeddedOf;
template <class S, class R>
struct EmbeddedOf<EmbedSpec<S, R>> {
  using type = R;
};

// Specialised for every modelled struct.
template <class S>
inline constexpr int FieldsOf = 0;

template <class S>
concept Mapped = !std::is_same_v<std::remove_cv_t<decltype(FieldsOf<S>)>, int>;

// Specialised for a type kept in a compact form and coded through a plain
// (Mapped) struct: `using type = W;`, `static W ToWire(const T&)` and
// `static T FromWire(W&&)`.
template <class T>
struct WireForm {
  using type = void;
};

template <class T>
concept HasWireForm = !std::is_void_v<typename WireForm<T>::type>;

// Collects decoding problems. `errors` make the object unusable (wrong JSON
// types, malformed quantities); `unknown` are members that upstream's strict
// decoding would reject (unknown or duplicate fields).
struct DecodeContext {
  FieldErrorList errors;
  FieldErrorList unknown;
};

std::string JsonTypeName(const Json& j);
bool IsRfc3339(std::string_view s);
// RFC 3339 with exactly six fractional digits (Go's RFC3339Micro layout).
bool IsRfc3339Micro(std::string_view s);

// ---------------------------------------------------------------- decode
// Where the decoder is: a chain of stack frames (each child refers to its
// parent, which outlives it), turned into a FieldPath only when a problem
// is reported, so that decoding a valid object builds no path strings.
class DecodePath {
 public:
  DecodePath() = default;  // the object itself

  DecodePath Child(std::string_view name) const {
    return DecodePath(this, Step::kChild, name, 0);
  }
  DecodePath Index(int64_t i) const {
    return DecodePath(this, Step::kIndex, {}, i);
  }
  DecodePath Key(std::string_view key) const {
    return DecodePath(this, Step::kKey, key, 0);
  }

  FieldPath ToFieldPath() const {
    if (parent_ == nullptr) return FieldPath();
    FieldPath up = parent_->ToFieldPath();
    switch (step_) {
      case Step::kChild:
        return up.Child(name_);
      case Step::kIndex:
        return up.Index(index_);
      case Step::kKey:
        return up.Key(name_);
    }
    return up;
  }
  operator FieldPath() const { return ToFieldPath(); }  // NOLINT
  std::string ToString() const { return ToFieldPath().ToString(); }

 private:
  enum class Step { kChild, kIndex, kKey };
  DecodePath(const DecodePath* parent, Step step, std::string_view name,
             int64_t index)
      : parent_(parent), step_(step), name_(name), index_(index) {}

  const DecodePath* parent_ = nullptr;
  Step step_ = Step::kChild;
  std::string_view name_;
  int64_t index_ = 0;
};

template <class T>
void FromJson(const Json& j, T& out, const DecodePath& path, DecodeContext& ctx,
              unsigned flags = 0);
// std::optional<T> or OptionalBox<T> (decoded alike: null is unset).
template <class O>
concept OptionalLike = std::same_as<O, std::optional<typename O::value_type>> ||
    std::same_as<O, OptionalBox<typename O::value_type>>;
template <OptionalLike O>
void FromJson(const Json& j, O& out, const DecodePath& p, DecodeContext& ctx,
              unsigned flags);
template <class T>
void FromJson(const Json& j, Box<T>& out, const DecodePath& p,
              DecodeContext& ctx, unsigned flags);
template <class T>
void FromJson(const Json& j, std::vector<T>& out, const DecodePath& p,
              DecodeContext& ctx, unsigned flags);
template <class T>
void FromJson(const Json& j, std::map<std::string, T>& out, const DecodePath& p,
              DecodeContext& ctx, unsigned flags);
template <class T>
void FromJson(const Json& j, FlatMap<std::string, T>& out, const DecodePath& p,
              DecodeContext& ctx, unsigned flags);

inline void TypeError(const Json& j, const DecodePath& path,
                      std::string_view want, DecodeContext& ctx) {
  std::string shown = DumpJson(j);
  if (shown.size() > 80) shown = shown.substr(0, 77) + "...";
  ctx.errors.push_back(
      TypeInvalid(path, BadValue::Json(shown),
                  StrCat("must be of type ", want, ", got ", JsonTypeName(j))));
}

inline void DecodeScalar(const Json& j, std::string& out, const DecodePath& p,
                         DecodeContext& ctx, unsigned flags) {
  if (j.is_null()) {
    out.clear();
    return;
  }
  if (!j.is_string()) return TypeError(j, p, "string", ctx);
  out = j.get<std::string>();
  if ((flags & kTimestamp) && !IsRfc3339(out)) {
    ctx.errors.push_back(Invalid(
        p, out, "must be an RFC 3339 timestamp (e.g. 2006-01-02T15:04:05Z)"));
  } else if ((flags & kMicroTime) && !IsRfc3339Micro(out)) {
    ctx.errors.push_back(
        Invalid(p, out,
                "must be a MicroTime, an RFC 3339 timestamp with microseconds "
                "(2006-01-02T15:04:05.000000Z07:00)"));
  }
}

template <class I>
requires(std::is_integral_v<I> && !std::is_same_v<I, bool>) void DecodeScalar(
    const Json& j, I& out, const DecodePath& p, DecodeContext& ctx, unsigned) {
  if (j.is_null()) {
    out = 0;
    return;
  }
  if (j.is_number_integer()) {
    if (j.is_number_unsigned()) {
      auto v = j.get<uint64_t>();
      if (v > static_cast<uint64_t>(std::numeric_limits<I>::max())) {
        ctx.errors.push_back(
            Invalid(p, BadValue::Json(j.dump()), "value out of range"));
        return;
      }
      out = static_cast<I>(v);
      return;
    }
    auto v = j.get<int64_t>();
    if (v < static_cast<int64_t>(std::numeric_limits<I>::min()) ||
        v > static_cast<int64_t>(std::numeric_limits<I>::max())) {
      ctx.errors.push_back(
          Invalid(p, BadValue::Json(j.dump()), "value out of range"));
      return;
    }
    out = static_cast<I>(v);
    return;
  }
  TypeError(j, p, "integer", ctx);
}

inline void DecodeScalar(const Json& j, bool& out, const DecodePath& p,
                         DecodeContext& ctx, unsigned) {
  if (j.is_null()) {
    out = false;
    return;
  }
  if (!j.is_boolean()) return TypeError(j, p, "boolean", ctx);
  out = j.get<bool>();
}

inline void DecodeScalar(const Json& j, Quantity& out, const DecodePath& p,
                         DecodeContext& ctx, unsigned) {
  std::string text;
  if (j.is_null()) {
    out = Quantity();
    return;
  }
  if (j.is_string()) {
    text = j.get<std::string>();
  } else if (j.is_number()) {
    text = j.dump();
  } else {
    return TypeError(j, p, "quantity (string or number)", ctx);
  }
  auto q = Quantity::ParseTrimmed(text);
  if (!q.ok()) {
    ctx.errors.push_back(Invalid(p, text, StatusMessage(q.status())));
    return;
  }
  out = *q;
}

inline void DecodeScalar(const Json& j, Json& out, const DecodePath&,
                         DecodeContext&, unsigned) {
  out = j;
}

template <OptionalLike O>
void FromJson(const Json& j, O& out, const DecodePath& p, DecodeContext& ctx,
              unsigned flags) {
  if (j.is_null()) {
    out.reset();
    return;
  }
  out.emplace();
  FromJson(j, *out, p, ctx, flags);
}

template <class T>
void FromJson(const Json& j, Box<T>& out, const DecodePath& p,
              DecodeContext& ctx, unsigned flags) {
  FromJson(j, out.Mutable(), p, ctx, flags);
}

template <class T>
void FromJson(const Json& j, std::vector<T>& out, const DecodePath& p,
              DecodeContext& ctx, unsigned flags) {
  out.clear();
  if (j.is_null()) return;
  if (!j.is_array()) return TypeError(j, p, "array", ctx);
  out.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    T item{};
    FromJson(j[i], item, p.Index(static_cast<int64_t>(i)), ctx, flags);
    out.push_back(std::move(item));
  }
}

template <class T>
void FromJson(const Json& j, std::map<std::string, T>& out, const DecodePath& p,
              DecodeContext& ctx, unsigned flags) {
  out.clear();
  if (j.is_null()) return;
  if (!j.is_object()) return TypeError(j, p, "object", ctx);
  for (auto it = j.begin(); it != j.end(); ++it) {
    T item{};
    FromJson(it.value(), item, p.Key(it.key()), ctx, flags);
    out.emplace(it.key(), std::move(item));
  }
}

template <class T>
void FromJson(const Json& j, FlatMap<std::string, T>& out, const DecodePath& p,
              DecodeContext& ctx, unsigned flags) {
  out.clear();
  if (j.is_null()) return;
  if (!j.is_object()) return TypeError(j, p, "object", ctx);
  out.reserve(j.size());
  for (auto it = j.begin(); it != j.end(); ++it) {
    T item{};
    FromJson(it.value(), item, p.Key(it.key()), ctx, flags);
    out.emplace(it.key(), std::move(item));
  }
}

template <class S, class Spec>
bool DecodeMember(const Json& value, std::string_view key, S& out,
                  const Spec& spec, const DecodePath& p, DecodeContext& ctx) {
  if constexpr (kIsEmbed<Spec>) {
    // A member of the embedded struct: decoded into the box.
    return std::apply(
        [&](const auto&... inner) {
          return ([&] {
            if (inner.name != key) return false;
            FromJson(value, (out.*(spec.member)).Mutable().*(inner.member),
                     p.Child(key), ctx, inner.flags);
            return true;
          }() || ...);
        },
        FieldsOf<typename std::remove_cvref_t<
            decltype(out.*(spec.member))>::value_type>);
  } else if constexpr (kIsRest<Spec>) {
    return false;  // Rest() entries never match a key.
  } else {
    if (spec.name != key) return false;
    FromJson(value, out.*(spec.member), p.Child(key), ctx, spec.flags);
    return true;
  }
}

template <class T>
bool IsEmpty(const T& v);

// Frees an embedded box whose members all decoded as empty ("taints": [],
// "nodeName": null): the struct reads the same and stays compact.
template <class S>
void ShrinkEmbedded(S& out) {
  std::apply(
      [&](const auto&... spec) {
        (
            [&] {
              if constexpr (kIsEmbed<std::remove_cvref_t<decltype(spec)>>) {
                auto& box = out.*(spec.member);
                using R =
                    typename std::remove_cvref_t<decltype(box)>::value_type;
                if (!box.allocated()) return;
                const bool empty = std::apply(
                    [&](const auto&... inner) {
                      return (IsEmpty(*box.*(inner.member)) && ...);
                    },
                    FieldsOf<R>);
                if (empty) box.reset();
              }
            }(),
            ...);
      },
      FieldsOf<S>);
}

// With `top_level`, the apiVersion and kind members (read by the caller)
// are skipped rather than reported as unknown.
template <class S>
void DecodeStruct(const Json& j, S& out, const DecodePath& p,
                  DecodeContext& ctx, bool top_level = false) {
  if (j.is_null()) return;
  if (!j.is_object()) return TypeError(j, p, "object", ctx);
  constexpr auto& fields = FieldsOf<S>;
  Json* rest = nullptr;
  std::apply(
      [&](const auto&... spec) {
        (
            [&] {
              if constexpr (kIsRest<std::remove_cvref_t<decltype(spec)>>) {
                rest = &(out.*(spec.member));
              }
            }(),
            ...);
      },
      fields);
  if (rest != nullptr) *rest = Json::object();
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    if (top_level && (key == "apiVersion" || key == "kind")) continue;
    bool known = std::apply(
        [&](const auto&... spec) {
          return (DecodeMember(it.value(), key, out, spec, p, ctx) || ...);
        },
        fields);
    if (known) continue;
    if (rest != nullptr) {
      (*rest)[key] = it.value();
    } else {
      ctx.unknown.push_back({FieldErrorType::kNotFound, p.Child(key).ToString(),
                             BadValue::Omitted(), "unknown field"});
    }
  }
  ShrinkEmbedded(out);
}

template <class T>
void FromJson(const Json& j, T& out, const DecodePath& p, DecodeContext& ctx,
              unsigned flags) {
  if constexpr (HasWireForm<T>) {
    typename WireForm<T>::type wire{};
    DecodeStruct(j, wire, p, ctx);
    out = WireForm<T>::FromWire(std::move(wire));
  } else if constexpr (Mapped<T>) {
    DecodeStruct(j, out, p, ctx);
  } else {
    DecodeScalar(j, out, p, ctx, flags);
  }
}

// ---------------------------------------------------------------- encode
template <class T>
Json ToJson(const T& v);
template <class T>
Json ToJson(const std::optional<T>& v);
template <class T>
Json ToJson(const OptionalBox<T>& v);
template <class T>
Json ToJson(const Box<T>& v);
template <class T>
Json ToJson(const std::vector<T>& v);
template <class T>
Json ToJson(const std::map<std::string, T>& v);
template <class T>
Json ToJson(const FlatMap<std::string, T>& v);

// Appends a member to an object without looking for an existing one: a
// struct's JSON names are distinct (embedded structs included, as in Go),
// so the ordered map's search on insertion is skipped.
inline void AppendMember(Json& out, std::string_view name, Json value) {
  out.get_ref<Json::object_t&>().Container::emplace_back(std::string(name),
                                                         std::move(value));
}

inline Json EncodeScalar(const std::string& v) { return v; }
template <class I>
requires(std::is_integral_v<I>) Json EncodeScalar(I v) { return v; }
inline Json EncodeScalar(const Quantity& q) { return q.ToString(); }
inline Json EncodeScalar(const Json& j) { return j; }

template <class T>
Json ToJson(const std::optional<T>& v) {
  return v ? ToJson(*v) : Json();
}

template <class T>
Json ToJson(const OptionalBox<T>& v) {
  return v ? ToJson(*v) : Json();
}

template <class T>
Json ToJson(const Box<T>& v) {
  return ToJson(*v);
}

template <class T>
Json ToJson(const std::vector<T>& v) {
  Json out = Json::array();
  for (const auto& item : v) out.push_back(ToJson(item));
  return out;
}

template <>
inline Json ToJson(const std::vector<bool>& v) {
  Json out = Json::array();
  for (bool item : v) out.push_back(item);
  return out;
}

template <class T>
Json ToJson(const std::map<std::string, T>& v) {
  Json out = Json::object();
  out.get_ref<Json::object_t&>().reserve(v.size());
  for (const auto& [k, item] : v) AppendMember(out, k, ToJson(item));
  return out;
}

template <class T>
Json ToJson(const FlatMap<std::string, T>& v) {
  Json out = Json::object();
  out.get_ref<Json::object_t&>().reserve(v.size());
  for (const auto& [k, item] : v) AppendMember(out, k, ToJson(item));
  return out;
}

// True for values Go's omitempty drops.
template <class T>
bool IsEmpty(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return v.empty();
  } else if constexpr (std::is_same_v<T, bool>) {
    return !v;
  } else if constexpr (std::is_integral_v<T>) {
    return v == 0;
  } else if constexpr (requires { v.has_value(); }) {
    return !v.has_value();
  } else if constexpr (std::is_same_v<T, Json>) {
    return v.is_null();
  } else if constexpr (requires {
                         v.empty();
                         v.begin();
                       }) {
    return v.empty();
  } else {
    return false;  // structs, quantities: never omitted.
  }
}

// The most JSON members S encodes to, embedded structs' members included
// and its Rest() member not counted.
template <class S>
constexpr size_t MaxMembers();
template <class Spec>
constexpr size_t MaxMembersOfSpec() {
  if constexpr (kIsRest<Spec>) {
    return 0;
  } else if constexpr (kIsEmbed<Spec>) {
    return MaxMembers<typename EmbeddedOf<Spec>::type>();
  } else {
    return 1;
  }
}
template <class S>
constexpr size_t MaxMembers() {
  return std::apply(
      [](const auto&... spec) {
        return (size_t{0} + ... +
                MaxMembersOfSpec<std::remove_cvref_t<decltype(spec)>>());
      },
      FieldsOf<S>);
}

// The Rest() member of `v` (or of a struct it embeds), null when none.
template <class S>
const Json* RestOf(const S& v) {
  const Json* rest = nullptr;
  std::apply(
      [&](const auto&... spec) {
        (
            [&] {
              using Spec = std::remove_cvref_t<decltype(spec)>;
              if constexpr (kIsEmbed<Spec>) {
                if (const Json* r = RestOf(*(v.*(spec.member))); r) rest = r;
              } else if constexpr (kIsRest<Spec>) {
                rest = &(v.*(spec.member));
              }
            }(),
            ...);
      },
      FieldsOf<S>);
  return rest;
}

// Appends v's modelled members (embedded structs' included) to `out`; the
// Rest() member is RestOf()'s.
template <class S>
void EncodeMembers(const S& v, Json& out) {
  std::apply(
      [&](const auto&... spec) {
        (
            [&] {
              using Spec = std::remove_cvref_t<decltype(spec)>;
              if constexpr (kIsEmbed<Spec>) {
                EncodeMembers(*(v.*(spec.member)), out);
              } else if constexpr (!kIsRest<Spec>) {
                const auto& member = v.*(spec.member);
                if (!(spec.flags & kEmitAlways) && IsEmpty(member)) return;
                AppendMember(out, spec.name, ToJson(member));
              }
            }(),
            ...);
      },
      FieldsOf<S>);
}

template <class S>
Json EncodeStruct(const S& v) {
  Json out = Json::object();
  // The members' room reserved first: one allocation instead of growing.
  const Json* rest = RestOf(v);
  out.get_ref<Json::object_t&>().reserve(
      MaxMembers<S>() +
      (rest != nullptr && rest->is_object() ? rest->size() : 0));
  EncodeMembers(v, out);
  if (rest != nullptr && rest->is_object()) {
    for (auto it = rest->begin(); it != rest->end(); ++it) {
      if (!out.contains(it.key())) AppendMember(out, it.key(), it.value());
    }
  }
  return out;
}

template <class T>
Json ToJson(const T& v) {
  if constexpr (HasWireForm<T>) {
    return EncodeStruct(WireForm<T>::ToWire(v));
  } else if constexpr (Mapped<T>) {
    return EncodeStruct(v);
  } else {
    return EncodeScalar(v);
  }
}

// ------------------------------------------------------ semantic equality
// apimachinery's equality.Semantic.DeepEqual: field by field, quantities by
// value ("1Gi" == "1024Mi"), everything else exactly.
template <class T>
bool SemanticEqual(const T& a, const T& b);
template <class T>
bool SemanticEqual(const std::optional<T>& a, const std::optional<T>& b);
template <class T>
bool SemanticEqual(const OptionalBox<T>& a, const OptionalBox<T>& b);
template <class T>
bool SemanticEqual(const Box<T>& a, const Box<T>& b);
template <class T>
bool SemanticEqual(const std::vector<T>& a, const std::vector<T>& b);
template <class T>
bool SemanticEqual(const std::map<std::string, T>& a,
                   const std::map<std::string, T>& b);
template <class T>
bool SemanticEqual(const FlatMap<std::string, T>& a,
                   const FlatMap<std::string, T>& b);

inline bool SemanticEqualScalar(const Quantity& a, const Quantity& b) {
  return a.Compare(b) == 0;
}
template <class T>
bool SemanticEqualScalar(const T& a, const T& b) {
  return a == b;
}

template <class T>
bool SemanticEqual(const std::optional<T>& a, const std::optional<T>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a.has_value() || SemanticEqual(*a, *b);
}

template <class T>
bool SemanticEqual(const OptionalBox<T>& a, const OptionalBox<T>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a.has_value() || SemanticEqual(*a, *b);
}

template <class T>
bool SemanticEqual(const Box<T>& a, const Box<T>& b) {
  return SemanticEqual(*a, *b);
}

template <class T>
bool SemanticEqual(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!SemanticEqual<T>(a[i], b[i])) return false;
  }
  return true;
}

template <class T>
bool SemanticEqual(const std::map<std::string, T>& a,
                   const std::map<std::string, T>& b) {
  if (a.size() != b.size()) return false;
  for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
    if (ia->first != ib->first || !SemanticEqual(ia->second, ib->second)) {
      return false;
    }
  }
  return true;
}

template <class T>
bool SemanticEqual(const FlatMap<std::string, T>& a,
                   const FlatMap<std::string, T>& b) {
  if (a.size() != b.size()) return false;
  for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
    if (ia->first != ib->first || !SemanticEqual(ia->second, ib->second)) {
      return false;
    }
  }
  return true;
}

template <class T>
bool SemanticEqual(const T& a, const T& b) {
  if constexpr (HasWireForm<T>) {
    return SemanticEqual(WireForm<T>::ToWire(a), WireForm<T>::ToWire(b));
  } else if constexpr (Mapped<T>) {
    return std::apply(
        [&](const auto&... spec) {
          return (SemanticEqual(a.*(spec.member), b.*(spec.member)) && ...);
        },
        FieldsOf<T>);
  } else {
    return SemanticEqualScalar(a, b);
  }
}

}  // namespace draplane::api::internal

#endif  // DRAPLANE_API_INTERNAL_JSON_MAPPING_H_

// CEL runtime values.
//
// A Value is 16 bytes: a kind tag, a 32-bit auxiliary field (timestamp
// nanoseconds) and an 8-byte payload that is either a scalar or a pointer to
// immutable, reference-counted storage (strings, bytes, lists, maps, type
// names, optionals, opaque library values, errors). Copying a Value never
// allocates; it only bumps an atomic reference count, so values can be
// shared freely between threads once built.
//
// Evaluation errors are values of kind kError (the second error channel of
// CEL); they carry a message only. Unknowns (cel-go partial evaluation) are
// not modelled; ValueKind is the place to add them.
//
// Internal to the cel component.
#ifndef DRAPLANE_CEL_INTERNAL_VALUE_H_
#define DRAPLANE_CEL_INTERNAL_VALUE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace draplane::cel::internal {

enum class ValueKind : uint8_t {
  kNull,
  kBool,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kList,
  kMap,
  kType,
  kOptional,
  kTimestamp,
  kDuration,
  kOpaque,
  kError,
};
inline constexpr int kValueKindCount = 15;

// The CEL type name of a kind ("int", "list", "google.protobuf.Timestamp",
// "optional_type", ...). kOpaque answers "opaque" (use Value::TypeName for
// the library type); kError answers "error".
std::string_view KindName(ValueKind kind);

// Base of all reference-counted value storage. Objects start with one
// reference owned by their creator. Thread-safe.
class HeapObject {
 public:
  HeapObject() = default;
  HeapObject(const HeapObject&) = delete;
  HeapObject& operator=(const HeapObject&) = delete;
  virtual ~HeapObject() = default;

  void Ref() const { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Unref() const {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  // True when the caller holds the only reference (then it may mutate the
  // object in place, as the comprehension accumulator does).
  bool HasOneRef() const { return refs_.load(std::memory_order_acquire) == 1; }

 private:
  mutable std::atomic<uint32_t> refs_{1};
};

class Value;

// Extension point for library values that CEL has no syntax for
// (Kubernetes Quantity, Semver, IP, CIDR, URL). Implementations must be
// immutable after construction and safe to share across threads.
class OpaqueValue : public HeapObject {
 public:
  // The CEL type name, e.g. "kubernetes.Quantity". All values with one type
  // name must be instances of one C++ class (Equals/Compare rely on it).
  virtual std::string_view TypeName() const = 0;
  // Equality with `other`, whose TypeName() equals this one's.
  virtual bool Equals(const OpaqueValue& other) const = 0;
  // Ordering with `other` (same TypeName): <0, 0, >0; std::nullopt when the
  // type has no ordering (the default). The standard library registers the
  // ordering operators for opaque values on top of this.
  virtual std::optional<int> Compare(const OpaqueValue& other) const {
    (void)other;
    return std::nullopt;
  }
  // The value's size for runtime cost (cel-go traits.Sizer); std::nullopt
  // (the default) counts as 1.
  virtual std::optional<uint64_t> Size() const { return std::nullopt; }
  // Whether a top-level `a == b` with this value as `a` behaves as for the
  // Kubernetes library types: the error "no such overload" when `b` is of
  // another type and not null (their ref.Val.Equal; `!=` stays true), and
  // a cost of 1 whatever the sizes (their CostEstimator). false (the
  // default): plain CEL equality and cost.
  virtual bool KubernetesEquality() const { return false; }
  // With KubernetesEquality on the left operand: whether this value may be
  // the right operand of `==` ("no such overload" otherwise). See
  // kubernetes_library.cc (Quantity results of add/sub).
  virtual bool AcceptedAsEqualityOperand() const { return true; }
  // Human-readable form (for `cel eval` output and test failures).
  virtual std::string DebugString() const = 0;
};

// Range of google.protobuf.Timestamp / CEL timestamps (seconds since the
// Unix epoch): 0001-01-01T00:00:00Z ... 9999-12-31T23:59:59.999999999Z.
inline constexpr int64_t kMinTimestampSeconds = -62135596800;
inline constexpr int64_t kMaxTimestampSeconds = 253402300799;

class Value {
 public:
  // null.
  Value() : kind_(ValueKind::kNull), aux_(0) { rep_.u = 0; }
  Value(const Value& other) : kind_(other.kind_), aux_(other.aux_) {
    rep_ = other.rep_;
    if (HasHeap()) rep_.obj->Ref();
  }
  Value(Value&& other) noexcept : kind_(other.kind_), aux_(other.aux_) {
    rep_ = other.rep_;
    other.kind_ = ValueKind::kNull;
    other.rep_.u = 0;
  }
  Value& operator=(const Value& other) {
    if (this != &other) {
      if (other.HasHeap()) other.rep_.obj->Ref();
      Release();
      kind_ = other.kind_;
      aux_ = other.aux_;
      rep_ = other.rep_;
    }
    return *this;
  }
  Value& operator=(Value&& other) noexcept {
    if (this != &other) {
      Release();
      kind_ = other.kind_;
      aux_ = other.aux_;
      rep_ = other.rep_;
      other.kind_ = ValueKind::kNull;
      other.rep_.u = 0;
    }
    return *this;
  }
  ~Value() { Release(); }

  // --- Construction ---
  static Value Null() { return Value(); }
  static Value Bool(bool b) {
    Value v(ValueKind::kBool);
    v.rep_.u = 0;
    v.rep_.b = b;
    return v;
  }
  static Value Int(int64_t i) {
    Value v(ValueKind::kInt);
    v.rep_.i = i;
    return v;
  }
  static Value Uint(uint64_t u) {
    Value v(ValueKind::kUint);
    v.rep_.u = u;
    return v;
  }
  static Value Double(double d) {
    Value v(ValueKind::kDouble);
    v.rep_.d = d;
    return v;
  }
  // A string; `utf8` must be valid UTF-8 (callers converting bytes check).
  static Value String(std::string utf8);
  static Value Bytes(std::string octets);
  static Value List(std::vector<Value> elements);
  // A map from (key, value) pairs. Keys must be int, uint, bool or string;
  // otherwise, or when two keys are equal (numerically equal int/uint keys
  // included), the result is an error value (cel-spec; cel-go silently keeps
  // the last entry of a repeated key).
  static Value Map(std::vector<std::pair<Value, Value>> entries);
  // A map like Map() whose lookups (`m[k]`, `m.f`, `has(m.f)`, `m[?k]`)
  // answer `lookup_default` for keys it does not hold, while membership
  // (`k in m`), size, iteration and equality see only the real entries.
  // This is how Kubernetes exposes a DRA device's `attributes` and
  // `capacity` (dynamic-resource-allocation/cel
  // newStringInterfaceMapWithDefault): an unknown domain reads as an empty map.
  static Value MapWithLookupDefault(
      std::vector<std::pair<Value, Value>> entries, Value lookup_default);
  // A type value named `name` ("int", "kubernetes.Quantity", ...).
  static Value Type(std::string_view name);
  static Value OptionalNone() {
    Value v(ValueKind::kOptional);
    v.rep_.obj = nullptr;
    return v;
  }
  static Value OptionalOf(Value value);
  // A timestamp; REQUIRES: seconds within [kMinTimestampSeconds,
  // kMaxTimestampSeconds], 0 <= nanos < 1e9 (see MakeTimestamp for a checked
  // version).
  static Value Timestamp(int64_t seconds, int32_t nanos) {
    Value v(ValueKind::kTimestamp);
    v.rep_.i = seconds;
    v.aux_ = static_cast<uint32_t>(nanos);
    return v;
  }
  // A timestamp, or an error value when out of range.
  static Value MakeTimestamp(int64_t seconds, int64_t nanos);
  // A duration of `nanos` nanoseconds (cel-go time.Duration range).
  static Value Duration(int64_t nanos) {
    Value v(ValueKind::kDuration);
    v.rep_.i = nanos;
    return v;
  }
  // Takes ownership of one reference to `object` (fresh `new` objects have
  // exactly one). REQUIRES: object != nullptr.
  static Value Opaque(const OpaqueValue* object) {
    Value v(ValueKind::kOpaque);
    v.rep_.obj = object;
    return v;
  }
  static Value Error(std::string message);

  // --- Inspection ---
  ValueKind kind() const { return kind_; }
  bool is_null() const { return kind_ == ValueKind::kNull; }
  bool is_error() const { return kind_ == ValueKind::kError; }
  bool is_bool() const { return kind_ == ValueKind::kBool; }
  bool IsTrue() const { return kind_ == ValueKind::kBool && rep_.b; }
  bool IsFalse() const { return kind_ == ValueKind::kBool && !rep_.b; }

  // Accessors; REQUIRES: the matching kind.
  bool bool_value() const { return rep_.b; }
  int64_t int_value() const { return rep_.i; }
  uint64_t uint_value() const { return rep_.u; }
  double double_value() const { return rep_.d; }
  // String or bytes content (kString, kBytes), or the type name (kType).
  std::string_view string_value() const;
  // Code points of a string, octets of bytes.
  size_t string_size() const;
  const std::vector<Value>& list() const;
  const class MapData& map() const;
  // kType: the type's name.
  std::string_view type_name() const { return string_value(); }
  // kOptional.
  bool optional_has_value() const { return rep_.obj != nullptr; }
  const Value& optional_value() const;
  int64_t timestamp_seconds() const { return rep_.i; }
  int32_t timestamp_nanos() const { return static_cast<int32_t>(aux_); }
  int64_t duration_nanos() const { return rep_.i; }
  const OpaqueValue& opaque() const {
    return *static_cast<const OpaqueValue*>(rep_.obj);
  }
  std::string_view error_message() const;

  // The CEL type name of this value ("int", "list", "kubernetes.Quantity").
  std::string_view TypeName() const;

  // A readable rendering: strings quoted, bytes as b"..", lists [..],
  // maps {..}, types by name, errors as "error: msg". For tests and tools.
  std::string DebugString() const;

  // The pointer to shared storage, for in-place mutation by the evaluator
  // when HasOneRef(); nullptr for scalar kinds and none.
  const HeapObject* heap_object() const {
    return HasHeap() ? rep_.obj : nullptr;
  }

 private:
  explicit Value(ValueKind kind) : kind_(kind), aux_(0) { rep_.u = 0; }
  bool HasHeap() const {
    switch (kind_) {
      case ValueKind::kString:
      case ValueKind::kBytes:
      case ValueKind::kList:
      case ValueKind::kMap:
      case ValueKind::kType:
      case ValueKind::kOptional:
      case ValueKind::kOpaque:
      case ValueKind::kError:
        return rep_.obj != nullptr;
      default:
        return false;
    }
  }
  void Release() {
    if (HasHeap()) rep_.obj->Unref();
  }

  ValueKind kind_;
  uint32_t aux_;
  union Rep {
    bool b;
    int64_t i;
    uint64_t u;
    double d;
    const HeapObject* obj;
  } rep_;
};
static_assert(sizeof(Value) == 16);

// Storage for strings, bytes and type names.
class StringData final : public HeapObject {
 public:
  StringData(std::string data, size_t size)
      : data_(std::move(data)), size_(size) {}
  const std::string& data() const { return data_; }
  size_t size() const { return size_; }

 private:
  std::string data_;
  size_t size_;
};

class ListData final : public HeapObject {
 public:
  explicit ListData(std::vector<Value> elements)
      : elements_(std::move(elements)) {}
  const std::vector<Value>& elements() const { return elements_; }
  // Only for the owner of the single reference (see HeapObject::HasOneRef).
  std::vector<Value>& mutable_elements() { return elements_; }

 private:
  std::vector<Value> elements_;
};

// An immutable map with CEL key semantics: keys are int, uint, bool or
// string; int and uint keys with the same numeric value are the same key,
// and a double whose value is integral finds them too (cel-go heterogeneous
// lookup). Iteration follows insertion order.
class MapData final : public HeapObject {
 public:
  struct Entry {
    Value key;
    Value value;
    uint64_t hash;
  };
  // REQUIRES: keys valid and distinct (Value::Map checks).
  explicit MapData(std::vector<Entry> entries);
  // A map whose lookups answer `lookup_default` for missing keys (see
  // Value::MapWithLookupDefault).
  MapData(std::vector<Entry> entries, Value lookup_default);

  size_t size() const { return entries_.size(); }
  const std::vector<Entry>& entries() const { return entries_; }
  // Lookup as `m[key]` sees it: the value under `key`, the lookup default
  // when the map has one, else nullptr. Keys of other kinds (bytes, null,
  // non-integral doubles, ...) are never found.
  const Value* Find(const Value& key) const;
  // Find with a string key, without building a Value.
  const Value* FindString(std::string_view key) const;
  // FindString with the key's precomputed StringKeyHash (plan-time
  // constants).
  const Value* FindStringHashed(std::string_view key, uint64_t hash) const;
  // The real entry's value under `key` (the lookup default never applies),
  // or nullptr: membership (`in`), equality and insertion use this.
  const Value* FindEntry(const Value& key) const;

 private:
  template <class Eq>
  const Value* Lookup(uint64_t hash, const Eq& eq) const;
  void BuildIndex();

  std::vector<Entry> entries_;
  bool has_lookup_default_ = false;
  Value lookup_default_;
  // Open-addressing index (entry position + 1; 0 = empty), built for maps
  // larger than a few entries; smaller maps are scanned linearly.
  std::vector<uint32_t> index_;
};

// Hash of a valid map key (int/uint/bool/string); numerically equal int and
// uint keys hash alike. std::nullopt for keys of other kinds; integral
// doubles hash like the equal int.
std::optional<uint64_t> MapKeyHash(const Value& key);
// MapKeyHash of the string key `key`, without building a Value.
uint64_t StringKeyHash(std::string_view key);

// CEL equality (cel-spec "Equality"): heterogeneous numeric comparison on
// one number line, NaN unequal to everything, element-wise lists, key-set
// maps, opaque values by their Equals, values of different kinds unequal.
// REQUIRES: neither argument is an error.
bool ValuesEqual(const Value& a, const Value& b);

// CEL ordering: <0, 0, >0; std::nullopt when the pair has no ordering
// (different non-numeric kinds, lists, maps, null, unordered opaque types).
// For NaN operands the result is std::nullopt and *nan is set (cel-go
// reports "NaN values cannot be ordered").
std::optional<int> CompareValues(const Value& a, const Value& b, bool* nan);

// Number-line comparisons used by equality and ordering (cel-go
// common/types/compare.go). Return <0, 0, >0; double comparisons with NaN
// return 2 (unordered).
int CompareIntUint(int64_t i, uint64_t u);
int CompareDoubleInt(double d, int64_t i);
int CompareDoubleUint(double d, uint64_t u);

// The size of `value` as cel-go's cost tracker sees it (traits.Sizer):
// code points of strings, octets of bytes, elements of lists and maps,
// an opaque value's Size(); 1 for everything else.
uint64_t CostSize(const Value& value);

// Number of code points in valid UTF-8 `s`.
size_t Utf8CodePoints(std::string_view s);
// Whether `s` is valid UTF-8 (no surrogates, no overlongs).
bool IsValidUtf8(std::string_view s);

// Formats a double as cel-go's string(double) does (Go strconv
// FormatFloat(d, 'g', -1, 64): shortest round-trip digits, exponent form
// "1e+06" for decimal exponents < -4 or >= 6, "+Inf", "-Inf", "NaN").
std::string FormatDouble(double d);

// A map key as cel-go writes it in messages ("no such key: 1") and as a
// JSON member name: strings as they are, numbers and booleans in their
// literal form, anything else (an invalid key) as DebugString().
std::string KeyText(const Value& key);

// RFC 3339 rendering of a timestamp in UTC with trailing zeros of the
// fraction removed (Go time.RFC3339Nano), e.g. "2009-02-13T23:31:30Z".
std::string FormatTimestamp(int64_t seconds, int32_t nanos);
// cel-go's string(duration): seconds with the shortest fraction and an "s"
// suffix, e.g. "60.001s", "-1.5s", "0s".
std::string FormatDuration(int64_t nanos);

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_VALUE_H_

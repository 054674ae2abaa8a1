#include "cel/internal/value.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>

#include "absl/time/civil_time.h"
#include "absl/time/time.h"

namespace draplane::cel::internal {
namespace {

constexpr double kDoubleInt64Min = -9223372036854775808.0;   // -2^63
constexpr double kDoubleInt64Max = 9223372036854775808.0;    // 2^63
constexpr double kDoubleUint64Max = 18446744073709551616.0;  // 2^64

class OptionalData final : public HeapObject {
 public:
  explicit OptionalData(Value v) : value(std::move(v)) {}
  Value value;
};

class ErrorData final : public HeapObject {
 public:
  explicit ErrorData(std::string m) : message(std::move(m)) {}
  std::string message;
};

uint64_t Mix(uint64_t x) {
  // splitmix64 finalizer.
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// Builtin type names, shared so that type values never allocate.
constexpr std::string_view kBuiltinTypeNames[] = {"null_type",
                                                  "bool",
                                                  "int",
                                                  "uint",
                                                  "double",
                                                  "string",
                                                  "bytes",
                                                  "list",
                                                  "map",
                                                  "type",
                                                  "optional_type",
                                                  "google.protobuf.Timestamp",
                                                  "google.protobuf.Duration",
                                                  "dyn",
                                                  "error"};

const StringData* const* BuiltinTypeStorage() {
  static const StringData* const* storage = [] {
    constexpr size_t n = std::size(kBuiltinTypeNames);
    auto** arr = new const StringData*[n];
    for (size_t i = 0; i < n; ++i) {
      arr[i] = new StringData(std::string(kBuiltinTypeNames[i]),
                              kBuiltinTypeNames[i].size());
    }
    return arr;
  }();
  return storage;
}

bool NumericKind(ValueKind k) {
  return k == ValueKind::kInt || k == ValueKind::kUint ||
         k == ValueKind::kDouble;
}

int Sign(int64_t x) { return x < 0 ? -1 : (x > 0 ? 1 : 0); }

int CompareDoubles(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return 2;
  if (a < b) return -1;
  if (a > b) return 1;
  return 0;
}

// Numeric comparison of two numeric values; 2 when unordered (NaN).
int CompareNumbers(const Value& a, const Value& b) {
  switch (a.kind()) {
    case ValueKind::kInt:
      switch (b.kind()) {
        case ValueKind::kInt:
          return a.int_value() < b.int_value()
                     ? -1
                     : (a.int_value() > b.int_value() ? 1 : 0);
        case ValueKind::kUint:
          return CompareIntUint(a.int_value(), b.uint_value());
        default: {
          int c = CompareDoubleInt(b.double_value(), a.int_value());
          return c == 2 ? 2 : -c;
        }
      }
    case ValueKind::kUint:
      switch (b.kind()) {
        case ValueKind::kInt:
          return -CompareIntUint(b.int_value(), a.uint_value());
        case ValueKind::kUint:
          return a.uint_value() < b.uint_value()
                     ? -1
                     : (a.uint_value() > b.uint_value() ? 1 : 0);
        default: {
          int c = CompareDoubleUint(b.double_value(), a.uint_value());
          return c == 2 ? 2 : -c;
        }
      }
    default:
      switch (b.kind()) {
        case ValueKind::kInt:
          return CompareDoubleInt(a.double_value(), b.int_value());
        case ValueKind::kUint:
          return CompareDoubleUint(a.double_value(), b.uint_value());
        default:
          return CompareDoubles(a.double_value(), b.double_value());
      }
  }
}

// Map keys normalised for lookup: integral doubles become int or uint;
// returns false when `key` can never be a stored key.
bool NormalizeLookupKey(const Value& key, Value* out) {
  switch (key.kind()) {
    case ValueKind::kInt:
    case ValueKind::kUint:
    case ValueKind::kBool:
    case ValueKind::kString:
      *out = key;
      return true;
    case ValueKind::kDouble: {
      double d = key.double_value();
      if (!std::isfinite(d) || std::trunc(d) != d) return false;
      if (d >= kDoubleInt64Min && d < kDoubleInt64Max) {
        *out = Value::Int(static_cast<int64_t>(d));
        return true;
      }
      if (d >= 0 && d < kDoubleUint64Max) {
        *out = Value::Uint(static_cast<uint64_t>(d));
        return true;
      }
      return false;
    }
    default:
      return false;
  }
}

bool KeysEqual(const Value& a, const Value& b) {
  ValueKind ka = a.kind(), kb = b.kind();
  if (ka == ValueKind::kString || kb == ValueKind::kString) {
    return ka == kb && a.string_value() == b.string_value();
  }
  if (ka == ValueKind::kBool || kb == ValueKind::kBool) {
    return ka == kb && a.bool_value() == b.bool_value();
  }
  return CompareNumbers(a, b) == 0;
}

void AppendQuoted(std::string* out, std::string_view s, bool bytes) {
  out->append(bytes ? "b\"" : "\"");
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (c < 0x20 || (bytes && c >= 0x7f)) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\x%02x", c);
          out->append(buf);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
  out->push_back('"');
}

void AppendDebug(std::string* out, const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull:
      out->append("null");
      return;
    case ValueKind::kBool:
      out->append(v.bool_value() ? "true" : "false");
      return;
    case ValueKind::kInt:
      out->append(std::to_string(v.int_value()));
      return;
    case ValueKind::kUint:
      out->append(std::to_string(v.uint_value()));
      out->push_back('u');
      return;
    case ValueKind::kDouble: {
      std::string s = FormatDouble(v.double_value());
      bool integral = s.find_first_of(".eIN") == std::string::npos;
      out->append(s);
      if (integral) out->append(".0");
      return;
    }
    case ValueKind::kString:
      AppendQuoted(out, v.string_value(), false);
      return;
    case ValueKind::kBytes:
      AppendQuoted(out, v.string_value(), true);
      return;
    case ValueKind::kList: {
      out->push_back('[');
      bool first = true;
      for (const Value& e : v.list()) {
        if (!first) out->append(", ");
        first = false;
        AppendDebug(out, e);
      }
      out->push_back(']');
      return;
    }
    case ValueKind::kMap: {
      out->push_back('{');
      bool first = true;
      for (const MapData::Entry& e : v.map().entries()) {
        if (!first) out->append(", ");
        first = false;
        AppendDebug(out, e.key);
        out->append(": ");
        AppendDebug(out, e.value);
      }
      out->push_back('}');
      return;
    }
    case ValueKind::kType:
      out->append(v.type_name());
      return;
    case ValueKind::kOptional:
      if (!v.optional_has_value()) {
        out->append("optional.none()");
      } else {
        out->append("optional.of(");
        AppendDebug(out, v.optional_value());
        out->push_back(')');
      }
      return;
    case ValueKind::kTimestamp:
      out->append("timestamp(\"");
      out->append(FormatTimestamp(v.timestamp_seconds(), v.timestamp_nanos()));
      out->append("\")");
      return;
    case ValueKind::kDuration:
      out->append("duration(\"");
      out->append(FormatDuration(v.duration_nanos()));
      out->append("\")");
      return;
    case ValueKind::kOpaque:
      out->append(v.opaque().DebugString());
      return;
    case ValueKind::kError:
      out->append("error: ");
      out->append(v.error_message());
      return;
  }
}

}  // namespace

std::string_view KindName(ValueKind kind) {
  switch (kind) {
    case ValueKind::kNull:
      return "null_type";
    case ValueKind::kBool:
      return "bool";
    case ValueKind::kInt:
      return "int";
    case ValueKind::kUint:
      return "uint";
    case ValueKind::kDouble:
      return "double";
    case ValueKind::kString:
      return "string";
    case ValueKind::kBytes:
      return "bytes";
    case ValueKind::kList:
      return "list";
    case ValueKind::kMap:
      return "map";
    case ValueKind::kType:
      return "type";
    case ValueKind::kOptional:
      return "optional_type";
    case ValueKind::kTimestamp:
      return "google.protobuf.Timestamp";
    case ValueKind::kDuration:
      return "google.protobuf.Duration";
    case ValueKind::kOpaque:
      return "opaque";
    case ValueKind::kError:
      return "error";
  }
  return "unknown";
}

Value Value::String(std::string utf8) {
  size_t n = Utf8CodePoints(utf8);
  Value v(ValueKind::kString);
  v.rep_.obj = new StringData(std::move(utf8), n);
  return v;
}

Value Value::Bytes(std::string octets) {
  size_t n = octets.size();
  Value v(ValueKind::kBytes);
  v.rep_.obj = new StringData(std::move(octets), n);
  return v;
}

Value Value::List(std::vector<Value> elements) {
  Value v(ValueKind::kList);
  v.rep_.obj = new ListData(std::move(elements));
  return v;
}

namespace {

// Checks and hashes map entries; false (with *error set) for an invalid or
// repeated key.
// (`entries` is taken by value: its keys and values are moved out through
// the structured binding, which the check does not follow.)
// NOLINTNEXTLINE(performance-unnecessary-value-param)
bool MakeMapEntries(std::vector<std::pair<Value, Value>> entries,
                    std::vector<MapData::Entry>* out_entries, Value* error) {
  std::vector<MapData::Entry>& out = *out_entries;
  out.reserve(entries.size());
  for (auto& [key, value] : entries) {
    switch (key.kind()) {
      case ValueKind::kInt:
      case ValueKind::kUint:
      case ValueKind::kBool:
      case ValueKind::kString:
        break;
      default:
        *error = Value::Error("unsupported key type");
        return false;
    }
    uint64_t hash = *MapKeyHash(key);
    for (const MapData::Entry& e : out) {
      if (e.hash == hash && KeysEqual(e.key, key)) {
        *error = Value::Error("Failed with repeated key");
        return false;
      }
    }
    out.push_back(MapData::Entry{std::move(key), std::move(value), hash});
  }
  return true;
}

}  // namespace

Value Value::Map(std::vector<std::pair<Value, Value>> entries) {
  std::vector<MapData::Entry> out;
  Value error;
  if (!MakeMapEntries(std::move(entries), &out, &error)) return error;
  Value v(ValueKind::kMap);
  v.rep_.obj = new MapData(std::move(out));
  return v;
}

Value Value::MapWithLookupDefault(std::vector<std::pair<Value, Value>> entries,
                                  Value lookup_default) {
  std::vector<MapData::Entry> out;
  Value error;
  if (!MakeMapEntries(std::move(entries), &out, &error)) return error;
  Value v(ValueKind::kMap);
  v.rep_.obj = new MapData(std::move(out), std::move(lookup_default));
  return v;
}

Value Value::Type(std::string_view name) {
  const StringData* const* builtin = BuiltinTypeStorage();
  for (size_t i = 0; i < std::size(kBuiltinTypeNames); ++i) {
    if (kBuiltinTypeNames[i] == name) {
      Value v(ValueKind::kType);
      builtin[i]->Ref();
      v.rep_.obj = builtin[i];
      return v;
    }
  }
  Value v(ValueKind::kType);
  v.rep_.obj = new StringData(std::string(name), name.size());
  return v;
}

Value Value::OptionalOf(Value value) {
  Value v(ValueKind::kOptional);
  v.rep_.obj = new OptionalData(std::move(value));
  return v;
}

Value Value::MakeTimestamp(int64_t seconds, int64_t nanos) {
  // Normalise nanos into [0, 1e9).
  if (nanos >= 1000000000 || nanos < 0) {
    int64_t carry = nanos / 1000000000;
    nanos %= 1000000000;
    if (nanos < 0) {
      nanos += 1000000000;
      --carry;
    }
    if (__builtin_add_overflow(seconds, carry, &seconds)) {
      return Value::Error("timestamp overflow");
    }
  }
  if (seconds < kMinTimestampSeconds || seconds > kMaxTimestampSeconds) {
    return Value::Error("timestamp overflow");
  }
  return Timestamp(seconds, static_cast<int32_t>(nanos));
}

Value Value::Error(std::string message) {
  Value v(ValueKind::kError);
  v.rep_.obj = new ErrorData(std::move(message));
  return v;
}

std::string_view Value::string_value() const {
  return static_cast<const StringData*>(rep_.obj)->data();
}

size_t Value::string_size() const {
  return static_cast<const StringData*>(rep_.obj)->size();
}

const std::vector<Value>& Value::list() const {
  return static_cast<const ListData*>(rep_.obj)->elements();
}

const MapData& Value::map() const {
  return *static_cast<const MapData*>(rep_.obj);
}

const Value& Value::optional_value() const {
  return static_cast<const OptionalData*>(rep_.obj)->value;
}

std::string_view Value::error_message() const {
  return static_cast<const ErrorData*>(rep_.obj)->message;
}

std::string_view Value::TypeName() const {
  if (kind_ == ValueKind::kOpaque) return opaque().TypeName();
  return KindName(kind_);
}

std::string Value::DebugString() const {
  std::string out;
  AppendDebug(&out, *this);
  return out;
}

// --- MapData ---

MapData::MapData(std::vector<Entry> entries) : entries_(std::move(entries)) {
  BuildIndex();
}

MapData::MapData(std::vector<Entry> entries, Value lookup_default)
    : entries_(std::move(entries)),
      has_lookup_default_(true),
      lookup_default_(std::move(lookup_default)) {
  BuildIndex();
}

void MapData::BuildIndex() {
  if (entries_.size() <= 8) return;
  size_t cap = 16;
  while (cap < entries_.size() * 2) cap <<= 1;
  index_.assign(cap, 0);
  for (size_t i = 0; i < entries_.size(); ++i) {
    size_t slot = entries_[i].hash & (cap - 1);
    while (index_[slot] != 0) slot = (slot + 1) & (cap - 1);
    index_[slot] = static_cast<uint32_t>(i + 1);
  }
}

template <class Eq>
const Value* MapData::Lookup(uint64_t hash, const Eq& eq) const {
  if (index_.empty()) {
    for (const Entry& e : entries_) {
      if (e.hash == hash && eq(e.key)) return &e.value;
    }
    return nullptr;
  }
  size_t mask = index_.size() - 1;
  for (size_t slot = hash & mask;; slot = (slot + 1) & mask) {
    uint32_t i = index_[slot];
    if (i == 0) return nullptr;
    const Entry& e = entries_[i - 1];
    if (e.hash == hash && eq(e.key)) return &e.value;
  }
}

const Value* MapData::FindEntry(const Value& key) const {
  Value norm;
  if (!NormalizeLookupKey(key, &norm)) return nullptr;
  uint64_t hash = *MapKeyHash(norm);
  return Lookup(hash, [&](const Value& k) { return KeysEqual(k, norm); });
}

const Value* MapData::Find(const Value& key) const {
  const Value* found = FindEntry(key);
  if (found == nullptr && has_lookup_default_) return &lookup_default_;
  return found;
}

uint64_t StringKeyHash(std::string_view key) {
  return Mix(std::hash<std::string_view>()(key) ^ 0x5bd1e995ULL);
}

const Value* MapData::FindString(std::string_view key) const {
  return FindStringHashed(key, StringKeyHash(key));
}

const Value* MapData::FindStringHashed(std::string_view key,
                                       uint64_t hash) const {
  const Value* found = Lookup(hash, [&](const Value& k) {
    return k.kind() == ValueKind::kString && k.string_value() == key;
  });
  if (found == nullptr && has_lookup_default_) return &lookup_default_;
  return found;
}

std::optional<uint64_t> MapKeyHash(const Value& key) {
  switch (key.kind()) {
    case ValueKind::kInt:
      return Mix(static_cast<uint64_t>(key.int_value()));
    case ValueKind::kUint:
      return Mix(key.uint_value());
    case ValueKind::kBool:
      return Mix(key.bool_value() ? 0x1234567ULL : 0x7654321ULL);
    case ValueKind::kString:
      return StringKeyHash(key.string_value());
    case ValueKind::kDouble: {
      Value norm;
      if (!NormalizeLookupKey(key, &norm)) return std::nullopt;
      return MapKeyHash(norm);
    }
    default:
      return std::nullopt;
  }
}

// --- Equality and ordering ---

int CompareIntUint(int64_t i, uint64_t u) {
  if (i < 0 || u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return -1;
  }
  int64_t ui = static_cast<int64_t>(u);
  return i < ui ? -1 : (i > ui ? 1 : 0);
}

int CompareDoubleInt(double d, int64_t i) {
  if (std::isnan(d)) return 2;
  if (d < kDoubleInt64Min) return -1;
  if (d > kDoubleInt64Max) return 1;
  return CompareDoubles(d, static_cast<double>(i));
}

int CompareDoubleUint(double d, uint64_t u) {
  if (std::isnan(d)) return 2;
  if (d < 0) return -1;
  if (d > kDoubleUint64Max) return 1;
  return CompareDoubles(d, static_cast<double>(u));
}

bool ValuesEqual(const Value& a, const Value& b) {
  ValueKind ka = a.kind(), kb = b.kind();
  if (ka != kb) {
    if (NumericKind(ka) && NumericKind(kb)) return CompareNumbers(a, b) == 0;
    return false;
  }
  switch (ka) {
    case ValueKind::kNull:
      return true;
    case ValueKind::kBool:
      return a.bool_value() == b.bool_value();
    case ValueKind::kInt:
      return a.int_value() == b.int_value();
    case ValueKind::kUint:
      return a.uint_value() == b.uint_value();
    case ValueKind::kDouble:
      return a.double_value() == b.double_value();
    case ValueKind::kString:
    case ValueKind::kBytes:
    case ValueKind::kType:
      return a.string_value() == b.string_value();
    case ValueKind::kList: {
      const auto& la = a.list();
      const auto& lb = b.list();
      if (la.size() != lb.size()) return false;
      for (size_t i = 0; i < la.size(); ++i) {
        if (!ValuesEqual(la[i], lb[i])) return false;
      }
      return true;
    }
    case ValueKind::kMap: {
      const MapData& ma = a.map();
      const MapData& mb = b.map();
      if (ma.size() != mb.size()) return false;
      for (const MapData::Entry& e : ma.entries()) {
        const Value* other = mb.FindEntry(e.key);
        if (other == nullptr || !ValuesEqual(e.value, *other)) return false;
      }
      return true;
    }
    case ValueKind::kOptional:
      if (a.optional_has_value() != b.optional_has_value()) return false;
      return !a.optional_has_value() ||
             ValuesEqual(a.optional_value(), b.optional_value());
    case ValueKind::kTimestamp:
      return a.timestamp_seconds() == b.timestamp_seconds() &&
             a.timestamp_nanos() == b.timestamp_nanos();
    case ValueKind::kDuration:
      return a.duration_nanos() == b.duration_nanos();
    case ValueKind::kOpaque:
      return a.opaque().TypeName() == b.opaque().TypeName() &&
             a.opaque().Equals(b.opaque());
    case ValueKind::kError:
      return false;
  }
  return false;
}

std::optional<int> CompareValues(const Value& a, const Value& b, bool* nan) {
  *nan = false;
  ValueKind ka = a.kind(), kb = b.kind();
  if (NumericKind(ka) && NumericKind(kb)) {
    int c = CompareNumbers(a, b);
    if (c == 2) {
      *nan = true;
      return std::nullopt;
    }
    return c;
  }
  if (ka != kb) return std::nullopt;
  switch (ka) {
    case ValueKind::kBool:
      return static_cast<int>(a.bool_value()) -
             static_cast<int>(b.bool_value());
    case ValueKind::kString:
    case ValueKind::kBytes: {
      int c = a.string_value().compare(b.string_value());
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case ValueKind::kTimestamp:
      if (a.timestamp_seconds() != b.timestamp_seconds()) {
        return a.timestamp_seconds() < b.timestamp_seconds() ? -1 : 1;
      }
      return Sign(static_cast<int64_t>(a.timestamp_nanos()) -
                  b.timestamp_nanos());
    case ValueKind::kDuration:
      return a.duration_nanos() < b.duration_nanos()
                 ? -1
                 : (a.duration_nanos() > b.duration_nanos() ? 1 : 0);
    case ValueKind::kOpaque:
      if (a.opaque().TypeName() != b.opaque().TypeName()) return std::nullopt;
      return a.opaque().Compare(b.opaque());
    default:
      return std::nullopt;
  }
}

uint64_t CostSize(const Value& value) {
  switch (value.kind()) {
    case ValueKind::kString:
    case ValueKind::kBytes:
      return value.string_size();
    case ValueKind::kList:
      return value.list().size();
    case ValueKind::kMap:
      return value.map().size();
    case ValueKind::kOpaque:
      return value.opaque().Size().value_or(1);
    default:
      return 1;
  }
}

// --- UTF-8 ---

size_t Utf8CodePoints(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int len;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > n) return false;
    for (int k = 1; k < len; ++k) {
      unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += len;
  }
  return true;
}

// --- Formatting ---

std::string KeyText(const Value& key) {
  switch (key.kind()) {
    case ValueKind::kString:
      return std::string(key.string_value());
    case ValueKind::kInt:
      return std::to_string(key.int_value());
    case ValueKind::kUint:
      return std::to_string(key.uint_value());
    case ValueKind::kBool:
      return key.bool_value() ? "true" : "false";
    case ValueKind::kDouble:
      return FormatDouble(key.double_value());
    default:
      return key.DebugString();
  }
}

std::string FormatDouble(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto res =
      std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string_view sci(buf, res.ptr - buf);
  std::string out;
  if (!sci.empty() && sci[0] == '-') {
    out.push_back('-');
    sci.remove_prefix(1);
  }
  size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  int exp = 0;
  std::from_chars(sci.data() + e + 1 + (sci[e + 1] == '+'),
                  sci.data() + sci.size(), exp);
  if (exp < -4 || exp >= 6) {
    out.push_back(digits[0]);
    if (digits.size() > 1) {
      out.push_back('.');
      out.append(digits, 1, std::string::npos);
    }
    char ebuf[16];
    std::snprintf(ebuf, sizeof(ebuf), "e%c%02d", exp < 0 ? '-' : '+',
                  exp < 0 ? -exp : exp);
    out.append(ebuf);
    return out;
  }
  if (exp < 0) {
    out.append("0.");
    out.append(static_cast<size_t>(-exp - 1), '0');
    out.append(digits);
    return out;
  }
  size_t int_digits = static_cast<size_t>(exp) + 1;
  if (digits.size() <= int_digits) {
    out.append(digits);
    out.append(int_digits - digits.size(), '0');
  } else {
    out.append(digits, 0, int_digits);
    out.push_back('.');
    out.append(digits, int_digits, std::string::npos);
  }
  return out;
}

std::string FormatTimestamp(int64_t seconds, int32_t nanos) {
  absl::CivilSecond cs =
      absl::ToCivilSecond(absl::FromUnixSeconds(seconds), absl::UTCTimeZone());
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d",
                static_cast<int>(cs.year()), cs.month(), cs.day(), cs.hour(),
                cs.minute(), cs.second());
  std::string out(buf);
  if (nanos != 0) {
    char frac[16];
    std::snprintf(frac, sizeof(frac), ".%09d", nanos);
    std::string f(frac);
    while (f.back() == '0') f.pop_back();
    out.append(f);
  }
  out.push_back('Z');
  return out;
}

std::string FormatDuration(int64_t nanos) {
  // Go: float64(d / Second) + float64(d % Second) / 1e9 (whole seconds by
  // integer division on purpose).
  // NOLINTNEXTLINE(bugprone-integer-division)
  double secs = static_cast<double>(nanos / 1000000000) +
                static_cast<double>(nanos % 1000000000) / 1e9;
  char buf[64];
  auto res =
      std::to_chars(buf, buf + sizeof(buf), secs, std::chars_format::fixed);
  std::string out(buf, res.ptr - buf);
  out.push_back('s');
  return out;
}

}  // namespace draplane::cel::internal

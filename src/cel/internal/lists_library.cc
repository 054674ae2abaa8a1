#include "cel/internal/lists_library.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cel/internal/go_sort.h"
#include "cel/internal/library_support.h"
#include "common/str_cat.h"

namespace draplane::cel::internal {
namespace {

using K = ValueKind;
using Args = absl::Span<const Value>;

ArgType A(K kind) { return ArgType::Of(kind); }

absl::Status RegisterAll(FunctionRegistry* registry,
                         std::vector<FunctionOverload> overloads) {
  for (FunctionOverload& o : overloads) {
    absl::Status s = registry->Register(std::move(o));
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

// --- Errors (cel-go texts) ---

// What the interpreter reports when no overload matches: cel-go's runtime
// dispatch reports the same when a list(dyn) argument's first element
// selects no overload.
Value NoSuchOverload(std::string_view function, Args args) {
  std::string kinds;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0) kinds.append(", ");
    kinds.append(args[i].TypeName());
  }
  return Value::Error(StrCat("no such overload: ", function, "(", kinds, ")"));
}

// types.MaybeNoSuchOverloadErr / NoSuchOverloadErr.
Value BareNoSuchOverload() { return Value::Error("no such overload"); }

// --- Costs ---

// Go's uint64(float64) for the non-negative values cost code produces,
// saturating where Go's conversion would be undefined.
uint64_t TruncateCost(double x) {
  if (!(x > 0)) return 0;
  if (x >= 18446744073709551616.0) return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(x);
}

uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<uint64_t>::max()
                                          : r;
}

uint64_t SaturatingMul(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<uint64_t>::max()
                                          : r;
}

// cel-go common.ListCreateBaseCost and ext callCost.
constexpr uint64_t kListCreateBaseCost = 10;
constexpr uint64_t kCallCost = 1;

// ext/lists.go trackAllocatingListCall.
uint64_t AllocatingListCallCost(double factor, uint64_t size) {
  if (factor < 0) factor = 1.0;
  return SaturatingAdd(TruncateCost(static_cast<double>(size) * factor),
                       kCallCost + kListCreateBaseCost);
}

// ext/lists.go trackListSelfCompare: O(n^2) over `list`.
uint64_t SelfCompareCost(const Value& list) {
  uint64_t size = CostSize(list);
  double factor = 2.0;
  if (size == 0) return AllocatingListCallCost(factor, 0);
  if (list.kind() == K::kList) {
    K first = list.list()[0].kind();
    if (first == K::kString || first == K::kBytes) factor += 0.1;
  }
  return AllocatingListCallCost(factor, SaturatingMul(size, size));
}

uint64_t CostTraversalOfReceiver(Args args, const Value&) {
  return args.empty() ? 0 : KubernetesTraversalCost(args[0]);
}
uint64_t CostResultSize(Args, const Value& result) {
  return AllocatingListCallCost(1.0, CostSize(result));
}
uint64_t CostFlatten(Args args, const Value&) {
  double depth = 1.0;
  if (args.size() == 2 && args[1].kind() == K::kInt) {
    depth = static_cast<double>(args[1].int_value());
  }
  return AllocatingListCallCost(depth, CostSize(args[0]));
}
uint64_t CostSelfCompareFirst(Args args, const Value&) {
  return SelfCompareCost(args[0]);
}
uint64_t CostSelfCompareSecond(Args args, const Value&) {
  return SelfCompareCost(args[1]);
}
// ext/sets.go trackSetsCost (the product wraps as Go's uint64 does).
uint64_t SetsCost(Args args, double factor) {
  uint64_t product = CostSize(args[0]) * CostSize(args[1]);
  return SaturatingAdd(kCallCost,
                       TruncateCost(static_cast<double>(product) * factor));
}
uint64_t CostSetsOnce(Args args, const Value&) { return SetsCost(args, 1.0); }
uint64_t CostSetsTwice(Args args, const Value&) { return SetsCost(args, 2.0); }

// --- Ordering and equality ---

// Kinds whose cel-go values implement traits.Comparer. The Kubernetes
// opaque types do not.
bool IsComparable(K kind) {
  switch (kind) {
    case K::kBool:
    case K::kInt:
    case K::kUint:
    case K::kDouble:
    case K::kString:
    case K::kBytes:
    case K::kTimestamp:
    case K::kDuration:
      return true;
    default:
      return false;
  }
}

// cel-go `a.Compare(b)` for comparable `a`: -1, 0 or 1, or nullopt where
// cel-go returns an error (different types that are not both numbers,
// NaN).
std::optional<int> Compare(const Value& a, const Value& b) {
  bool nan = false;
  std::optional<int> c = CompareValues(a, b, &nan);
  if (!c) return std::nullopt;
  return *c < 0 ? -1 : (*c > 0 ? 1 : 0);
}

// A hash consistent with ValuesEqual for the kinds where equality is
// cheap to hash; nullopt for lists, maps, optionals and opaque values,
// which are compared one by one.
std::optional<uint64_t> EqualityHash(const Value& v) {
  auto mix = [](uint64_t tag, uint64_t x) {
    x ^= tag * 0x9E3779B97F4A7C15ull;
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDull;
    x ^= x >> 33;
    return x;
  };
  // Numbers equal across int, uint and double share a hash: integral
  // values hash as their integer, others by their bits.
  constexpr uint64_t kNumber = 1, kUintHigh = 2, kDoubleBits = 3;
  switch (v.kind()) {
    case K::kNull:
      return mix(4, 0);
    case K::kBool:
      return mix(5, v.bool_value() ? 1 : 0);
    case K::kInt:
      return mix(kNumber, static_cast<uint64_t>(v.int_value()));
    case K::kUint:
      if (v.uint_value() <=
          static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return mix(kNumber, v.uint_value());
      }
      return mix(kUintHigh, v.uint_value());
    case K::kDouble: {
      double d = v.double_value();
      if (std::trunc(d) == d) {
        if (d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
          return mix(kNumber, static_cast<uint64_t>(static_cast<int64_t>(d)));
        }
        if (d >= 9223372036854775808.0 && d < 18446744073709551616.0) {
          return mix(kUintHigh, static_cast<uint64_t>(d));
        }
      }
      uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      return mix(kDoubleBits, bits);
    }
    case K::kString:
      return mix(6, std::hash<std::string_view>()(v.string_value()));
    case K::kBytes:
      return mix(7, std::hash<std::string_view>()(v.string_value()));
    case K::kType:
      return mix(8, std::hash<std::string_view>()(v.type_name()));
    case K::kTimestamp:
      return mix(9, static_cast<uint64_t>(v.timestamp_seconds()) * 1000000007u +
                        static_cast<uint64_t>(v.timestamp_nanos()));
    case K::kDuration:
      return mix(10, static_cast<uint64_t>(v.duration_nanos()));
    default:
      return std::nullopt;
  }
}

// Values under CEL equality, for membership tests that would otherwise be
// quadratic (distinct, sets.*). Answers exactly what a linear scan with
// ValuesEqual answers.
class ValueSet {
 public:
  // Whether some inserted value equals `v`.
  bool Contains(const Value& v) const {
    std::optional<uint64_t> h = EqualityHash(v);
    const std::vector<Value>* candidates = &unhashed_;
    if (h) {
      auto it = buckets_.find(*h);
      if (it == buckets_.end()) return false;
      candidates = &it->second;
    }
    for (const Value& c : *candidates) {
      if (ValuesEqual(c, v)) return true;
    }
    return false;
  }
  void Insert(const Value& v) {
    std::optional<uint64_t> h = EqualityHash(v);
    (h ? buckets_[*h] : unhashed_).push_back(v);
  }

 private:
  std::unordered_map<uint64_t, std::vector<Value>> buckets_;
  std::vector<Value> unhashed_;
};

ValueSet SetOf(const std::vector<Value>& elements) {
  ValueSet set;
  for (const Value& e : elements) set.Insert(e);
  return set;
}

// --- Kubernetes Lists (library/lists.go) ---

Value IsSorted(Args a) {
  const std::vector<Value>& list = a[0].list();
  if (!list.empty() && !IsComparable(list[0].kind())) {
    return NoSuchOverload("isSorted", a);
  }
  const Value* prev = nullptr;
  for (const Value& next : list) {
    if (!IsComparable(next.kind())) return BareNoSuchOverload();
    if (prev != nullptr && Compare(*prev, next) == 1) return Value::Bool(false);
    prev = &next;
  }
  return Value::Bool(true);
}

// min (prefer = 1: replace the candidate when it compares greater) and max
// (prefer = -1).
Value Extreme(Args a, const char* name, int prefer) {
  const std::vector<Value>& list = a[0].list();
  if (!list.empty() && !IsComparable(list[0].kind())) {
    return NoSuchOverload(name, a);
  }
  const Value* result = nullptr;
  for (const Value& next : list) {
    if (!IsComparable(next.kind())) return BareNoSuchOverload();
    if (result == nullptr || Compare(*result, next) == prefer) result = &next;
  }
  if (result == nullptr) {
    return Value::Error(StrCat(name, " called on empty list"));
  }
  return *result;
}

// cel-go's `acc.Add(next)` for the kinds a sum can reach.
Value AddForSum(const Value& acc, const Value& next) {
  switch (acc.kind()) {
    case K::kInt:
      if (next.kind() == K::kInt) {
        int64_t r;
        if (__builtin_add_overflow(acc.int_value(), next.int_value(), &r)) {
          return Value::Error("integer overflow");
        }
        return Value::Int(r);
      }
      break;
    case K::kUint:
      if (next.kind() == K::kUint) {
        uint64_t r;
        if (__builtin_add_overflow(acc.uint_value(), next.uint_value(), &r)) {
          return Value::Error("unsigned integer overflow");
        }
        return Value::Uint(r);
      }
      break;
    case K::kDouble:
      if (next.kind() == K::kDouble) {
        return Value::Double(acc.double_value() + next.double_value());
      }
      break;
    case K::kDuration:
      if (next.kind() == K::kDuration) {
        int64_t r;
        if (__builtin_add_overflow(acc.duration_nanos(), next.duration_nanos(),
                                   &r)) {
          return Value::Error("integer overflow");
        }
        return Value::Duration(r);
      }
      if (next.kind() == K::kTimestamp) {
        return Value::MakeTimestamp(
            next.timestamp_seconds() + acc.duration_nanos() / 1000000000,
            next.timestamp_nanos() + acc.duration_nanos() % 1000000000);
      }
      break;
    case K::kTimestamp:
      if (next.kind() == K::kDuration) return AddForSum(next, acc);
      break;
    default:
      break;
  }
  return BareNoSuchOverload();
}

// Kinds whose cel-go values implement traits.Adder.
bool IsAddable(K kind) {
  switch (kind) {
    case K::kInt:
    case K::kUint:
    case K::kDouble:
    case K::kDuration:
    case K::kTimestamp:
    case K::kString:
    case K::kBytes:
    case K::kList:
      return true;
    default:
      return false;
  }
}

Value Sum(Args a) {
  const std::vector<Value>& list = a[0].list();
  // The overload, and so the zero the sum starts from, is chosen by the
  // first element (cel-go runtime dispatch); an empty list takes the first
  // overload, list(int).
  Value acc = Value::Int(0);
  if (!list.empty()) {
    switch (list[0].kind()) {
      case K::kInt:
        break;
      case K::kUint:
        acc = Value::Uint(0);
        break;
      case K::kDouble:
        acc = Value::Double(0);
        break;
      case K::kDuration:
        acc = Value::Duration(0);
        break;
      default:
        return NoSuchOverload("sum", a);
    }
  }
  for (const Value& next : list) {
    if (!IsAddable(next.kind())) return BareNoSuchOverload();
    acc = AddForSum(acc, next);
    if (acc.is_error()) return acc;
  }
  return acc;
}

Value IndexOf(Args a, bool last) {
  const std::vector<Value>& list = a[0].list();
  const int64_t n = static_cast<int64_t>(list.size());
  for (int64_t k = 0; k < n; ++k) {
    int64_t i = last ? n - 1 - k : k;
    if (ValuesEqual(list[i], a[1])) return Value::Int(i);
  }
  return Value::Int(-1);
}

Value Includes(Args a) {
  if (a[0].kind() == K::kList) {
    for (const Value& item : a[0].list()) {
      if (ValuesEqual(item, a[1])) return Value::Bool(true);
    }
    return Value::Bool(false);
  }
  return Value::Bool(ValuesEqual(a[0], a[1]));
}

// --- cel-go ext.Lists (ext/lists.go) ---

Value Slice(Args a) {
  const std::vector<Value>& list = a[0].list();
  int64_t start = a[1].int_value(), end = a[2].int_value();
  if (start < 0 || end < 0) {
    return Value::Error(StrCat("cannot slice(", start, ", ", end,
                               "), negative indexes not supported"));
  }
  if (start > end) {
    return Value::Error(
        StrCat("cannot slice(", start, ", ", end,
               "), start index must be less than or equal to end index"));
  }
  if (static_cast<int64_t>(list.size()) < end) {
    return Value::Error(StrCat("cannot slice(", start, ", ", end,
                               "), list is length ", list.size()));
  }
  return Value::List(
      std::vector<Value>(list.begin() + start, list.begin() + end));
}

// Flattens nested lists up to `depth` levels, iteratively (the nesting of
// a value is not bounded by the stack).
Value Flatten(const Value& list, int64_t depth) {
  if (depth < 0) return Value::Error("level must be non-negative");
  std::vector<Value> out;
  struct Level {
    const std::vector<Value>* elements;
    size_t next;
  };
  std::vector<Level> stack = {{&list.list(), 0}};
  while (!stack.empty()) {
    Level& top = stack.back();
    if (top.next == top.elements->size()) {
      stack.pop_back();
      continue;
    }
    const Value& v = (*top.elements)[top.next++];
    // The element is at nesting level stack.size(); it is expanded while
    // fewer than `depth` levels have been opened.
    if (v.kind() == K::kList &&
        static_cast<uint64_t>(stack.size()) <= static_cast<uint64_t>(depth)) {
      stack.push_back({&v.list(), 0});
    } else {
      out.push_back(v);
    }
  }
  return Value::List(std::move(out));
}

// The flatten overloads disable cel-go's type guards and report wrong
// argument types themselves, in this form.
Value FlattenOverloadError(Args a) {
  std::string message =
      StrCat("no such overload: ", a[0].TypeName(), ".flatten(");
  if (a.size() == 2) message.append(a[1].TypeName());
  message.append(")");
  return Value::Error(std::move(message));
}

Value Distinct(Args a) {
  const std::vector<Value>& list = a[0].list();
  if (list.empty()) return a[0];
  std::vector<Value> unique;
  ValueSet seen;
  for (const Value& v : list) {
    if (seen.Contains(v)) continue;
    seen.Insert(v);
    unique.push_back(v);
  }
  return Value::List(std::move(unique));
}

Value Reverse(Args a) {
  const std::vector<Value>& list = a[0].list();
  return Value::List(std::vector<Value>(list.rbegin(), list.rend()));
}

// ext/lists.go sortListByAssociatedKeys: `list` ordered by `keys` with Go's
// sort.Slice over an index permutation.
Value SortByAssociatedKeys(const Value& list_value, const Value& keys_value) {
  const std::vector<Value>& list = list_value.list();
  const std::vector<Value>& keys = keys_value.list();
  if (list.size() != keys.size()) {
    return Value::Error(StrCat(
        "@sortByAssociatedKeys() expected a list of the same size as the "
        "associated keys list, but got ",
        list.size(), " and ", keys.size(), " elements respectively"));
  }
  if (list.empty()) return list_value;
  const K key_kind = keys[0].kind();
  if (!IsComparable(key_kind)) {
    return Value::Error("list elements must be comparable");
  }
  std::vector<size_t> order(list.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  bool mixed = false;
  GoSortSlice(
      order.size(),
      [&](size_t i, size_t j) {
        const Value& ki = keys[order[i]];
        const Value& kj = keys[order[j]];
        if (ki.kind() != key_kind || kj.kind() != key_kind) {
          mixed = true;
          return false;
        }
        return Compare(ki, kj) == -1;
      },
      [&](size_t i, size_t j) { std::swap(order[i], order[j]); });
  if (mixed) return Value::Error("list elements must have the same type");
  std::vector<Value> sorted;
  sorted.reserve(list.size());
  for (size_t i : order) sorted.push_back(list[i]);
  return Value::List(std::move(sorted));
}

Value Range(Args a) {
  int64_t n = a[0].int_value();
  if (n < 0) {
    return Value::Error(
        StrCat("lists.range: size must be non-negative, got ", n));
  }
  if (n > kListsRangeMaxSize) {
    return Value::Error(StrCat("lists.range: size ", n,
                               " exceeds maximum allowed (", kListsRangeMaxSize,
                               ")"));
  }
  std::vector<Value> out;
  out.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out.push_back(Value::Int(i));
  return Value::List(std::move(out));
}

// --- cel-go ext.Sets (ext/sets.go) ---

// Whether every element of `sub` is in `list`.
bool ContainsAll(const Value& list, const Value& sub) {
  if (sub.list().empty()) return true;
  ValueSet set = SetOf(list.list());
  for (const Value& v : sub.list()) {
    if (!set.Contains(v)) return false;
  }
  return true;
}

}  // namespace

uint64_t KubernetesTraversalCost(const Value& value) {
  switch (value.kind()) {
    case K::kString:
    case K::kBytes:
      return TruncateCost(static_cast<double>(value.string_value().size()) *
                          0.1);
    case K::kList: {
      uint64_t cost = 0;
      for (const Value& e : value.list()) {
        cost = SaturatingAdd(cost, KubernetesTraversalCost(e));
      }
      return cost;
    }
    case K::kMap: {
      uint64_t cost = 0;
      for (const MapData::Entry& e : value.map().entries()) {
        cost = SaturatingAdd(cost, KubernetesTraversalCost(e.key));
        cost = SaturatingAdd(cost, KubernetesTraversalCost(e.value));
      }
      return cost;
    }
    default:
      return 1;
  }
}

absl::Status RegisterKubernetesListsFunctions(FunctionRegistry* registry,
                                              int version) {
  std::vector<FunctionOverload> o;
  const CallCostFn cost = CostTraversalOfReceiver;
  o.push_back(Overload("isSorted", "list_is_sorted_bool", true, {A(K::kList)},
                       IsSorted, cost));
  o.push_back(Overload("sum", "list_sum", true, {A(K::kList)}, Sum, cost));
  o.push_back(Overload(
      "min", "list_min", true, {A(K::kList)},
      [](Args a) { return Extreme(a, "min", 1); }, cost));
  o.push_back(Overload(
      "max", "list_max", true, {A(K::kList)},
      [](Args a) { return Extreme(a, "max", -1); }, cost));
  o.push_back(Overload(
      "indexOf", "list_a_index_of_int", true, {A(K::kList), ArgType::Any()},
      [](Args a) { return IndexOf(a, false); }, cost));
  o.push_back(Overload(
      "lastIndexOf", "list_a_last_index_of_int", true,
      {A(K::kList), ArgType::Any()}, [](Args a) { return IndexOf(a, true); },
      cost));
  if (version >= 1) {
    o.push_back(Overload("includes", "list_includes_dyn_dyn", true,
                         {ArgType::Any(), ArgType::Any()}, Includes, cost));
  }
  return RegisterAll(registry, std::move(o));
}

absl::Status RegisterExtListsFunctions(FunctionRegistry* registry) {
  std::vector<FunctionOverload> o;
  o.push_back(Overload("slice", "list_slice", true,
                       {A(K::kList), A(K::kInt), A(K::kInt)}, Slice,
                       CostResultSize));
  o.push_back(Overload(
      "flatten", "list_flatten", true, {ArgType::Any()},
      [](Args a) {
        if (a[0].kind() != K::kList) return FlattenOverloadError(a);
        return Flatten(a[0], 1);
      },
      CostFlatten));
  o.push_back(Overload(
      "flatten", "list_flatten_int", true, {ArgType::Any(), ArgType::Any()},
      [](Args a) {
        if (a[0].kind() != K::kList || a[1].kind() != K::kInt) {
          return FlattenOverloadError(a);
        }
        return Flatten(a[0], a[1].int_value());
      },
      CostFlatten));
  o.push_back(Overload("distinct", "list_distinct", true, {A(K::kList)},
                       Distinct, CostSelfCompareFirst));
  o.push_back(Overload("reverse", "list_reverse", true, {A(K::kList)}, Reverse,
                       CostResultSize));
  // sort and @sortByAssociatedKeys have singleton bindings guarded only by
  // the list trait in cel-go: any list reaches the implementation.
  o.push_back(Overload(
      "sort", "list_sort", true, {ArgType::Any()},
      [](Args a) {
        if (a[0].kind() != K::kList) return BareNoSuchOverload();
        return SortByAssociatedKeys(a[0], a[0]);
      },
      CostSelfCompareFirst));
  o.push_back(Overload(
      "@sortByAssociatedKeys", "list_sortByAssociatedKeys", true,
      {ArgType::Any(), ArgType::Any()},
      [](Args a) {
        if (a[0].kind() != K::kList || a[1].kind() != K::kList) {
          return BareNoSuchOverload();
        }
        return SortByAssociatedKeys(a[0], a[1]);
      },
      CostSelfCompareSecond));
  o.push_back(Overload("lists.range", "lists_range", false, {A(K::kInt)}, Range,
                       CostResultSize));
  return RegisterAll(registry, std::move(o));
}

absl::Status RegisterSetsFunctions(FunctionRegistry* registry) {
  std::vector<FunctionOverload> o;
  const std::vector<ArgType> lists = {A(K::kList), A(K::kList)};
  o.push_back(Overload(
      "sets.contains", "list_sets_contains_list", false, lists,
      [](Args a) { return Value::Bool(ContainsAll(a[0], a[1])); },
      CostSetsOnce));
  o.push_back(Overload(
      "sets.equivalent", "list_sets_equivalent_list", false, lists,
      [](Args a) {
        return Value::Bool(ContainsAll(a[0], a[1]) && ContainsAll(a[1], a[0]));
      },
      CostSetsTwice));
  o.push_back(Overload(
      "sets.intersects", "list_sets_intersects_list", false, lists,
      [](Args a) {
        if (a[0].list().empty() || a[1].list().empty()) {
          return Value::Bool(false);
        }
        ValueSet set = SetOf(a[1].list());
        for (const Value& v : a[0].list()) {
          if (set.Contains(v)) return Value::Bool(true);
        }
        return Value::Bool(false);
      },
      CostSetsOnce));
  return RegisterAll(registry, std::move(o));
}

}  // namespace draplane::cel::internal

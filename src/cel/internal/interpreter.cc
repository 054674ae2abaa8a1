#include "cel/internal/interpreter.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "common/str_cat.h"

namespace draplane::cel::internal {

// --- Activation, ArgType, FunctionRegistry ---

void MapActivation::Insert(std::string name, Value value) {
  values_.insert_or_assign(std::move(name), std::move(value));
}

std::optional<Value> MapActivation::Find(std::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

bool ArgType::Matches(const Value& v) const {
  if (any) return true;
  if (v.kind() != kind) return false;
  if (kind == ValueKind::kOpaque && !opaque_type.empty()) {
    return v.opaque().TypeName() == opaque_type;
  }
  return true;
}

namespace {
bool SameParams(const FunctionOverload& a, const FunctionOverload& b) {
  if (a.receiver_style != b.receiver_style ||
      a.params.size() != b.params.size()) {
    return false;
  }
  for (size_t i = 0; i < a.params.size(); ++i) {
    const ArgType& x = a.params[i];
    const ArgType& y = b.params[i];
    if (x.any != y.any || (!x.any && x.kind != y.kind) ||
        x.opaque_type != y.opaque_type) {
      return false;
    }
  }
  return true;
}
}  // namespace

absl::Status FunctionRegistry::Register(FunctionOverload overload) {
  auto& list = overloads_[overload.function];
  for (const auto& existing : list) {
    if (SameParams(*existing, overload)) {
      return absl::AlreadyExistsError(
          StrCat("overload already registered: ", overload.function, " (",
                 overload.overload_id, ")"));
    }
  }
  list.push_back(std::make_unique<FunctionOverload>(std::move(overload)));
  return absl::OkStatus();
}

std::vector<const FunctionOverload*> FunctionRegistry::Find(
    std::string_view function, bool receiver_style, size_t arity) const {
  std::vector<const FunctionOverload*> out;
  auto it = overloads_.find(function);
  if (it == overloads_.end()) return out;
  for (const auto& o : it->second) {
    if (o->receiver_style == receiver_style && o->params.size() == arity) {
      out.push_back(o.get());
    }
  }
  return out;
}

bool FunctionRegistry::HasFunction(std::string_view function) const {
  return overloads_.find(function) != overloads_.end();
}

void FunctionRegistry::RegisterTypeName(std::string name) {
  type_names_.insert(std::move(name));
}

bool FunctionRegistry::HasTypeName(std::string_view name) const {
  return type_names_.find(name) != type_names_.end();
}

std::vector<const FunctionOverload*> FunctionRegistry::Overloads(
    std::string_view function) const {
  std::vector<const FunctionOverload*> out;
  auto it = overloads_.find(function);
  if (it == overloads_.end()) return out;
  for (const auto& o : it->second) out.push_back(o.get());
  return out;
}

std::vector<std::string> FunctionRegistry::FunctionNames() const {
  std::vector<std::string> names;
  names.reserve(overloads_.size());
  for (const auto& [name, list] : overloads_) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

// --- Evaluation state ---

const Value& CancelledError() {
  static const Value* v = new Value(Value::Error(kCostLimitExceededMessage));
  return *v;
}

struct Frame {
  const Activation& activation;
  Value* slots;
  uint64_t limit;
  bool presence_test_has_cost;
  uint64_t cost = 0;
  bool cancelled = false;

  // Adds `c` to the running cost; false (and `cancelled`) once the limit is
  // exceeded (cel-go checks after every observed step).
  bool Charge(uint64_t c) {
    if (__builtin_add_overflow(cost, c, &cost)) {
      cost = std::numeric_limits<uint64_t>::max();
    }
    if (cost > limit) cancelled = true;
    return !cancelled;
  }
};

// cel-go computes size-proportional costs in float64; reproduce its
// rounding exactly (e.g. ceil(70 * 0.1) == 8).
uint64_t CeilTimes(double n, double factor) {
  return static_cast<uint64_t>(std::ceil(n * factor));
}

std::string KeyString(const Value& key) {
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

Value NoSuchKey(const Value& key) {
  return Value::Error(StrCat("no such key: ", KeyString(key)));
}

Value NoSuchOverload(std::string_view function, absl::Span<const Value> args) {
  std::string kinds;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0) kinds.append(", ");
    kinds.append(args[i].TypeName());
  }
  return Value::Error(StrCat("no such overload: ", function, "(", kinds, ")"));
}

// cel-go's error when no overload accepts the runtime arguments depends on
// how the function is bound (common/stdlib/standard.go, common/decls):
//  - functions with per-overload bindings (conversions, the extension and
//    Kubernetes libraries) fail their type guard with
//    "no such overload: f(int, string)" (NoSuchOverload above);
//  - the standard operators bound as one "singleton" gated on an operand
//    trait call the first operand's trait method when it has the trait
//    (which answers "no such overload" for a wrong second operand), else
//    its Receive method when it is a receiver type ("no such overload"),
//    else fail with "no such overload: f";
//  - a few bindings answer "no such overload" for any operands (`!`, `in`,
//    the string predicates, and `matches` with a constant pattern, which
//    cel-go's regex optimisation replaces).
// The trait bits of cel-go's runtime types (common/types/types.go).
enum OperandTrait : uint16_t {
  kAdder = 1 << 0,
  kComparer = 1 << 1,
  kDivider = 1 << 2,
  kModder = 1 << 3,
  kMultiplier = 1 << 4,
  kNegator = 1 << 5,
  kSubtractor = 1 << 6,
  kSizer = 1 << 7,
  kMatcher = 1 << 8,
  kReceiver = 1 << 9,
};

uint16_t OperandTraits(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kBool:
      return kComparer | kNegator;
    case ValueKind::kInt:
      return kAdder | kComparer | kDivider | kModder | kMultiplier | kNegator |
             kSubtractor;
    case ValueKind::kUint:
      return kAdder | kComparer | kDivider | kModder | kMultiplier |
             kSubtractor;
    case ValueKind::kDouble:
      return kAdder | kComparer | kDivider | kMultiplier | kNegator |
             kSubtractor;
    case ValueKind::kString:
      return kAdder | kComparer | kMatcher | kReceiver | kSizer;
    case ValueKind::kBytes:
      return kAdder | kComparer | kSizer;
    case ValueKind::kList:
      return kAdder | kSizer;
    case ValueKind::kMap:
      return kSizer;
    case ValueKind::kTimestamp:
      return kAdder | kComparer | kReceiver | kSubtractor;
    case ValueKind::kDuration:
      return kAdder | kComparer | kNegator | kReceiver | kSubtractor;
    default:
      // null, type, optional and the library types (Kubernetes' object
      // types only have the field-tester and indexer traits).
      return 0;
  }
}

// How a function reports operands no overload accepts.
struct NoMatchRule {
  enum Kind : uint8_t { kSignature, kPlain, kTrait };
  Kind kind = kSignature;
  uint16_t trait = 0;
};

NoMatchRule NoMatchRuleFor(std::string_view function,
                           bool constant_second_arg) {
  struct Entry {
    std::string_view function;
    uint16_t trait;
  };
  static constexpr Entry kSingletons[] = {
      {"_+_", kAdder},     {"_-_", kSubtractor}, {"_*_", kMultiplier},
      {"_/_", kDivider},   {"_%_", kModder},     {"-_", kNegator},
      {"_<_", kComparer},  {"_<=_", kComparer},  {"_>_", kComparer},
      {"_>=_", kComparer}, {"size", kSizer},     {"matches", kMatcher},
  };
  if (function == "!_" || function == "@in" || function == "contains" ||
      function == "startsWith" || function == "endsWith" ||
      (function == "matches" && constant_second_arg)) {
    return {NoMatchRule::kPlain, 0};
  }
  for (const Entry& e : kSingletons) {
    if (e.function == function) return {NoMatchRule::kTrait, e.trait};
  }
  return {};
}

Value NoMatchingOverload(std::string_view function, NoMatchRule rule,
                         absl::Span<const Value> args) {
  switch (rule.kind) {
    case NoMatchRule::kSignature:
      return NoSuchOverload(function, args);
    case NoMatchRule::kPlain:
      return Value::Error("no such overload");
    case NoMatchRule::kTrait:
      if (!args.empty() &&
          (OperandTraits(args[0]) & (rule.trait | kReceiver)) != 0) {
        return Value::Error("no such overload");
      }
      return Value::Error(StrCat("no such overload: ", function));
  }
  return NoSuchOverload(function, args);
}

// Go's %T of the cel-go value for a value of v's kind, as comprehension
// errors print it ("got 'types.Int', expected iterable type").
std::string GoTypeName(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull:
      return "types.Null";
    case ValueKind::kBool:
      return "types.Bool";
    case ValueKind::kInt:
      return "types.Int";
    case ValueKind::kUint:
      return "types.Uint";
    case ValueKind::kDouble:
      return "types.Double";
    case ValueKind::kString:
      return "types.String";
    case ValueKind::kBytes:
      return "types.Bytes";
    case ValueKind::kType:
      return "*types.Type";
    case ValueKind::kOptional:
      return "*types.Optional";
    case ValueKind::kTimestamp:
      return "types.Timestamp";
    case ValueKind::kDuration:
      return "types.Duration";
    case ValueKind::kOpaque: {
      // The Kubernetes library types live in k8s.io/apiserver/pkg/cel:
      // "kubernetes.Quantity" -> cel.Quantity, "net.IP" -> cel.IP.
      std::string_view name = v.opaque().TypeName();
      size_t dot = name.rfind('.');
      if (dot != std::string_view::npos) name = name.substr(dot + 1);
      return StrCat("cel.", name);
    }
    default:
      return std::string(v.TypeName());
  }
}

// Field selection `v.field` on a non-optional value. With `optional`, a
// missing key yields optional.none() and a present one optional.of(value).
// `hash` is StringKeyHash(field), computed once at plan time.
Value SelectField(const Value& v, std::string_view field, uint64_t hash,
                  bool optional) {
  if (v.kind() == ValueKind::kMap) {
    const Value* found = v.map().FindStringHashed(field, hash);
    if (found == nullptr) {
      return optional ? Value::OptionalNone()
                      : Value::Error(StrCat("no such key: ", field));
    }
    return optional ? Value::OptionalOf(*found) : *found;
  }
  // cel-go's attribute qualification of a value that is neither a map nor
  // a list (nor a message) reports the key as missing (an optional
  // qualification answers none).
  return optional ? Value::OptionalNone()
                  : Value::Error(StrCat("no such key: ", field));
}

// `v[key]` on a non-optional value; `optional` as in SelectField.
Value IndexValue(const Value& v, const Value& key, bool optional) {
  if (v.kind() == ValueKind::kList) {
    const auto& elems = v.list();
    int64_t idx;
    switch (key.kind()) {
      case ValueKind::kInt:
        idx = key.int_value();
        break;
      case ValueKind::kUint:
        // cel-go IndexOrError: only lossless conversions to int index.
        if (key.uint_value() >
            static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
          return Value::Error(
              StrCat("unsupported index value ", key.uint_value(), " in list"));
        }
        idx = static_cast<int64_t>(key.uint_value());
        break;
      case ValueKind::kDouble: {
        double d = key.double_value();
        if (!std::isfinite(d) || d <= -9223372036854775808.0 ||
            d >= 9223372036854775808.0 ||
            static_cast<double>(static_cast<int64_t>(d)) != d) {
          return Value::Error(
              StrCat("unsupported index value ", FormatDouble(d), " in list"));
        }
        idx = static_cast<int64_t>(d);
        break;
      }
      default:
        return Value::Error(
            StrCat("unsupported index type '", key.TypeName(), "' in list"));
    }
    if (idx < 0 || static_cast<uint64_t>(idx) >= elems.size()) {
      return optional ? Value::OptionalNone()
                      : Value::Error(StrCat("index out of bounds: ", idx));
    }
    return optional ? Value::OptionalOf(elems[idx]) : elems[idx];
  }
  if (v.kind() == ValueKind::kMap) {
    switch (key.kind()) {
      case ValueKind::kInt:
      case ValueKind::kUint:
      case ValueKind::kDouble:
      case ValueKind::kBool:
      case ValueKind::kString:
        break;
      default:
        return Value::Error(
            StrCat("unsupported key type '", key.TypeName(), "'"));
    }
    const Value* found = v.map().Find(key);
    if (found == nullptr) {
      return optional ? Value::OptionalNone() : NoSuchKey(key);
    }
    return optional ? Value::OptionalOf(*found) : *found;
  }
  // As SelectField: cel-go reports the key as missing.
  return optional ? Value::OptionalNone() : NoSuchKey(key);
}

// Qualification of an optional value: none stays none; of(x) qualifies x
// optionally (cel-go: once an attribute is optional, so are later
// qualifiers).
template <class Fn>
Value QualifyOptional(const Value& v, const Fn& qualify) {
  if (!v.optional_has_value()) return v;
  return qualify(v.optional_value());
}

// --- Plan nodes ---

class Node {
 public:
  virtual ~Node() = default;
  // Evaluates the node. Attribute nodes (identifiers, selections, index
  // steps, ?:) skip charging their own unit when `charge_self` is false.
  // Returns CancelledError() (and leaves f.cancelled set) once the cost
  // limit is exceeded.
  virtual Value Eval(Frame& f, bool charge_self = true) const = 0;
  // Eval for a node whose result feeds `.orValue()`/`.or()`: when the
  // result is an optional, sets *optional and returns its value (null for
  // none) without boxing it; otherwise returns the plain result. Nodes that
  // can produce a present optional cheaply (`m.?f`) override it so the
  // common `.?f.orValue(x)` path does not allocate.
  virtual Value EvalUnboxed(Frame& f, bool* optional, bool* has_value) const {
    Value v = Eval(f);
    *optional = v.kind() == ValueKind::kOptional;
    if (!*optional) return v;
    *has_value = v.optional_has_value();
    return *has_value ? v.optional_value() : Value();
  }
  virtual bool IsAttribute() const { return false; }
  virtual const Value* ConstantValue() const { return nullptr; }
};
using NodePtr = std::unique_ptr<Node>;

class ConstNode final : public Node {
 public:
  explicit ConstNode(Value v) : value_(std::move(v)) {}
  Value Eval(Frame&, bool) const override { return value_; }
  const Value* ConstantValue() const override { return &value_; }

 private:
  Value value_;
};

class SlotNode final : public Node {
 public:
  explicit SlotNode(int slot) : slot_(slot) {}
  Value Eval(Frame& f, bool charge_self) const override {
    if (charge_self && !f.Charge(1)) return CancelledError();
    return f.slots[slot_];
  }
  bool IsAttribute() const override { return true; }

 private:
  int slot_;
};

// A (possibly dotted) name looked up in the activation; the longest bound
// candidate wins and the remaining fields are selected from it.
class GlobalNameNode final : public Node {
 public:
  struct Candidate {
    std::string name;
    std::vector<std::string> fields;
    std::vector<uint64_t> field_hashes;  // StringKeyHash of each field
  };
  explicit GlobalNameNode(std::vector<Candidate> candidates)
      : candidates_(std::move(candidates)) {
    for (Candidate& c : candidates_) {
      c.field_hashes.clear();
      for (const std::string& field : c.fields) {
        c.field_hashes.push_back(StringKeyHash(field));
      }
    }
  }

  Value Eval(Frame& f, bool charge_self) const override {
    if (charge_self && !f.Charge(1)) return CancelledError();
    for (const Candidate& c : candidates_) {
      std::optional<Value> found = f.activation.Find(c.name);
      if (!found.has_value()) continue;
      Value v = std::move(*found);
      for (size_t i = 0; i < c.fields.size(); ++i) {
        const std::string& field = c.fields[i];
        uint64_t hash = c.field_hashes[i];
        if (v.is_error()) return v;
        if (!f.Charge(1)) return CancelledError();
        if (v.kind() == ValueKind::kOptional) {
          v = QualifyOptional(v, [&](const Value& x) {
            return SelectField(x, field, hash, true);
          });
        } else {
          v = SelectField(v, field, hash, false);
        }
      }
      return v;
    }
    std::string names;
    for (const Candidate& c : candidates_) {
      if (!names.empty()) names.append(", ");
      names.append(c.name);
    }
    return Value::Error(StrCat("no such attribute(s): ", names));
  }
  bool IsAttribute() const override { return true; }

 private:
  std::vector<Candidate> candidates_;
};

class SelectNode final : public Node {
 public:
  SelectNode(NodePtr operand, std::string field, bool optional)
      : operand_(std::move(operand)),
        field_(std::move(field)),
        hash_(StringKeyHash(field_)),
        optional_(optional) {}
  Value Eval(Frame& f, bool charge_self) const override {
    Value v = operand_->Eval(f);
    if (f.cancelled) return CancelledError();
    if (v.is_error()) return v;
    if (charge_self && !f.Charge(1)) return CancelledError();
    if (v.kind() == ValueKind::kOptional) {
      return QualifyOptional(v, [&](const Value& x) {
        return SelectField(x, field_, hash_, true);
      });
    }
    return SelectField(v, field_, hash_, optional_);
  }
  Value EvalUnboxed(Frame& f, bool* optional, bool* has_value) const override {
    if (!optional_) return Node::EvalUnboxed(f, optional, has_value);
    Value v = operand_->Eval(f);
    if (f.cancelled) return CancelledError();
    *optional = false;
    if (v.is_error()) return v;
    if (!f.Charge(1)) return CancelledError();
    if (v.kind() == ValueKind::kMap) {
      // `m.?f` on a map: the optional's value without the optional.
      const Value* found = v.map().FindStringHashed(field_, hash_);
      *optional = true;
      *has_value = found != nullptr;
      return found != nullptr ? *found : Value();
    }
    Value r =
        v.kind() == ValueKind::kOptional
            ? QualifyOptional(v,
                              [&](const Value& x) {
                                return SelectField(x, field_, hash_, true);
                              })
            : SelectField(v, field_, hash_, true);
    *optional = r.kind() == ValueKind::kOptional;
    if (!*optional) return r;
    *has_value = r.optional_has_value();
    return *has_value ? r.optional_value() : Value();
  }
  bool IsAttribute() const override { return true; }

 private:
  NodePtr operand_;
  std::string field_;
  uint64_t hash_;
  bool optional_;
};

class TestOnlyNode final : public Node {
 public:
  TestOnlyNode(NodePtr operand, std::string field)
      : operand_(std::move(operand)), field_(std::move(field)) {}
  Value Eval(Frame& f, bool) const override {
    Value v = operand_->Eval(f);
    if (f.cancelled) return CancelledError();
    if (v.is_error()) return v;
    if (f.presence_test_has_cost && !f.Charge(1)) return CancelledError();
    if (v.kind() == ValueKind::kMap) {
      return Value::Bool(v.map().FindString(field_) != nullptr);
    }
    if (v.kind() == ValueKind::kOptional) {
      if (!v.optional_has_value()) return Value::Bool(false);
      const Value& x = v.optional_value();
      if (x.kind() == ValueKind::kMap) {
        return Value::Bool(x.map().FindString(field_) != nullptr);
      }
    }
    // cel-go: a list answers its index error for the string key; other
    // values without fields are not set.
    if (v.kind() == ValueKind::kList) {
      return Value::Error("unsupported index type 'string' in list");
    }
    return Value::Bool(false);
  }

 private:
  NodePtr operand_;
  std::string field_;
};

class IndexNode final : public Node {
 public:
  IndexNode(NodePtr operand, NodePtr index, bool optional)
      : operand_(std::move(operand)),
        index_(std::move(index)),
        optional_(optional) {
    const Value* k = index_->ConstantValue();
    if (k != nullptr && k->kind() == ValueKind::kString) {
      const_string_key_ = true;
      key_hash_ = StringKeyHash(k->string_value());
    }
  }
  Value Eval(Frame& f, bool charge_self) const override {
    Value v = operand_->Eval(f);
    if (f.cancelled) return CancelledError();
    if (v.is_error()) return v;
    if (const_string_key_ && v.kind() == ValueKind::kMap) {
      // The DRA fast path: `device.attributes["gpu.nvidia.com"]`.
      if (charge_self && !f.Charge(1)) return CancelledError();
      const Value& key = *index_->ConstantValue();
      const Value* found =
          v.map().FindStringHashed(key.string_value(), key_hash_);
      if (found == nullptr) {
        return optional_ ? Value::OptionalNone() : NoSuchKey(key);
      }
      return optional_ ? Value::OptionalOf(*found) : *found;
    }
    // cel-go turns an attribute used as an index into a qualifier whose
    // own resolution is not observed.
    Value key = index_->Eval(f, !index_->IsAttribute());
    if (f.cancelled) return CancelledError();
    if (key.is_error()) return key;
    if (charge_self && !f.Charge(1)) return CancelledError();
    if (v.kind() == ValueKind::kOptional) {
      return QualifyOptional(
          v, [&](const Value& x) { return IndexValue(x, key, true); });
    }
    return IndexValue(v, key, optional_);
  }
  bool IsAttribute() const override { return true; }

 private:
  NodePtr operand_;
  NodePtr index_;
  bool optional_;
  bool const_string_key_ = false;
  uint64_t key_hash_ = 0;
};

class AndNode final : public Node {
 public:
  AndNode(NodePtr lhs, NodePtr rhs)
      : lhs_(std::move(lhs)), rhs_(std::move(rhs)) {}
  Value Eval(Frame& f, bool) const override {
    Value l = lhs_->Eval(f);
    if (f.cancelled) return CancelledError();
    if (l.IsFalse()) return l;
    Value r = rhs_->Eval(f);
    if (f.cancelled) return CancelledError();
    if (r.IsFalse()) return r;
    if (l.is_bool() && r.is_bool()) return Value::Bool(true);
    // cel-go: the first operand that is not a bool decides the error.
    const Value& bad = l.is_bool() ? r : l;
    if (bad.is_error()) return bad;
    return Value::Error("no such overload");
  }

 private:
  NodePtr lhs_, rhs_;
};

class OrNode final : public Node {
 public:
  OrNode(NodePtr lhs, NodePtr rhs)
      : lhs_(std::move(lhs)), rhs_(std::move(rhs)) {}
  Value Eval(Frame& f, bool) const override {
    Value l = lhs_->Eval(f);
    if (f.cancelled) return CancelledError();
    if (l.IsTrue()) return l;
    Value r = rhs_->Eval(f);
    if (f.cancelled) return CancelledError();
    if (r.IsTrue()) return r;
    if (l.is_bool() && r.is_bool()) return Value::Bool(false);
    // cel-go: the first operand that is not a bool decides the error.
    const Value& bad = l.is_bool() ? r : l;
    if (bad.is_error()) return bad;
    return Value::Error("no such overload");
  }

 private:
  NodePtr lhs_, rhs_;
};

class ConditionalNode final : public Node {
 public:
  ConditionalNode(NodePtr cond, NodePtr t, NodePtr e)
      : cond_(std::move(cond)), then_(std::move(t)), else_(std::move(e)) {}
  Value Eval(Frame& f, bool) const override {
    Value c = cond_->Eval(f);
    if (f.cancelled) return CancelledError();
    if (c.is_error()) return c;
    if (!c.is_bool()) return Value::Error("no such overload");
    // cel-go resolves an attribute branch without observing it.
    const Node& branch = c.bool_value() ? *then_ : *else_;
    Value v = branch.Eval(f, !branch.IsAttribute());
    if (f.cancelled) return CancelledError();
    return v;
  }
  bool IsAttribute() const override { return true; }

 private:
  NodePtr cond_, then_, else_;
};

class EqualityNode final : public Node {
 public:
  EqualityNode(NodePtr lhs, NodePtr rhs, bool negate)
      : lhs_(std::move(lhs)), rhs_(std::move(rhs)), negate_(negate) {}
  Value Eval(Frame& f, bool) const override {
    Value l = lhs_->Eval(f);
    if (f.cancelled) return CancelledError();
    Value r = rhs_->Eval(f);
    if (f.cancelled) return CancelledError();
    // See OpaqueValue::KubernetesEquality (`==` only).
    const bool k8s_eq = !negate_ && l.kind() == ValueKind::kOpaque &&
                        l.opaque().KubernetesEquality();
    uint64_t ls = CostSize(l), rs = CostSize(r);
    if (!f.Charge(
            k8s_eq ? 1
                   : CeilTimes(static_cast<double>(ls < rs ? ls : rs), 0.1))) {
      return CancelledError();
    }
    if (l.is_error()) return l;
    if (r.is_error()) return r;
    // Kubernetes library types answer `==` with a value their Equal does
    // not accept as "no such overload"; `!=` is then true (cel-go:
    // NotEqual is "Equal is not true").
    if (l.kind() == ValueKind::kOpaque && l.opaque().KubernetesEquality() &&
        !r.is_null() &&
        (r.kind() != ValueKind::kOpaque ||
         r.opaque().TypeName() != l.opaque().TypeName() ||
         !r.opaque().AcceptedAsEqualityOperand())) {
      return negate_ ? Value::Bool(true) : Value::Error("no such overload");
    }
    return Value::Bool(ValuesEqual(l, r) != negate_);
  }

 private:
  NodePtr lhs_, rhs_;
  bool negate_;
};

// A call to registered overloads, dispatched on the runtime argument kinds.
class CallNode final : public Node {
 public:
  CallNode(std::string function, std::vector<const FunctionOverload*> overloads,
           std::vector<FunctionImpl> specialized, std::vector<NodePtr> args)
      : function_(std::move(function)),
        overloads_(std::move(overloads)),
        specialized_(std::move(specialized)),
        args_(std::move(args)) {
    no_match_ = NoMatchRuleFor(
        function_, args_.size() == 2 && args_[1]->ConstantValue() != nullptr &&
                       args_[1]->ConstantValue()->kind() == ValueKind::kString);
    all_strict_ = true;
    for (const FunctionOverload* o : overloads_) all_strict_ &= o->strict;
    BuildTable();
  }

  Value Eval(Frame& f, bool) const override {
    constexpr size_t kInline = 4;
    Value inline_args[kInline];
    std::vector<Value> heap_args;
    Value* args = inline_args;
    const size_t n = args_.size();
    if (n > kInline) {
      heap_args.resize(n);
      args = heap_args.data();
    }
    for (size_t i = 0; i < n; ++i) {
      args[i] = args_[i]->Eval(f);
      if (f.cancelled) return CancelledError();
    }
    absl::Span<const Value> span(args, n);
    int chosen = -1;
    const Value* first_error = nullptr;
    for (size_t i = 0; i < n; ++i) {
      if (args[i].is_error()) {
        first_error = &args[i];
        break;
      }
    }
    if (first_error == nullptr || !all_strict_) {
      chosen = Dispatch(span, first_error != nullptr);
    }
    Value result;
    if (chosen >= 0) {
      const FunctionImpl& impl = specialized_[chosen]
                                     ? specialized_[chosen]
                                     : overloads_[chosen]->impl;
      result = impl(span);
    } else if (first_error != nullptr) {
      result = *first_error;
    } else {
      result = NoMatchingOverload(function_, no_match_, span);
    }
    // Cost: the chosen overload's (or the only candidate's) cost function.
    const FunctionOverload* costed =
        chosen >= 0 ? overloads_[chosen]
                    : (overloads_.size() == 1 ? overloads_[0] : nullptr);
    uint64_t cost = (costed != nullptr && costed->cost != nullptr)
                        ? costed->cost(span, result)
                        : 1;
    if (!f.Charge(cost)) return CancelledError();
    return result;
  }

 private:
  static constexpr uint8_t kNone = 0xFF;
  static constexpr uint8_t kSlow = 0xFE;

  // For arity 1 and 2, a table from argument kinds to overload index.
  void BuildTable() {
    const size_t n = args_.size();
    if (n == 0 || n > 2 || overloads_.size() >= kSlow) return;
    size_t cells = n == 1 ? kValueKindCount : kValueKindCount * kValueKindCount;
    table_.assign(cells, kNone);
    for (size_t cell = 0; cell < cells; ++cell) {
      ValueKind k[2] = {static_cast<ValueKind>(cell % kValueKindCount),
                        static_cast<ValueKind>(cell / kValueKindCount)};
      for (size_t o = 0; o < overloads_.size(); ++o) {
        bool match = true, slow = false;
        for (size_t i = 0; i < n; ++i) {
          const ArgType& p = overloads_[o]->params[i];
          if (p.any) continue;
          if (p.kind != k[i]) {
            match = false;
            break;
          }
          if (p.kind == ValueKind::kOpaque && !p.opaque_type.empty()) {
            slow = true;
          }
        }
        if (slow) {
          table_[cell] = kSlow;
          break;
        }
        if (match) {
          table_[cell] = static_cast<uint8_t>(o);
          break;
        }
      }
    }
  }

  int Dispatch(absl::Span<const Value> args, bool has_error) const {
    if (!table_.empty() && !has_error) {
      size_t cell = static_cast<size_t>(args[0].kind());
      if (args.size() == 2) {
        cell += kValueKindCount * static_cast<size_t>(args[1].kind());
      }
      uint8_t t = table_[cell];
      if (t == kNone) return -1;
      if (t != kSlow) return t;
    }
    for (size_t o = 0; o < overloads_.size(); ++o) {
      const FunctionOverload& ov = *overloads_[o];
      if (has_error && ov.strict) continue;
      bool match = true;
      for (size_t i = 0; i < args.size(); ++i) {
        if (!ov.params[i].Matches(args[i])) {
          match = false;
          break;
        }
      }
      if (match) return static_cast<int>(o);
    }
    return -1;
  }

  std::string function_;
  std::vector<const FunctionOverload*> overloads_;
  std::vector<FunctionImpl> specialized_;  // parallel to overloads_
  std::vector<NodePtr> args_;
  std::vector<uint8_t> table_;
  NoMatchRule no_match_;
  bool all_strict_ = true;
};

class ListNode final : public Node {
 public:
  ListNode(std::vector<NodePtr> elements, std::vector<bool> optional)
      : elements_(std::move(elements)), optional_(std::move(optional)) {
    // A literal of constants (cel.bind's `[]` range, `['a', 'b']`) is
    // built once: evaluating constants costs nothing and cannot fail, so
    // only the literal's own cost remains per evaluation. The shared list
    // is never mutated (in-place appends require a single reference).
    std::vector<Value> values;
    for (size_t i = 0; i < elements_.size(); ++i) {
      const Value* c = elements_[i]->ConstantValue();
      if (c == nullptr || c->is_error() || optional_[i]) return;
      values.push_back(*c);
    }
    constant_ = Value::List(std::move(values));
  }
  Value Eval(Frame& f, bool) const override {
    if (constant_.has_value()) {
      if (!f.Charge(10)) return CancelledError();
      return *constant_;
    }
    std::vector<Value> out;
    out.reserve(elements_.size());
    Value error;
    bool failed = false;
    for (size_t i = 0; i < elements_.size(); ++i) {
      Value v = elements_[i]->Eval(f);
      if (f.cancelled) return CancelledError();
      if (v.is_error()) {
        error = std::move(v);
        failed = true;
        break;
      }
      if (optional_[i]) {
        if (v.kind() != ValueKind::kOptional) {
          error = Value::Error(StrCat(
              "cannot initialize optional list element from non-optional "
              "value of type '",
              v.TypeName(), "'"));
          failed = true;
          break;
        }
        if (!v.optional_has_value()) continue;
        out.push_back(v.optional_value());
      } else {
        out.push_back(std::move(v));
      }
    }
    if (!f.Charge(10)) return CancelledError();
    if (failed) return error;
    return Value::List(std::move(out));
  }

 private:
  std::vector<NodePtr> elements_;
  std::vector<bool> optional_;
  std::optional<Value> constant_;
};

class MapNode final : public Node {
 public:
  struct Entry {
    NodePtr key;
    NodePtr value;
    bool optional;
  };
  explicit MapNode(std::vector<Entry> entries) : entries_(std::move(entries)) {}
  Value Eval(Frame& f, bool) const override {
    std::vector<std::pair<Value, Value>> out;
    out.reserve(entries_.size());
    Value error;
    bool failed = false;
    for (const Entry& e : entries_) {
      Value k = e.key->Eval(f);
      if (f.cancelled) return CancelledError();
      if (k.is_error()) {
        error = std::move(k);
        failed = true;
        break;
      }
      Value v = e.value->Eval(f);
      if (f.cancelled) return CancelledError();
      if (v.is_error()) {
        error = std::move(v);
        failed = true;
        break;
      }
      if (e.optional) {
        if (v.kind() != ValueKind::kOptional) {
          error = Value::Error(StrCat(
              "cannot initialize optional entry from non-optional value of "
              "type '",
              v.TypeName(), "'"));
          failed = true;
          break;
        }
        if (!v.optional_has_value()) continue;
        out.emplace_back(std::move(k), v.optional_value());
      } else {
        out.emplace_back(std::move(k), std::move(v));
      }
    }
    if (!f.Charge(30)) return CancelledError();
    if (failed) return error;
    return Value::Map(std::move(out));
  }

 private:
  std::vector<Entry> entries_;
};

// `accu + [elem]` (and `p ? accu + [elem] : accu`) in a comprehension step,
// appending in place when the accumulator list is not shared. Charges what
// the generic plan would: accumulator identifier 1, list literal 10,
// list concatenation 1 (cel-go's default cost for add_list).
class AccuAppendNode final : public Node {
 public:
  AccuAppendNode(int accu_slot, NodePtr predicate, NodePtr element)
      : accu_slot_(accu_slot),
        predicate_(std::move(predicate)),
        element_(std::move(element)) {}
  Value Eval(Frame& f, bool) const override {
    if (predicate_ != nullptr) {
      Value p = predicate_->Eval(f);
      if (f.cancelled) return CancelledError();
      if (p.is_error()) return p;
      if (!p.is_bool()) return Value::Error("no such overload");
      if (!p.bool_value()) {
        // The else branch: the accumulator identifier as a ?: branch
        // (attribute) is not charged.
        return f.slots[accu_slot_];
      }
    }
    if (!f.Charge(1)) return CancelledError();  // accumulator identifier
    Value elem = element_->Eval(f);
    if (f.cancelled) return CancelledError();
    if (!f.Charge(10)) return CancelledError();  // list literal
    if (elem.is_error()) {
      if (!f.Charge(1)) return CancelledError();
      Value& accu = f.slots[accu_slot_];
      return accu.is_error() ? accu : elem;
    }
    if (!f.Charge(1)) return CancelledError();  // _+_
    Value& accu = f.slots[accu_slot_];
    if (accu.is_error()) return accu;
    if (accu.kind() != ValueKind::kList) {
      Value rhs = Value::List({elem});
      return NoSuchOverload("_+_", {accu, rhs});
    }
    const HeapObject* obj = accu.heap_object();
    if (obj != nullptr && obj->HasOneRef()) {
      auto* data = const_cast<ListData*>(static_cast<const ListData*>(obj));
      data->mutable_elements().push_back(std::move(elem));
      return accu;
    }
    std::vector<Value> copy = accu.list();
    copy.push_back(std::move(elem));
    return Value::List(std::move(copy));
  }

 private:
  int accu_slot_;
  NodePtr predicate_;  // may be null
  NodePtr element_;
};

// `opt.or(other)` / `opt.orValue(default)`, as cel-go's evalOptionalOr /
// evalOptionalOrValue: the argument is evaluated only when the receiver is
// optional.none(); a receiver that is not an optional (an error included)
// is returned unchanged. These steps are not calls for the cost tracker, so
// they cost nothing themselves.
class OptionalOrNode final : public Node {
 public:
  OptionalOrNode(NodePtr target, NodePtr arg, bool or_value)
      : target_(std::move(target)), arg_(std::move(arg)), or_value_(or_value) {}
  Value Eval(Frame& f, bool) const override {
    if (or_value_) {
      bool optional = false, has_value = false;
      Value t = target_->EvalUnboxed(f, &optional, &has_value);
      if (f.cancelled) return CancelledError();
      if (!optional || has_value) return t;
    } else {
      Value t = target_->Eval(f);
      if (f.cancelled) return CancelledError();
      if (t.kind() != ValueKind::kOptional) return t;
      if (t.optional_has_value()) return t;
    }
    Value a = arg_->Eval(f);
    if (f.cancelled) return CancelledError();
    return a;
  }

 private:
  NodePtr target_, arg_;
  bool or_value_;
};

class ComprehensionNode final : public Node {
 public:
  ComprehensionNode(int iter_slot, int iter2_slot, int accu_slot, NodePtr range,
                    NodePtr init, NodePtr cond, NodePtr step, NodePtr result)
      : iter_slot_(iter_slot),
        iter2_slot_(iter2_slot),
        accu_slot_(accu_slot),
        range_(std::move(range)),
        init_(std::move(init)),
        cond_(std::move(cond)),
        step_(std::move(step)),
        result_(std::move(result)) {}

  Value Eval(Frame& f, bool) const override {
    Value range = range_->Eval(f);
    if (f.cancelled) return CancelledError();
    if (range.is_error()) return range;
    if (range.kind() != ValueKind::kList && range.kind() != ValueKind::kMap) {
      // cel-go's texts differ between its two-variable (fold) and
      // one-variable comprehensions.
      if (iter2_slot_ >= 0) {
        return Value::Error(StrCat("unsupported comprehension range type: ",
                                   GoTypeName(range)));
      }
      return Value::Error(
          StrCat("got '", GoTypeName(range), "', expected iterable type"));
    }
    Value accu = init_->Eval(f);
    if (f.cancelled) return CancelledError();
    f.slots[accu_slot_] = std::move(accu);
    bool ok = true;
    if (range.kind() == ValueKind::kList) {
      const auto& elems = range.list();
      for (size_t i = 0; i < elems.size() && ok; ++i) {
        if (iter2_slot_ >= 0) {
          f.slots[iter_slot_] = Value::Int(static_cast<int64_t>(i));
          f.slots[iter2_slot_] = elems[i];
        } else {
          f.slots[iter_slot_] = elems[i];
        }
        ok = Step(f);
      }
    } else {
      for (const MapData::Entry& e : range.map().entries()) {
        if (!ok) break;
        f.slots[iter_slot_] = e.key;
        if (iter2_slot_ >= 0) f.slots[iter2_slot_] = e.value;
        ok = Step(f);
      }
    }
    Value out;
    if (!f.cancelled) out = result_->Eval(f);
    f.slots[iter_slot_] = Value();
    if (iter2_slot_ >= 0) f.slots[iter2_slot_] = Value();
    f.slots[accu_slot_] = Value();
    if (f.cancelled) return CancelledError();
    return out;
  }

 private:
  // One iteration; false to stop (condition false or cancelled).
  bool Step(Frame& f) const {
    Value c = cond_->Eval(f);
    if (f.cancelled) return false;
    if (c.IsFalse()) return false;
    Value next = step_->Eval(f);
    if (f.cancelled) return false;
    f.slots[accu_slot_] = std::move(next);
    return true;
  }

  int iter_slot_, iter2_slot_, accu_slot_;
  NodePtr range_, init_, cond_, step_, result_;
};

// --- Planner ---

bool IsBuiltinTypeName(std::string_view name) {
  static constexpr std::string_view kNames[] = {"int",
                                                "uint",
                                                "double",
                                                "bool",
                                                "string",
                                                "bytes",
                                                "list",
                                                "map",
                                                "null_type",
                                                "type",
                                                "optional_type",
                                                "google.protobuf.Timestamp",
                                                "google.protobuf.Duration"};
  // `dyn` is a type only in type positions (dyn(x) is a function); a bare
  // `dyn` is an unknown variable, as in cel-go.
  for (std::string_view n : kNames) {
    if (n == name) return true;
  }
  return false;
}

class ProgramImpl final : public Program {
 public:
  ProgramImpl(NodePtr root, int slots)
      : root_(std::move(root)), slots_(slots) {}
  EvalResult Evaluate(const Activation& activation,
                      const EvalOptions& options) const override {
    constexpr int kInlineSlots = 8;
    Value inline_slots[kInlineSlots];
    std::vector<Value> heap_slots;
    Value* slots = inline_slots;
    if (slots_ > kInlineSlots) {
      heap_slots.resize(slots_);
      slots = heap_slots.data();
    }
    Frame f{activation, slots, options.cost_limit,
            options.presence_test_has_cost};
    EvalResult result;
    result.value = root_->Eval(f);
    if (f.cancelled) result.value = CancelledError();
    result.actual_cost = f.cost;
    return result;
  }

 private:
  NodePtr root_;
  int slots_;
};

// `x in <constant list>` after cel-go's set-membership optimisation: the
// same answer as in_list, but observed without a call cost.
class SetMembershipNode final : public Node {
 public:
  SetMembershipNode(NodePtr arg, Value list)
      : arg_(std::move(arg)), list_(std::move(list)) {}
  Value Eval(Frame& f, bool) const override {
    Value v = arg_->Eval(f);
    if (f.cancelled) return CancelledError();
    if (v.is_error()) return v;
    for (const Value& e : list_.list()) {
      if (ValuesEqual(v, e)) return Value::Bool(true);
    }
    return Value::Bool(false);
  }

 private:
  NodePtr arg_;
  Value list_;
};

// Evaluates a node whose inputs are all constants, at plan time.
Value EvalAtPlanTime(const Node& node) {
  static const MapActivation* empty = new MapActivation();
  Value slots[1];
  Frame f{*empty, slots, std::numeric_limits<uint64_t>::max(), true};
  return node.Eval(f);
}

bool IsTypeConversion(std::string_view fn) {
  for (std::string_view c : {"bool", "bytes", "double", "duration", "dyn",
                             "int", "string", "timestamp", "type", "uint"}) {
    if (fn == c) return true;
  }
  return false;
}

bool IsPrimitive(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kBool:
    case ValueKind::kDouble:
    case ValueKind::kInt:
    case ValueKind::kString:
    case ValueKind::kUint:
      return true;
    default:
      return false;  // bytes are primitive but not hashable in cel-go
  }
}

class Planner {
 public:
  Planner(const FunctionRegistry& functions, const PlanOptions& options)
      : functions_(functions), options_(options) {}

  absl::StatusOr<NodePtr> Plan(const Expr& e, int depth = 0) {
    if (depth > kMaxDepth) {
      return absl::InvalidArgumentError("expression nested too deeply");
    }
    if (const auto* c = e.As<ConstExpr>()) return PlanConst(*c);
    if (const auto* id = e.As<IdentExpr>()) return PlanIdent(*id);
    if (const auto* sel = e.As<SelectExpr>()) return PlanSelect(*sel, depth);
    if (const auto* call = e.As<CallExpr>()) return PlanCall(*call, depth);
    if (const auto* list = e.As<ListExpr>()) return PlanList(*list, depth);
    if (const auto* map = e.As<MapExpr>()) return PlanMap(*map, depth);
    if (const auto* st = e.As<StructExpr>()) {
      return absl::InvalidArgumentError(
          StrCat("unknown type: ", st->message_name,
                 " (message construction is not supported)"));
    }
    if (const auto* comp = e.As<ComprehensionExpr>()) {
      return PlanComprehension(*comp, depth);
    }
    return absl::InvalidArgumentError("unsupported expression");
  }

  int max_slots() const { return max_slots_; }

 private:
  static constexpr int kMaxDepth = 1000;

  struct Local {
    std::string name;
    int slot;
  };

  std::optional<int> FindLocal(std::string_view name) const {
    for (auto it = locals_.rbegin(); it != locals_.rend(); ++it) {
      if (it->name == name) return it->slot;
    }
    return std::nullopt;
  }

  int AllocSlot() {
    int s = next_slot_++;
    if (next_slot_ > max_slots_) max_slots_ = next_slot_;
    return s;
  }

  absl::StatusOr<NodePtr> PlanConst(const ConstExpr& c) {
    Value v;
    std::visit(
        [&](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, NullValue>) {
            v = Value::Null();
          } else if constexpr (std::is_same_v<T, bool>) {
            v = Value::Bool(x);
          } else if constexpr (std::is_same_v<T, int64_t>) {
            v = Value::Int(x);
          } else if constexpr (std::is_same_v<T, uint64_t>) {
            v = Value::Uint(x);
          } else if constexpr (std::is_same_v<T, double>) {
            v = Value::Double(x);
          } else if constexpr (std::is_same_v<T, std::string>) {
            v = Value::String(x);
          } else {
            v = Value::Bytes(x.bytes);
          }
        },
        c.value);
    return NodePtr(std::make_unique<ConstNode>(std::move(v)));
  }

  // If `e` is an identifier or a chain of (non-test-only) selections on
  // one, returns the dotted name ("a.b.c"); leading dots are kept.
  static bool QualifiedName(const Expr& e, std::string* out) {
    if (const auto* id = e.As<IdentExpr>()) {
      *out = id->name;
      return true;
    }
    if (const auto* sel = e.As<SelectExpr>()) {
      if (sel->test_only) return false;
      if (!QualifiedName(*sel->operand, out)) return false;
      out->push_back('.');
      out->append(sel->field);
      return true;
    }
    return false;
  }

  // Plans a dotted name `a.b.c` that does not start with a local.
  absl::StatusOr<NodePtr> PlanGlobalName(std::string name) {
    if (!name.empty() && name[0] == '.') name.erase(0, 1);
    std::vector<std::string> parts;
    size_t start = 0;
    while (true) {
      size_t dot = name.find('.', start);
      parts.push_back(name.substr(start, dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    std::vector<GlobalNameNode::Candidate> candidates;
    for (size_t n = parts.size(); n >= 1; --n) {
      GlobalNameNode::Candidate c;
      for (size_t i = 0; i < n; ++i) {
        if (i > 0) c.name.push_back('.');
        c.name.append(parts[i]);
      }
      c.fields.assign(parts.begin() + n, parts.end());
      candidates.push_back(std::move(c));
    }
    // Type names (possibly followed by selections, which then fail at
    // runtime) resolve to constants, as a checked cel-go program does.
    for (const auto& c : candidates) {
      if ((IsBuiltinTypeName(c.name) || functions_.HasTypeName(c.name)) &&
          !(options_.is_declared_variable &&
            options_.is_declared_variable(c.name))) {
        NodePtr node = std::make_unique<ConstNode>(Value::Type(c.name));
        for (const std::string& field : c.fields) {
          node = std::make_unique<SelectNode>(std::move(node), field, false);
        }
        return node;
      }
    }
    if (options_.is_declared_variable) {
      for (auto& c : candidates) {
        if (options_.is_declared_variable(c.name)) {
          std::vector<GlobalNameNode::Candidate> one;
          one.push_back(std::move(c));
          return NodePtr(std::make_unique<GlobalNameNode>(std::move(one)));
        }
      }
    }
    return NodePtr(std::make_unique<GlobalNameNode>(std::move(candidates)));
  }

  absl::StatusOr<NodePtr> PlanIdent(const IdentExpr& id) {
    if (id.name.empty() || id.name[0] != '.') {
      if (std::optional<int> slot = FindLocal(id.name)) {
        return NodePtr(std::make_unique<SlotNode>(*slot));
      }
    }
    return PlanGlobalName(id.name);
  }

  absl::StatusOr<NodePtr> PlanSelect(const SelectExpr& sel, int depth) {
    if (!sel.test_only) {
      std::string name;
      if (QualifiedName(*sel.operand, &name)) {
        std::string root = name.substr(0, name.find('.'));
        bool local = !root.empty() && root[0] != '.' && FindLocal(root);
        if (!local) return PlanGlobalName(name + "." + sel.field);
      }
    }
    absl::StatusOr<NodePtr> operand = Plan(*sel.operand, depth + 1);
    if (!operand.ok()) return operand.status();
    if (sel.test_only) {
      return NodePtr(
          std::make_unique<TestOnlyNode>(std::move(*operand), sel.field));
    }
    return NodePtr(
        std::make_unique<SelectNode>(std::move(*operand), sel.field, false));
  }

  absl::StatusOr<std::vector<NodePtr>> PlanArgs(
      const std::vector<ExprPtr>& args, int depth) {
    std::vector<NodePtr> out;
    out.reserve(args.size());
    for (const ExprPtr& a : args) {
      absl::StatusOr<NodePtr> n = Plan(*a, depth + 1);
      if (!n.ok()) return n.status();
      out.push_back(std::move(*n));
    }
    return out;
  }

  absl::StatusOr<NodePtr> PlanCall(const CallExpr& call, int depth) {
    const std::string& fn = call.function;
    if (call.target == nullptr) {
      size_t n = call.args.size();
      auto need = [&](size_t k) -> absl::Status {
        if (n != k) {
          return absl::InvalidArgumentError(
              StrCat("operator ", fn, " takes ", k, " arguments, got ", n));
        }
        return absl::OkStatus();
      };
      if (fn == op::kLogicalAnd || fn == op::kLogicalOr || fn == op::kEquals ||
          fn == op::kNotEquals || fn == op::kIndex || fn == op::kOptIndex ||
          fn == op::kOptSelect) {
        if (absl::Status s = need(2); !s.ok()) return s;
        if (fn == op::kOptSelect) {
          const auto* field = call.args[1]->As<ConstExpr>();
          if (field == nullptr ||
              !std::holds_alternative<std::string>(field->value)) {
            return absl::InvalidArgumentError(
                "optional selection needs a field name");
          }
          absl::StatusOr<NodePtr> operand = Plan(*call.args[0], depth + 1);
          if (!operand.ok()) return operand.status();
          return NodePtr(std::make_unique<SelectNode>(
              std::move(*operand), std::get<std::string>(field->value), true));
        }
        absl::StatusOr<std::vector<NodePtr>> args = PlanArgs(call.args, depth);
        if (!args.ok()) return args.status();
        NodePtr a = std::move((*args)[0]);
        NodePtr b = std::move((*args)[1]);
        if (fn == op::kLogicalAnd) {
          return NodePtr(std::make_unique<AndNode>(std::move(a), std::move(b)));
        }
        if (fn == op::kLogicalOr) {
          return NodePtr(std::make_unique<OrNode>(std::move(a), std::move(b)));
        }
        if (fn == op::kEquals || fn == op::kNotEquals) {
          return NodePtr(std::make_unique<EqualityNode>(
              std::move(a), std::move(b), fn == op::kNotEquals));
        }
        return NodePtr(std::make_unique<IndexNode>(std::move(a), std::move(b),
                                                   fn == op::kOptIndex));
      }
      if (fn == op::kConditional) {
        if (absl::Status s = need(3); !s.ok()) return s;
        absl::StatusOr<std::vector<NodePtr>> args = PlanArgs(call.args, depth);
        if (!args.ok()) return args.status();
        return NodePtr(std::make_unique<ConditionalNode>(
            std::move((*args)[0]), std::move((*args)[1]),
            std::move((*args)[2])));
      }
      return PlanFunction(fn, /*receiver_style=*/false, nullptr, call.args,
                          depth);
    }
    // A receiver call whose target is a qualified name may be a namespaced
    // global function (optional.of, optional.none, ...).
    std::string qualified;
    if (QualifiedName(*call.target, &qualified)) {
      std::string root = qualified.substr(0, qualified.find('.'));
      bool local = !root.empty() && root[0] != '.' && FindLocal(root);
      if (!qualified.empty() && qualified[0] == '.') qualified.erase(0, 1);
      std::string global = qualified + "." + fn;
      if (!local && functions_.HasFunction(global)) {
        return PlanFunction(global, false, nullptr, call.args, depth);
      }
    }
    return PlanFunction(fn, /*receiver_style=*/true, call.target.get(),
                        call.args, depth);
  }

  absl::StatusOr<NodePtr> PlanFunction(const std::string& fn,
                                       bool receiver_style, const Expr* target,
                                       const std::vector<ExprPtr>& args,
                                       int depth) {
    size_t arity = args.size() + (target != nullptr ? 1 : 0);
    std::vector<const FunctionOverload*> overloads =
        functions_.Find(fn, receiver_style, arity);
    if (overloads.empty() && options_.unknown_functions_are_runtime_errors) {
      return NodePtr(std::make_unique<ConstNode>(
          Value::Error(StrCat("no such overload: ", fn))));
    }
    if (overloads.empty()) {
      if (!functions_.HasFunction(fn)) {
        return absl::InvalidArgumentError(
            StrCat("undeclared reference to '", fn, "'"));
      }
      return absl::InvalidArgumentError(StrCat(
          "no matching overload for '", fn, "' with ", arity,
          receiver_style ? " arguments (receiver style)" : " arguments"));
    }
    std::vector<NodePtr> nodes;
    if (target != nullptr) {
      absl::StatusOr<NodePtr> t = Plan(*target, depth + 1);
      if (!t.ok()) return t.status();
      nodes.push_back(std::move(*t));
    }
    absl::StatusOr<std::vector<NodePtr>> rest = PlanArgs(args, depth);
    if (!rest.ok()) return rest.status();
    for (NodePtr& n : *rest) nodes.push_back(std::move(n));
    if (receiver_style && nodes.size() == 2 && overloads.size() == 1 &&
        (overloads[0]->overload_id == "optional_or_optional" ||
         overloads[0]->overload_id == "optional_orValue_value")) {
      return NodePtr(std::make_unique<OptionalOrNode>(
          std::move(nodes[0]), std::move(nodes[1]), fn == "orValue"));
    }
    if (options_.optimize && !receiver_style && nodes.size() == 1 &&
        IsTypeConversion(fn) && nodes[0]->ConstantValue() != nullptr) {
      std::vector<FunctionImpl> none(overloads.size());
      CallNode call(fn, std::move(overloads), std::move(none),
                    std::move(nodes));
      Value v = EvalAtPlanTime(call);
      if (v.is_error()) {
        return absl::FailedPreconditionError(
            StrCat("program instantiation failed: ", v.error_message()));
      }
      return NodePtr(std::make_unique<ConstNode>(std::move(v)));
    }
    if (options_.optimize && fn == op::kIn && nodes.size() == 2) {
      const Value* list = nodes[1]->ConstantValue();
      bool primitives = list != nullptr && list->kind() == ValueKind::kList;
      if (primitives) {
        for (const Value& e : list->list()) primitives &= IsPrimitive(e);
      }
      if (primitives && list->list().empty()) {
        return NodePtr(std::make_unique<ConstNode>(Value::Bool(false)));
      }
      if (primitives) {
        Value l = *list;
        return NodePtr(
            std::make_unique<SetMembershipNode>(std::move(nodes[0]), l));
      }
    }
    std::vector<FunctionImpl> specialized(overloads.size());
    std::vector<const Value*> constants;
    for (const NodePtr& n : nodes) constants.push_back(n->ConstantValue());
    if (options_.optimize) {
      for (const FunctionOverload* o : overloads) {
        if (!o->plan_time_error) continue;
        if (std::optional<std::string> error = o->plan_time_error(constants)) {
          return absl::FailedPreconditionError(
              StrCat("program instantiation failed: ", *error));
        }
      }
    }
    for (size_t i = 0; i < overloads.size(); ++i) {
      if (overloads[i]->specialize) {
        specialized[i] = overloads[i]->specialize(constants);
      }
    }
    return NodePtr(std::make_unique<CallNode>(
        fn, std::move(overloads), std::move(specialized), std::move(nodes)));
  }

  absl::StatusOr<NodePtr> PlanList(const ListExpr& list, int depth) {
    absl::StatusOr<std::vector<NodePtr>> elems = PlanArgs(list.elements, depth);
    if (!elems.ok()) return elems.status();
    std::vector<bool> optional(list.elements.size(), false);
    for (int32_t i : list.optional_indices) {
      if (i < 0 || static_cast<size_t>(i) >= optional.size()) {
        return absl::InvalidArgumentError("optional index out of range");
      }
      optional[i] = true;
    }
    bool constant = options_.optimize;
    for (const NodePtr& n : *elems) constant &= n->ConstantValue() != nullptr;
    NodePtr node =
        std::make_unique<ListNode>(std::move(*elems), std::move(optional));
    if (constant)
      return NodePtr(std::make_unique<ConstNode>(EvalAtPlanTime(*node)));
    return node;
  }

  absl::StatusOr<NodePtr> PlanMap(const MapExpr& map, int depth) {
    std::vector<MapNode::Entry> entries;
    for (const MapEntry& e : map.entries) {
      absl::StatusOr<NodePtr> k = Plan(*e.key, depth + 1);
      if (!k.ok()) return k.status();
      absl::StatusOr<NodePtr> v = Plan(*e.value, depth + 1);
      if (!v.ok()) return v.status();
      entries.push_back({std::move(*k), std::move(*v), e.optional});
    }
    bool constant = options_.optimize;
    for (const MapNode::Entry& e : entries) {
      constant &= e.key->ConstantValue() != nullptr &&
                  e.value->ConstantValue() != nullptr;
    }
    NodePtr node = std::make_unique<MapNode>(std::move(entries));
    if (constant)
      return NodePtr(std::make_unique<ConstNode>(EvalAtPlanTime(*node)));
    return node;
  }

  // Recognises `accu + [e]` with accu the accumulator identifier.
  const Expr* AppendElement(const Expr& e, const std::string& accu) {
    const auto* call = e.As<CallExpr>();
    if (call == nullptr || call->target != nullptr ||
        call->function != op::kAdd || call->args.size() != 2) {
      return nullptr;
    }
    const auto* id = call->args[0]->As<IdentExpr>();
    const auto* list = call->args[1]->As<ListExpr>();
    if (id == nullptr || id->name != accu || list == nullptr ||
        list->elements.size() != 1 || !list->optional_indices.empty()) {
      return nullptr;
    }
    return list->elements[0].get();
  }

  absl::StatusOr<NodePtr> PlanStep(const Expr& step, const std::string& accu,
                                   int accu_slot, int depth) {
    // Only when `_+_` on lists is the standard one (registered here).
    if (functions_.HasFunction(op::kAdd)) {
      if (const Expr* elem = AppendElement(step, accu)) {
        absl::StatusOr<NodePtr> en = Plan(*elem, depth + 1);
        if (!en.ok()) return en.status();
        return NodePtr(std::make_unique<AccuAppendNode>(accu_slot, nullptr,
                                                        std::move(*en)));
      }
      const auto* cond = step.As<CallExpr>();
      if (cond != nullptr && cond->target == nullptr &&
          cond->function == op::kConditional && cond->args.size() == 3) {
        const auto* other = cond->args[2]->As<IdentExpr>();
        const Expr* elem = AppendElement(*cond->args[1], accu);
        if (elem != nullptr && other != nullptr && other->name == accu) {
          absl::StatusOr<NodePtr> pn = Plan(*cond->args[0], depth + 1);
          if (!pn.ok()) return pn.status();
          absl::StatusOr<NodePtr> en = Plan(*elem, depth + 1);
          if (!en.ok()) return en.status();
          return NodePtr(std::make_unique<AccuAppendNode>(
              accu_slot, std::move(*pn), std::move(*en)));
        }
      }
    }
    return Plan(step, depth + 1);
  }

  absl::StatusOr<NodePtr> PlanComprehension(const ComprehensionExpr& c,
                                            int depth) {
    if (!c.iter_range || !c.accu_init || !c.loop_condition || !c.loop_step ||
        !c.result) {
      return absl::InvalidArgumentError("malformed comprehension");
    }
    absl::StatusOr<NodePtr> range = Plan(*c.iter_range, depth + 1);
    if (!range.ok()) return range.status();
    absl::StatusOr<NodePtr> init = Plan(*c.accu_init, depth + 1);
    if (!init.ok()) return init.status();
    int saved_next = next_slot_;
    size_t saved_locals = locals_.size();
    int accu_slot = AllocSlot();
    int iter_slot = AllocSlot();
    int iter2_slot = c.iter_var2.empty() ? -1 : AllocSlot();
    locals_.push_back({c.accu_var, accu_slot});
    locals_.push_back({c.iter_var, iter_slot});
    if (iter2_slot >= 0) locals_.push_back({c.iter_var2, iter2_slot});
    absl::StatusOr<NodePtr> cond = Plan(*c.loop_condition, depth + 1);
    absl::StatusOr<NodePtr> step =
        cond.ok() ? PlanStep(*c.loop_step, c.accu_var, accu_slot, depth)
                  : absl::StatusOr<NodePtr>(cond.status());
    // The result sees the accumulator but not the iteration variables.
    locals_.resize(saved_locals);
    locals_.push_back({c.accu_var, accu_slot});
    absl::StatusOr<NodePtr> result =
        step.ok() ? Plan(*c.result, depth + 1)
                  : absl::StatusOr<NodePtr>(step.status());
    locals_.resize(saved_locals);
    next_slot_ = saved_next;
    if (!result.ok()) return result.status();
    return NodePtr(std::make_unique<ComprehensionNode>(
        iter_slot, iter2_slot, accu_slot, std::move(*range), std::move(*init),
        std::move(*cond), std::move(*step), std::move(*result)));
  }

  const FunctionRegistry& functions_;
  const PlanOptions& options_;
  std::vector<Local> locals_;
  int next_slot_ = 0;
  int max_slots_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Program>> Plan(const Expr& root,
                                              const FunctionRegistry& functions,
                                              const PlanOptions& options) {
  Planner planner(functions, options);
  absl::StatusOr<NodePtr> node = planner.Plan(root);
  if (!node.ok()) return node.status();
  return std::unique_ptr<Program>(
      std::make_unique<ProgramImpl>(std::move(*node), planner.max_slots()));
}

}  // namespace draplane::cel::internal

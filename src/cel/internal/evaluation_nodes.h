// The interpreter's plan: one node type per kind of step (constants,
// variables, selections, calls, comprehensions, ...), each evaluating
// itself against a Frame, and the Program that runs a plan. The planner in
// interpreter.cc builds them from a checked AST. Private to the cel
// library.
#ifndef DRAPLANE_CEL_INTERNAL_EVALUATION_NODES_H_
#define DRAPLANE_CEL_INTERNAL_EVALUATION_NODES_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "cel/internal/evaluation_support.h"
#include "cel/internal/interpreter.h"
#include "common/str_cat.h"

namespace draplane::cel::internal::evaluation {

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
inline Value EvalAtPlanTime(const Node& node) {
  static const MapActivation* empty = new MapActivation();
  Value slots[1];
  Frame f{*empty, slots, std::numeric_limits<uint64_t>::max(), true};
  return node.Eval(f);
}

}  // namespace draplane::cel::internal::evaluation

#endif  // DRAPLANE_CEL_INTERNAL_EVALUATION_NODES_H_

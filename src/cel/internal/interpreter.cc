#include "cel/internal/interpreter.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "cel/internal/evaluation_nodes.h"
#include "cel/internal/evaluation_support.h"
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

// The planner: a checked AST to a tree of plan nodes (evaluation_nodes.h).
namespace evaluation {
namespace {

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
    constants.reserve(nodes.size());
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
}  // namespace evaluation

absl::StatusOr<std::unique_ptr<Program>> Plan(const Expr& root,
                                              const FunctionRegistry& functions,
                                              const PlanOptions& options) {
  evaluation::Planner planner(functions, options);
  absl::StatusOr<evaluation::NodePtr> node = planner.Plan(root);
  if (!node.ok()) return node.status();
  return std::unique_ptr<Program>(std::make_unique<evaluation::ProgramImpl>(
      std::move(*node), planner.max_slots()));
}

}  // namespace draplane::cel::internal

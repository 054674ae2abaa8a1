#include "cel/internal/cost_estimator.h"

#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>
#include <utility>

#include "absl/status/status.h"
#include "common/str_cat.h"

namespace draplane::cel::internal {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

// cel-go common/cost.go.
constexpr uint64_t kSelectAndIdentCost = 1;
constexpr uint64_t kListCreateBaseCost = 10;
constexpr uint64_t kMapCreateBaseCost = 30;
constexpr uint64_t kStructCreateBaseCost = 40;
constexpr double kStringTraversalCostFactor = 0.1;
constexpr double kRegexStringLengthCostFactor = 0.25;
// k8s.io/apiserver pkg/cel/limits.go.
constexpr uint64_t kMaxFormatSize = 64;
constexpr double kMaxNameFormatRegexSize = 128;

// --- Saturating arithmetic (cel-go checker/cost.go) ---

uint64_t AddSat(uint64_t x, uint64_t y) {
  return (y > 0 && x > kMax - y) ? kMax : x + y;
}
uint64_t MulSat(uint64_t x, uint64_t y) {
  return (y != 0 && x > kMax / y) ? kMax : x * y;
}
uint64_t MulFactor(uint64_t x, double y) {
  double xf = static_cast<double>(x);
  if (xf > 0 && y > 0 && xf > static_cast<double>(kMax) / y) return kMax;
  double c = std::ceil(xf * y);
  if (c >= std::ldexp(1.0, 64)) return kMax;
  return static_cast<uint64_t>(c);
}

CostEstimate Add(CostEstimate a, CostEstimate b) {
  return {AddSat(a.min, b.min), AddSat(a.max, b.max)};
}
CostEstimate Fixed(uint64_t c) { return {c, c}; }
CostEstimate Multiply(CostEstimate a, CostEstimate b) {
  return {MulSat(a.min, b.min), MulSat(a.max, b.max)};
}
CostEstimate Factor(CostEstimate a, double f) {
  return {MulFactor(a.min, f), MulFactor(a.max, f)};
}
CostEstimate Union(CostEstimate a, CostEstimate b) {
  return {std::min(a.min, b.min), std::max(a.max, b.max)};
}

SizeEstimate Add(SizeEstimate a, SizeEstimate b) {
  return {AddSat(a.min, b.min), AddSat(a.max, b.max)};
}
SizeEstimate Multiply(SizeEstimate a, SizeEstimate b) {
  return {MulSat(a.min, b.min), MulSat(a.max, b.max)};
}
SizeEstimate Union(SizeEstimate a, SizeEstimate b) {
  return {std::min(a.min, b.min), std::max(a.max, b.max)};
}
SizeEstimate FixedSize(uint64_t s) { return {s, s}; }
CostEstimate Factor(SizeEstimate a, double f) {
  return {MulFactor(a.min, f), MulFactor(a.max, f)};
}
CostEstimate MultiplyByCost(SizeEstimate a, CostEstimate c) {
  return {MulSat(a.min, c.min), MulSat(a.max, c.max)};
}

constexpr SizeEstimate kUnknownSize = {0, kMax};

// The element sizes of a list or map value (cel-go entrySizeEstimate).
struct EntrySize {
  TypeKind container;
  SizeEstimate key;
  SizeEstimate val;
};

std::optional<EntrySize> UnionEntries(const std::optional<EntrySize>& a,
                                      const std::optional<EntrySize>& b) {
  if (!a || !b) return std::nullopt;
  return EntrySize{a->container, Union(a->key, b->key), Union(a->val, b->val)};
}

// A comprehension or cel.bind variable in scope.
struct LocalVar {
  std::vector<std::string> path;
  std::optional<SizeEstimate> size;
  std::optional<EntrySize> entry;
};

// What a call estimator sees of an argument (cel-go AstNode).
struct Node {
  std::vector<std::string> path;
  Type type;
  const Expr* expr = nullptr;  // nullptr for synthetic list-element nodes
  std::optional<SizeEstimate> computed;
};

struct CallEstimate {
  CostEstimate cost;
  std::optional<SizeEstimate> result_size = std::nullopt;
};

bool IsAccumulatorVar(std::string_view name) {
  return name == kAccumulatorName || name == "__result__";
}

bool IsScalar(const Type& t) {
  switch (t.kind()) {
    case TypeKind::kBool:
    case TypeKind::kDouble:
    case TypeKind::kDuration:
    case TypeKind::kInt:
    case TypeKind::kTimestamp:
    case TypeKind::kUint:
      return true;
    case TypeKind::kOpaque:
      return t.is_optional() && IsScalar(t.params()[0]);
    default:
      return false;
  }
}

// The value of an int literal node as uint64 (negative: 0), else `dflt`
// (cel-go ext nodeAsUintValue).
uint64_t NodeAsUint(const Node& n, uint64_t dflt) {
  if (n.expr == nullptr) return dflt;
  const auto* c = n.expr->As<ConstExpr>();
  if (c == nullptr) return dflt;
  const auto* i = std::get_if<int64_t>(&c->value);
  if (i == nullptr) return dflt;
  return *i < 0 ? 0 : static_cast<uint64_t>(*i);
}

class Coster {
 public:
  Coster(const CheckedExpr& checked, const CostOptions& options)
      : checked_(checked),
        options_(options),
        presence_cost_(
            Fixed(options.presence_test_has_cost ? kSelectAndIdentCost : 0)) {}

  absl::StatusOr<CostEstimate> Run(const Expr& root) {
    if (checked_.types.count(root.id) == 0) {
      return absl::InvalidArgumentError(
          "cost estimation: the checked expression does not describe the "
          "expression");
    }
    return Cost(root);
  }

 private:
  // --- Bookkeeping ---

  // The checked type of `e`; dyn for nodes the checker does not type
  // (the field name argument of `_?._`), as cel-go's AST.GetType.
  const Type& TypeOf(const Expr& e) const {
    auto it = checked_.types.find(e.id);
    if (it != checked_.types.end()) return it->second;
    static const Type* dyn = new Type(Type::Dyn());
    return *dyn;
  }

  // The name an identifier (or a select resolved as a qualified
  // identifier) refers to.
  std::optional<std::string> IdentName(const Expr& e) const {
    auto it = checked_.references.find(e.id);
    if (it != checked_.references.end()) return it->second;
    if (const auto* id = e.As<IdentExpr>()) return id->name;
    return std::nullopt;
  }

  const LocalVar* PeekLocal(const std::string& name) const {
    auto it = locals_.find(name);
    if (it == locals_.end() || it->second.empty()) return nullptr;
    return &it->second.back();
  }
  void PushLocal(const std::string& name, LocalVar v) {
    locals_[name].push_back(std::move(v));
  }
  void PopLocal(const std::string& name) { locals_[name].pop_back(); }

  std::vector<std::string> PathOf(const Expr& e) const {
    if (e.As<IdentExpr>() != nullptr) {
      if (auto name = IdentName(e)) {
        if (const LocalVar* v = PeekLocal(*name)) return v->path;
      }
    }
    auto it = paths_.find(e.id);
    return it == paths_.end() ? std::vector<std::string>{} : it->second;
  }
  void SetPath(const Expr& e, std::vector<std::string> path) {
    paths_[e.id] = std::move(path);
  }

  void SetSize(const Expr& e, const std::optional<SizeEstimate>& size) {
    if (size) sizes_[e.id] = *size;
  }
  void SetEntrySize(const Expr& e, const std::optional<EntrySize>& size) {
    if (size) entry_sizes_[e.id] = *size;
  }

  std::optional<SizeEstimate> EstimateVariableSize(
      const std::vector<std::string>& path, const Type& type) const {
    if (options_.sizes == nullptr || path.empty()) return std::nullopt;
    return options_.sizes->EstimateSize(path, type);
  }

  // cel-go coster.computeSize.
  std::optional<SizeEstimate> ComputeSize(const Expr& e) {
    auto it = sizes_.find(e.id);
    if (it != sizes_.end()) return it->second;
    if (auto s = ExprSize(e)) return s;
    if (auto s = EstimateVariableSize(PathOf(e), TypeOf(e))) {
      sizes_[e.id] = *s;
      return s;
    }
    if (IsScalar(TypeOf(e))) return FixedSize(1);
    if (e.As<IdentExpr>() != nullptr) {
      if (auto name = IdentName(e)) {
        if (const LocalVar* v = PeekLocal(*name); v != nullptr && v->size) {
          return v->size;
        }
      }
    }
    return std::nullopt;
  }

  // Sizes known from the literal itself.
  static std::optional<SizeEstimate> ExprSize(const Expr& e) {
    if (const auto* c = e.As<ConstExpr>()) {
      if (const auto* s = std::get_if<std::string>(&c->value)) {
        return FixedSize(Utf8CodePointCount(*s));
      }
      if (const auto* b = std::get_if<BytesValue>(&c->value)) {
        return FixedSize(b->bytes.size());
      }
      return FixedSize(1);
    }
    if (const auto* l = e.As<ListExpr>()) return FixedSize(l->elements.size());
    if (const auto* m = e.As<MapExpr>()) return FixedSize(m->entries.size());
    return std::nullopt;
  }

  static uint64_t Utf8CodePointCount(const std::string& s) {
    uint64_t n = 0;
    for (unsigned char c : s) {
      if ((c & 0xC0) != 0x80) ++n;
    }
    return n;
  }

  std::optional<EntrySize> ComputeEntrySize(const Expr& e) const {
    auto it = entry_sizes_.find(e.id);
    if (it != entry_sizes_.end()) return it->second;
    if (e.As<IdentExpr>() != nullptr) {
      if (auto name = IdentName(e)) {
        if (const LocalVar* v = PeekLocal(*name); v != nullptr && v->entry) {
          return v->entry;
        }
      }
    }
    return std::nullopt;
  }

  SizeEstimate SizeOrUnknown(const Expr& e) {
    auto s = ComputeSize(e);
    return s ? *s : kUnknownSize;
  }
  static SizeEstimate SizeOrUnknown(const Node& n) {
    return n.computed ? *n.computed : kUnknownSize;
  }

  // cel-go newAstNode.
  Node NewNode(const Expr& e) {
    Node n;
    n.path = PathOf(e);
    if (!n.path.empty() && IsAccumulatorVar(n.path[0])) n.path.clear();
    n.type = TypeOf(e);
    n.expr = &e;
    n.computed = ComputeSize(e);
    return n;
  }

  // The size of a call argument as the library estimators take it: its
  // computed size, else the variable size estimate, else unknown.
  SizeEstimate EstimateSize(const Node& n) const {
    if (n.computed) return *n.computed;
    if (auto s = EstimateVariableSize(n.path, n.type)) return *s;
    return kUnknownSize;
  }

  // --- The walk (cel-go coster.cost) ---

  CostEstimate Cost(const Expr& e) {
    if (e.As<ConstExpr>() != nullptr) return Fixed(0);
    if (e.As<IdentExpr>() != nullptr) return CostIdent(e);
    if (const auto* sel = e.As<SelectExpr>()) {
      // A select the checker resolved as a qualified identifier.
      if (checked_.references.count(e.id) > 0) return CostIdent(e);
      return CostSelect(e, *sel);
    }
    if (const auto* call = e.As<CallExpr>()) return CostCall(e, *call);
    if (const auto* list = e.As<ListExpr>()) return CostList(e, *list);
    if (const auto* map = e.As<MapExpr>()) return CostMap(e, *map);
    if (const auto* msg = e.As<StructExpr>()) {
      CostEstimate sum;
      for (const StructField& f : msg->fields) sum = Add(sum, Cost(*f.value));
      return Add(sum, Fixed(kStructCreateBaseCost));
    }
    if (const auto* comp = e.As<ComprehensionExpr>()) {
      return IsBind(*comp) ? CostBind(e, *comp) : CostComprehension(e, *comp);
    }
    return CostEstimate{};
  }

  CostEstimate CostIdent(const Expr& e) {
    std::string name = IdentName(e).value_or("");
    if (const LocalVar* v = PeekLocal(name)) {
      SetPath(e, v->path);
    } else {
      SetPath(e, {name});
    }
    return Fixed(kSelectAndIdentCost);
  }

  CostEstimate CostSelect(const Expr& e, const SelectExpr& sel) {
    if (sel.test_only) return Add(presence_cost_, Cost(*sel.operand));
    CostEstimate sum = Cost(*sel.operand);
    switch (TypeOf(*sel.operand).kind()) {
      case TypeKind::kMap:
      case TypeKind::kStruct:
      case TypeKind::kTypeParam:
        sum = Add(sum, Fixed(kSelectAndIdentCost));
        break;
      default:
        break;
    }
    std::vector<std::string> path = PathOf(*sel.operand);
    path.push_back(sel.field);
    SetPath(e, std::move(path));
    return sum;
  }

  CostEstimate CostCall(const Expr& e, const CallExpr& call) {
    auto ns = checked_.namespaced_functions.find(e.id);
    const bool namespaced = ns != checked_.namespaced_functions.end();
    const std::string& function = namespaced ? ns->second : call.function;
    const Expr* target = namespaced ? nullptr : call.target.get();

    if (function == "dyn" && call.args.size() == 1) {
      const Expr& arg = *call.args[0];
      CostEstimate c = Cost(arg);
      SetSize(e, ComputeSize(arg));
      SetEntrySize(e, ComputeEntrySize(arg));
      return Add(Fixed(1), c);
    }

    std::vector<Node> arg_nodes;
    std::vector<CostEstimate> arg_costs;
    for (const ExprPtr& arg : call.args) {
      arg_costs.push_back(Cost(*arg));
      arg_nodes.push_back(NewNode(*arg));
    }
    auto ids = checked_.overload_ids.find(e.id);
    if (ids == checked_.overload_ids.end() || ids->second.empty()) {
      return CostEstimate{};
    }
    CostEstimate sum;
    std::optional<Node> target_node;
    if (target != nullptr) {
      sum = Add(sum, Cost(*target));
      target_node = NewNode(*target);
    }
    CostEstimate fn_cost = {kMax, 0};
    std::optional<SizeEstimate> result_size;
    for (const std::string& id : ids->second) {
      CallEstimate oc =
          FunctionCost(e, function, id, target_node, arg_nodes, arg_costs);
      fn_cost = Union(fn_cost, oc.cost);
      if (oc.result_size) {
        result_size =
            result_size ? Union(*result_size, *oc.result_size) : oc.result_size;
      }
      if ((id == "index_list" || id == "index_map") && !call.args.empty()) {
        const Expr& container = *call.args[0];
        auto entry = ComputeEntrySize(container);
        result_size =
            entry ? std::optional<SizeEstimate>(entry->val) : std::nullopt;
        std::vector<std::string> path = PathOf(container);
        path.push_back(id == "index_list" ? "@items" : "@values");
        SetPath(e, std::move(path));
      }
      if (!result_size) result_size = ComputeSize(e);
    }
    SetSize(e, result_size);
    return Add(sum, fn_cost);
  }

  CostEstimate CostList(const Expr& e, const ListExpr& list) {
    CostEstimate sum;
    SizeEstimate items = {list.elements.empty() ? 0 : kMax, 0};
    for (const ExprPtr& el : list.elements) {
      sum = Add(sum, Cost(*el));
      items = Union(items, SizeOrUnknown(*el));
    }
    SetEntrySize(e, EntrySize{TypeKind::kList, FixedSize(1), items});
    return Add(sum, Fixed(kListCreateBaseCost));
  }

  CostEstimate CostMap(const Expr& e, const MapExpr& map) {
    CostEstimate sum;
    SizeEstimate keys = {map.entries.empty() ? 0 : kMax, 0};
    SizeEstimate values = keys;
    for (const MapEntry& entry : map.entries) {
      sum = Add(sum, Cost(*entry.key));
      sum = Add(sum, Cost(*entry.value));
      keys = Union(keys, SizeOrUnknown(*entry.key));
      values = Union(values, SizeOrUnknown(*entry.value));
    }
    SetEntrySize(e, EntrySize{TypeKind::kMap, keys, values});
    return Add(sum, Fixed(kMapCreateBaseCost));
  }

  // cel.bind(v, init, body): a fold over an empty list with `v` as its
  // accumulator and a constant false condition.
  static bool IsBind(const ComprehensionExpr& comp) {
    const auto* range = comp.iter_range->As<ListExpr>();
    const auto* cond = comp.loop_condition->As<ConstExpr>();
    return range != nullptr && range->elements.empty() && cond != nullptr &&
           std::holds_alternative<bool>(cond->value) &&
           !std::get<bool>(cond->value) && comp.accu_var != kAccumulatorName;
  }

  void PushLocalFor(const std::string& name, const Expr& e) {
    PushLocal(name, LocalVar{PathOf(e), ComputeSize(e), ComputeEntrySize(e)});
  }

  CostEstimate CostBind(const Expr& e, const ComprehensionExpr& comp) {
    CostEstimate sum = Add(Cost(*comp.iter_range), Cost(*comp.accu_init));
    PushLocalFor(comp.accu_var, *comp.accu_init);
    sum = Add(sum, Cost(*comp.result));
    PopLocal(comp.accu_var);
    SetSize(e, ComputeSize(*comp.result));
    SetEntrySize(e, ComputeEntrySize(*comp.result));
    return sum;
  }

  // Pushes an iteration variable over `range`: `key` selects map keys or
  // list indexes (two-variable form), `value` map values or list elements,
  // neither the single variable (map keys, list elements).
  enum class IterPart { kSingle, kKey, kValue };
  void PushIterVar(const std::string& name, const Expr& range, IterPart part) {
    std::optional<EntrySize> entry = ComputeEntrySize(range);
    TypeKind container = entry ? entry->container : TypeOf(range).kind();
    bool list = container == TypeKind::kList;
    std::optional<SizeEstimate> size;
    std::string sub;
    switch (part) {
      case IterPart::kSingle:
        if (entry) size = list ? entry->val : entry->key;
        sub = list ? "@items" : "@keys";
        break;
      case IterPart::kKey:
        if (entry) size = entry->key;
        sub = list ? "@indices" : "@keys";
        break;
      case IterPart::kValue:
        if (entry) size = entry->val;
        sub = list ? "@items" : "@values";
        break;
    }
    std::vector<std::string> path = PathOf(range);
    path.push_back(sub);
    PushLocal(name, LocalVar{std::move(path), size, std::nullopt});
  }

  CostEstimate CostComprehension(const Expr& e, const ComprehensionExpr& comp) {
    CostEstimate sum = Add(Cost(*comp.iter_range), Cost(*comp.accu_init));
    PushLocalFor(comp.accu_var, *comp.accu_init);
    bool two_vars = !comp.iter_var2.empty();
    if (two_vars) {
      PushIterVar(comp.iter_var, *comp.iter_range, IterPart::kKey);
      PushIterVar(comp.iter_var2, *comp.iter_range, IterPart::kValue);
    } else {
      PushIterVar(comp.iter_var, *comp.iter_range, IterPart::kSingle);
    }
    CostEstimate loop = Cost(*comp.loop_condition);
    CostEstimate step = Cost(*comp.loop_step);
    PopLocal(comp.iter_var);
    if (two_vars) PopLocal(comp.iter_var2);
    sum = Add(sum, Cost(*comp.result));
    PopLocal(comp.accu_var);

    SizeEstimate range_count = SizeOrUnknown(*comp.iter_range);
    sum = Add(sum, MultiplyByCost(range_count, Add(step, loop)));

    if (comp.accu_init->As<ConstExpr>() != nullptr) {
      SetSize(e, ComputeSize(*comp.accu_init));
    } else if (comp.accu_init->As<ListExpr>() != nullptr ||
               comp.accu_init->As<MapExpr>() != nullptr) {
      SetSize(e, range_count);
      SetEntrySize(e, ComputeEntrySize(*comp.loop_step));
    }
    return sum;
  }

  // --- Call costs ---

  CallEstimate FunctionCost(const Expr& e, const std::string& function,
                            const std::string& id,
                            const std::optional<Node>& target,
                            const std::vector<Node>& args,
                            const std::vector<CostEstimate>& arg_costs) {
    CostEstimate arg_sum;
    for (const CostEstimate& c : arg_costs) arg_sum = Add(arg_sum, c);
    if (auto est = LibraryOverloadCost(id, target, args)) {
      return {Add(est->cost, arg_sum), est->result_size};
    }
    if (auto est = KubernetesCallCost(function, id, target, args)) {
      return {Add(est->cost, arg_sum), est->result_size};
    }
    if (auto est = BuiltinCallCost(e, id, target, args, arg_costs)) {
      return *est;
    }
    return {Add(Fixed(1), arg_sum), std::nullopt};
  }

  // Allocating list calls of cel-go ext.Lists: size x factor, plus the
  // call and the list allocation.
  static CallEstimate AllocatingListCall(double factor, SizeEstimate size) {
    CostEstimate c =
        Add(Add(Factor(size, factor), Fixed(1)), Fixed(kListCreateBaseCost));
    return {c, size};
  }

  // The overload cost estimators that ext.Sets and ext.Lists (version 3)
  // register (cel-go ext/sets.go, ext/lists.go); ext.Strings registers
  // none below version 5.
  std::optional<CallEstimate> LibraryOverloadCost(
      const std::string& id, const std::optional<Node>& target,
      const std::vector<Node>& args) const {
    if (id == "list_sets_contains_list" || id == "list_sets_intersects_list" ||
        id == "list_sets_equivalent_list") {
      if (args.size() != 2) return std::nullopt;
      double factor = id == "list_sets_equivalent_list" ? 2 : 1;
      SizeEstimate product =
          Multiply(EstimateSize(args[0]), EstimateSize(args[1]));
      return CallEstimate{Add(Factor(product, factor), Fixed(1)), std::nullopt};
    }
    if (id == "list_slice") {
      if (!target || args.size() != 2) return std::nullopt;
      SizeEstimate sz = EstimateSize(*target);
      uint64_t start = NodeAsUint(args[0], 0);
      uint64_t end = NodeAsUint(args[1], sz.max);
      return AllocatingListCall(1, FixedSize(end - start));
    }
    if (id == "list_flatten" || id == "list_flatten_int") {
      if (!target || args.size() > 1) return std::nullopt;
      uint64_t depth = args.size() == 1 ? NodeAsUint(args[0], kMax) : 1;
      return AllocatingListCall(static_cast<double>(depth),
                                EstimateSize(*target));
    }
    if (id == "lists_range") {
      if (target || args.size() != 1) return std::nullopt;
      return AllocatingListCall(1, FixedSize(NodeAsUint(args[0], kMax)));
    }
    if (id == "list_reverse") {
      if (!target || !args.empty()) return std::nullopt;
      return AllocatingListCall(1, EstimateSize(*target));
    }
    if (id == "list_distinct") {
      if (!target || !args.empty()) return std::nullopt;
      SizeEstimate sz = EstimateSize(*target);
      return AllocatingListCall(2, Multiply(sz, sz));
    }
    static const char* kComparable[] = {"int",
                                        "uint",
                                        "double",
                                        "bool",
                                        "google.protobuf.Duration",
                                        "google.protobuf.Timestamp",
                                        "string",
                                        "bytes"};
    for (const char* t : kComparable) {
      std::string_view name(t);
      double factor = 2 + ((name == "string" || name == "bytes")
                               ? kStringTraversalCostFactor
                               : 0);
      if (id == StrCat("list_", name, "_sort")) {
        if (!target || !args.empty()) return std::nullopt;
        SizeEstimate sz = EstimateSize(*target);
        return AllocatingListCall(factor, Multiply(sz, sz));
      }
      if (id == StrCat("list_", name, "_sortByAssociatedKeys")) {
        if (!target || args.size() != 1) return std::nullopt;
        SizeEstimate sz = EstimateSize(args[0]);
        return AllocatingListCall(factor, Multiply(sz, sz));
      }
    }
    return std::nullopt;
  }

  // A node for the elements of the list `list` (k8s listElementNode).
  static std::optional<Node> ListElementNode(const Node& list) {
    if (list.type.params().empty()) return std::nullopt;
    Node n;
    n.type = list.type.params()[0];
    if (!list.path.empty()) {
      n.path = list.path;
      n.path.push_back("@items");
    }
    return n;
  }

  // k8s.io/apiserver library.CostEstimator.EstimateCallCost (without
  // its argument costs, which the caller adds).
  std::optional<CallEstimate> KubernetesCallCost(
      const std::string& fn, const std::string& id,
      const std::optional<Node>& target, const std::vector<Node>& args) const {
    auto fixed = [](uint64_t c) {
      return CallEstimate{Fixed(c), std::nullopt};
    };
    if (fn == "check") return fixed(350000);
    for (const char* name :
         {"serviceAccount", "path", "group", "resource", "subresource",
          "namespace", "name", "allowed", "reason", "error", "errored"}) {
      if (fn == name) return fixed(1);
    }
    if (fn == "fieldSelector" || fn == "labelSelector") {
      if (args.size() != 1) return std::nullopt;
      SizeEstimate len = EstimateSize(args[0]);
      CostEstimate parse = Factor(len, kStringTraversalCostFactor);
      CostEstimate requirements = Factor(len, 0.5);
      CostEstimate requirement_cost = Factor(
          requirements,
          static_cast<double>(kListCreateBaseCost + kStructCreateBaseCost));
      return CallEstimate{
          Add(Add(Fixed(kListCreateBaseCost), parse), requirement_cost),
          std::nullopt};
    }
    if (fn == "isSorted" || fn == "sum" || fn == "max" || fn == "min" ||
        fn == "indexOf" || fn == "lastIndexOf" || fn == "includes") {
      if (!target) return std::nullopt;
      CostEstimate element = Fixed(1);
      if (auto el = ListElementNode(*target)) {
        TypeKind k = el->type.kind();
        if (k == TypeKind::kString || k == TypeKind::kBytes) {
          element = Add(element,
                        Factor(EstimateSize(*el), kStringTraversalCostFactor));
        }
        return CallEstimate{MultiplyByCost(EstimateSize(*target), element),
                            std::nullopt};
      }
      if (fn == "includes") {
        return CallEstimate{MultiplyByCost(EstimateSize(*target), element),
                            std::nullopt};
      }
      return CallEstimate{
          Factor(EstimateSize(*target), kStringTraversalCostFactor),
          std::nullopt};
    }
    if (fn == "url" || fn == "jsonpatch.escapeKey") {
      if (args.size() != 1) return std::nullopt;
      SizeEstimate sz = EstimateSize(args[0]);
      return CallEstimate{Factor(sz, kStringTraversalCostFactor), sz};
    }
    if (fn == "lowerAscii" || fn == "upperAscii" || fn == "substring" ||
        fn == "trim") {
      if (!target) return std::nullopt;
      SizeEstimate sz = EstimateSize(*target);
      return CallEstimate{Factor(sz, kStringTraversalCostFactor), sz};
    }
    if (fn == "replace") {
      if (!target || args.size() < 2) return std::nullopt;
      SizeEstimate sz = EstimateSize(*target);
      SizeEstimate to_replace = EstimateSize(args[0]);
      SizeEstimate replace_with = EstimateSize(args[1]);
      SizeEstimate count, retained;
      if (to_replace.min == 0) {
        count.max = sz.max < kMax ? sz.max + 1 : sz.max;
        retained.max = sz.max;
      } else if (replace_with.max <= to_replace.min) {
        count.max = 0;
        retained.max = sz.max;
      } else {
        count.max = static_cast<uint64_t>(std::ceil(
            static_cast<double>(sz.max) / static_cast<double>(to_replace.min)));
      }
      if (to_replace.max == 0) {
        count.min = sz.min < kMax ? sz.min + 1 : sz.min;
        retained.min = sz.min;
      } else if (to_replace.max <= replace_with.min) {
        count.min = 0;
        retained.min = sz.min;
      } else {
        count.min = static_cast<uint64_t>(std::ceil(
            static_cast<double>(sz.min) / static_cast<double>(to_replace.max)));
      }
      SizeEstimate size = Add(Multiply(count, replace_with), retained);
      return CallEstimate{Factor(sz, 2 * kStringTraversalCostFactor), size};
    }
    if (fn == "split") {
      if (!target) return std::nullopt;
      SizeEstimate sz = EstimateSize(*target);
      uint64_t max = sz.max;
      if (args.size() > 1 && args[1].expr != nullptr) {
        if (const auto* c = args[1].expr->As<ConstExpr>()) {
          if (const auto* i = std::get_if<int64_t>(&c->value)) {
            max = static_cast<uint64_t>(*i);
          }
        }
      }
      return CallEstimate{Factor(sz, 2 * kStringTraversalCostFactor),
                          SizeEstimate{0, max}};
    }
    if (fn == "join") {
      if (!target) return std::nullopt;
      SizeEstimate sz;
      SizeEstimate list = EstimateSize(*target);
      if (auto el = ListElementNode(*target)) {
        sz = Multiply(list, EstimateSize(*el));
      }
      if (!args.empty()) {
        SizeEstimate sep = EstimateSize(args[0]);
        SizeEstimate separators = {list.min > 0 ? list.min - 1 : 0,
                                   list.max > 0 ? list.max - 1 : 0};
        sz = Add(sz, Multiply(sep, separators));
      }
      return CallEstimate{Factor(sz, kStringTraversalCostFactor), sz};
    }
    if (fn == "find" || fn == "findAll") {
      if (!target || args.empty()) return std::nullopt;
      SizeEstimate sz = EstimateSize(*target);
      CostEstimate str =
          Factor(Add(sz, FixedSize(1)), kStringTraversalCostFactor);
      CostEstimate regex =
          Factor(EstimateSize(args[0]), kRegexStringLengthCostFactor);
      return CallEstimate{Multiply(str, regex), SizeEstimate{0, sz.max}};
    }
    return KubernetesNetworkAndOtherCallCost(fn, id, target, args);
  }

  // The rest of KubernetesCallCost: the network, quantity, semver and
  // format libraries and the Kubernetes equality.
  std::optional<CallEstimate> KubernetesNetworkAndOtherCallCost(
      const std::string& fn, const std::string& id,
      const std::optional<Node>& target, const std::vector<Node>& args) const {
    auto fixed = [](uint64_t c) {
      return CallEstimate{Fixed(c), std::nullopt};
    };
    if (fn == "cidr" || fn == "isIP" || fn == "isCIDR") {
      if (args.empty()) return std::nullopt;
      return CallEstimate{
          Factor(EstimateSize(args[0]), kStringTraversalCostFactor),
          std::nullopt};
    }
    if (fn == "ip") {
      if (id == "cidr_ip") return fixed(1);
      if (args.empty()) return std::nullopt;
      return CallEstimate{
          Factor(EstimateSize(args[0]), kStringTraversalCostFactor),
          std::nullopt};
    }
    if (fn == "ip.isCanonical") {
      if (args.empty()) return std::nullopt;
      return CallEstimate{
          Factor(EstimateSize(args[0]), 2 * kStringTraversalCostFactor),
          std::nullopt};
    }
    for (const char* name :
         {"masked", "prefixLength", "family", "isUnspecified", "isLoopback",
          "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast"}) {
      if (fn == name) return fixed(1);
    }
    if (fn == "containsIP" || fn == "containsCIDR") {
      if (args.empty()) return std::nullopt;
      SizeEstimate ip = {4, 16};
      CostEstimate c = Factor(Add(ip, ip), kStringTraversalCostFactor);
      if (fn == "containsCIDR") {
        c = Add(c, Factor(ip, kStringTraversalCostFactor));
        c = Add(c, Fixed(1));
      }
      if (id == "cidr_contains_ip_string" ||
          id == "cidr_contains_cidr_string") {
        c = Add(c, Factor(EstimateSize(args[0]), kStringTraversalCostFactor));
      }
      return CallEstimate{c, std::nullopt};
    }
    if (fn == "quantity" || fn == "isQuantity" || fn == "semver" ||
        fn == "isSemver") {
      if (args.empty()) return std::nullopt;
      return CallEstimate{
          Factor(EstimateSize(args[0]), kStringTraversalCostFactor),
          std::nullopt};
    }
    if (fn == "validate") {
      if (args.empty()) return std::nullopt;
      return CallEstimate{
          Factor(Factor(EstimateSize(args[0]), kStringTraversalCostFactor),
                 kMaxNameFormatRegexSize * kRegexStringLengthCostFactor),
          std::nullopt};
    }
    if (fn == "format.named") return fixed(1);
    for (const char* name :
         {"sign", "asInteger", "isInteger", "asApproximateFloat",
          "isGreaterThan", "isLessThan", "compareTo", "add", "sub", "major",
          "minor", "patch", "getScheme", "getHostname", "getHost", "getPort",
          "getEscapedPath", "getQuery"}) {
      if (fn == name) return fixed(1);
    }
    if (fn == "_==_" && args.size() == 2 &&
        args[0].type.name() == args[1].type.name()) {
      const Type& t = args[0].type;
      const std::string& name = t.name();
      if (t.kind() == TypeKind::kOpaque &&
          (name == "net.IP" || name == "net.CIDR")) {
        return fixed(1);
      }
      if (t.kind() == TypeKind::kStruct) {
        if (name == "kubernetes.Quantity" || name == "kubernetes.Semver" ||
            name.rfind("kubernetes.authorization.", 0) == 0) {
          return fixed(1);
        }
        if (name == "kubernetes.NamedFormat") {
          return CallEstimate{Factor(CostEstimate{1, kMaxFormatSize},
                                     kStringTraversalCostFactor),
                              std::nullopt};
        }
        if (name == "kubernetes.URL") {
          // As upstream, both sizes are read from the right-hand side.
          SizeEstimate size = {1, 1};
          if (args[1].computed)
            size = Union(*args[1].computed, *args[1].computed);
          return CallEstimate{
              Factor(CostEstimate{1, size.max}, kStringTraversalCostFactor),
              std::nullopt};
        }
      }
    }
    return std::nullopt;
  }

  // cel-go's built-in call costs (checker/cost.go functionCost).
  std::optional<CallEstimate> BuiltinCallCost(
      const Expr& e, const std::string& id, const std::optional<Node>& target,
      const std::vector<Node>& args,
      const std::vector<CostEstimate>& arg_costs) {
    CostEstimate arg_sum;
    for (const CostEstimate& c : arg_costs) arg_sum = Add(arg_sum, c);
    auto traverse = [&](SizeEstimate s) {
      return Add(Factor(s, kStringTraversalCostFactor), arg_sum);
    };
    if (id == "string_format") {
      if (target) return CallEstimate{traverse(SizeOrUnknown(*target))};
      return std::nullopt;
    }
    if (id == "string_to_bytes" && args.size() == 1) {
      SizeEstimate sz = SizeOrUnknown(args[0]);
      return CallEstimate{traverse(sz),
                          SizeEstimate{sz.min, MulSat(sz.max, 4)}};
    }
    if (id == "bytes_to_string" && args.size() == 1) {
      SizeEstimate sz = SizeOrUnknown(args[0]);
      return CallEstimate{traverse(sz), SizeEstimate{sz.min / 4, sz.max}};
    }
    if (id == "strings_quote" && args.size() == 1) {
      SizeEstimate sz = SizeOrUnknown(args[0]);
      return CallEstimate{traverse(sz),
                          SizeEstimate{sz.min + 2, MulSat(sz.max, 2) + 2}};
    }
    if ((id == "starts_with_string" || id == "ends_with_string") &&
        args.size() == 1) {
      return CallEstimate{traverse(SizeOrUnknown(args[0]))};
    }
    if (id == "in_list" && args.size() == 2) {
      return CallEstimate{Add(Factor(SizeOrUnknown(args[1]), 1), arg_sum)};
    }
    if (id == "matches" || id == "matches_string") {
      const Node* str = nullptr;
      const Node* regex = nullptr;
      if (id == "matches_string" && target && args.size() == 1) {
        str = &*target;
        regex = &args[0];
      } else if (id == "matches" && !target && args.size() == 2) {
        str = &args[0];
        regex = &args[1];
      }
      if (str != nullptr) {
        CostEstimate str_cost = Factor(Add(SizeOrUnknown(*str), FixedSize(1)),
                                       kStringTraversalCostFactor);
        CostEstimate regex_cost =
            Factor(SizeOrUnknown(*regex), kRegexStringLengthCostFactor);
        return CallEstimate{Add(Multiply(str_cost, regex_cost), arg_sum)};
      }
      return std::nullopt;
    }
    if (id == "contains_string" && target && args.size() == 1) {
      CostEstimate str =
          Factor(SizeOrUnknown(*target), kStringTraversalCostFactor);
      CostEstimate sub =
          Factor(SizeOrUnknown(args[0]), kStringTraversalCostFactor);
      return CallEstimate{Add(Multiply(str, sub), arg_sum)};
    }
    if (id == "logical_or" || id == "logical_and") {
      CostEstimate lhs = arg_costs[0], rhs = arg_costs[1];
      return CallEstimate{CostEstimate{lhs.min, Add(lhs, rhs).max}};
    }
    if (id == "conditional") {
      SizeEstimate size = Union(SizeOrUnknown(args[1]), SizeOrUnknown(args[2]));
      SetEntrySize(e, UnionEntries(ComputeEntrySize(*args[1].expr),
                                   ComputeEntrySize(*args[2].expr)));
      CostEstimate c = Add(arg_costs[0], Union(arg_costs[1], arg_costs[2]));
      return CallEstimate{c, size};
    }
    if ((id == "add_string" || id == "add_bytes" || id == "add_list") &&
        args.size() == 2) {
      SizeEstimate result = Add(SizeOrUnknown(args[0]), SizeOrUnknown(args[1]));
      auto entries = UnionEntries(ComputeEntrySize(*args[0].expr),
                                  ComputeEntrySize(*args[1].expr));
      if (entries) SetEntrySize(e, entries);
      if (id == "add_list") return CallEstimate{Add(Fixed(1), arg_sum), result};
      return CallEstimate{traverse(result), result};
    }
    static const char* kSizedComparisons[] = {"less_string",
                                              "greater_string",
                                              "less_equals_string",
                                              "greater_equals_string",
                                              "less_bytes",
                                              "greater_bytes",
                                              "less_equals_bytes",
                                              "greater_equals_bytes",
                                              "equals",
                                              "not_equals"};
    for (const char* op : kSizedComparisons) {
      if (id != op) continue;
      SizeEstimate lhs = SizeOrUnknown(args[0]);
      SizeEstimate rhs = SizeOrUnknown(args[1]);
      uint64_t smallest_max = std::min(lhs.max, rhs.max);
      CostEstimate c = {smallest_max > 0 ? 1u : 0u, smallest_max};
      return CallEstimate{Add(Factor(c, kStringTraversalCostFactor), arg_sum)};
    }
    return std::nullopt;
  }

  const CheckedExpr& checked_;
  const CostOptions& options_;
  const CostEstimate presence_cost_;
  std::unordered_map<int64_t, std::vector<std::string>> paths_;
  std::unordered_map<std::string, std::vector<LocalVar>> locals_;
  std::unordered_map<int64_t, SizeEstimate> sizes_;
  std::unordered_map<int64_t, EntrySize> entry_sizes_;
};

// The declared maximum sizes of the DRA device (k8s.io/dynamic-resource-
// allocation cel/compile.go: the DeclTypes' MaxElements; 0 where Kubernetes
// declares none).
class DraDeviceSizeEstimator final : public SizeEstimator {
 public:
  explicit DraDeviceSizeEstimator(const DraDeviceTypeOptions& options) {
    // resourceapi limits: DeviceAttributeMaxValueLength 64,
    // ResourceSliceMaxAttributeValuesPerDevice 48, DeviceMaxIDLength 32,
    // DeviceMaxDomainLength 63, DriverNameMaxLength 63,
    // ResourceSliceMaxAttributesAndCapacitiesPerDevice 32.
    attribute_ =
        Add({.max = options.list_type_attributes ? std::max(64, 48) : 64});
    const Decl* id = Add({.max = 32});
    const Decl* domain = Add({.max = 63});
    const Decl* quantity = Add({.max = 0});
    const Decl* inner_attributes =
        Add({.max = 32, .key = id, .elem = attribute_});
    const Decl* attributes =
        Add({.max = 32, .key = domain, .elem = inner_attributes});
    const Decl* inner_capacity = Add({.max = 32, .key = id, .elem = quantity});
    const Decl* capacity =
        Add({.max = 32, .key = domain, .elem = inner_capacity});
    Decl device_decl{.max = 0};
    device_decl.fields["driver"] = Add({.max = 63});
    device_decl.fields["attributes"] = attributes;
    device_decl.fields["capacity"] = capacity;
    if (options.consumable_capacity) {
      device_decl.fields["allowMultipleAllocations"] = Add({.max = 1});
    }
    device_ = Add(std::move(device_decl));
  }

  std::optional<SizeEstimate> EstimateSize(absl::Span<const std::string> path,
                                           const Type&) const override {
    if (path.empty() || path[0] != "device") return std::nullopt;
    const Decl* node = device_;
    for (size_t i = 1; i < path.size(); ++i) {
      const std::string& name = path[i];
      if (name == "@items" || name == "@values") {
        if (node->elem == nullptr) return std::nullopt;
        node = node->elem;
      } else if (name == "@keys") {
        if (node->key == nullptr) return std::nullopt;
        node = node->key;
      } else {
        auto f = node->fields.find(name);
        if (f != node->fields.end()) {
          node = f->second;
        } else if (node->elem == attribute_) {
          // d.name on an attribute map: every attribute has the same bound.
          node = attribute_;
        } else {
          return std::nullopt;
        }
      }
    }
    return SizeEstimate{0, static_cast<uint64_t>(node->max)};
  }

 private:
  struct Decl {
    int64_t max = 0;
    const Decl* key = nullptr;
    const Decl* elem = nullptr;
    std::map<std::string, const Decl*> fields = {};
  };
  const Decl* Add(Decl d) {
    decls_.push_back(std::make_unique<Decl>(std::move(d)));
    return decls_.back().get();
  }

  std::vector<std::unique_ptr<Decl>> decls_;
  const Decl* attribute_ = nullptr;
  const Decl* device_ = nullptr;
};

}  // namespace

std::unique_ptr<SizeEstimator> NewDraDeviceSizeEstimator(
    const DraDeviceTypeOptions& options) {
  return std::make_unique<DraDeviceSizeEstimator>(options);
}

absl::StatusOr<CostEstimate> EstimateCost(const Expr& root,
                                          const CheckedExpr& checked,
                                          const CostOptions& options) {
  Coster coster(checked, options);
  return coster.Run(root);
}

}  // namespace draplane::cel::internal

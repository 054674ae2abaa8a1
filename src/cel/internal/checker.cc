#include "cel/internal/checker.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <unordered_set>

#include "absl/status/status.h"
#include "cel/internal/checker_declarations.h"
#include "cel/internal/parser.h"
#include "common/str_cat.h"
#include "re2/re2.h"

namespace draplane::cel::internal {
namespace {

// cel-go common.Errors keeps at most this many issues.
constexpr size_t kMaxReportedIssues = 100;

// One overload as the checker sees it.
struct CheckerOverload {
  std::string id;
  bool receiver_style = false;
  std::vector<Type> params;
  Type result;
  std::vector<std::string> type_params;
};

struct FunctionDecl {
  std::string name;
  std::vector<CheckerOverload> overloads;
};

// The ordering overloads between different numeric types, which cel-go
// filters out unless CrossTypeNumericComparisons is enabled.
bool IsCrossTypeNumericComparison(std::string_view id) {
  static const std::unordered_set<std::string>* ids = [] {
    auto* s = new std::unordered_set<std::string>;
    const char* numbers[] = {"int64", "uint64", "double"};
    for (const char* op :
         {"less", "less_equals", "greater", "greater_equals"}) {
      for (const char* a : numbers) {
        for (const char* b : numbers) {
          if (std::string_view(a) != b) s->insert(StrCat(op, "_", a, "_", b));
        }
      }
    }
    return s;
  }();
  return ids->count(std::string(id)) > 0;
}

// Type-parameter substitutions (cel-go checker mapping) with an undo log,
// so that a failed assignability test leaves no trace.
class TypeMapping {
 public:
  const Type* Find(const Type& t) const {
    if (t.kind() != TypeKind::kTypeParam) return nullptr;
    auto it = map_.find(t.name());
    return it == map_.end() ? nullptr : &it->second;
  }
  // REQUIRES: from is a type parameter.
  void Add(const Type& from, Type to) {
    auto it = map_.find(from.name());
    if (it == map_.end()) {
      log_.push_back({from.name(), std::nullopt});
      map_.emplace(from.name(), std::move(to));
    } else {
      log_.push_back({from.name(), it->second});
      it->second = std::move(to);
    }
  }
  size_t Mark() const { return log_.size(); }
  void Rollback(size_t mark) {
    while (log_.size() > mark) {
      auto& [name, previous] = log_.back();
      if (previous) {
        map_[name] = *previous;
      } else {
        map_.erase(name);
      }
      log_.pop_back();
    }
  }
  // Keeps the changes since `mark`. REQUIRES: no enclosing Mark is still
  // pending.
  void Commit(size_t mark) { log_.resize(mark); }

 private:
  std::unordered_map<std::string, Type> map_;
  std::vector<std::pair<std::string, std::optional<Type>>> log_;
};

bool IsDynOrError(const Type& t) {
  return t.IsDynOrAny() || t.kind() == TypeKind::kError;
}

// cel-go Type.IsAssignableType with the default rule: `to` accepts values
// of type `from`.
bool TypeAcceptsType(const Type& to, const Type& from) {
  if (to.IsExact(from)) return true;
  if (to.IsDynOrAny() || to.kind() == TypeKind::kTypeParam) return true;
  if (to.kind() != from.kind() || to.name() != from.name() ||
      to.params().size() != from.params().size()) {
    return false;
  }
  for (size_t i = 0; i < to.params().size(); ++i) {
    if (!TypeAcceptsType(to.params()[i], from.params()[i])) return false;
  }
  return true;
}

// cel-go isLegacyNullable || accepts null.
bool AcceptsNull(const Type& t) {
  switch (t.kind()) {
    case TypeKind::kOpaque:
    case TypeKind::kStruct:
    case TypeKind::kAny:
    case TypeKind::kDuration:
    case TypeKind::kTimestamp:
      return true;
    default:
      return TypeAcceptsType(t, Type::Null());
  }
}

bool IsEqualOrLessSpecific(const Type& t1, const Type& t2) {
  if (t1.IsDynOrAny() || t1.kind() == TypeKind::kTypeParam) return true;
  if (t2.IsDynOrAny() || t2.kind() == TypeKind::kTypeParam) return false;
  if (t1.kind() != t2.kind()) return false;
  switch (t1.kind()) {
    case TypeKind::kOpaque:
      if (t1.name() != t2.name() || t1.params().size() != t2.params().size()) {
        return false;
      }
      for (size_t i = 0; i < t1.params().size(); ++i) {
        if (!IsEqualOrLessSpecific(t1.params()[i], t2.params()[i])) {
          return false;
        }
      }
      return true;
    case TypeKind::kList:
      return IsEqualOrLessSpecific(t1.params()[0], t2.params()[0]);
    case TypeKind::kMap:
      return IsEqualOrLessSpecific(t1.params()[0], t2.params()[0]) &&
             IsEqualOrLessSpecific(t1.params()[1], t2.params()[1]);
    case TypeKind::kType:
      return true;
    default:
      return t1.IsExact(t2);
  }
}

// The more general of two types known to unify.
const Type& MostGeneral(const Type& t1, const Type& t2) {
  return IsEqualOrLessSpecific(t1, t2) ? t1 : t2;
}

Type ConstantType(const Constant& c) {
  struct Visitor {
    Type operator()(const NullValue&) const { return Type::Null(); }
    Type operator()(bool) const { return Type::Bool(); }
    Type operator()(int64_t) const { return Type::Int(); }
    Type operator()(uint64_t) const { return Type::Uint(); }
    Type operator()(double) const { return Type::Double(); }
    Type operator()(const std::string&) const { return Type::String(); }
    Type operator()(const BytesValue&) const { return Type::Bytes(); }
  };
  return std::visit(Visitor{}, c);
}

// `target` as a qualified name ("a.b.c") when it is an identifier or a
// chain of (non-test) selections on one (cel-go containers.ToQualifiedName).
std::optional<std::string> QualifiedName(const Expr& e) {
  if (const auto* id = e.As<IdentExpr>()) return id->name;
  if (const auto* sel = e.As<SelectExpr>()) {
    if (sel->test_only) return std::nullopt;
    auto operand = QualifiedName(*sel->operand);
    if (operand) return StrCat(*operand, ".", sel->field);
  }
  return std::nullopt;
}

// The name as cel-go resolves it in the empty container: a leading dot
// only forces resolution from the root scope.
std::string_view WithoutLeadingDot(std::string_view name) {
  if (!name.empty() && name[0] == '.') name.remove_prefix(1);
  return name;
}

std::string FormatArgTypes(const std::vector<Type>& args, bool receiver) {
  std::string out;
  size_t first = 0;
  if (receiver && !args.empty()) {
    out = args[0].Format() + ".";
    first = 1;
  }
  out += "(";
  for (size_t i = first; i < args.size(); ++i) {
    if (i > first) out += ", ";
    out += args[i].Format();
  }
  return out + ")";
}

struct Issue {
  int32_t position;
  std::string message;
};

class Checker {
 public:
  Checker(const CheckerEnvironment& env, std::string_view source)
      : env_(env), source_(source) {
    if (env.functions != nullptr) {
      for (auto& [name, type] : TypeIdentifiers(*env.functions)) {
        type_identifiers_.emplace(name, type);
      }
    } else {
      static const FunctionRegistry* empty = new FunctionRegistry;
      for (auto& [name, type] : TypeIdentifiers(*empty)) {
        type_identifiers_.emplace(name, type);
      }
    }
    for (const auto& [name, type] : env.variables) CollectStructTypes(type);
  }

  absl::StatusOr<CheckedExpr> Run(const Expr& root) {
    CheckExpr(root);
    CheckedExpr out;
    if (issues_.empty()) {
      for (auto& [id, type] : types_) {
        out.types.emplace(id, Substitute(type, /*type_param_to_dyn=*/true));
      }
      out.output_type = out.types[root.id];
      if (env_.validate_literal_arguments && env_.functions != nullptr) {
        ValidateLiteralArguments(root);
      }
      if (env_.homogeneous_aggregate_literals) {
        ValidateHomogeneousLiterals(root, out.types, /*exempt=*/false);
      }
    }
    if (!issues_.empty()) return IssuesStatus();
    out.overload_ids = std::move(overload_ids_);
    out.namespaced_functions = std::move(namespaced_functions_);
    out.references = std::move(references_);
    return out;
  }

 private:
  // --- Errors ---

  void Report(int32_t position, std::string message) {
    ++issue_count_;
    if (issues_.size() >= kMaxReportedIssues) return;
    issues_.push_back({position, std::move(message)});
  }

  absl::Status IssuesStatus() {
    std::stable_sort(
        issues_.begin(), issues_.end(),
        [](const Issue& a, const Issue& b) { return a.position < b.position; });
    std::string text;
    for (const Issue& issue : issues_) {
      if (!text.empty()) text += "\n";
      text += FormatError(source_, issue.position, issue.message);
    }
    if (issue_count_ > issues_.size()) {
      StrAppend(&text, "\n", issue_count_ - issues_.size(),
                " more errors were truncated");
    }
    return absl::InvalidArgumentError(text);
  }

  void TypeMismatch(int32_t position, const Type& expected,
                    const Type& actual) {
    Report(position, StrCat("expected type '", expected.Format(),
                            "' but found '", actual.Format(), "'"));
  }

  void UndeclaredReference(int32_t position, std::string_view name) {
    Report(position,
           StrCat("undeclared reference to '", name, "' (in container '')"));
  }

  // --- Declarations ---

  void CollectStructTypes(const Type& t) {
    if (t.kind() == TypeKind::kStruct && t.has_field_declarations()) {
      if (!struct_types_.emplace(t.name(), t).second) return;
      for (const ObjectField& f : t.fields()) CollectStructTypes(*f.type);
    }
    for (const Type& p : t.params()) CollectStructTypes(p);
  }

  const Type* FindLocal(std::string_view name) const {
    name = WithoutLeadingDot(name);
    for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
      for (auto it = scope->rbegin(); it != scope->rend(); ++it) {
        if (it->first == name) return &it->second;
      }
    }
    return nullptr;
  }

  // A global identifier: a variable, a type identifier, or a declared
  // object type (cel-go Env.lookupGlobalIdent).
  std::optional<Type> FindGlobal(std::string_view name) const {
    for (auto it = env_.variables.rbegin(); it != env_.variables.rend(); ++it) {
      if (it->first == name) return it->second;
    }
    auto t = type_identifiers_.find(std::string(name));
    if (t != type_identifiers_.end()) return t->second;
    auto s = struct_types_.find(std::string(name));
    if (s != struct_types_.end()) return Type::TypeOf(s->second);
    return std::nullopt;
  }

  // cel-go Env.resolveSimpleIdent: a comprehension variable unless the
  // name has a leading dot, else a global.
  std::optional<Type> ResolveSimpleIdent(std::string_view name,
                                         std::string* resolved) const {
    const Type* local = FindLocal(name);
    if (local != nullptr && name.substr(0, 1) != ".") return *local;
    std::string_view global = WithoutLeadingDot(name);
    auto t = FindGlobal(global);
    if (t && resolved != nullptr) *resolved = std::string(global);
    return t;
  }

  const FunctionDecl* LookupFunction(std::string_view raw_name) {
    std::string name(WithoutLeadingDot(raw_name));
    auto cached = functions_.find(name);
    if (cached != functions_.end()) return cached->second.get();
    auto decl = std::make_unique<FunctionDecl>();
    decl->name = name;
    auto add_declared = [&](const OverloadDecl& d) {
      decl->overloads.push_back(
          {d.id, d.receiver_style, d.params, d.result, d.type_params});
    };
    if (IsInterpreterBuiltin(name)) {
      for (const OverloadDecl& d : AllOverloadDecls()) {
        if (d.function == name) add_declared(d);
      }
    } else if (env_.functions != nullptr && env_.functions->HasFunction(name)) {
      std::vector<const FunctionOverload*> registered =
          env_.functions->Overloads(name);
      std::unordered_set<std::string> declared_ids;
      std::vector<const FunctionOverload*> lenient;
      for (const FunctionOverload* o : registered) {
        if (IsRuntimeOnlyOverload(name, o->overload_id)) continue;
        if (const OverloadDecl* d = FindOverloadDecl(name, o->overload_id)) {
          declared_ids.insert(d->id);
        } else {
          lenient.push_back(o);
        }
      }
      // Declared overloads in cel-go's declaration order.
      for (const OverloadDecl& d : AllOverloadDecls()) {
        if (d.function == name && declared_ids.count(d.id) > 0) {
          add_declared(d);
        }
      }
      // Overloads without a static declaration: any arguments, result dyn.
      for (const FunctionOverload* o : lenient) {
        CheckerOverload c;
        c.id = o->overload_id;
        c.receiver_style = o->receiver_style;
        c.params.assign(o->params.size(), Type::Dyn());
        c.result = Type::Dyn();
        decl->overloads.push_back(std::move(c));
      }
    }
    const FunctionDecl* result =
        decl->overloads.empty() && !IsInterpreterBuiltin(name) ? nullptr
                                                               : decl.get();
    functions_.emplace(name, result != nullptr ? std::move(decl) : nullptr);
    return result;
  }

  // --- Type unification (cel-go checker/types.go) ---

  Type Substitute(const Type& t, bool type_param_to_dyn) const {
    if (const Type* sub = mapping_.Find(t)) {
      return Substitute(*sub, type_param_to_dyn);
    }
    switch (t.kind()) {
      case TypeKind::kTypeParam:
        return type_param_to_dyn ? Type::Dyn() : t;
      case TypeKind::kList:
        return Type::List(Substitute(t.params()[0], type_param_to_dyn));
      case TypeKind::kMap:
        return Type::Map(Substitute(t.params()[0], type_param_to_dyn),
                         Substitute(t.params()[1], type_param_to_dyn));
      case TypeKind::kOpaque:
      case TypeKind::kType: {
        if (t.params().empty()) return t;
        std::vector<Type> params;
        for (const Type& p : t.params()) {
          params.push_back(Substitute(p, type_param_to_dyn));
        }
        if (t.kind() == TypeKind::kType) return Type::TypeOf(params[0]);
        return Type::Opaque(t.name(), std::move(params));
      }
      default:
        return t;
    }
  }

  bool NotReferencedIn(const Type& t, const Type& within) const {
    if (t.IsExact(within)) return false;
    switch (within.kind()) {
      case TypeKind::kTypeParam: {
        const Type* sub = mapping_.Find(within);
        return sub == nullptr || NotReferencedIn(t, *sub);
      }
      case TypeKind::kOpaque:
      case TypeKind::kList:
      case TypeKind::kMap:
      case TypeKind::kType:
        for (const Type& p : within.params()) {
          if (!NotReferencedIn(t, p)) return false;
        }
        return true;
      default:
        return true;
    }
  }

  // Whether type parameter `param` (or its substitution) can stand for
  // `t`; records the substitution. Returns {valid, param had a
  // substitution}.
  std::pair<bool, bool> IsValidTypeSubstitution(const Type& t,
                                                const Type& param) {
    if (t.kind() == param.kind() && t.IsExact(param)) return {true, true};
    if (const Type* found = mapping_.Find(param)) {
      Type sub = *found;
      if (t.kind() == sub.kind() && t.IsExact(sub)) return {true, true};
      if (InternalIsAssignable(t, sub)) {
        Type general = MostGeneral(t, sub);
        if (NotReferencedIn(param, general)) mapping_.Add(param, general);
        return {true, true};
      }
      return {false, true};
    }
    if (NotReferencedIn(param, t)) {
      mapping_.Add(param, t);
      return {true, false};
    }
    return {false, false};
  }

  bool InternalIsAssignable(const Type& t1, const Type& t2) {
    if (t2.kind() == TypeKind::kTypeParam) {
      auto [valid, has_sub] = IsValidTypeSubstitution(t1, t2);
      if (valid) return true;
      if (has_sub) return false;
    }
    if (t1.kind() == TypeKind::kTypeParam) {
      return IsValidTypeSubstitution(t2, t1).first;
    }
    if (IsDynOrError(t1) || IsDynOrError(t2)) return true;
    if (t1.kind() == TypeKind::kNull) return AcceptsNull(t2);
    if (t2.kind() == TypeKind::kNull) return AcceptsNull(t1);
    switch (t1.kind()) {
      case TypeKind::kBool:
      case TypeKind::kBytes:
      case TypeKind::kDouble:
      case TypeKind::kInt:
      case TypeKind::kString:
      case TypeKind::kUint:
      case TypeKind::kDuration:
      case TypeKind::kTimestamp:
      case TypeKind::kStruct:
        return TypeAcceptsType(t2, t1);
      case TypeKind::kType:
        return t2.kind() == TypeKind::kType;
      case TypeKind::kOpaque:
      case TypeKind::kList:
      case TypeKind::kMap:
        return t1.kind() == t2.kind() && t1.name() == t2.name() &&
               InternalIsAssignableList(t1.params(), t2.params());
      default:
        return false;
    }
  }

  bool InternalIsAssignableList(const std::vector<Type>& l1,
                                const std::vector<Type>& l2) {
    if (l1.size() != l2.size()) return false;
    for (size_t i = 0; i < l1.size(); ++i) {
      if (!InternalIsAssignable(l1[i], l2[i])) return false;
    }
    return true;
  }

  // Whether a value of type t2 can be used where t1 is expected (or the
  // other way round: unification is symmetric); keeps the substitutions
  // only on success.
  bool IsAssignable(const Type& t1, const Type& t2) {
    size_t mark = mapping_.Mark();
    if (InternalIsAssignable(t1, t2)) {
      mapping_.Commit(mark);
      return true;
    }
    mapping_.Rollback(mark);
    return false;
  }

  bool IsAssignableList(const std::vector<Type>& l1,
                        const std::vector<Type>& l2) {
    size_t mark = mapping_.Mark();
    if (InternalIsAssignableList(l1, l2)) {
      mapping_.Commit(mark);
      return true;
    }
    mapping_.Rollback(mark);
    return false;
  }

  Type NewTypeVar() {
    return Type::Param(StrCat("_var", free_type_var_counter_++));
  }

  // --- Node types ---

  void SetType(const Expr& e, Type t) { types_.insert_or_assign(e.id, t); }
  const Type& GetType(const Expr& e) const {
    static const Type* error = new Type(Type::Error());
    auto it = types_.find(e.id);
    return it == types_.end() ? *error : it->second;
  }

  // --- The walk (cel-go checker.check) ---

  void CheckExpr(const Expr& e) {
    if (const auto* c = e.As<ConstExpr>()) {
      SetType(e, ConstantType(c->value));
    } else if (const auto* id = e.As<IdentExpr>()) {
      CheckIdent(e, *id);
    } else if (const auto* sel = e.As<SelectExpr>()) {
      CheckSelect(e, *sel);
    } else if (const auto* call = e.As<CallExpr>()) {
      CheckCall(e, *call);
    } else if (const auto* list = e.As<ListExpr>()) {
      CheckList(e, *list);
    } else if (const auto* map = e.As<MapExpr>()) {
      CheckMap(e, *map);
    } else if (const auto* msg = e.As<StructExpr>()) {
      CheckStruct(e, *msg);
    } else if (const auto* comp = e.As<ComprehensionExpr>()) {
      CheckComprehension(e, *comp);
    }
  }

  void CheckIdent(const Expr& e, const IdentExpr& id) {
    std::string resolved;
    if (auto t = ResolveSimpleIdent(id.name, &resolved)) {
      SetType(e, *t);
      if (!resolved.empty()) references_[e.id] = resolved;
      return;
    }
    SetType(e, Type::Error());
    UndeclaredReference(e.position, id.name);
  }

  // The qualified name of a select chain rooted at an identifier, or
  // nullopt (cel-go computeQualifiers).
  static std::optional<std::vector<std::string_view>> Qualifiers(
      const Expr& e) {
    std::vector<std::string_view> parts;
    const Expr* cur = &e;
    while (const auto* sel = cur->As<SelectExpr>()) {
      if (sel->test_only) return std::nullopt;
      parts.push_back(sel->field);
      cur = sel->operand.get();
      if (const auto* id = cur->As<IdentExpr>()) {
        parts.push_back(id->name);
        std::reverse(parts.begin(), parts.end());
        return parts;
      }
    }
    return std::nullopt;
  }

  void CheckSelect(const Expr& e, const SelectExpr& sel) {
    if (auto parts = Qualifiers(e)) {
      // A qualified identifier resolves unless its first part is a
      // comprehension variable (then it is a field selection).
      const Type* local = FindLocal((*parts)[0]);
      if (local == nullptr || (*parts)[0].substr(0, 1) == ".") {
        std::string name;
        for (std::string_view p : *parts) {
          if (!name.empty()) name += ".";
          name += p;
        }
        std::string global(WithoutLeadingDot(name));
        if (auto t = FindGlobal(global)) {
          SetType(e, *t);
          references_[e.id] = global;
          return;
        }
      }
    }
    Type result = CheckSelectField(e, *sel.operand, sel.field, false);
    if (sel.test_only) result = Type::Bool();
    SetType(e, Substitute(result, false));
  }

  Type CheckSelectField(const Expr& e, const Expr& operand,
                        std::string_view field, bool optional) {
    CheckExpr(operand);
    Type operand_type = Substitute(GetType(operand), false);
    bool is_optional = operand_type.is_optional();
    Type target = is_optional ? operand_type.params()[0] : operand_type;
    Type result = Type::Error();
    switch (target.kind()) {
      case TypeKind::kMap:
        result = target.params()[1];
        break;
      case TypeKind::kStruct:
        if (!target.has_field_declarations()) {
          Report(e.position, StrCat("unexpected failed resolution of '",
                                    target.name(), "'"));
        } else if (const Type* f = target.FindField(field)) {
          result = *f;
        } else {
          Report(e.position, StrCat("undefined field '", field, "'"));
        }
        break;
      case TypeKind::kTypeParam:
        IsAssignable(Type::Dyn(), target);
        result = Type::Dyn();
        break;
      default:
        if (!IsDynOrError(target)) {
          Report(e.position, StrCat("type '", target.Format(),
                                    "' does not support field selection"));
        }
        result = Type::Dyn();
        break;
    }
    if (is_optional || optional) return Type::Optional(result);
    return result;
  }

  void CheckOptSelect(const Expr& e, const CallExpr& call) {
    if (call.args.size() != 2 || call.target != nullptr) {
      Report(e.position,
             StrCat("unsupported optional field selection: incorrect "
                    "signature.",
                    call.target != nullptr ? " member call with" : "",
                    " argument count: ", call.args.size()));
      return;
    }
    const Expr& field = *call.args[1];
    const auto* c = field.As<ConstExpr>();
    const std::string* name =
        c != nullptr ? std::get_if<std::string>(&c->value) : nullptr;
    if (name == nullptr) {
      Report(field.position, "unsupported optional field selection");
      return;
    }
    Type result = CheckSelectField(e, *call.args[0], *name, true);
    SetType(e, Substitute(result, false));
    overload_ids_[e.id] = {"select_optional_field"};
  }

  void CheckCall(const Expr& e, const CallExpr& call) {
    if (call.function == op::kOptSelect) {
      CheckOptSelect(e, call);
      return;
    }
    for (const ExprPtr& arg : call.args) CheckExpr(*arg);

    if (call.target == nullptr) {
      const FunctionDecl* fn = LookupFunction(call.function);
      if (fn == nullptr) {
        UndeclaredReference(e.position, call.function);
        SetType(e, Type::Error());
        return;
      }
      ResolveOverloadOrError(e, *fn, nullptr, call.args);
      return;
    }
    // a.b.f(x) is either the function a.b.f or f with receiver a.b.
    if (auto prefix = QualifiedName(*call.target)) {
      if (const FunctionDecl* fn =
              LookupFunction(StrCat(*prefix, ".", call.function))) {
        namespaced_functions_[e.id] = fn->name;
        ResolveOverloadOrError(e, *fn, nullptr, call.args);
        return;
      }
    }
    CheckExpr(*call.target);
    if (const FunctionDecl* fn = LookupFunction(call.function)) {
      ResolveOverloadOrError(e, *fn, call.target.get(), call.args);
      return;
    }
    SetType(e, Type::Error());
    UndeclaredReference(e.position, call.function);
  }

  void ResolveOverloadOrError(const Expr& e, const FunctionDecl& fn,
                              const Expr* target,
                              const std::vector<ExprPtr>& args) {
    std::vector<Type> arg_types;
    if (target != nullptr) arg_types.push_back(GetType(*target));
    for (const ExprPtr& a : args) arg_types.push_back(GetType(*a));

    std::optional<Type> result;
    std::vector<std::string> matched;
    for (const CheckerOverload& o : fn.overloads) {
      if (!env_.cross_type_numeric_comparisons &&
          IsCrossTypeNumericComparison(o.id)) {
        continue;
      }
      if ((target == nullptr) == o.receiver_style) continue;
      if (fn.name == op::kLogicalAnd || fn.name == op::kLogicalOr) {
        bool ok = true;
        for (size_t i = 0; i < arg_types.size(); ++i) {
          if (!IsAssignable(arg_types[i], Type::Bool())) {
            TypeMismatch(args[i]->position, Type::Bool(), arg_types[i]);
            ok = false;
          }
        }
        if (!ok) {
          SetType(e, Type::Error());
          return;
        }
        overload_ids_[e.id] = {o.id};
        SetType(e, Type::Bool());
        return;
      }
      // Instantiate the overload's type parameters with fresh variables.
      std::vector<Type> params = o.params;
      Type overload_result = o.result;
      if (!o.type_params.empty()) {
        TypeMapping fresh;
        for (const std::string& p : o.type_params) {
          fresh.Add(Type::Param(p), NewTypeVar());
        }
        for (Type& p : params) p = SubstituteWith(fresh, p);
        overload_result = SubstituteWith(fresh, overload_result);
      }
      if (!IsAssignableList(arg_types, params)) continue;
      matched.push_back(o.id);
      Type r = Substitute(overload_result, false);
      if (!result) {
        result = r;
      } else if (!result->IsDynOrAny() && !r.IsExact(*result)) {
        result = Type::Dyn();
      }
    }
    if (!result) {
      std::vector<Type> shown;
      for (const Type& t : arg_types) shown.push_back(Substitute(t, true));
      Report(e.position, StrCat("found no matching overload for '", fn.name,
                                "' applied to '",
                                FormatArgTypes(shown, target != nullptr), "'"));
      SetType(e, Type::Error());
      return;
    }
    overload_ids_[e.id] = std::move(matched);
    SetType(e, *result);
  }

  // Substitution with a separate mapping (type parameter instantiation).
  static Type SubstituteWith(const TypeMapping& m, const Type& t) {
    if (const Type* sub = m.Find(t)) return *sub;
    switch (t.kind()) {
      case TypeKind::kList:
        return Type::List(SubstituteWith(m, t.params()[0]));
      case TypeKind::kMap:
        return Type::Map(SubstituteWith(m, t.params()[0]),
                         SubstituteWith(m, t.params()[1]));
      case TypeKind::kOpaque:
      case TypeKind::kType: {
        if (t.params().empty()) return t;
        std::vector<Type> params;
        for (const Type& p : t.params()) params.push_back(SubstituteWith(m, p));
        if (t.kind() == TypeKind::kType) return Type::TypeOf(params[0]);
        return Type::Opaque(t.name(), std::move(params));
      }
      default:
        return t;
    }
  }

  // Joins the element types of an aggregate literal (cel-go joinTypes):
  // mixed types give dyn. (cel-go's HomogeneousAggregateLiterals option is
  // the AST validator that runs after checking, not the checker's
  // homogeneous mode, so the checker never reports a mismatch here.)
  std::optional<Type> JoinTypes(const std::optional<Type>& previous,
                                const Type& current) {
    if (!previous) return current;
    if (IsAssignable(*previous, current)) {
      return MostGeneral(*previous, current);
    }
    return Type::Dyn();
  }

  // For `?x` entries: the optional's value type (a non-optional, non-dyn
  // value is an error).
  Type UnwrapOptionalEntry(const Expr& value, Type t) {
    if (t.is_optional()) return t.params()[0];
    if (!t.IsDynOrAny()) TypeMismatch(value.position, Type::Optional(t), t);
    return t;
  }

  void CheckList(const Expr& e, const ListExpr& list) {
    std::optional<Type> elements;
    for (size_t i = 0; i < list.elements.size(); ++i) {
      const Expr& el = *list.elements[i];
      CheckExpr(el);
      Type t = GetType(el);
      if (std::find(list.optional_indices.begin(), list.optional_indices.end(),
                    static_cast<int32_t>(i)) != list.optional_indices.end()) {
        t = UnwrapOptionalEntry(el, t);
      }
      elements = JoinTypes(elements, t);
    }
    SetType(e, Type::List(elements ? *elements : NewTypeVar()));
  }

  void CheckMap(const Expr& e, const MapExpr& map) {
    std::optional<Type> key_type, value_type;
    for (const MapEntry& entry : map.entries) {
      CheckExpr(*entry.key);
      key_type = JoinTypes(key_type, GetType(*entry.key));
      CheckExpr(*entry.value);
      Type v = GetType(*entry.value);
      if (entry.optional) v = UnwrapOptionalEntry(*entry.value, v);
      value_type = JoinTypes(value_type, v);
    }
    if (!key_type) {
      key_type = NewTypeVar();
      value_type = NewTypeVar();
    }
    SetType(e, Type::Map(*key_type, *value_type));
  }

  void CheckStruct(const Expr& e, const StructExpr& msg) {
    std::string name(WithoutLeadingDot(msg.message_name));
    std::optional<Type> type_ident;
    auto s = struct_types_.find(name);
    if (s != struct_types_.end()) {
      type_ident = Type::TypeOf(s->second);
    } else {
      auto t = type_identifiers_.find(name);
      if (t != type_identifiers_.end()) type_ident = t->second;
    }
    if (!type_ident) {
      UndeclaredReference(e.position, msg.message_name);
      SetType(e, Type::Error());
      return;
    }
    references_[e.id] = name;
    Type result = Type::Error();
    Type message = type_ident->params().empty() ? Type::TypeType()
                                                : type_ident->params()[0];
    if (message.kind() == TypeKind::kStruct) {
      result = message;
    } else if (message.IsDynOrAny() || message.kind() == TypeKind::kTimestamp ||
               message.kind() == TypeKind::kDuration ||
               message.kind() == TypeKind::kNull ||
               (message.kind() == TypeKind::kList &&
                message.params()[0].kind() == TypeKind::kDyn) ||
               (message.kind() == TypeKind::kMap &&
                message.params()[0].kind() == TypeKind::kString &&
                message.params()[1].kind() == TypeKind::kDyn)) {
      // Well-known protobuf types constructed by name.
      result = message;
    } else {
      Report(e.position,
             StrCat("'", message.name(), "' is not a message type"));
    }
    SetType(e, result);
    for (const StructField& f : msg.fields) {
      CheckExpr(*f.value);
      Type field_type = Type::Error();
      if (result.kind() == TypeKind::kStruct &&
          result.has_field_declarations()) {
        if (const Type* ft = result.FindField(f.field)) {
          field_type = *ft;
        } else {
          Report(f.position, StrCat("undefined field '", f.field, "'"));
        }
      } else if (result.kind() != TypeKind::kError) {
        Report(f.position,
               StrCat("unexpected failed resolution of '", result.name(), "'"));
      }
      Type value = GetType(*f.value);
      if (f.optional) value = UnwrapOptionalEntry(*f.value, value);
      if (!IsAssignable(field_type, value)) {
        Report(f.position,
               StrCat("expected type of field '", f.field, "' is '",
                      field_type.Format(), "' but provided type is '",
                      value.Format(), "'"));
      }
    }
  }

  void CheckComprehension(const Expr& e, const ComprehensionExpr& comp) {
    CheckExpr(*comp.iter_range);
    CheckExpr(*comp.accu_init);
    Type range = Substitute(GetType(*comp.iter_range), false);
    Type accu = GetType(*comp.accu_init);
    scopes_.push_back({{comp.accu_var, accu}});

    bool two_vars = !comp.iter_var2.empty();
    Type var = Type::Error(), var2 = Type::Error();
    switch (range.kind()) {
      case TypeKind::kList:
        var = range.params()[0];
        if (two_vars) {
          var2 = var;
          var = Type::Int();
        }
        break;
      case TypeKind::kMap:
        var = range.params()[0];
        if (two_vars) var2 = range.params()[1];
        break;
      // Not google.protobuf.Any: as in cel-go, an `any` value (a DRA
      // attribute without the list-type feature) is not iterable.
      case TypeKind::kDyn:
      case TypeKind::kError:
      case TypeKind::kTypeParam:
        IsAssignable(Type::Dyn(), range);
        var = Type::Dyn();
        var2 = Type::Dyn();
        break;
      default:
        Report(comp.iter_range->position,
               StrCat("expression of type '", range.Format(),
                      "' cannot be range of a comprehension (must be list, "
                      "map, or dynamic)"));
        break;
    }
    std::vector<std::pair<std::string, Type>> loop_scope = {
        {comp.iter_var, var}};
    if (two_vars) loop_scope.push_back({comp.iter_var2, var2});
    scopes_.push_back(std::move(loop_scope));
    CheckExpr(*comp.loop_condition);
    AssertType(*comp.loop_condition, Type::Bool());
    CheckExpr(*comp.loop_step);
    AssertType(*comp.loop_step, accu);
    scopes_.pop_back();
    CheckExpr(*comp.result);
    scopes_.pop_back();
    SetType(e, Substitute(GetType(*comp.result), false));
  }

  void AssertType(const Expr& e, const Type& t) {
    Type actual = GetType(e);
    if (!IsAssignable(t, actual)) TypeMismatch(e.position, t, actual);
  }

  // --- AST validators (cel-go cel/validator.go) ---

  // The function name a call resolved to.
  std::string_view CallName(const Expr& e, const CallExpr& call) const {
    auto it = namespaced_functions_.find(e.id);
    return it != namespaced_functions_.end() ? std::string_view(it->second)
                                             : std::string_view(call.function);
  }

  template <class Fn>
  static void ForEachNode(const Expr& e, const Fn& fn) {
    fn(e);
    if (const auto* sel = e.As<SelectExpr>()) {
      ForEachNode(*sel->operand, fn);
    } else if (const auto* call = e.As<CallExpr>()) {
      if (call->target) ForEachNode(*call->target, fn);
      for (const ExprPtr& a : call->args) ForEachNode(*a, fn);
    } else if (const auto* list = e.As<ListExpr>()) {
      for (const ExprPtr& el : list->elements) ForEachNode(*el, fn);
    } else if (const auto* map = e.As<MapExpr>()) {
      for (const MapEntry& en : map->entries) {
        ForEachNode(*en.key, fn);
        ForEachNode(*en.value, fn);
      }
    } else if (const auto* msg = e.As<StructExpr>()) {
      for (const StructField& f : msg->fields) ForEachNode(*f.value, fn);
    } else if (const auto* comp = e.As<ComprehensionExpr>()) {
      ForEachNode(*comp->iter_range, fn);
      ForEachNode(*comp->accu_init, fn);
      ForEachNode(*comp->loop_condition, fn);
      ForEachNode(*comp->loop_step, fn);
      ForEachNode(*comp->result, fn);
    }
  }

  // duration(<literal>), timestamp(<literal>): evaluated at compile time;
  // matches(): the first argument, when a string literal, must be a valid
  // regular expression. (For the receiver form `s.matches(re)` that is the
  // pattern; for the global form `matches(s, re)` cel-go checks `s`.)
  void ValidateLiteralArguments(const Expr& root) {
    ForEachNode(root, [&](const Expr& e) {
      const auto* call = e.As<CallExpr>();
      if (call == nullptr || call->args.empty()) return;
      const Expr& arg = *call->args[0];
      const auto* literal = arg.As<ConstExpr>();
      if (literal == nullptr) return;
      std::string_view name = CallName(e, *call);
      if (name == "duration" || name == "timestamp") {
        if (!EvaluatesWithoutError(e)) {
          Report(arg.position, StrCat("invalid ", name, " argument"));
        }
      } else if (name == "matches") {
        const auto* pattern = std::get_if<std::string>(&literal->value);
        if (pattern != nullptr && !IsValidRegex(*pattern)) {
          Report(arg.position, "invalid matches argument");
        }
      }
    });
  }

  bool EvaluatesWithoutError(const Expr& call) const {
    auto program = Plan(call, *env_.functions);
    if (!program.ok()) return false;
    MapActivation none;
    return !(*program)->Evaluate(none).value.is_error();
  }

  // Whether Go's regexp.Compile (which cel-go uses here) accepts
  // `pattern`: what RE2 accepts, except the \C escape, plus the named
  // group syntax (?<name>...) that Go accepts and Debian 12's RE2 does not
  // (it is validated as the equivalent (?P<name>...)).
  static bool IsValidRegex(const std::string& pattern) {
    std::string translated;
    translated.reserve(pattern.size());
    for (size_t i = 0; i < pattern.size(); ++i) {
      char c = pattern[i];
      if (c == '\\' && i + 1 < pattern.size()) {
        if (pattern[i + 1] == 'C') return false;
        translated += c;
        translated += pattern[++i];
        continue;
      }
      translated += c;
      if (c == '(' && pattern.compare(i + 1, 2, "?<") == 0 &&
          i + 3 < pattern.size() &&
          (std::isalpha(static_cast<unsigned char>(pattern[i + 3])) ||
           pattern[i + 3] == '_')) {
        translated += "?P<";
        i += 2;
      }
    }
    RE2::Options options;
    options.set_log_errors(false);
    RE2 re(translated, options);
    return re.ok();
  }

  // Every list literal's elements, and every map literal's keys and
  // values, must have equivalent types (after checking, so dyn() is the
  // only escape), except inside calls exempted by a library (`format`).
  void ValidateHomogeneousLiterals(
      const Expr& e, const std::unordered_map<int64_t, Type>& types,
      bool exempt) {
    auto type_of = [&](const Expr& n) -> Type {
      auto it = types.find(n.id);
      return it == types.end() ? Type::Error() : it->second;
    };
    if (const auto* call = e.As<CallExpr>()) {
      std::string_view name = CallName(e, *call);
      if (name == "format" && env_.functions != nullptr &&
          env_.functions->HasFunction("format")) {
        exempt = true;
      }
    } else if (!exempt) {
      if (const auto* list = e.As<ListExpr>()) {
        std::optional<Type> first;
        for (size_t i = 0; i < list->elements.size(); ++i) {
          const Expr& el = *list->elements[i];
          Type t = type_of(el);
          if (std::find(
                  list->optional_indices.begin(), list->optional_indices.end(),
                  static_cast<int32_t>(i)) != list->optional_indices.end() &&
              t.is_optional()) {
            t = t.params()[0];
          }
          if (!first) {
            first = t;
          } else if (!first->IsEquivalent(t)) {
            TypeMismatch(el.position, *first, t);
            break;
          }
        }
      } else if (const auto* map = e.As<MapExpr>()) {
        std::optional<Type> key, value;
        for (const MapEntry& entry : map->entries) {
          Type k = type_of(*entry.key), v = type_of(*entry.value);
          if (entry.optional && v.is_optional()) v = v.params()[0];
          if (!key) {
            key = k;
            value = v;
            continue;
          }
          if (!key->IsEquivalent(k)) TypeMismatch(entry.key->position, *key, k);
          if (!value->IsEquivalent(v)) {
            TypeMismatch(entry.value->position, *value, v);
          }
        }
      }
    }
    // Children.
    if (const auto* sel = e.As<SelectExpr>()) {
      ValidateHomogeneousLiterals(*sel->operand, types, exempt);
    } else if (const auto* call = e.As<CallExpr>()) {
      if (call->target)
        ValidateHomogeneousLiterals(*call->target, types, exempt);
      for (const ExprPtr& a : call->args) {
        ValidateHomogeneousLiterals(*a, types, exempt);
      }
    } else if (const auto* list = e.As<ListExpr>()) {
      for (const ExprPtr& el : list->elements) {
        ValidateHomogeneousLiterals(*el, types, exempt);
      }
    } else if (const auto* map = e.As<MapExpr>()) {
      for (const MapEntry& en : map->entries) {
        ValidateHomogeneousLiterals(*en.key, types, exempt);
        ValidateHomogeneousLiterals(*en.value, types, exempt);
      }
    } else if (const auto* msg = e.As<StructExpr>()) {
      for (const StructField& f : msg->fields) {
        ValidateHomogeneousLiterals(*f.value, types, exempt);
      }
    } else if (const auto* comp = e.As<ComprehensionExpr>()) {
      ValidateHomogeneousLiterals(*comp->iter_range, types, exempt);
      ValidateHomogeneousLiterals(*comp->accu_init, types, exempt);
      ValidateHomogeneousLiterals(*comp->loop_condition, types, exempt);
      ValidateHomogeneousLiterals(*comp->loop_step, types, exempt);
      ValidateHomogeneousLiterals(*comp->result, types, exempt);
    }
  }

  const CheckerEnvironment& env_;
  std::string_view source_;
  std::unordered_map<std::string, Type> type_identifiers_;
  std::unordered_map<std::string, Type> struct_types_;
  std::unordered_map<std::string, std::unique_ptr<FunctionDecl>> functions_;
  // Comprehension scopes, innermost last.
  std::vector<std::vector<std::pair<std::string, Type>>> scopes_;
  TypeMapping mapping_;
  int free_type_var_counter_ = 0;
  std::unordered_map<int64_t, Type> types_;
  std::unordered_map<int64_t, std::vector<std::string>> overload_ids_;
  std::unordered_map<int64_t, std::string> namespaced_functions_;
  std::unordered_map<int64_t, std::string> references_;
  std::vector<Issue> issues_;
  size_t issue_count_ = 0;
};

}  // namespace

absl::StatusOr<CheckedExpr> Check(const Expr& root, std::string_view source,
                                  const CheckerEnvironment& env) {
  Checker checker(env, source);
  return checker.Run(root);
}

}  // namespace draplane::cel::internal

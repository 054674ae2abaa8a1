// cel-go's macros as the parser expands them (ParserImpl's macro members;
// parser_impl.h).
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cel/internal/ast.h"
#include "cel/internal/parser_impl.h"
#include "common/str_cat.h"

namespace draplane::cel::internal::parsing {

ExprPtr ParserImpl::GlobalCallOrMacro(int64_t id, int32_t position,
                                      std::string function,
                                      std::vector<ExprPtr> args) {
  if (options_.enable_macros && function == "has" && args.size() == 1) {
    // The call's id is consumed by the expansion (cel-go deleteID).
    if (const auto* select = args[0]->As<SelectExpr>();
        select != nullptr && !select->test_only) {
      SelectExpr* s = args[0]->As<SelectExpr>();
      return MacroBuilder(this, position)
          .PresenceTest(std::move(s->operand), std::move(s->field));
    }
    SemanticError(args[0]->position, "invalid argument to has() macro");
    return ErrorNode(position);
  }
  return NewCall(id, position, std::move(function), nullptr, std::move(args));
}

ExprPtr ParserImpl::ReceiverCallOrMacro(int64_t id, int32_t position,
                                        std::string function, ExprPtr target,
                                        std::vector<ExprPtr> args) {
  if (options_.enable_macros) {
    if (ExprPtr expansion =
            ExpandReceiverMacro(position, function, target, args)) {
      return expansion;
    }
  }
  return NewCall(id, position, std::move(function), std::move(target),
                 std::move(args));
}

ExprPtr ParserImpl::ExpandReceiverMacro(int32_t position,
                                        const std::string& function,
                                        ExprPtr& target,
                                        std::vector<ExprPtr>& args) {
  const size_t n = args.size();
  if (n == 2) {
    if (function == "all")
      return ExpandQuantifier(Quantifier::kAll, position, target, args);
    if (function == "exists")
      return ExpandQuantifier(Quantifier::kExists, position, target, args);
    if (function == "exists_one" || function == "existsOne") {
      return ExpandQuantifier(Quantifier::kExistsOne, position, target, args);
    }
    if (function == "map") return ExpandMap(position, target, args);
    if (function == "filter") return ExpandFilter(position, target, args);
  }
  if (n == 2 && function == "sortBy" && options_.enable_sort_by_macro) {
    return ExpandSortBy(position, target, args);
  }
  if (n == 2 && options_.enable_optional_syntax &&
      (function == "optMap" || function == "optFlatMap")) {
    return ExpandOptMap(position, function == "optMap", target, args);
  }
  if (n == 3 && function == "map") return ExpandMap(position, target, args);
  if (n == 3 && function == "bind" && options_.enable_bind_macro) {
    const IdentExpr* ns = target->As<IdentExpr>();
    if (ns != nullptr && ns->name == "cel") {
      return ExpandBind(position, args);
    }
    return nullptr;
  }
  if (options_.enable_two_var_comprehensions) {
    if (n == 3) {
      if (function == "all")
        return ExpandQuantifier2(Quantifier::kAll, position, target, args);
      if (function == "exists")
        return ExpandQuantifier2(Quantifier::kExists, position, target, args);
      if (function == "exists_one" || function == "existsOne") {
        return ExpandQuantifier2(Quantifier::kExistsOne, position, target,
                                 args);
      }
    }
    if (n == 3 || n == 4) {
      if (function == "transformList" || function == "transformMap" ||
          function == "transformMapEntry") {
        return ExpandTransform(function, position, target, args);
      }
    }
  }
  return nullptr;
}

std::optional<std::string> ParserImpl::SimpleName(const Expr& e) {
  if (const IdentExpr* ident = e.As<IdentExpr>()) return ident->name;
  return std::nullopt;
}

bool ParserImpl::IsAccumulatorName(const std::string& name) {
  return name == kAccumulatorName || name == kLegacyAccumulatorName;
}

std::optional<std::string> ParserImpl::IterVar(
    const Expr& arg, std::string_view not_ident_message) {
  std::optional<std::string> v = SimpleName(arg);
  if (!v) {
    SemanticError(arg.position, std::string(not_ident_message));
    return std::nullopt;
  }
  if (IsAccumulatorName(*v)) {
    SemanticError(arg.position,
                  "iteration variable overwrites accumulator variable");
    return std::nullopt;
  }
  return v;
}

ParserImpl::FoldParts ParserImpl::QuantifierParts(Quantifier kind,
                                                  MacroBuilder& b,
                                                  ExprPtr predicate) {
  FoldParts p;
  switch (kind) {
    case Quantifier::kAll: {
      p.init = b.Literal(true);
      ExprPtr a1 = b.Accu();
      p.condition = b.Call(op::kNotStrictlyFalse, Args(std::move(a1)));
      ExprPtr a2 = b.Accu();
      p.step =
          b.Call(op::kLogicalAnd, Args(std::move(a2), std::move(predicate)));
      p.result = b.Accu();
      break;
    }
    case Quantifier::kExists: {
      p.init = b.Literal(false);
      ExprPtr a1 = b.Accu();
      ExprPtr negated = b.Call(op::kLogicalNot, Args(std::move(a1)));
      p.condition = b.Call(op::kNotStrictlyFalse, Args(std::move(negated)));
      ExprPtr a2 = b.Accu();
      p.step =
          b.Call(op::kLogicalOr, Args(std::move(a2), std::move(predicate)));
      p.result = b.Accu();
      break;
    }
    case Quantifier::kExistsOne: {
      p.init = b.Literal(int64_t{0});
      p.condition = b.Literal(true);
      ExprPtr a1 = b.Accu();
      ExprPtr one = b.Literal(int64_t{1});
      ExprPtr add = b.Call(op::kAdd, Args(std::move(a1), std::move(one)));
      ExprPtr a2 = b.Accu();
      p.step = b.Call(op::kConditional, Args(std::move(predicate),
                                             std::move(add), std::move(a2)));
      ExprPtr a3 = b.Accu();
      ExprPtr one2 = b.Literal(int64_t{1});
      p.result = b.Call(op::kEquals, Args(std::move(a3), std::move(one2)));
      break;
    }
  }
  return p;
}

ExprPtr ParserImpl::ExpandQuantifier(Quantifier kind, int32_t position,
                                     ExprPtr& target,
                                     std::vector<ExprPtr>& args) {
  std::optional<std::string> v =
      IterVar(*args[0], "argument must be a simple name");
  if (!v) return ErrorNode(position);
  MacroBuilder b(this, position);
  FoldParts p = QuantifierParts(kind, b, std::move(args[1]));
  return b.Fold(*v, "", std::move(target), kAccumulatorName, std::move(p.init),
                std::move(p.condition), std::move(p.step), std::move(p.result));
}

ExprPtr ParserImpl::ExpandMap(int32_t position, ExprPtr& target,
                              std::vector<ExprPtr>& args) {
  std::optional<std::string> v =
      IterVar(*args[0], "argument is not an identifier");
  if (!v) return ErrorNode(position);
  MacroBuilder b(this, position);
  ExprPtr filter = args.size() == 3 ? std::move(args[1]) : nullptr;
  ExprPtr transform = std::move(args.back());
  ExprPtr init = b.List({});
  ExprPtr condition = b.Literal(true);
  ExprPtr a1 = b.Accu();
  ExprPtr single = b.List(Args(std::move(transform)));
  ExprPtr step = b.Call(op::kAdd, Args(std::move(a1), std::move(single)));
  if (filter != nullptr) {
    ExprPtr a2 = b.Accu();
    step = b.Call(op::kConditional,
                  Args(std::move(filter), std::move(step), std::move(a2)));
  }
  ExprPtr result = b.Accu();
  return b.Fold(*v, "", std::move(target), kAccumulatorName, std::move(init),
                std::move(condition), std::move(step), std::move(result));
}

ExprPtr ParserImpl::ExpandFilter(int32_t position, ExprPtr& target,
                                 std::vector<ExprPtr>& args) {
  std::optional<std::string> v =
      IterVar(*args[0], "argument is not an identifier");
  if (!v) return ErrorNode(position);
  MacroBuilder b(this, position);
  ExprPtr init = b.List({});
  ExprPtr condition = b.Literal(true);
  ExprPtr a1 = b.Accu();
  ExprPtr single = b.List(Args(std::move(args[0])));
  ExprPtr step = b.Call(op::kAdd, Args(std::move(a1), std::move(single)));
  ExprPtr a2 = b.Accu();
  step = b.Call(op::kConditional,
                Args(std::move(args[1]), std::move(step), std::move(a2)));
  ExprPtr result = b.Accu();
  return b.Fold(*v, "", std::move(target), kAccumulatorName, std::move(init),
                std::move(condition), std::move(step), std::move(result));
}

ExprPtr ParserImpl::ExpandOptMap(int32_t position, bool wrap, ExprPtr& target,
                                 std::vector<ExprPtr>& args) {
  std::optional<std::string> var = SimpleName(*args[0]);
  if (!var) {
    SemanticError(args[0]->position,
                  StrCat(wrap ? "optMap" : "optFlatMap",
                         "() variable name must be a simple identifier"));
    return ErrorNode(position);
  }
  MacroBuilder b(this, position);
  ExprPtr value_target = b.Copy(*target);
  ExprPtr has_value = b.MemberCall("hasValue", std::move(target), {});
  std::vector<ExprPtr> no_elements;
  ExprPtr range = b.List(std::move(no_elements));
  ExprPtr init = b.MemberCall("value", std::move(value_target), {});
  ExprPtr condition = b.Literal(false);
  ExprPtr step = b.Ident(*var);
  ExprPtr bound =
      b.Fold(kUnusedIterVar, "", std::move(range), *var, std::move(init),
             std::move(condition), std::move(step), std::move(args[1]));
  if (wrap) {
    std::vector<ExprPtr> of_args;
    of_args.push_back(std::move(bound));
    bound = b.Call("optional.of", std::move(of_args));
  }
  ExprPtr none = b.Call("optional.none", {});
  std::vector<ExprPtr> cond_args;
  cond_args.push_back(std::move(has_value));
  cond_args.push_back(std::move(bound));
  cond_args.push_back(std::move(none));
  return b.Call(op::kConditional, std::move(cond_args));
}

ExprPtr ParserImpl::ExpandBind(int32_t position, std::vector<ExprPtr>& args) {
  std::optional<std::string> var = SimpleName(*args[0]);
  if (!var) {
    SemanticError(args[0]->position,
                  "cel.bind() variable names must be simple identifiers");
    return ErrorNode(position);
  }
  MacroBuilder b(this, position);
  ExprPtr range = b.List({});
  ExprPtr condition = b.Literal(false);
  ExprPtr step = b.Ident(*var);
  return b.Fold(kUnusedIterVar, "", std::move(range), *var, std::move(args[1]),
                std::move(condition), std::move(step), std::move(args[2]));
}

ExprPtr ParserImpl::ExpandSortBy(int32_t position, ExprPtr& target,
                                 std::vector<ExprPtr>& args) {
  MacroBuilder b(this, position);
  ExprPtr input = b.Ident(kSortByInput);
  if (target->As<ListExpr>() == nullptr &&
      target->As<SelectExpr>() == nullptr &&
      target->As<IdentExpr>() == nullptr &&
      target->As<ComprehensionExpr>() == nullptr &&
      target->As<CallExpr>() == nullptr) {
    SemanticError(target->position,
                  "sortBy can only be applied to a list, identifier, "
                  "comprehension, call or select expression");
    return ErrorNode(position);
  }
  ExprPtr map_target = b.Copy(*input);
  // A malformed variable is reported by ExpandMap; the parse then fails.
  ExprPtr keys = ExpandMap(position, map_target, args);
  ExprPtr receiver = b.Copy(*input);
  ExprPtr call = b.MemberCall(kSortByAssociatedKeys, std::move(receiver),
                              Args(std::move(keys)));
  ExprPtr range = b.List({});
  ExprPtr condition = b.Literal(false);
  return b.Fold(kUnusedIterVar, "", std::move(range), kSortByInput,
                std::move(target), std::move(condition), std::move(input),
                std::move(call));
}

bool ParserImpl::IterVars2(const std::vector<ExprPtr>& args, std::string* first,
                           std::string* second) {
  for (int i = 0; i < 2; ++i) {
    std::optional<std::string> v = SimpleName(*args[i]);
    if (!v) {
      SemanticError(args[i]->position, "argument must be a simple name");
      return false;
    }
    if (IsAccumulatorName(*v)) {
      SemanticError(args[i]->position,
                    "iteration variable overwrites accumulator variable");
      return false;
    }
    *(i == 0 ? first : second) = *v;
  }
  if (*first == *second) {
    SemanticError(args[1]->position,
                  StrCat("duplicate variable name: ", *first));
    return false;
  }
  return true;
}

ExprPtr ParserImpl::ExpandQuantifier2(Quantifier kind, int32_t position,
                                      ExprPtr& target,
                                      std::vector<ExprPtr>& args) {
  std::string k, v;
  if (!IterVars2(args, &k, &v)) return ErrorNode(position);
  MacroBuilder b(this, position);
  FoldParts p = QuantifierParts(kind, b, std::move(args[2]));
  return b.Fold(k, v, std::move(target), kAccumulatorName, std::move(p.init),
                std::move(p.condition), std::move(p.step), std::move(p.result));
}

ExprPtr ParserImpl::ExpandTransform(const std::string& function,
                                    int32_t position, ExprPtr& target,
                                    std::vector<ExprPtr>& args) {
  std::string k, v;
  if (!IterVars2(args, &k, &v)) return ErrorNode(position);
  MacroBuilder b(this, position);
  ExprPtr filter = args.size() == 4 ? std::move(args[2]) : nullptr;
  ExprPtr transform = std::move(args.back());
  ExprPtr step;
  ExprPtr init;
  if (function == "transformList") {
    ExprPtr a1 = b.Accu();
    ExprPtr single = b.List(Args(std::move(transform)));
    step = b.Call(op::kAdd, Args(std::move(a1), std::move(single)));
  } else if (function == "transformMap") {
    ExprPtr a1 = b.Accu();
    ExprPtr key = b.Ident(k);
    step = b.Call(kMapInsert,
                  Args(std::move(a1), std::move(key), std::move(transform)));
  } else {  // transformMapEntry
    ExprPtr a1 = b.Accu();
    step = b.Call(kMapInsert, Args(std::move(a1), std::move(transform)));
  }
  if (filter != nullptr) {
    ExprPtr a2 = b.Accu();
    step = b.Call(op::kConditional,
                  Args(std::move(filter), std::move(step), std::move(a2)));
  }
  init = function == "transformList" ? b.List({}) : b.Map();
  ExprPtr condition = b.Literal(true);
  ExprPtr result = b.Accu();
  return b.Fold(k, v, std::move(target), kAccumulatorName, std::move(init),
                std::move(condition), std::move(step), std::move(result));
}

}  // namespace draplane::cel::internal::parsing

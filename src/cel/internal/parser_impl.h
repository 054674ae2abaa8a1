// The recursive-descent parser behind Parse (parser.h): ParserImpl and
// what it shares with the macro expansion. Private to the cel library:
// parser.cc holds the entry point and the error formatting, the grammar is
// ParserImpl's inline members below, and parser_macros.cc expands cel-go's
// macros (parser/macro.go, ext/bindings.go, ext/comprehensions.go,
// ext/lists.go).
#ifndef DRAPLANE_CEL_INTERNAL_PARSER_IMPL_H_
#define DRAPLANE_CEL_INTERNAL_PARSER_IMPL_H_

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cel/internal/ast.h"
#include "cel/internal/lexer.h"
#include "cel/internal/parser.h"
#include "common/str_cat.h"

// Keeps rarely-taken, local-heavy paths out of the frames of the recursive
// descent functions, so that each nesting level costs little stack (this
// matters most under sanitizers, which pad every local).
#define DRAPLANE_CEL_NOINLINE __attribute__((noinline))

namespace draplane::cel::internal::parsing {

// Hard ceiling on ParserOptions::max_recursion_depth: keeps the parser and
// every recursive AST consumer (printer, checker, evaluator, destructor)
// well inside the default 8 MiB stack.
inline constexpr int kHardMaxRecursionDepth = 500;
// Errors shown in the status message; the rest are counted.
inline constexpr int kMaxDisplayedErrors = 10;
// ANTLR's expected-token set at the start of an expression (cel-go
// messages quote it verbatim).
inline constexpr char kExpectExpression[] =
    "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, "
    "NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";
// Accumulator name used by older cel-go macros; user iteration variables
// may not shadow it either (cel-go parser/macro.go).
inline constexpr char kLegacyAccumulatorName[] = "__result__";
// Iteration variable of cel.bind's fold (cel-go ext/bindings.go).
inline constexpr char kUnusedIterVar[] = "#unused";
// Function used by transformMap/transformMapEntry (cel-go
// ext/comprehensions.go).
inline constexpr char kMapInsert[] = "cel.@mapInsert";
// Names used by the sortBy expansion (cel-go ext/lists.go).
inline constexpr char kSortByInput[] = "@__sortBy_input__";
inline constexpr char kSortByAssociatedKeys[] = "@sortByAssociatedKeys";

// Reserved words (cel-go parser.go reservedIds minus the keywords, which
// the lexer already turns into their own tokens).
inline bool IsReservedIdentifier(std::string_view id) {
  static constexpr std::string_view kReserved[] = {
      "as",        "break",  "const",  "continue", "else", "for",
      "function",  "if",     "import", "let",      "loop", "package",
      "namespace", "return", "var",    "void",     "while"};
  for (std::string_view r : kReserved) {
    if (r == id) return true;
  }
  return false;
}

struct ParseError {
  int32_t position = 0;
  std::string message;
};

template <class... A>
std::vector<ExprPtr> Args(A&&... a) {
  std::vector<ExprPtr> v;
  v.reserve(sizeof...(a));
  (v.push_back(std::move(a)), ...);
  return v;
}

inline const char* RelationFunction(TokenKind kind) {
  switch (kind) {
    case TokenKind::kEq:
      return op::kEquals;
    case TokenKind::kNe:
      return op::kNotEquals;
    case TokenKind::kLt:
      return op::kLess;
    case TokenKind::kLe:
      return op::kLessEquals;
    case TokenKind::kGt:
      return op::kGreater;
    case TokenKind::kGe:
      return op::kGreaterEquals;
    case TokenKind::kIn:
      return op::kIn;
    default:
      return nullptr;
  }
}

class ParserImpl {
 public:
  ParserImpl(std::vector<Token> tokens, const ParserOptions& options)
      : tokens_(std::move(tokens)), options_(options) {
    max_depth_ =
        std::clamp(options.max_recursion_depth, 1, kHardMaxRecursionDepth);
  }

  // Parses the whole token stream. Returns null when a syntax error stopped
  // the parse; semantic errors are in errors() even when non-null.
  ExprPtr ParseStart() {
    ExprPtr e = ParseExpr();
    if (e == nullptr) return nullptr;
    if (Peek().kind != TokenKind::kEof) {
      return Unexpected("<EOF>", TokenKind::kEof);
    }
    return e;
  }

  std::vector<ParseError>& errors() { return errors_; }

 private:
  // Counts recursion levels for the lifetime of one parse function.
  class DepthScope {
   public:
    explicit DepthScope(ParserImpl* p) : p_(p) {}
    ~DepthScope() { p_->depth_ -= levels_; }
    DepthScope(const DepthScope&) = delete;
    DepthScope& operator=(const DepthScope&) = delete;
    // Adds one level; false (after reporting) when over the limit.
    bool Add() {
      ++levels_;
      if (++p_->depth_ > p_->max_depth_) {
        p_->SyntaxError(
            p_->Peek().position,
            StrCat("expression recursion limit exceeded: ", p_->max_depth_));
        return false;
      }
      return true;
    }

   private:
    ParserImpl* p_;
    int levels_ = 0;
  };

  // Macro expansion helper: every node it creates gets a fresh id and the
  // position of the macro call (cel-go exprHelper.nextMacroID). Callers
  // sequence the calls explicitly so ids follow cel-go's Go evaluation
  // order.
  class MacroBuilder {
   public:
    MacroBuilder(ParserImpl* p, int32_t position) : p_(p), pos_(position) {}
    ExprPtr Ident(std::string name) {
      ExprPtr e = p_->NewNode(pos_);
      e->kind = IdentExpr{std::move(name)};
      return e;
    }
    ExprPtr Accu() { return Ident(kAccumulatorName); }
    ExprPtr Literal(Constant c) {
      ExprPtr e = p_->NewNode(pos_);
      e->kind = ConstExpr{std::move(c)};
      return e;
    }
    ExprPtr List(std::vector<ExprPtr> elements) {
      ExprPtr e = p_->NewNode(pos_);
      e->kind = ListExpr{std::move(elements), {}};
      return e;
    }
    ExprPtr Map() {
      ExprPtr e = p_->NewNode(pos_);
      e->kind = MapExpr{};
      return e;
    }
    ExprPtr Call(const char* function, std::vector<ExprPtr> args) {
      ExprPtr e = p_->NewNode(pos_);
      e->kind = CallExpr{function, nullptr, std::move(args)};
      return e;
    }
    ExprPtr MemberCall(const char* function, ExprPtr target,
                       std::vector<ExprPtr> args) {
      ExprPtr e = p_->NewNode(pos_);
      e->kind = CallExpr{function, std::move(target), std::move(args)};
      return e;
    }
    // A deep copy of `e` with fresh ids and the original positions
    // (cel-go MacroExprFactory.Copy).
    ExprPtr Copy(const Expr& e) {
      ExprPtr out = p_->NewNode(e.position);
      auto copy = [&](const ExprPtr& x) { return x ? Copy(*x) : nullptr; };
      std::visit(
          [&](const auto& k) {
            using K = std::decay_t<decltype(k)>;
            if constexpr (std::is_same_v<K, ConstExpr> ||
                          std::is_same_v<K, IdentExpr>) {
              out->kind = k;
            } else if constexpr (std::is_same_v<K, SelectExpr>) {
              out->kind = SelectExpr{copy(k.operand), k.field, k.test_only};
            } else if constexpr (std::is_same_v<K, CallExpr>) {
              CallExpr c{k.function, copy(k.target), {}};
              for (const auto& a : k.args) c.args.push_back(copy(a));
              out->kind = std::move(c);
            } else if constexpr (std::is_same_v<K, ListExpr>) {
              ListExpr l{{}, k.optional_indices};
              for (const auto& a : k.elements) l.elements.push_back(copy(a));
              out->kind = std::move(l);
            } else if constexpr (std::is_same_v<K, MapExpr>) {
              MapExpr m;
              for (const auto& en : k.entries) {
                m.entries.push_back(MapEntry{p_->NextId(), en.position,
                                             copy(en.key), copy(en.value),
                                             en.optional});
              }
              out->kind = std::move(m);
            } else if constexpr (std::is_same_v<K, StructExpr>) {
              StructExpr st{k.message_name, {}};
              for (const auto& f : k.fields) {
                st.fields.push_back(StructField{p_->NextId(), f.position,
                                                f.field, copy(f.value),
                                                f.optional});
              }
              out->kind = std::move(st);
            } else {
              ComprehensionExpr c;
              c.iter_var = k.iter_var;
              c.iter_var2 = k.iter_var2;
              c.iter_range = copy(k.iter_range);
              c.accu_var = k.accu_var;
              c.accu_init = copy(k.accu_init);
              c.loop_condition = copy(k.loop_condition);
              c.loop_step = copy(k.loop_step);
              c.result = copy(k.result);
              out->kind = std::move(c);
            }
          },
          e.kind);
      return out;
    }
    ExprPtr PresenceTest(ExprPtr operand, std::string field) {
      ExprPtr e = p_->NewNode(pos_);
      e->kind = SelectExpr{std::move(operand), std::move(field), true};
      return e;
    }
    ExprPtr Fold(std::string iter_var, std::string iter_var2, ExprPtr range,
                 std::string accu_var, ExprPtr init, ExprPtr condition,
                 ExprPtr step, ExprPtr result) {
      ExprPtr e = p_->NewNode(pos_);
      ComprehensionExpr c;
      c.iter_var = std::move(iter_var);
      c.iter_var2 = std::move(iter_var2);
      c.iter_range = std::move(range);
      c.accu_var = std::move(accu_var);
      c.accu_init = std::move(init);
      c.loop_condition = std::move(condition);
      c.loop_step = std::move(step);
      c.result = std::move(result);
      e->kind = std::move(c);
      return e;
    }

   private:
    ParserImpl* p_;
    int32_t pos_;
  };

  // ---- tokens -------------------------------------------------------------

  const Token& Peek(size_t ahead = 0) const {
    size_t i = std::min(pos_ + ahead, tokens_.size() - 1);
    return tokens_[i];
  }
  Token Next() {
    Token t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }

  // ---- errors -------------------------------------------------------------

  // A syntax error ends the parse: the caller returns null all the way up.
  ExprPtr SyntaxError(int32_t position, std::string message) {
    errors_.push_back(ParseError{position, std::move(message)});
    return nullptr;
  }
  // Reports the current token as unexpected. When the token after it is the
  // single expected one, ANTLR calls the current token "extraneous".
  DRAPLANE_CEL_NOINLINE ExprPtr
  Unexpected(std::string_view expecting,
             std::optional<TokenKind> expected_kind = std::nullopt) {
    const Token& t = Peek();
    const bool extraneous = expected_kind.has_value() &&
                            t.kind != TokenKind::kEof &&
                            Peek(1).kind == *expected_kind;
    return SyntaxError(
        t.position,
        StrCat("Syntax error: ", extraneous ? "extraneous" : "mismatched",
               " input ", TokenDisplay(t), " expecting ", expecting));
  }
  bool Expect(TokenKind kind, std::string_view display) {
    if (Peek().kind == kind) {
      Next();
      return true;
    }
    Unexpected(display, kind);
    return false;
  }
  // A non-fatal error: parsing continues, the result is discarded.
  void SemanticError(int32_t position, std::string message) {
    errors_.push_back(ParseError{position, std::move(message)});
  }
  // A stand-in node for a construct that was reported as an error.
  ExprPtr ErrorNode(int32_t position) {
    ExprPtr e = NewNode(position);
    e->kind = ConstExpr{NullValue{}};
    return e;
  }

  // ---- node construction --------------------------------------------------

  int64_t NextId() { return next_id_++; }
  ExprPtr NewNode(int32_t position) { return NewNode(NextId(), position); }
  static ExprPtr NewNode(int64_t id, int32_t position) {
    auto e = std::make_unique<Expr>();
    e->id = id;
    e->position = position;
    return e;
  }
  static ExprPtr NewCall(int64_t id, int32_t position, std::string function,
                         ExprPtr target, std::vector<ExprPtr> args) {
    ExprPtr e = NewNode(id, position);
    e->kind = CallExpr{std::move(function), std::move(target), std::move(args)};
    return e;
  }

  // ---- grammar ------------------------------------------------------------

  // expr: conditionalOr ('?' conditionalOr ':' expr)?
  ExprPtr ParseExpr() {
    DepthScope scope(this);
    if (!scope.Add()) return nullptr;
    ExprPtr condition = ParseOr();
    if (condition == nullptr || Peek().kind != TokenKind::kQuestion) {
      return condition;
    }
    return ParseConditionalTail(std::move(condition));
  }

  DRAPLANE_CEL_NOINLINE ExprPtr ParseConditionalTail(ExprPtr condition) {
    const Token question = Next();
    int64_t id = NextId();
    ExprPtr if_true = ParseOr();
    if (if_true == nullptr) return nullptr;
    if (!Expect(TokenKind::kColon, "':'")) return nullptr;
    ExprPtr if_false = ParseExpr();
    if (if_false == nullptr) return nullptr;
    return NewCall(
        id, question.position, op::kConditional, nullptr,
        Args(std::move(condition), std::move(if_true), std::move(if_false)));
  }

  // conditionalOr: conditionalAnd ('||' conditionalAnd)*  (balanced tree)
  // conditionalAnd: relation ('&&' relation)*
  ExprPtr ParseOr() {
    ExprPtr first = ParseAnd();
    if (first == nullptr || Peek().kind != TokenKind::kOr) return first;
    return ParseLogicalChain(TokenKind::kOr, std::move(first));
  }
  ExprPtr ParseAnd() {
    ExprPtr first = ParseBinary(Level::kRelation);
    if (first == nullptr || Peek().kind != TokenKind::kAnd) return first;
    return ParseLogicalChain(TokenKind::kAnd, std::move(first));
  }

  DRAPLANE_CEL_NOINLINE ExprPtr ParseLogicalChain(TokenKind kind,
                                                  ExprPtr first) {
    std::vector<ExprPtr> terms;
    std::vector<std::pair<int64_t, int32_t>> ops;  // id, position
    terms.push_back(std::move(first));
    while (Peek().kind == kind) {
      const Token op_token = Next();
      ExprPtr next =
          kind == TokenKind::kOr ? ParseAnd() : ParseBinary(Level::kRelation);
      if (next == nullptr) return nullptr;
      // cel-go allocates the operator's id after visiting its right operand.
      ops.emplace_back(NextId(), op_token.position);
      terms.push_back(std::move(next));
    }
    return Balance(kind == TokenKind::kOr ? op::kLogicalOr : op::kLogicalAnd,
                   terms, ops, 0, static_cast<int>(ops.size()) - 1);
  }

  // cel-go parser/helper.go balancer.balancedTree.
  ExprPtr Balance(const char* function, std::vector<ExprPtr>& terms,
                  const std::vector<std::pair<int64_t, int32_t>>& ops, int lo,
                  int hi) {
    int mid = (lo + hi + 1) / 2;
    ExprPtr left = mid == lo ? std::move(terms[mid])
                             : Balance(function, terms, ops, lo, mid - 1);
    ExprPtr right = mid == hi ? std::move(terms[mid + 1])
                              : Balance(function, terms, ops, mid + 1, hi);
    return NewCall(ops[mid].first, ops[mid].second, function, nullptr,
                   Args(std::move(left), std::move(right)));
  }

  // The left-associative binary levels of CEL.g4's `relation` and `calc`.
  enum class Level { kRelation, kAdditive, kMultiplicative };

  static const char* BinaryFunction(Level level, TokenKind kind) {
    switch (level) {
      case Level::kRelation:
        return RelationFunction(kind);
      case Level::kAdditive:
        return kind == TokenKind::kPlus    ? op::kAdd
               : kind == TokenKind::kMinus ? op::kSubtract
                                           : nullptr;
      case Level::kMultiplicative:
        return kind == TokenKind::kStar      ? op::kMultiply
               : kind == TokenKind::kSlash   ? op::kDivide
               : kind == TokenKind::kPercent ? op::kModulo
                                             : nullptr;
    }
    return nullptr;
  }

  ExprPtr ParseOperand(Level level) {
    switch (level) {
      case Level::kRelation:
        return ParseBinary(Level::kAdditive);
      case Level::kAdditive:
        return ParseBinary(Level::kMultiplicative);
      case Level::kMultiplicative:
        break;
    }
    return ParseUnary();
  }

  // operand (op operand)*, each operator adding one recursion level for the
  // rest of the chain (the AST nests as deep as the chain is long).
  ExprPtr ParseBinary(Level level) {
    DepthScope scope(this);
    ExprPtr lhs = ParseOperand(level);
    while (lhs != nullptr) {
      const char* function = BinaryFunction(level, Peek().kind);
      if (function == nullptr) break;
      if (!scope.Add()) return nullptr;
      lhs = ParseBinaryTail(level, function, std::move(lhs));
    }
    return lhs;
  }

  DRAPLANE_CEL_NOINLINE ExprPtr ParseBinaryTail(Level level,
                                                const char* function,
                                                ExprPtr lhs) {
    const Token op_token = Next();
    int64_t id = NextId();
    ExprPtr rhs = ParseOperand(level);
    if (rhs == nullptr) return nullptr;
    return NewCall(id, op_token.position, function, nullptr,
                   Args(std::move(lhs), std::move(rhs)));
  }

  // unary: member | '!'+ member | '-'+ member
  // As in cel-go, an even number of operators yields the operand itself.
  // A single '-' before an int/double literal is the literal's sign (ANTLR
  // picks the `member` alternative, whose literal carries the sign); with
  // two or more, all are operators.
  ExprPtr ParseUnary() {
    const TokenKind kind = Peek().kind;
    if (kind != TokenKind::kExclam && kind != TokenKind::kMinus) {
      return ParseMember();
    }
    return ParseUnaryOperators(kind);
  }

  DRAPLANE_CEL_NOINLINE ExprPtr ParseUnaryOperators(TokenKind kind) {
    size_t count = 0;
    while (Peek(count).kind == kind) ++count;
    if (kind == TokenKind::kMinus && count == 1 &&
        (Peek(1).kind == TokenKind::kInt ||
         Peek(1).kind == TokenKind::kDouble)) {
      return ParseMember();
    }
    const Token first = Peek();
    for (size_t i = 0; i < count; ++i) Next();
    int64_t id = count % 2 == 1 ? NextId() : 0;
    ExprPtr operand = ParseMember();
    if (operand == nullptr || count % 2 == 0) return operand;
    return NewCall(id, first.position,
                   kind == TokenKind::kExclam ? op::kLogicalNot : op::kNegate,
                   nullptr, Args(std::move(operand)));
  }

  // member: primary ('.' '?'? (IDENTIFIER ('(' args ')')? | ESC_IDENTIFIER)
  //                 | '[' '?'? expr ']')*
  ExprPtr ParseMember() {
    DepthScope scope(this);
    ExprPtr e = ParsePrimary();
    while (e != nullptr) {
      const TokenKind kind = Peek().kind;
      if (kind != TokenKind::kDot && kind != TokenKind::kLBracket) break;
      if (!scope.Add()) return nullptr;
      e = kind == TokenKind::kDot ? ParseSelectSuffix(std::move(e))
                                  : ParseIndexSuffix(std::move(e));
    }
    return e;
  }

  // '.' '?'? name ('(' args ')')? applied to `operand`.
  DRAPLANE_CEL_NOINLINE ExprPtr ParseSelectSuffix(ExprPtr operand) {
    const Token dot = Next();
    bool optional = false;
    if (Peek().kind == TokenKind::kQuestion) {
      Next();
      optional = true;
      if (!options_.enable_optional_syntax) {
        SemanticError(dot.position, "unsupported syntax '.?'");
      }
    }
    const Token name_token = Peek();
    std::string name;
    if (name_token.kind == TokenKind::kIdentifier) {
      Next();
      name = std::string(name_token.text);
      if (!optional && Peek().kind == TokenKind::kLParen) {
        const Token open = Next();
        int64_t id = NextId();
        std::vector<ExprPtr> args;
        if (!ParseArgs(&args)) return nullptr;
        return ReceiverCallOrMacro(id, open.position, std::move(name),
                                   std::move(operand), std::move(args));
      }
    } else if (name_token.kind == TokenKind::kEscIdentifier) {
      Next();
      name = QuotedIdentifier(name_token);
    } else {
      return Unexpected("IDENTIFIER", TokenKind::kIdentifier);
    }
    if (optional) {
      int64_t field_id = NextId();
      ExprPtr field = NewNode(field_id, name_token.position);
      field->kind = ConstExpr{std::move(name)};
      int64_t id = NextId();
      return NewCall(id, dot.position, op::kOptSelect, nullptr,
                     Args(std::move(operand), std::move(field)));
    }
    ExprPtr select = NewNode(dot.position);
    select->kind = SelectExpr{std::move(operand), std::move(name), false};
    return select;
  }

  // '[' '?'? expr ']' applied to `operand`.
  DRAPLANE_CEL_NOINLINE ExprPtr ParseIndexSuffix(ExprPtr operand) {
    const Token open = Next();
    int64_t id = NextId();
    bool optional = false;
    if (Peek().kind == TokenKind::kQuestion) {
      Next();
      optional = true;
      if (!options_.enable_optional_syntax) {
        SemanticError(open.position, "unsupported syntax '[?'");
      }
    }
    ExprPtr index = ParseExpr();
    if (index == nullptr) return nullptr;
    if (!Expect(TokenKind::kRBracket, "']'")) return nullptr;
    return NewCall(id, open.position, optional ? op::kOptIndex : op::kIndex,
                   nullptr, Args(std::move(operand), std::move(index)));
  }

  // The name in a back-quoted identifier token, reporting it when the
  // syntax is disabled.
  std::string QuotedIdentifier(const Token& token) {
    if (!options_.enable_quoted_identifiers) {
      SemanticError(token.position, "unsupported syntax '`'");
    }
    return std::string(token.text.substr(1, token.text.size() - 2));
  }

  ExprPtr ParsePrimary() {
    switch (Peek().kind) {
      case TokenKind::kDot:
      case TokenKind::kIdentifier:
        return ParseIdentCallOrMessage();
      case TokenKind::kLParen: {
        Next();
        ExprPtr e = ParseExpr();
        if (e == nullptr || !Expect(TokenKind::kRParen, "')'")) return nullptr;
        return e;
      }
      case TokenKind::kLBracket:
        return ParseList();
      case TokenKind::kLBrace:
        return ParseMap();
      default:
        return ParseLiteral();
    }
  }

  // literal: '-'? NUM_INT | NUM_UINT | '-'? NUM_FLOAT | STRING | BYTES
  //        | 'true' | 'false' | 'null'
  DRAPLANE_CEL_NOINLINE ExprPtr ParseLiteral() {
    const Token t = Peek();
    switch (t.kind) {
      case TokenKind::kMinus:
        if (Peek(1).kind == TokenKind::kInt ||
            Peek(1).kind == TokenKind::kDouble) {
          Next();
          const Token number = Next();
          return ParseNumber(number, &t);
        }
        break;
      case TokenKind::kInt:
      case TokenKind::kUint:
      case TokenKind::kDouble:
        Next();
        return ParseNumber(t, nullptr);
      case TokenKind::kString:
      case TokenKind::kBytes: {
        Next();
        ExprPtr e = NewNode(t.position);
        const bool is_bytes = t.kind == TokenKind::kBytes;
        std::string value;
        std::string error;
        if (t.malformed) {
          // Already reported by the lexer.
        } else if (!DecodeStringLiteral(t.text, is_bytes, &value, &error)) {
          SemanticError(t.position, std::move(error));
        }
        if (is_bytes) {
          e->kind = ConstExpr{BytesValue{std::move(value)}};
        } else {
          e->kind = ConstExpr{std::move(value)};
        }
        return e;
      }
      case TokenKind::kTrue:
      case TokenKind::kFalse: {
        Next();
        ExprPtr e = NewNode(t.position);
        e->kind = ConstExpr{t.kind == TokenKind::kTrue};
        return e;
      }
      case TokenKind::kNull: {
        Next();
        ExprPtr e = NewNode(t.position);
        e->kind = ConstExpr{NullValue{}};
        return e;
      }
      default:
        break;
    }
    return Unexpected(kExpectExpression);
  }

  // Int, uint and double literals; `sign` is the '-' token of a signed
  // literal. Out-of-range values are errors (cel-go VisitInt/Uint/Double).
  DRAPLANE_CEL_NOINLINE ExprPtr ParseNumber(const Token& number,
                                            const Token* sign) {
    const int32_t position = sign != nullptr ? sign->position : number.position;
    ExprPtr e = NewNode(position);
    std::string_view text = number.text;
    if (number.kind == TokenKind::kDouble) {
      std::string s = sign != nullptr ? StrCat("-", text) : std::string(text);
      errno = 0;
      double value = std::strtod(s.c_str(), nullptr);
      if (std::isinf(value)) {
        SemanticError(position, "invalid double literal");
      }
      e->kind = ConstExpr{value};
      return e;
    }
    const bool is_uint = number.kind == TokenKind::kUint;
    if (is_uint) text.remove_suffix(1);
    int base = 10;
    if (text.size() > 2 && text[0] == '0' && text[1] == 'x') {
      base = 16;
      text.remove_prefix(2);
    }
    uint64_t magnitude = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(),
                                     magnitude, base);
    bool ok = ec == std::errc() && ptr == text.data() + text.size();
    if (is_uint) {
      if (!ok) SemanticError(position, "invalid uint literal");
      e->kind = ConstExpr{ok ? magnitude : uint64_t{0}};
      return e;
    }
    const uint64_t limit =
        sign != nullptr ? (uint64_t{1} << 63) : (uint64_t{1} << 63) - 1;
    if (!ok || magnitude > limit) {
      SemanticError(position, "invalid int literal");
      e->kind = ConstExpr{int64_t{0}};
      return e;
    }
    int64_t value = sign != nullptr
                        ? static_cast<int64_t>(uint64_t{0} - magnitude)
                        : static_cast<int64_t>(magnitude);
    e->kind = ConstExpr{value};
    return e;
  }

  // primary: '.'? IDENTIFIER ('(' args ')')?
  //        | '.'? IDENTIFIER ('.' IDENTIFIER)* '{' fields '}'
  DRAPLANE_CEL_NOINLINE ExprPtr ParseIdentCallOrMessage() {
    const Token first = Peek();
    bool leading_dot = false;
    if (first.kind == TokenKind::kDot) {
      Next();
      leading_dot = true;
    }
    const Token id_token = Peek();
    if (id_token.kind != TokenKind::kIdentifier) {
      return Unexpected("IDENTIFIER", TokenKind::kIdentifier);
    }
    // A qualified name followed by '{' is a message construction.
    size_t j = 0;
    while (Peek(j + 1).kind == TokenKind::kDot &&
           Peek(j + 2).kind == TokenKind::kIdentifier) {
      j += 2;
    }
    if (Peek(j + 1).kind == TokenKind::kLBrace) {
      return ParseMessage(leading_dot);
    }
    Next();
    std::string name = StrCat(leading_dot ? "." : "", id_token.text);
    if (IsReservedIdentifier(id_token.text)) {
      SemanticError(first.position,
                    StrCat("reserved identifier: ", id_token.text));
    }
    if (Peek().kind == TokenKind::kLParen) {
      Token open = Next();
      int64_t id = NextId();
      std::vector<ExprPtr> args;
      if (!ParseArgs(&args)) return nullptr;
      return GlobalCallOrMacro(id, open.position, std::move(name),
                               std::move(args));
    }
    ExprPtr e = NewNode(id_token.position);
    e->kind = IdentExpr{std::move(name)};
    return e;
  }

  // Call arguments after '(' up to and including ')'. No trailing comma
  // (CEL.g4 exprList).
  DRAPLANE_CEL_NOINLINE bool ParseArgs(std::vector<ExprPtr>* args) {
    if (Peek().kind == TokenKind::kRParen) {
      Next();
      return true;
    }
    while (true) {
      ExprPtr arg = ParseExpr();
      if (arg == nullptr) return false;
      args->push_back(std::move(arg));
      if (Peek().kind == TokenKind::kComma) {
        Next();
        continue;
      }
      if (Peek().kind == TokenKind::kRParen) {
        Next();
        return true;
      }
      Unexpected("{',', ')'}");
      return false;
    }
  }

  // '[' (elem (',' elem)*)? ','? ']' with elem: '?'? expr
  DRAPLANE_CEL_NOINLINE ExprPtr ParseList() {
    Token open = Next();
    ExprPtr list = NewNode(open.position);
    ListExpr l;
    while (Peek().kind != TokenKind::kRBracket) {
      bool optional = false;
      if (Peek().kind == TokenKind::kQuestion) {
        Token q = Next();
        optional = true;
        if (!options_.enable_optional_syntax) {
          SemanticError(q.position, "unsupported syntax '?'");
        }
      }
      ExprPtr element = ParseExpr();
      if (element == nullptr) return nullptr;
      if (optional) {
        l.optional_indices.push_back(static_cast<int32_t>(l.elements.size()));
      }
      l.elements.push_back(std::move(element));
      if (Peek().kind == TokenKind::kComma) {
        Next();
        continue;
      }
      if (Peek().kind != TokenKind::kRBracket) {
        return Unexpected("{',', ']'}");
      }
    }
    Next();
    list->kind = std::move(l);
    return list;
  }

  // '{' (entry (',' entry)*)? ','? '}' with entry: '?'? expr ':' expr
  DRAPLANE_CEL_NOINLINE ExprPtr ParseMap() {
    Token open = Next();
    ExprPtr map = NewNode(open.position);
    MapExpr m;
    while (Peek().kind != TokenKind::kRBrace) {
      MapEntry entry;
      // cel-go allocates the entry id (positioned at ':') before the key's.
      entry.id = NextId();
      if (Peek().kind == TokenKind::kQuestion) {
        Token q = Next();
        entry.optional = true;
        if (!options_.enable_optional_syntax) {
          SemanticError(q.position, "unsupported syntax '?'");
        }
      }
      entry.key = ParseExpr();
      if (entry.key == nullptr) return nullptr;
      entry.position = Peek().position;
      if (!Expect(TokenKind::kColon, "':'")) return nullptr;
      entry.value = ParseExpr();
      if (entry.value == nullptr) return nullptr;
      m.entries.push_back(std::move(entry));
      if (Peek().kind == TokenKind::kComma) {
        Next();
        continue;
      }
      if (Peek().kind != TokenKind::kRBrace) {
        return Unexpected("{',', '}'}");
      }
    }
    Next();
    map->kind = std::move(m);
    return map;
  }

  // '.'? IDENTIFIER ('.' IDENTIFIER)* '{' (field (',' field)*)? ','? '}'
  // with field: '?'? (IDENTIFIER | ESC_IDENTIFIER) ':' expr.
  // REQUIRES: the lookahead in ParseIdentCallOrMessage matched.
  DRAPLANE_CEL_NOINLINE ExprPtr ParseMessage(bool leading_dot) {
    std::string name = leading_dot ? "." : "";
    name += Next().text;
    while (Peek().kind == TokenKind::kDot) {
      Next();
      name += ".";
      name += Next().text;
    }
    Token open = Next();  // '{'
    ExprPtr message = NewNode(open.position);
    StructExpr s;
    s.message_name = std::move(name);
    while (Peek().kind != TokenKind::kRBrace) {
      StructField field;
      if (Peek().kind == TokenKind::kQuestion) {
        Token q = Next();
        field.optional = true;
        if (!options_.enable_optional_syntax) {
          SemanticError(q.position, "unsupported syntax '?'");
        }
      }
      Token name_token = Peek();
      if (name_token.kind == TokenKind::kIdentifier) {
        Next();
        field.field = std::string(name_token.text);
      } else if (name_token.kind == TokenKind::kEscIdentifier) {
        Next();
        field.field = QuotedIdentifier(name_token);
      } else {
        return Unexpected("IDENTIFIER", TokenKind::kIdentifier);
      }
      field.position = Peek().position;
      if (!Expect(TokenKind::kColon, "':'")) return nullptr;
      field.id = NextId();
      field.value = ParseExpr();
      if (field.value == nullptr) return nullptr;
      s.fields.push_back(std::move(field));
      if (Peek().kind == TokenKind::kComma) {
        Next();
        continue;
      }
      if (Peek().kind != TokenKind::kRBrace) {
        return Unexpected("{',', '}'}");
      }
    }
    Next();
    message->kind = std::move(s);
    return message;
  }

  // ---- macros (cel-go parser/macro.go, ext/bindings.go,
  //      ext/comprehensions.go) -------------------------------------------

  DRAPLANE_CEL_NOINLINE ExprPtr GlobalCallOrMacro(int64_t id, int32_t position,
                                                  std::string function,
                                                  std::vector<ExprPtr> args);

  DRAPLANE_CEL_NOINLINE ExprPtr ReceiverCallOrMacro(int64_t id,
                                                    int32_t position,
                                                    std::string function,
                                                    ExprPtr target,
                                                    std::vector<ExprPtr> args);

  enum class Quantifier { kAll, kExists, kExistsOne };

  // Returns the expansion, or null when `function`/argument count name no
  // macro (target and args are then untouched). Malformed macro arguments
  // are reported and yield an error node.
  DRAPLANE_CEL_NOINLINE ExprPtr ExpandReceiverMacro(int32_t position,
                                                    const std::string& function,
                                                    ExprPtr& target,
                                                    std::vector<ExprPtr>& args);

  // The name of a simple identifier argument, or nullopt.
  static std::optional<std::string> SimpleName(const Expr& e);
  static bool IsAccumulatorName(const std::string& name);

  // Checks a one-variable macro's iteration variable; reports and returns
  // nullopt when it is not a usable simple name.
  std::optional<std::string> IterVar(const Expr& arg,
                                     std::string_view not_ident_message);

  // Loop condition/step/result of all/exists/exists_one, in cel-go's
  // construction order. `predicate` is consumed.
  struct FoldParts {
    ExprPtr init, condition, step, result;
  };
  FoldParts QuantifierParts(Quantifier kind, MacroBuilder& b,
                            ExprPtr predicate);

  ExprPtr ExpandQuantifier(Quantifier kind, int32_t position, ExprPtr& target,
                           std::vector<ExprPtr>& args);

  // map(v, t) and map(v, p, t).
  ExprPtr ExpandMap(int32_t position, ExprPtr& target,
                    std::vector<ExprPtr>& args);

  ExprPtr ExpandFilter(int32_t position, ExprPtr& target,
                       std::vector<ExprPtr>& args);

  // opt.optMap(v, e) and opt.optFlatMap(v, e) (cel-go optional library
  // macros): opt.hasValue() ? [optional.of](cel.bind(v, opt.value(), e))
  // : optional.none().
  ExprPtr ExpandOptMap(int32_t position, bool wrap, ExprPtr& target,
                       std::vector<ExprPtr>& args);

  // cel.bind(var, init, body) (cel-go ext/bindings.go celBind).
  ExprPtr ExpandBind(int32_t position, std::vector<ExprPtr>& args);

  // list.sortBy(v, key) (cel-go ext/lists.go sortByMacro):
  //   cel.bind(@__sortBy_input__, list,
  //            @__sortBy_input__.@sortByAssociatedKeys(
  //                @__sortBy_input__.map(v, key)))
  ExprPtr ExpandSortBy(int32_t position, ExprPtr& target,
                       std::vector<ExprPtr>& args);

  // Checks the two iteration variables of a two-variable comprehension.
  bool IterVars2(const std::vector<ExprPtr>& args, std::string* first,
                 std::string* second);

  ExprPtr ExpandQuantifier2(Quantifier kind, int32_t position, ExprPtr& target,
                            std::vector<ExprPtr>& args);

  ExprPtr ExpandTransform(const std::string& function, int32_t position,
                          ExprPtr& target, std::vector<ExprPtr>& args);

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  const ParserOptions& options_;
  int max_depth_ = 250;
  int depth_ = 0;
  int64_t next_id_ = 1;
  std::vector<ParseError> errors_;
};

}  // namespace draplane::cel::internal::parsing

#endif  // DRAPLANE_CEL_INTERNAL_PARSER_IMPL_H_

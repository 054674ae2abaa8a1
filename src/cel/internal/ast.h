// The CEL abstract syntax tree produced by the parser (parser.h) and
// consumed by the checker and the planner/evaluator.
//
// Shape follows cel-go's AST (google/cel-spec syntax.proto): every node has
// a unique id and a source offset; operators are calls to the reserved
// function names below; macros (has, all, exists, exists_one, map, filter,
// cel.bind) are expanded by the parser into Select(test_only) and
// Comprehension nodes exactly as cel-go expands them, so evaluators never
// see macro calls.
//
// Internal to the cel component.
#ifndef DRAPLANE_CEL_INTERNAL_AST_H_
#define DRAPLANE_CEL_INTERNAL_AST_H_

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace draplane::cel::internal {

// Reserved function names for operators (cel-go common/operators).
namespace op {
inline constexpr char kConditional[] = "_?_:_";
inline constexpr char kLogicalAnd[] = "_&&_";
inline constexpr char kLogicalOr[] = "_||_";
inline constexpr char kLogicalNot[] = "!_";
inline constexpr char kEquals[] = "_==_";
inline constexpr char kNotEquals[] = "_!=_";
inline constexpr char kLess[] = "_<_";
inline constexpr char kLessEquals[] = "_<=_";
inline constexpr char kGreater[] = "_>_";
inline constexpr char kGreaterEquals[] = "_>=_";
inline constexpr char kAdd[] = "_+_";
inline constexpr char kSubtract[] = "_-_";
inline constexpr char kMultiply[] = "_*_";
inline constexpr char kDivide[] = "_/_";
inline constexpr char kModulo[] = "_%_";
inline constexpr char kNegate[] = "-_";
inline constexpr char kIndex[] = "_[_]";
inline constexpr char kOptIndex[] = "_[?_]";  // e[?k]
inline constexpr char kOptSelect[] = "_?._";  // e.?f (args: operand, "f")
inline constexpr char kIn[] = "@in";
// Used by macro expansions: true unless the argument is false (errors and
// unknowns count as "not strictly false").
inline constexpr char kNotStrictlyFalse[] = "@not_strictly_false";
}  // namespace op

// Name of the accumulator variable in macro expansions (cel-go "@result").
inline constexpr char kAccumulatorName[] = "@result";

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

// Literal values. Bytes are kept as raw octets in a std::string.
struct NullValue {
  bool operator==(const NullValue&) const = default;
};
struct BytesValue {
  std::string bytes;
  bool operator==(const BytesValue&) const = default;
};
using Constant = std::variant<NullValue, bool, int64_t, uint64_t, double,
                              std::string, BytesValue>;

struct ConstExpr {
  Constant value;
};

// An identifier, possibly qualified by a leading dot (".a" keeps the dot in
// `name`).
struct IdentExpr {
  std::string name;
};

// `operand.field`; with test_only it is the expansion of has(operand.field).
struct SelectExpr {
  ExprPtr operand;
  std::string field;
  bool test_only = false;
};

// A global call f(args) (target == nullptr) or a receiver call
// target.f(args). Operators are global calls with the names in `op`.
struct CallExpr {
  std::string function;
  ExprPtr target;  // may be null
  std::vector<ExprPtr> args;
};

// [e1, e2, ?e3]; optional_indices lists the positions written with `?`.
struct ListExpr {
  std::vector<ExprPtr> elements;
  std::vector<int32_t> optional_indices;
};

// One entry of a map literal or a message literal.
struct MapEntry {
  int64_t id = 0;
  int32_t position = 0;
  ExprPtr key;  // map key expression
  ExprPtr value;
  bool optional = false;  // {?k: v}
};
struct StructField {
  int64_t id = 0;
  int32_t position = 0;
  std::string field;
  ExprPtr value;
  bool optional = false;  // Msg{?f: v}
};

struct MapExpr {
  std::vector<MapEntry> entries;
};

// Message construction `pkg.Msg{f: v}` (parsed; DRA never evaluates it).
struct StructExpr {
  std::string message_name;
  std::vector<StructField> fields;
};

// The fold that macros expand into (cel-spec syntax.proto Comprehension):
//   accu = accu_init
//   for iter_var[, iter_var2] in iter_range:
//     if !loop_condition: break
//     accu = loop_step
//   return result
// iter_var2 is set for two-variable comprehensions (index/key, value).
struct ComprehensionExpr {
  std::string iter_var;
  std::string iter_var2;
  ExprPtr iter_range;
  std::string accu_var;
  ExprPtr accu_init;
  ExprPtr loop_condition;
  ExprPtr loop_step;
  ExprPtr result;
};

// A node. `id` is unique within one parsed expression (1, 2, 3, ... in
// creation order); `position` is the 0-based offset in code points of the
// token that produced the node, as cel-go reports it.
struct Expr {
  int64_t id = 0;
  int32_t position = 0;
  std::variant<ConstExpr, IdentExpr, SelectExpr, CallExpr, ListExpr, MapExpr,
               StructExpr, ComprehensionExpr>
      kind;

  template <class T>
  const T* As() const {
    return std::get_if<T>(&kind);
  }
  template <class T>
  T* As() {
    return std::get_if<T>(&kind);
  }
};

// A parsed expression together with its source, for error positions.
struct ParsedExpr {
  ExprPtr root;
  std::string source;
  // Byte offset of the start of each line, for rendering positions as
  // line:column.
  std::vector<int32_t> line_offsets;
};

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_AST_H_

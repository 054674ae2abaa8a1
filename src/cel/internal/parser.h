// CEL parser: source text -> AST (ast.h), with macro expansion.
//
// A hand-written recursive-descent parser for the grammar cel-go ships
// (parser/gen/CEL.g4), including optional syntax and back-quoted field
// names, producing the same AST shape, node ids and positions as cel-go's
// parser (parser/parser.go, parser/helper.go, parser/macro.go,
// ext/bindings.go, ext/comprehensions.go) where those are observable:
//
//  * Node ids are unique and allocated in cel-go's order starting at 1. As in
//    cel-go, the id allocated for a macro call is consumed by the expansion,
//    so ids may have gaps.
//  * Positions are 0-based code-point offsets of the node's token: operators
//    at the operator token (`?` for `?:`, `[` for indexing, `.` for
//    selection), calls at their `(`, list literals at `[`, map and message
//    literals at `{`, map entries and message fields at their `:`,
//    identifiers at the name (not a leading dot), signed literals at the `-`.
//    Nodes created by a macro expansion take the position of the macro
//    call's `(`.
//  * `&&` / `||` chains are built as balanced trees (cel-go's balancer).
//  * `!!x` and `--x` collapse to `x` (cel-go drops pairs of unary ops); a
//    single `-` directly before an int/double literal is the literal's sign,
//    so -9223372036854775808 parses.
//
// Thread-safe: Parse keeps no state between calls.
#ifndef DRAPLANE_CEL_INTERNAL_PARSER_H_
#define DRAPLANE_CEL_INTERNAL_PARSER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cel/internal/ast.h"

namespace draplane::cel::internal {

struct ParserOptions {
  // Maximum nesting of expressions: parenthesised/argument/element
  // sub-expressions, chained binary operators of one precedence level, and
  // chained member selections, calls and indexes each count one level
  // (cel-go's default is 250). Values are clamped to [1, 500] so that no
  // option can make the parser (or the recursive consumers of its AST)
  // exhaust the stack.
  int max_recursion_depth = 250;
  // Sources with more code points than this are rejected before lexing.
  int expression_size_code_point_limit = 100000;
  // `.?f`, `[?k]`, `[?x]`, `{?k: v}`, `Msg{?f: v}` (cel-go
  // EnableOptionalSyntax; Kubernetes enables it).
  bool enable_optional_syntax = true;
  // m.`content-type` and Msg{`f`: v} (cel-go EnableIdentifierEscapeSyntax).
  bool enable_quoted_identifiers = false;
  // Expand macros (has, all, exists, exists_one, existsOne, map, filter and,
  // when enabled below, the extension macros). When false every macro call
  // stays an ordinary call.
  bool enable_macros = true;
  // cel.bind(var, init, expr) (cel-go ext.Bindings). Requires enable_macros.
  bool enable_bind_macro = true;
  // Two-variable comprehensions all/exists/existsOne/exists_one(k, v, p),
  // transformList/transformMap/transformMapEntry(k, v, [p,] t) (cel-go
  // ext.TwoVarComprehensions). Requires enable_macros.
  bool enable_two_var_comprehensions = true;
  // list.sortBy(v, key) (cel-go ext.Lists version 2 and later), expanded as
  // cel-go does to cel.bind(@__sortBy_input__, list,
  // @__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(v, key))).
  // Requires enable_macros.
  bool enable_sort_by_macro = true;
};

// Parses `source` into a ParsedExpr. Never throws; any input (including
// invalid UTF-8, which is read as U+FFFD per bad byte like cel-go) yields
// either an AST or an InvalidArgument status whose message lists the errors
// in cel-go's display format, sorted by position, e.g.
//
//   ERROR: <input>:1:5: Syntax error: mismatched input '+' expecting {...}
//    | a + +
//    | ....^
//
// (line and column 1-based, column counted in code points; multiple errors
// are joined by '\n'; at most 10 are shown, followed by "N more errors were
// truncated"). Parsing stops at the first syntax error; lexical errors and
// semantic errors (reserved identifiers, bad literals, malformed macro
// arguments) are all collected. Time and memory are linear in the input
// size; recursion is bounded by options.max_recursion_depth.
//
// On success, ParsedExpr::source holds the source (with invalid UTF-8
// replaced) and line_offsets the byte offset at which each line starts
// (line_offsets[0] == 0).
absl::StatusOr<ParsedExpr> Parse(std::string_view source,
                                 const ParserOptions& options = {});

// Formats an error at code-point offset `position` of `source` the way
// cel-go does (see Parse). A position past the end points just after the
// last character. `source` must be well-formed UTF-8.
std::string FormatError(std::string_view source, int32_t position,
                        std::string_view message);

// Compact S-expression rendering of an AST, for tests and debugging:
//   constants   1#1  1u#1  1.5#1  "a\n"#1  b"\xff"#1  true#1  null#1
//   identifier  a#1
//   select      a#1.f#2         presence test  has(a#1.f)#2
//   global call (_+_ a#1 b#3)#2
//   member call (size x#1)#2 is global; x#1.(size a#3)#2 is receiver-style
//   list        [a#2 ?b#3]#1    (? marks optional elements)
//   map         {k#3:v#4@2 ?k2#6:v2#7@5}#1    (@id is the entry id)
//   message     pkg.Msg{f:v#3@2 ?g:w#5@4}#1
//   fold        (fold v[,w] <range> <accu_var> <init> <cond> <step>
//   <result>)#id
// With `with_positions`, every "#id" becomes "#id@position" and entry ids
// "@id" become "@id@position".
std::string DebugString(const Expr& expr, bool with_positions = false);

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_PARSER_H_

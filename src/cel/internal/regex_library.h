// The Kubernetes Regex library (k8s.io/apiserver v0.37.2
// pkg/cel/library/regex.go), part of the Kubernetes CEL base environment:
//
//   s.find(re)        the leftmost match of `re` in `s`, "" when none
//   s.findAll(re)     all successive non-overlapping matches
//   s.findAll(re, n)  at most n of them (all when n < 0, none when n == 0)
//
// Kubernetes compiles the pattern with Go's regexp package; draplane uses
// RE2, whose syntax and leftmost-first semantics Go's package shares. Where
// they differ the pattern is adjusted before compiling so that Go's answer
// results: `\C` (any byte) is rejected as Go rejects it, `(?<name>...)` is
// accepted as Go 1.22+ accepts it, and repeated group names are accepted
// (capture names do not affect find/findAll). findAll reproduces Go's
// FindAllString iteration: an empty match directly after a previous match
// is skipped and the scan then advances by one code point.
//
// An invalid pattern yields the error value
// "Illegal regex: error parsing regexp: <what>: `<where>`", with Go's
// wording. Kubernetes reports an invalid *constant* pattern when the
// program is built (cel-go's regex optimisation); here constant patterns
// are also compiled once at plan time (FunctionOverload::specialize) but an
// invalid one is reported, like a non-constant one, when the call is
// evaluated. Remaining differences from Go: Unicode tables are RE2's, and
// RE2's program-size limit (not Go's nesting limit of 1000) bounds pattern
// size.
//
// Runtime cost (Kubernetes library.CostEstimator): ceil(0.1 x (1 + size
// of s)) x ceil(0.25 x size of re), sizes in code points.
//
// Internal to the cel component.
#ifndef DRAPLANE_CEL_INTERNAL_REGEX_LIBRARY_H_
#define DRAPLANE_CEL_INTERNAL_REGEX_LIBRARY_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "cel/internal/interpreter.h"

namespace draplane::cel::internal {

// Registers find and findAll.
absl::Status RegisterRegexFunctions(FunctionRegistry* registry);

// Go's regexp syntax error text for `pattern` ("error parsing regexp:
// missing closing ): `(`"), or "" when Go would accept it. Exposed for
// tests.
std::string GoRegexpError(std::string_view pattern);

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_REGEX_LIBRARY_H_

// The Kubernetes URLs library (k8s.io/apiserver v0.37.2
// pkg/cel/library/urls.go and pkg/cel/url.go), part of the Kubernetes CEL
// base environment:
//
//   url(string) -> kubernetes.URL      isURL(string) -> bool
//   u.getScheme() u.getHost() u.getHostname() u.getPort()
//   u.getEscapedPath() -> string       u.getQuery() -> map(string,
//   list(string))
//
// URLs are parsed as Go's net/url does (Go 1.26, the oracle's toolchain):
// url(s) and isURL(s) accept what url.ParseRequestURI accepts (absolute
// URLs and absolute paths, no fragment handling), and url(s) then keeps
// the url.Parse reading of s, which splits off a #fragment. The parser
// here is written after net/url's algorithm, including its error texts,
// the host rules (bracketed IPv6 literals checked as netip.ParseAddr
// does, with zones; strict colons for http and https), percent-decoding
// of each component, RawPath selection and the default query-parameter
// limit of 10000. Two URLs are equal when their url.URL.String() forms are
// (as upstream's Equal).
//
// Deviation: the quoting of the input in error messages follows Go's
// strconv.Quote, except that code points Go's Unicode tables treat as
// unassigned are printed as themselves rather than \u-escaped.
//
// Runtime cost (Kubernetes library.CostEstimator): url(s) ceil(0.1 x
// size of s); isURL and the accessors 1; == on URLs 1 (as for any
// opaque value).
//
// Internal to the cel component.
#ifndef DRAPLANE_CEL_INTERNAL_URL_LIBRARY_H_
#define DRAPLANE_CEL_INTERNAL_URL_LIBRARY_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "cel/internal/interpreter.h"
#include "cel/internal/value.h"

namespace draplane::cel::internal {

inline constexpr char kUrlTypeName[] = "kubernetes.URL";

// url(text): the URL value, or the error value Kubernetes produces
// ("URL parse error during conversion from string: parse \"...\": ...").
Value UrlValue(std::string_view text);

// The Go url.URL.String() form of a URL value; REQUIRES: `value` is one.
std::string UrlString(const Value& value);

// Go's url.ParseRequestURI(text): std::nullopt when it accepts `text`,
// else the text of its *url.Error (`parse "<text>": <reason>`), as the
// Kubernetes format library's format.uri() reports it.
std::optional<std::string> RequestUriError(std::string_view text);

// Registers url, isURL and the accessors.
absl::Status RegisterUrlFunctions(FunctionRegistry* registry);

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_URL_LIBRARY_H_

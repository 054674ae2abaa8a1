// The Kubernetes Format library (k8s.io/apiserver v0.37.2
// pkg/cel/library/format.go, the value type pkg/cel/format.go, runtime
// costs library/cost.go), part of the Kubernetes CEL base environment:
//
//   format.named(string) -> optional_type(kubernetes.NamedFormat)
//   format.dns1123Label() format.dns1123Subdomain() format.dns1035Label()
//   format.qualifiedName() format.dns1123LabelPrefix()
//   format.dns1123SubdomainPrefix() format.dns1035LabelPrefix()
//   format.labelValue() format.uri() format.uuid() format.byte()
//   format.date() format.datetime()          -> kubernetes.NamedFormat
//   <format>.validate(string) -> optional_type(list(string))
//
// format.named takes the names of the zero-argument constructors
// ("dns1123Label", ...; case-sensitive) and answers optional.none() for
// any other. validate answers optional.none() when the string is valid,
// else optional.of(the messages upstream's validation function returns):
//
//   dns1123Label, dns1123Subdomain, dns1035Label and their *Prefix forms:
//     apimachinery pkg/api/validation NameIsDNSLabel / NameIsDNSSubdomain /
//     NameIsDNS1035Label (prefix: a trailing '-' is allowed), i.e.
//     pkg/util/validation IsDNS1123Label/Subdomain/IsDNS1035Label, whose
//     length message reads "must be no more than N characters";
//   qualifiedName, labelValue: pkg/api/validate/content IsLabelKey /
//     IsLabelValue ("must be no more than N bytes");
//   uri: Go's url.ParseRequestURI, the message its error prints;
//   uuid ("does not match the UUID format"), byte ("invalid base64"),
//     date ("invalid date"), datetime ("invalid datetime"): kube-openapi
//     strfmt's default registry (UUID pattern, govalidator's base64
//     pattern, time.Parse("2006-01-02"), strfmt.IsDateTime).
//
// Formats are opaque values of type "kubernetes.NamedFormat" (a struct
// type to the checker, as upstream declares it with cel.ObjectType); two
// are equal when they are the same format. `==` follows the Kubernetes
// library types (OpaqueValue::KubernetesEquality): cost 1, and
// "no such overload" against a value of another type other than null.
//
// Runtime cost (Kubernetes library.CostEstimator): validate costs
// ceil(0.1 x (1 + code points of the string)) x ceil(0.25 x the format's
// MaxRegexSize) (30 for the labels, 60 for the subdomains and qualified
// names, 40 for label values, 1103 for uri, 70 for uuid, 84 for byte, 71
// for date and datetime); format.named and the constructors cost 1.
//
// Internal to the cel component.
#ifndef DRAPLANE_CEL_INTERNAL_FORMAT_LIBRARY_H_
#define DRAPLANE_CEL_INTERNAL_FORMAT_LIBRARY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "cel/internal/interpreter.h"
#include "cel/internal/value.h"

namespace draplane::cel::internal {

inline constexpr char kNamedFormatTypeName[] = "kubernetes.NamedFormat";

// The format value format.<name>() returns, or std::nullopt when `name` is
// not one of the library's formats.
std::optional<Value> NamedFormatValue(std::string_view name);

// The messages <format>.validate(text) reports (empty when `text` is
// valid); REQUIRES: `format` is a kubernetes.NamedFormat value.
std::vector<std::string> ValidateWithFormat(const Value& format,
                                            std::string_view text);

// The format's MaxRegexSize (the cost of validate, see above); REQUIRES:
// `format` is a kubernetes.NamedFormat value.
uint64_t FormatMaxRegexSize(const Value& format);

// Registers format.named, the thirteen constructors and validate.
absl::Status RegisterFormatFunctions(FunctionRegistry* registry);

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_FORMAT_LIBRARY_H_

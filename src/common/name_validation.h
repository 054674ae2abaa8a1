// String format checks of k8s.io/apimachinery (pkg/util/validation,
// pkg/api/validate/content) and the few third-party formats Kubernetes
// validation relies on (semver 2.0.0, google/uuid, Go's net CIDR parsing),
// with upstream's exact message texts.
//
// Each Is* function returns the list of problems upstream reports (empty when
// the value is valid), in upstream's order.
#ifndef DRAPLANE_COMMON_NAME_VALIDATION_H_
#define DRAPLANE_COMMON_NAME_VALIDATION_H_

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace draplane::name_validation {

inline constexpr int kDNS1123LabelMaxLength = 63;
inline constexpr int kDNS1123SubdomainMaxLength = 253;
inline constexpr int kLabelValueMaxLength = 63;

// content.RegexError: `<msg> (e.g. 'a',  or 'b', regex used for validation
// is '<re>')` (upstream's double space before "or" included).
std::string RegexError(std::string_view msg, std::string_view re,
                       std::initializer_list<std::string_view> examples);
// content.MaxLenError: "must be no more than N bytes".
std::string MaxLenError(int length);

// IsDNS1123Label / IsDNS1123Subdomain (lowercase RFC 1123).
std::vector<std::string> IsDNS1123Label(std::string_view value);
std::vector<std::string> IsDNS1123Subdomain(std::string_view value);
// IsQualifiedName == content.IsLabelKey: optional DNS subdomain prefix, '/',
// name of at most 63 alphanumerics, '-', '_', '.'.
std::vector<std::string> IsQualifiedName(std::string_view value);
// IsValidLabelValue.
std::vector<std::string> IsLabelValue(std::string_view value);
// IsCIdentifier (format only, no length check).
std::vector<std::string> IsCIdentifier(std::string_view value);
// metav1 validation isValidConditionReason (format only).
std::vector<std::string> IsConditionReason(std::string_view value);

// apimachinery ValidateNameFunc implementations. `prefix` is true for
// metadata.generateName, where a trailing '-' is allowed.
std::vector<std::string> NameIsDNSSubdomain(std::string_view name, bool prefix);
std::vector<std::string> NameIsDNSLabel(std::string_view name, bool prefix);

// True iff `value` matches upstream's semver regexp (semver.org 2.0.0:
// MAJOR.MINOR.PATCH without leading zeros, optional pre-release and build
// identifiers).
bool IsSemver(std::string_view value);

// github.com/google/uuid Validate(): nullopt when valid, else its error text
// ("invalid UUID length: 3", "invalid UUID format", ...).
std::optional<std::string> UUIDValidateError(std::string_view value);

// validation.IsValidInterfaceAddress (k8s.io/utils/net ParseCIDRSloppy and
// Go's IP formatting): the messages for an invalid "ifaddr" value.
std::vector<std::string> IsValidInterfaceAddress(std::string_view value);

}  // namespace draplane::name_validation

#endif  // DRAPLANE_COMMON_NAME_VALIDATION_H_

// Kubernetes label selectors and field selectors, parsed and matched exactly
// as the API server does for `?labelSelector=` and `?fieldSelector=`.
//
// Upstream sources (the behaviour and every error text come from them):
//  - k8s.io/apimachinery@v0.37.2 pkg/labels/selector.go (Parse, its lexer,
//    NewRequirement, Requirement.Matches/String),
//    pkg/api/validate/content (label key/value checks),
//    pkg/util/validation/field (error rendering),
//    pkg/apis/meta/v1/helpers.go (LabelSelectorAsSelector),
//    pkg/fields/selector.go (ParseSelector, EscapeValue/UnescapeValue),
//    pkg/runtime (Scheme.ConvertFieldLabel and its default).
//  - k8s.io/kubernetes pkg/apis/*/*/conversion.go (which fields each kind
//    accepts) and pkg/registry/*/*/strategy.go (the values of those fields),
//    checked at v1.32.4 and at current master (unchanged since).
//
// How the API server reports errors (apiserver pkg/endpoints/handlers/get.go
// listOpts): a selector that does not parse, and a field a kind does not
// support, are answered with 400 BadRequest whose message is the error text
// returned here verbatim, e.g.
//   unable to parse requirement: found 'b', expected: in, notin, =, ==,
//     !=, gt, lt
//   field label not supported: spec.foo
// kubectl then prints it with its own prefix (cli-runtime EnhanceListError):
//   Error from server (BadRequest): Unable to find "/v1, Resource=pods"
//     that match label selector "a b", field selector "": unable to ...
// That prefix is the client's; a server returns only the message. Every
// error here is absl::StatusCode::kInvalidArgument.
//
// Thread-safety: selectors are immutable values; const methods may be called
// from any number of threads at once.
#ifndef DRAPLANE_SELECTORS_SELECTORS_H_
#define DRAPLANE_SELECTORS_SELECTORS_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "api/meta_types.h"

namespace draplane::selectors {

// ------------------------------------------------------------------ labels

// selection.Operator. kEquals and kDoubleEquals match alike but print as
// written ("=" / "==").
enum class LabelOperator {
  kIn,            // "k in (a,b)"
  kNotIn,         // "k notin (a,b)"
  kEquals,        // "k=v"
  kDoubleEquals,  // "k==v"
  kNotEquals,     // "k!=v"
  kExists,        // "k"
  kDoesNotExist,  // "!k"
  kGreaterThan,   // "k>1" (64-bit integers)
  kLessThan,      // "k<1"
};

// One term of a label selector (labels.Requirement). Built only by the
// functions below, which validate it.
struct LabelRequirement {
  std::string key;
  LabelOperator op = LabelOperator::kExists;
  // As given: the string parser yields them sorted without duplicates (a
  // set, like upstream); LabelSelectorFromJson keeps the document's order.
  std::vector<std::string> values;

  // labels.Requirement.Matches:
  //  In/=/==: the key is present and its value is one of `values`;
  //  NotIn/!=: the key is absent or its value is none of `values`;
  //  Exists / DoesNotExist: the key is present / absent;
  //  Gt/Lt: the key is present, its value and values[0] are base-10 int64s
  //  and compare strictly greater / less (anything unparsable: no match).
  bool Matches(const std::map<std::string, std::string>& labels) const;
  // Canonical text: "k=v", "k==v", "k!=v", "k in (a,b)", "k notin (a,b)",
  // "k", "!k", "k>1", "k<1"; several values are printed sorted.
  std::string String() const;
};

// labels.Selector: the AND of its requirements, kept sorted by key (stable:
// requirements on one key keep their order).
class LabelSelector {
 public:
  // Matches every label set (the empty string parses to this).
  static LabelSelector Everything() { return LabelSelector(); }
  // Matches nothing: what a null metav1.LabelSelector means
  // (LabelSelectorAsSelector(nil) == labels.Nothing()).
  static LabelSelector Nothing();

  bool Matches(const std::map<std::string, std::string>& labels) const;
  // True when the selector does not restrict anything (no requirements).
  // False for Nothing(), like upstream.
  bool Empty() const { return !nothing_ && requirements_.empty(); }
  // True only for Nothing() (labels.MatchesNothing).
  bool MatchesNothing() const { return nothing_; }
  // Requirements joined by "," (labels.Selector.String); "" for
  // Everything() and Nothing(). Parsing the result gives an equal selector.
  std::string String() const;
  const std::vector<LabelRequirement>& Requirements() const {
    return requirements_;
  }
  // labels.Selector.RequiresExactMatch: looks at the first requirement on
  // `key` only; its value if that is In/=/== with exactly one value.
  std::optional<std::string> RequiresExactMatch(std::string_view key) const;

 private:
  friend absl::StatusOr<LabelSelector> MakeLabelSelector(
      std::vector<LabelRequirement> requirements);
  bool nothing_ = false;
  std::vector<LabelRequirement> requirements_;
};

// labels.NewRequirement: validates the key (a qualified name: an optional
// DNS-subdomain prefix and '/', then at most 63 of [A-Za-z0-9._-] starting
// and ending alphanumeric), the number of values for `op` (In/NotIn: at
// least one; =,==,!=: exactly one; Exists/DoesNotExist: none; Gt/Lt: one,
// an int64) and each value (a label value: empty or as a key's name part).
// Errors render like upstream's aggregate of field.Errors, e.g.
//   values[0][x]: Invalid value: "a b": a valid label must be an empty
//     string or consist of alphanumeric characters, ...
// and "[e1, e2]" for several. An empty `values` prints as [] (a non-nil Go
// slice); LabelSelectorFromJson prints null, as upstream does there.
absl::StatusOr<LabelRequirement> NewLabelRequirement(
    std::string key, LabelOperator op, std::vector<std::string> values);

// Builds a selector from validated requirements, sorting them by key.
absl::StatusOr<LabelSelector> MakeLabelSelector(
    std::vector<LabelRequirement> requirements);

// labels.Parse: the string syntax of `?labelSelector=` and `kubectl -l`:
//   <selector> ::= <requirement> | <requirement> "," <selector>
//   <requirement> ::= ["!"] KEY [ ("in"|"notin") "(" VALUES ")"
//                                | ("="|"=="|"!="|">"|"<") VALUE ]
// Blanks (space, tab, CR, LF) separate tokens anywhere; "in"/"notin" are
// keywords only where an operator is expected. "x in ()" and "x=" mean the
// empty value. A NUL byte ends the token it is in (Go's lexer reads it as
// end of input). Errors, verbatim upstream, e.g.:
//   found ',', expected: !, identifier, or 'end of string'
//   found ',', expected: identifier after ','
//   unable to parse requirement: found 'b', expected: in, notin, =, ==,
//     !=, gt, lt
//   unable to parse requirement: <nil>: Invalid value: "-x": name part
//     must consist of ...
absl::StatusOr<LabelSelector> ParseLabelSelector(std::string_view text);

// metav1.LabelSelectorAsSelector on the JSON form
//   {"matchLabels": {k: v}, "matchExpressions": [{"key", "operator":
//    "In"|"NotIn"|"Exists"|"DoesNotExist", "values": [...]}]}
// null -> Nothing(); {} (or both lists empty) -> Everything(). matchLabels
// become "=" requirements (checked in key order), then the expressions in
// order; the first invalid one is the error, e.g.
//   "Gt" is not a valid label selector operator
//   values: Invalid value: null: for 'in', 'notin' operators, values set
//     can't be empty
//   key: Invalid value: "a b": name part must consist of ...
// A JSON value of the wrong type (which upstream rejects while decoding the
// object) gives "invalid label selector: ..." naming the member.
absl::StatusOr<LabelSelector> LabelSelectorFromJson(
    const api::Json& metav1_label_selector);

// ------------------------------------------------------------------ fields

// fields.Requirement's operators: "=" and "==" both parse to kEquals.
enum class FieldOperator { kEquals, kNotEquals };

struct FieldRequirement {
  std::string field;
  FieldOperator op = FieldOperator::kEquals;
  std::string value;  // unescaped
};

// A field value lookup: nullopt when the object has no such field, which
// matches like the empty value (fields.Set.Get returns "").
using FieldLookup =
    std::function<std::optional<std::string>(std::string_view field)>;

// fields.Selector: the AND of (field, =|!=, value) terms.
class FieldSelector {
 public:
  static FieldSelector Everything() { return FieldSelector(); }
  FieldSelector() = default;
  // The AND of `requirements`, kept in the given order (field names and
  // values are free text; nothing to validate).
  explicit FieldSelector(std::vector<FieldRequirement> requirements)
      : requirements_(std::move(requirements)) {}

  // In the order upstream keeps them: terms sorted by their raw (escaped)
  // text.
  const std::vector<FieldRequirement>& Requirements() const {
    return requirements_;
  }
  bool Empty() const { return requirements_.empty(); }
  // Every term holds: field == value, or field != value; a missing field
  // has the value "".
  bool Matches(const FieldLookup& lookup) const;
  bool Matches(const std::map<std::string, std::string>& fields) const;
  // "f=v,g!=w" with values escaped (EscapeFieldValue); "==" prints as "=".
  std::string String() const;
  // The value of the first "=" term on `field`, if any.
  std::optional<std::string> RequiresExactMatch(std::string_view field) const;

 private:
  std::vector<FieldRequirement> requirements_;
};

// fields.ParseSelector: terms separated by unescaped ',' (empty terms are
// skipped), each split at the first "!=", "==" or "=" (the field part has
// no escapes; the value is unescaped with UnescapeFieldValue). Field names
// are not checked here (see ConvertFieldSelector). A term "=" (empty field
// and value) is dropped, like upstream's Transform. Errors, verbatim:
//   invalid selector: 'x=a,b'; can't understand 'b'
//   invalid field selector: invalid escape sequence: \a
//   invalid field selector: unescaped character in value: 61
// (the last prints the rune as a number, as upstream's %v does).
absl::StatusOr<FieldSelector> ParseFieldSelector(std::string_view text);

// fields.EscapeValue: '\' -> "\\", ',' -> "\,", '=' -> "\=".
std::string EscapeFieldValue(std::string_view value);
// fields.UnescapeValue: the inverse; an unknown escape, a trailing '\' or
// an unescaped ',' or '=' is an error (texts above).
absl::StatusOr<std::string> UnescapeFieldValue(std::string_view value);

// ------------------------------------------------ fields each kind supports

// Scheme.ConvertFieldLabel for every term, as the API server does before a
// list or watch (apiserver handlers listOpts -> Selector.Transform): checks
// each field against what `group`/`kind` supports and renames aliases (Pod
// "spec.host" -> "spec.nodeName"). Terms are checked in Requirements()
// order; the first unsupported one is the error, in the kind's own words:
//   Pod, Node, Namespace, Event (core/v1):
//       field label not supported: spec.foo
//   ResourceSlice:
//       field label not supported for resource.k8s.io/v1,
//         Kind=ResourceSlice: spec.foo
//   Job (batch/v1):
//       field label "spec.foo" not supported for Job
//   every other kind (no conversion function upstream; runtime's default):
//       "spec.foo" is not a known field selector: only
//         "metadata.name", "metadata.namespace"
// `version` only appears in the ResourceSlice text; "" means the kind's
// preferred version in api::ServedKinds() ("v1" if the kind is not served).
// Match objects with the returned selector, not the input.
absl::StatusOr<FieldSelector> ConvertFieldSelector(
    const FieldSelector& selector, std::string_view group,
    std::string_view kind, std::string_view version = "");

// ConvertFieldSelector's verdict alone.
absl::Status CheckFieldSelectorSupported(const FieldSelector& selector,
                                         std::string_view group,
                                         std::string_view kind,
                                         std::string_view version = "");

// The field values the API server's registry computes for an object (the
// strategy's GetAttrs / ToSelectableFields), read from the object's JSON in
// its served (v1) form. Missing members read as their Go zero value.
//   all kinds:        metadata.name; metadata.namespace if namespaced
//   Pod:              spec.nodeName, spec.restartPolicy, spec.schedulerName,
//                     spec.serviceAccountName (else spec.serviceAccount),
//                     spec.hostNetwork ("true"/"false"), status.phase,
//                     status.podIP (status.podIP, else status.podIPs[0].ip),
//                     status.nominatedNodeName. ("status.podIPs" is accepted
//                     by ConvertFieldSelector but has no value upstream: it
//                     matches only "".)
//   Node:             spec.unschedulable ("true"/"false"); no namespace
//   Namespace:        status.phase, and "name" (upstream's compatibility bug)
//   Event:            involvedObject.{kind,namespace,name,uid,apiVersion,
//                     resourceVersion,fieldPath}, reason, type,
//                     reportingComponent, source (source.component, else
//                     reportingComponent)
//   ResourceSlice:    spec.nodeName ("" when unset), spec.driver; no namespace
//   Job:              status.successful (status.succeeded as a decimal)
//   DeviceClass, ResourceClaimTemplate, DeviceTaintRule, ResourceQuota,
//   Lease, Deployment: metadata fields only
//
// DRAPLANE EXTENSIONS (beyond upstream; accepted by ConvertFieldSelector
// and valued here, for the monitoring commands of the guide; the list
// lives in one table in field_support.cc):
//   ResourceClaim status.allocation:  "true" when status.allocation is set,
//                                     else "" (so `status.allocation=` lists
//                                     pending claims)
//   ResourceClaim status.reservedFor: "true" when status.reservedFor is a
//                                     non-empty list, else ""
std::map<std::string, std::string> SelectableFields(const api::Json& object,
                                                    std::string_view group,
                                                    std::string_view kind);

}  // namespace draplane::selectors

#endif  // DRAPLANE_SELECTORS_SELECTORS_H_

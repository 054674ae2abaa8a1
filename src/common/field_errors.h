// Kubernetes-style field validation errors (the shape of upstream's
// k8s.io/apimachinery/pkg/util/validation/field package).
//
// A FieldPath names a field the way Kubernetes prints it:
//   spec.devices.requests[0].exactly.count, metadata.labels[app]
// A FieldError renders exactly like upstream's field.Error.Error():
//   "<path>: <Type>[: <value>][: <detail>]"
// so messages can be compared with the upstream Go implementation verbatim.
#ifndef DRAPLANE_COMMON_FIELD_ERRORS_H_
#define DRAPLANE_COMMON_FIELD_ERRORS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/status.h"

namespace draplane {

// An immutable, cheaply copyable path to a field. Child() and Index() return
// new paths; the receiver is not changed.
class FieldPath {
 public:
  FieldPath() = default;
  explicit FieldPath(std::string_view root) : text_(root) {}

  // "a" + Child("b") -> "a.b"; on an empty path -> "b".
  FieldPath Child(std::string_view name) const;
  // Two children at once: Child(a).Child(b).
  FieldPath Child(std::string_view a, std::string_view b) const {
    return Child(a).Child(b);
  }
  // "a" + Index(3) -> "a[3]".
  FieldPath Index(int64_t i) const;
  // "a" + Key("x") -> "a[x]" (map keys are printed unquoted, like upstream).
  FieldPath Key(std::string_view key) const;

  const std::string& ToString() const { return text_; }
  bool empty() const { return text_.empty(); }

 private:
  std::string text_;
};

// The value that failed, printed like upstream: strings quoted (Go %q),
// numbers and bools bare, JSON for anything else (pre-rendered by caller),
// or omitted.
class BadValue {
 public:
  BadValue() : kind_(Kind::kOmitted) {}
  BadValue(const char* s) : kind_(Kind::kString), text_(s) {}         // NOLINT
  BadValue(std::string_view s) : kind_(Kind::kString), text_(s) {}    // NOLINT
  BadValue(const std::string& s) : kind_(Kind::kString), text_(s) {}  // NOLINT
  BadValue(int64_t v)
      : kind_(Kind::kBare), text_(std::to_string(v)) {}   // NOLINT
  BadValue(int v) : BadValue(static_cast<int64_t>(v)) {}  // NOLINT
  BadValue(bool v)
      : kind_(Kind::kBare), text_(v ? "true" : "false") {}  // NOLINT
  // A value rendered as JSON (lists, maps, null), printed verbatim.
  static BadValue Json(std::string json) {
    BadValue v;
    v.kind_ = Kind::kBare;
    v.text_ = std::move(json);
    return v;
  }
  static BadValue Omitted() { return BadValue(); }

  // Upstream rendering: `"abc"` for strings, `3` for numbers, "" if omitted.
  std::string Render() const;
  bool omitted() const { return kind_ == Kind::kOmitted; }

 private:
  enum class Kind { kOmitted, kString, kBare };
  Kind kind_;
  std::string text_;
};

enum class FieldErrorType {
  kNotFound,
  kRequired,
  kDuplicate,
  kInvalid,
  kNotSupported,
  kForbidden,
  kTooLong,
  kTooMany,
  kInternal,
  kTypeInvalid,
};

// Upstream's ErrorType reason string, e.g. "FieldValueInvalid" (used as the
// `reason` of a Status cause).
std::string_view FieldErrorReason(FieldErrorType type);

struct FieldError {
  FieldErrorType type;
  std::string field;
  BadValue value;
  std::string detail;

  // Upstream field.Error.Error(): "<field>: <body>".
  std::string ToString() const;
  // Upstream ErrorBody(): the message without the field.
  std::string Body() const;
};

// Constructors mirroring upstream's field.Required, field.Invalid, ...
FieldError Required(const FieldPath& path, std::string_view detail = "");
FieldError Invalid(const FieldPath& path, BadValue value,
                   std::string_view detail);
FieldError TypeInvalid(const FieldPath& path, BadValue value,
                       std::string_view detail);
FieldError Duplicate(const FieldPath& path, BadValue value);
FieldError NotFound(const FieldPath& path, BadValue value);
// detail = `supported values: "a", "b"` (values quoted, in the given order).
FieldError NotSupported(const FieldPath& path, BadValue value,
                        const std::vector<std::string>& supported);
FieldError Forbidden(const FieldPath& path, std::string_view detail);
// "Too long: may not be more than N bytes".
FieldError TooLong(const FieldPath& path, int64_t max_length);
// "Too many: <actual>: must have at most N items".
FieldError TooMany(const FieldPath& path, int64_t actual, int64_t max);
FieldError InternalError(const FieldPath& path, std::string_view detail);

using FieldErrorList = std::vector<FieldError>;

// Appends `more` to `list`.
void Append(FieldErrorList& list, FieldErrorList more);

// Kubernetes' aggregate rendering of a list, as printed by kubectl after
// `<Kind> "<name>" is invalid: `: one error as is, several as
// "[e1, e2, ...]".
std::string AggregateMessage(const FieldErrorList& errors);

}  // namespace draplane

#endif  // DRAPLANE_COMMON_FIELD_ERRORS_H_

#include "common/field_errors.h"

#include <cstdint>
#include <cstdio>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/go_strconv.h"
#include "common/str_cat.h"

namespace draplane {

FieldPath FieldPath::Child(std::string_view name) const {
  FieldPath out;
  out.text_ = text_.empty() ? std::string(name) : StrCat(text_, ".", name);
  return out;
}

FieldPath FieldPath::Index(int64_t i) const {
  FieldPath out;
  out.text_ = StrCat(text_, "[", i, "]");
  return out;
}

FieldPath FieldPath::Key(std::string_view key) const {
  FieldPath out;
  out.text_ = StrCat(text_, "[", key, "]");
  return out;
}

std::string BadValue::Render() const {
  switch (kind_) {
    case Kind::kOmitted:
      return "";
    case Kind::kString:
      return StrconvQuote(text_);
    case Kind::kBare:
      return text_;
  }
  return "";
}

std::string_view FieldErrorReason(FieldErrorType type) {
  switch (type) {
    case FieldErrorType::kNotFound:
      return "FieldValueNotFound";
    case FieldErrorType::kRequired:
      return "FieldValueRequired";
    case FieldErrorType::kDuplicate:
      return "FieldValueDuplicate";
    case FieldErrorType::kInvalid:
      return "FieldValueInvalid";
    case FieldErrorType::kNotSupported:
      return "FieldValueNotSupported";
    case FieldErrorType::kForbidden:
      return "FieldValueForbidden";
    case FieldErrorType::kTooLong:
      return "FieldValueTooLong";
    case FieldErrorType::kTooMany:
      return "FieldValueTooMany";
    case FieldErrorType::kInternal:
      return "InternalError";
    case FieldErrorType::kTypeInvalid:
      return "FieldValueTypeInvalid";
  }
  return "";
}

namespace {
std::string_view TypeText(FieldErrorType type) {
  switch (type) {
    case FieldErrorType::kNotFound:
      return "Not found";
    case FieldErrorType::kRequired:
      return "Required value";
    case FieldErrorType::kDuplicate:
      return "Duplicate value";
    case FieldErrorType::kInvalid:
      return "Invalid value";
    case FieldErrorType::kNotSupported:
      return "Unsupported value";
    case FieldErrorType::kForbidden:
      return "Forbidden";
    case FieldErrorType::kTooLong:
      return "Too long";
    case FieldErrorType::kTooMany:
      return "Too many";
    case FieldErrorType::kInternal:
      return "Internal error";
    case FieldErrorType::kTypeInvalid:
      return "Invalid value";
  }
  return "";
}
}  // namespace

std::string FieldError::Body() const {
  std::string s(TypeText(type));
  switch (type) {
    case FieldErrorType::kRequired:
    case FieldErrorType::kForbidden:
    case FieldErrorType::kTooLong:
    case FieldErrorType::kInternal:
      break;
    default:
      if (!value.omitted()) StrAppend(&s, ": ", value.Render());
  }
  if (!detail.empty()) StrAppend(&s, ": ", detail);
  return s;
}

std::string FieldError::ToString() const { return StrCat(field, ": ", Body()); }

FieldError Required(const FieldPath& path, std::string_view detail) {
  return {FieldErrorType::kRequired, path.ToString(), BadValue(""),
          std::string(detail)};
}
FieldError Invalid(const FieldPath& path, BadValue value,
                   std::string_view detail) {
  return {FieldErrorType::kInvalid, path.ToString(), std::move(value),
          std::string(detail)};
}
FieldError TypeInvalid(const FieldPath& path, BadValue value,
                       std::string_view detail) {
  return {FieldErrorType::kTypeInvalid, path.ToString(), std::move(value),
          std::string(detail)};
}
FieldError Duplicate(const FieldPath& path, BadValue value) {
  return {FieldErrorType::kDuplicate, path.ToString(), std::move(value), ""};
}
FieldError NotFound(const FieldPath& path, BadValue value) {
  return {FieldErrorType::kNotFound, path.ToString(), std::move(value), ""};
}
FieldError NotSupported(const FieldPath& path, BadValue value,
                        const std::vector<std::string>& supported) {
  std::string detail;
  if (!supported.empty()) {
    detail = "supported values: ";
    for (size_t i = 0; i < supported.size(); ++i) {
      if (i > 0) detail += ", ";
      detail += StrconvQuote(supported[i]);
    }
  }
  return {FieldErrorType::kNotSupported, path.ToString(), std::move(value),
          detail};
}
FieldError Forbidden(const FieldPath& path, std::string_view detail) {
  return {FieldErrorType::kForbidden, path.ToString(), BadValue(""),
          std::string(detail)};
}
FieldError TooLong(const FieldPath& path, int64_t max_length) {
  std::string detail = max_length >= 0
                           ? StrCat("may not be more than ", max_length,
                                    max_length == 1 ? " byte" : " bytes")
                           : "value is too long";
  return {FieldErrorType::kTooLong, path.ToString(),
          BadValue("<value omitted>"), detail};
}
FieldError TooMany(const FieldPath& path, int64_t actual, int64_t max) {
  std::string detail = max >= 0 ? StrCat("must have at most ", max,
                                         max == 1 ? " item" : " items")
                                : "has too many items";
  return {FieldErrorType::kTooMany, path.ToString(),
          actual >= 0 ? BadValue(actual) : BadValue::Omitted(), detail};
}
FieldError InternalError(const FieldPath& path, std::string_view detail) {
  return {FieldErrorType::kInternal, path.ToString(), BadValue::Omitted(),
          std::string(detail)};
}

void Append(FieldErrorList& list, FieldErrorList more) {
  for (auto& e : more) list.push_back(std::move(e));
}

std::string AggregateMessage(const FieldErrorList& errors) {
  if (errors.empty()) return "";
  if (errors.size() == 1) return errors[0].ToString();
  std::vector<std::string> parts;
  parts.reserve(errors.size());
  for (const auto& e : errors) parts.push_back(e.ToString());
  return StrCat("[", absl::StrJoin(parts, ", "), "]");
}

}  // namespace draplane

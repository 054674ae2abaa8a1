#include "common/field_errors.h"

#include <cstdint>
#include <cstdio>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
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

namespace {

// Decodes one UTF-8 code point at s[i]; returns its length, or 0 if the
// bytes there are not valid UTF-8.
size_t DecodeUtf8(std::string_view s, size_t i, uint32_t* rune) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  size_t len = 0;
  uint32_t r = 0;
  if (c < 0x80) {
    *rune = c;
    return 1;
  } else if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
    r = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    r = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    r = c & 0x07;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    r = (r << 6) | (b(k) & 0x3F);
  }
  if ((len == 3 && (r < 0x800 || (r >= 0xD800 && r <= 0xDFFF))) ||
      (len == 4 && (r < 0x10000 || r > 0x10FFFF))) {
    return 0;
  }
  *rune = r;
  return len;
}

// An approximation of Go's unicode.IsPrint for non-ASCII code points: the
// C1 controls and the common non-printing space/format/private-use ranges
// are treated as non-printable.
bool IsPrintableNonAscii(uint32_t r) {
  if (r < 0xA0) return false;                // C1 controls
  if (r == 0xA0 || r == 0xAD) return false;  // NBSP, soft hyphen
  if (r >= 0x2000 && r <= 0x200F) return false;
  if (r >= 0x2028 && r <= 0x202F) return false;
  if (r >= 0x205F && r <= 0x206F) return false;
  if (r == 0x3000 || r == 0xFEFF) return false;
  if (r >= 0xE000 && r <= 0xF8FF) return false;  // private use
  if (r >= 0xFFF0 && r <= 0xFFFF) return false;
  return true;
}

}  // namespace

std::string GoQuote(std::string_view s) {
  std::string out = "\"";
  char buf[16];
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '\a':
          out += "\\a";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\v':
          out += "\\v";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '"':
          out += "\\\"";
          break;
        default:
          if (c < 0x20 || c == 0x7F) {
            std::snprintf(buf, sizeof(buf), "\\x%02x", c);
            out += buf;
          } else {
            out.push_back(static_cast<char>(c));
          }
      }
      ++i;
      continue;
    }
    uint32_t rune = 0;
    const size_t len = DecodeUtf8(s, i, &rune);
    if (len == 0) {
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
      ++i;
      continue;
    }
    if (IsPrintableNonAscii(rune)) {
      out.append(s.substr(i, len));
    } else if (rune < 0x10000) {
      std::snprintf(buf, sizeof(buf), "\\u%04x", rune);
      out += buf;
    } else {
      std::snprintf(buf, sizeof(buf), "\\U%08x", rune);
      out += buf;
    }
    i += len;
  }
  out += "\"";
  return out;
}

std::string BadValue::Render() const {
  switch (kind_) {
    case Kind::kOmitted:
      return "";
    case Kind::kString:
      return GoQuote(text_);
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
      detail += GoQuote(supported[i]);
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

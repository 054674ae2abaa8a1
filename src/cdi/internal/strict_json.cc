#include "cdi/internal/strict_json.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>

#include "absl/strings/str_join.h"
#include "api/manifest.h"
#include "common/go_strconv.h"
#include "common/json_type_name.h"
#include "common/str_cat.h"

namespace draplane::cdi::internal {
namespace {

using Json = nlohmann::json;

// Alias expansion guard ("billion laughs").
constexpr size_t kMaxYamlNodes = 1 << 20;

bool AllOf(std::string_view s, std::string_view chars) {
  return !s.empty() && s.find_first_not_of(chars) == std::string_view::npos;
}

// YAML plain int: [-+]? then decimal, 0x hex, 0o octal or 0-leading octal.
bool ParsePlainInt(std::string_view s, Json& out) {
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
    if (!AllOf(s, "0123456789abcdefABCDEF")) return false;
  } else if (s.size() > 2 && s[0] == '0' && s[1] == 'o') {
    base = 8;
    s.remove_prefix(2);
    if (!AllOf(s, "01234567")) return false;
  } else if (s.size() > 1 && s[0] == '0') {
    base = 8;
    if (!AllOf(s, "01234567")) return false;
  } else if (!AllOf(s, "0123456789")) {
    return false;
  }
  std::string digits(s);
  errno = 0;
  unsigned long long v = std::strtoull(digits.c_str(), nullptr, base);
  if (errno == ERANGE) return false;
  if (negative) {
    if (v >
        static_cast<unsigned long long>(std::numeric_limits<int64_t>::max()) +
            1) {
      return false;
    }
    out = static_cast<int64_t>(0 - v);
  } else if (v > static_cast<unsigned long long>(
                     std::numeric_limits<int64_t>::max())) {
    out = static_cast<uint64_t>(v);
  } else {
    out = static_cast<int64_t>(v);
  }
  return true;
}

bool ParsePlainFloat(std::string_view s, Json& out) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  size_t digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    size_t exp_digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  if (i != s.size()) return false;
  double d = std::strtod(std::string(s).c_str(), nullptr);
  if (!std::isfinite(d)) return false;
  out = d;
  return true;
}

void ResolvePlain(const std::string& s, Json& out) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") {
    out = nullptr;
  } else if (s == "true" || s == "True" || s == "TRUE") {
    out = true;
  } else if (s == "false" || s == "False" || s == "FALSE") {
    out = false;
  } else if (!ParsePlainInt(s, out) && !ParsePlainFloat(s, out)) {
    out = s;
  }
}

class YamlToJson {
 public:
  absl::Status Convert(const YAML::Node& node, Json& out) {
    if (++nodes_ > kMaxYamlNodes) {
      return absl::InvalidArgumentError(
          "YAML document expands to too many nodes (alias expansion)");
    }
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        out = nullptr;
        return absl::OkStatus();
      case YAML::NodeType::Scalar:
        // "!" is the tag of a quoted scalar (and of an explicit non-specific
        // tag): always a string. So is an explicit !!str.
        if (node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str") {
          out = node.Scalar();
        } else {
          ResolvePlain(node.Scalar(), out);
        }
        return absl::OkStatus();
      case YAML::NodeType::Sequence:
        out = Json::array();
        for (const YAML::Node& item : node) {
          Json value;
          if (absl::Status s = Convert(item, value); !s.ok()) return s;
          out.push_back(std::move(value));
        }
        return absl::OkStatus();
      case YAML::NodeType::Map:
        out = Json::object();
        for (auto it = node.begin(); it != node.end(); ++it) {
          if (!it->first.IsScalar()) {
            return Error(it->first, "mapping keys must be scalars");
          }
          const std::string& key = it->first.Scalar();
          if (out.contains(key)) {
            return Error(it->first,
                         StrCat("mapping key \"", key, "\" already defined"));
          }
          Json value;
          if (absl::Status s = Convert(it->second, value); !s.ok()) return s;
          out[key] = std::move(value);
        }
        return absl::OkStatus();
    }
    return absl::OkStatus();
  }

 private:
  static absl::Status Error(const YAML::Node& node, std::string_view message) {
    YAML::Mark mark = node.Mark();
    return absl::InvalidArgumentError(StrCat("yaml: line ", mark.line + 1,
                                             ", column ", mark.column + 1, ": ",
                                             message));
  }

  size_t nodes_ = 0;
};

absl::StatusOr<ParsedText> ParseYaml(std::string_view text) {
  // The API's guarded loader: invalid UTF-8, control characters and the
  // inputs Debian's yaml-cpp loops on are errors, not strings or hangs.
  auto loaded = api::LoadYamlDocuments(text, "yaml");
  if (!loaded.ok()) return loaded.status();
  const std::vector<YAML::Node>& docs = *loaded;
  if (docs.size() > 1) {
    return absl::InvalidArgumentError(
        "a CDI spec file holds one YAML document, found several");
  }
  ParsedText out;
  out.from_yaml = true;
  if (docs.empty()) return out;
  try {
    YamlToJson converter;
    if (absl::Status s = converter.Convert(docs[0], out.json); !s.ok()) {
      return s;
    }
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(StrCat("yaml: ", e.what()));
  }
  return out;
}

}  // namespace

absl::StatusOr<ParsedText> ParseJsonOrYaml(std::string_view text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') {
    ParsedText out;
    try {
      out.json = Json::parse(text.begin(), text.end());
      return out;
    } catch (const Json::exception& e) {
      absl::StatusOr<ParsedText> yaml = ParseYaml(text);
      if (yaml.ok()) return yaml;
      return absl::InvalidArgumentError(StrCat("invalid JSON: ", e.what()));
    }
  }
  return ParseYaml(text);
}

const Json* StrictDecoder::Field(const Json& obj, std::string_view key) {
  auto it = obj.find(std::string(key));
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}

void StrictDecoder::TypeError(const FieldPath& path, std::string_view want,
                              const Json& got) {
  if (type_error_.has_value()) return;
  type_error_ = StrCat("cannot decode ",
                       path.empty() ? std::string("the document")
                                    : StrconvQuote(path.ToString()),
                       ": expected ", want, ", got ", JsonTypeName(got));
}

bool StrictDecoder::Object(const Json& v, const FieldPath& path,
                           std::initializer_list<std::string_view> known) {
  if (!v.is_object()) {
    TypeError(path, "an object", v);
    return false;
  }
  for (auto it = v.begin(); it != v.end(); ++it) {
    bool is_known = false;
    for (std::string_view k : known) is_known = is_known || k == it.key();
    if (!is_known) unknown_fields_.push_back(path.Child(it.key()).ToString());
  }
  return true;
}

bool StrictDecoder::Array(const Json& v, const FieldPath& path) {
  if (!v.is_array()) {
    TypeError(path, "a list", v);
    return false;
  }
  return true;
}

bool StrictDecoder::String(const Json& v, const FieldPath& path,
                           std::string& out) {
  if (v.is_string()) {
    out = v.get<std::string>();
    return true;
  }
  if (yaml_scalars_as_strings_ && (v.is_number() || v.is_boolean())) {
    out = v.dump();
    return true;
  }
  TypeError(path, "a string", v);
  return false;
}

bool StrictDecoder::Int64(const Json& v, const FieldPath& path, int64_t& out) {
  // nlohmann keeps non-negative literals unsigned (is_number_integer() is
  // true for them too): check the range before converting.
  if (v.is_number_unsigned()) {
    if (v.get<uint64_t>() <=
        static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      out = static_cast<int64_t>(v.get<uint64_t>());
      return true;
    }
  } else if (v.is_number_integer()) {
    out = v.get<int64_t>();
    return true;
  }
  // Like Go's encoding/json, "1.0" and "1e3" are not integers.
  TypeError(path, "a 64-bit integer", v);
  return false;
}

bool StrictDecoder::Uint32(const Json& v, const FieldPath& path,
                           uint32_t& out) {
  if (v.is_number_unsigned()) {
    if (v.get<uint64_t>() <= std::numeric_limits<uint32_t>::max()) {
      out = static_cast<uint32_t>(v.get<uint64_t>());
      return true;
    }
  } else if (v.is_number_integer()) {
    int64_t n = v.get<int64_t>();
    if (n >= 0 && n <= std::numeric_limits<uint32_t>::max()) {
      out = static_cast<uint32_t>(n);
      return true;
    }
  }
  TypeError(path, "an unsigned 32-bit integer", v);
  return false;
}

bool StrictDecoder::Bool(const Json& v, const FieldPath& path, bool& out) {
  if (v.is_boolean()) {
    out = v.get<bool>();
    return true;
  }
  TypeError(path, "a bool", v);
  return false;
}

bool StrictDecoder::StringList(const Json& v, const FieldPath& path,
                               std::vector<std::string>& out) {
  if (!Array(v, path)) return false;
  bool ok = true;
  for (size_t i = 0; i < v.size(); ++i) {
    std::string s;
    if (v[i].is_null()) {
      out.emplace_back();
      continue;
    }
    if (!String(v[i], path.Index(static_cast<int64_t>(i)), s)) {
      ok = false;
      continue;
    }
    out.push_back(std::move(s));
  }
  return ok;
}

bool StrictDecoder::StringMap(const Json& v, const FieldPath& path,
                              std::map<std::string, std::string>& out) {
  if (!v.is_object()) {
    TypeError(path, "an object", v);
    return false;
  }
  bool ok = true;
  for (auto it = v.begin(); it != v.end(); ++it) {
    std::string s;
    if (it->is_null()) {
      out[it.key()] = "";
      continue;
    }
    if (!String(*it, path.Key(it.key()), s)) {
      ok = false;
      continue;
    }
    out[it.key()] = std::move(s);
  }
  return ok;
}

absl::Status StrictDecoder::Finish() const {
  if (type_error_.has_value()) return absl::InvalidArgumentError(*type_error_);
  if (unknown_fields_.empty()) return absl::OkStatus();
  std::vector<std::string> parts;
  parts.reserve(unknown_fields_.size());
  for (const std::string& f : unknown_fields_) {
    parts.push_back(StrCat("unknown field ", StrconvQuote(f)));
  }
  return absl::InvalidArgumentError(absl::StrJoin(parts, ", "));
}

}  // namespace draplane::cdi::internal

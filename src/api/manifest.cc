#include "api/manifest.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "api/internal/yaml_stuck_documents.h"
#include "common/go_strconv.h"
#include "common/str_cat.h"
#include "yaml-cpp/yaml.h"

namespace draplane::api {
namespace {

struct LineCol {
  int line;
  int column;
};

LineCol PositionOf(std::string_view text, size_t offset) {
  LineCol pos{1, 1};
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      pos.column = 1;
    } else {
      ++pos.column;
    }
  }
  return pos;
}

absl::Status PositionError(std::string_view source, int line, int column,
                           std::string_view message) {
  return absl::InvalidArgumentError(
      StrCat(source, ":", line, ":", column, ": ", message));
}

// Rejects a flow indicator (',', ']' or '}') where a block-level node
// would start: at the start of a line or document, or after "- ", "? " or
// "key: " outside flow collections. YAML never allows a plain scalar to
// start with one, and yaml-cpp 0.7 loops forever on some such inputs
// (",a: b" as a whole document), so they are reported here first with a
// clear message. Every input that makes yaml-cpp's document loop stick
// (also "!x ,", "'a' ," or "[1],") is caught by FindStuckDocument.
absl::Status CheckBlockFlowIndicators(std::string_view text,
                                      std::string_view source) {
  int flow = 0;
  int line = 1;
  size_t i = 0;
  auto is_space = [](char c) { return c == ' ' || c == '\t'; };
  while (i < text.size()) {
    size_t line_end = text.find('\n', i);
    if (line_end == std::string_view::npos) line_end = text.size();
    std::string_view l = text.substr(i, line_end - i);
    if (flow == 0) {
      size_t j = 0;
      bool at_node_start = true;
      while (at_node_start) {
        while (j < l.size() && is_space(l[j])) ++j;
        if (j + 1 < l.size() && (l[j] == '-' || l[j] == '?') &&
            is_space(l[j + 1])) {
          j += 2;
          continue;
        }
        if (l.substr(j, 3) == "---" &&
            (j + 3 == l.size() || is_space(l[j + 3]))) {
          j += 3;
          continue;
        }
        at_node_start = false;
      }
      if (j < l.size() && (l[j] == ',' || l[j] == ']' || l[j] == '}')) {
        return PositionError(
            source, line, static_cast<int>(j) + 1,
            StrCat("unexpected '", std::string(1, l[j]),
                   "' where a value must start (plain scalars cannot start "
                   "with a flow indicator; quote the value)"));
      }
    }
    // Track flow depth through the line, skipping quoted scalars and
    // comments that start at token boundaries.
    char quote = 0;
    for (size_t k = 0; k < l.size(); ++k) {
      char c = l[k];
      if (quote != 0) {
        if (quote == '"' && c == '\\') {
          ++k;
        } else if (c == quote) {
          if (quote == '\'' && k + 1 < l.size() && l[k + 1] == '\'') {
            ++k;
          } else {
            quote = 0;
          }
        }
        continue;
      }
      bool boundary = k == 0 || is_space(l[k - 1]) || l[k - 1] == '[' ||
                      l[k - 1] == '{' || l[k - 1] == ',' || l[k - 1] == ':';
      if ((c == '"' || c == '\'') && boundary) {
        quote = c;
      } else if (c == '#' && (k == 0 || is_space(l[k - 1]))) {
        break;
      } else if (c == '[' || c == '{') {
        ++flow;
      } else if ((c == ']' || c == '}') && flow > 0) {
        --flow;
      }
    }
    i = line_end + 1;
    ++line;
  }
  return absl::OkStatus();
}

// Conservative bound on the nesting a parser would have to recurse
// through: flow brackets (counted even inside quotes) plus, per line, the
// indentation and the leading "- " sequence markers. Rejecting above the
// bound keeps yaml-cpp's recursive descent and our tree walks off the end
// of the stack.
absl::Status CheckNesting(std::string_view text, std::string_view source) {
  int flow = 0;
  size_t line_start = 0;
  int line = 1;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '\n') {
      std::string_view l = text.substr(line_start, i - line_start);
      int block = 0;
      size_t j = 0;
      while (j < l.size() && (l[j] == ' ' || l[j] == '\t')) ++j;
      block = static_cast<int>(j);
      while (j + 1 < l.size() && (l[j] == '-' || l[j] == '?' || l[j] == ':') &&
             (l[j + 1] == ' ' || l[j + 1] == '\t')) {
        block += 2;
        j += 2;
        while (j < l.size() && (l[j] == ' ' || l[j] == '\t')) ++j;
      }
      if (block + flow > kMaxNestingDepth) {
        return PositionError(
            source, line, 1,
            StrCat("nesting deeper than ", kMaxNestingDepth, " levels"));
      }
      line_start = i + 1;
      ++line;
      continue;
    }
    char c = text[i];
    if (c == '[' || c == '{') {
      if (++flow > kMaxNestingDepth) {
        LineCol pos = PositionOf(text, i);
        return PositionError(
            source, pos.line, pos.column,
            StrCat("nesting deeper than ", kMaxNestingDepth, " levels"));
      }
    } else if ((c == ']' || c == '}') && flow > 0) {
      --flow;
    }
  }
  return absl::OkStatus();
}

// Offset of the first byte that is not part of a well-formed UTF-8
// sequence (RFC 3629: no overlongs, no surrogates, <= U+10FFFF), or npos.
size_t FindInvalidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int len;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return i;
    }
    if (i + len > s.size()) return i;
    unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
    if (c1 < lo || c1 > hi) return i;
    for (int k = 2; k < len; ++k) {
      unsigned char ck = static_cast<unsigned char>(s[i + k]);
      if (ck < 0x80 || ck > 0xBF) return i;
    }
    i += len;
  }
  return std::string_view::npos;
}

// Offset of the first character of well-formed UTF-8 `s` that YAML's
// reader refuses (go-yaml: only #x9, #xA, #xD, #x20-#x7E, #x85,
// #xA0-#xD7FF, #xE000-#xFFFD and #x10000-#x10FFFF are allowed), or npos.
size_t FindYamlControlCharacter(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const int len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    uint32_t cp = len == 1   ? c
                  : len == 2 ? c & 0x1F
                  : len == 3 ? c & 0x0F
                             : c & 0x07;
    for (int k = 1; k < len; ++k) {
      cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    }
    const bool allowed = cp == 0x09 || cp == 0x0A || cp == 0x0D ||
                         (cp >= 0x20 && cp <= 0x7E) || cp == 0x85 ||
                         (cp >= 0xA0 && cp <= 0xD7FF) ||
                         (cp >= 0xE000 && cp <= 0xFFFD) || cp >= 0x10000;
    if (!allowed) return i;
    i += len;
  }
  return std::string_view::npos;
}

// ------------------------------------------------------- YAML scalars
// YAML 1.1 numbers may contain '_' digit separators.
std::string WithoutUnderscores(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c != '_') out += c;
  }
  return out;
}

// A YAML float as Kubernetes' YAML-to-JSON step writes it: Go's
// encoding/json prints integral float64 values below 1e21 without a
// fraction ("1e3" -> 1000), so they decode into integer fields.
Json FloatJson(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.2e18) {
    return static_cast<int64_t>(v);
  }
  return v;
}

bool IsNullScalar(std::string_view s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

// YAML 1.1 booleans as resolved by go-yaml v2 (sigs.k8s.io/yaml).
int BoolScalar(std::string_view s) {
  static const std::set<std::string_view> kTrue = {
      "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"};
  static const std::set<std::string_view> kFalse = {
      "n",     "N",     "no",  "No",  "NO", "false",
      "False", "FALSE", "off", "Off", "OFF"};
  if (kTrue.count(s)) return 1;
  if (kFalse.count(s)) return 0;
  return -1;
}

bool ParseYamlInt(std::string_view s, Json& out) {
  std::string plain = WithoutUnderscores(s);
  if (plain.empty()) return false;
  bool negative = false;
  size_t i = 0;
  if (plain[0] == '+' || plain[0] == '-') {
    negative = plain[0] == '-';
    i = 1;
  }
  std::string_view digits(plain);
  digits.remove_prefix(i);
  if (digits.empty()) return false;
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' &&
      (digits[1] == 'x' || digits[1] == 'X')) {
    base = 16;
    digits.remove_prefix(2);
  } else if (digits.size() > 2 && digits[0] == '0' &&
             (digits[1] == 'b' || digits[1] == 'B')) {
    base = 2;
    digits.remove_prefix(2);
  } else if (digits.size() > 2 && digits[0] == '0' &&
             (digits[1] == 'o' || digits[1] == 'O')) {
    base = 8;
    digits.remove_prefix(2);
  } else if (digits.size() > 1 && digits[0] == '0') {
    base = 8;
    digits.remove_prefix(1);
  }
  if (digits.empty()) return false;
  unsigned __int128 value = 0;
  for (char c : digits) {
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else {
      return false;
    }
    if (d >= base) return false;
    value = value * base + d;
    if (value >
        static_cast<unsigned __int128>(std::numeric_limits<uint64_t>::max())) {
      return false;  // falls back to float resolution
    }
  }
  if (negative) {
    if (value >
        static_cast<unsigned __int128>(std::numeric_limits<int64_t>::max()) +
            1) {
      return false;
    }
    out = static_cast<int64_t>(-static_cast<__int128>(value));
  } else if (value > static_cast<unsigned __int128>(
                         std::numeric_limits<int64_t>::max())) {
    out = static_cast<uint64_t>(value);
  } else {
    out = static_cast<int64_t>(value);
  }
  return true;
}

bool LooksLikeFloat(std::string_view s) {
  // [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t int_digits = 0, frac_digits = 0;
  while (i < s.size() && (absl::ascii_isdigit(s[i]) || s[i] == '_')) {
    ++i;
    ++int_digits;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && absl::ascii_isdigit(s[i])) {
      ++i;
      ++frac_digits;
    }
  }
  if (int_digits == 0 && frac_digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exp_digits = 0;
    while (i < s.size() && absl::ascii_isdigit(s[i])) {
      ++i;
      ++exp_digits;
    }
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

enum class PlainKind { kString, kNull, kBool, kInt, kFloat, kSpecialFloat };

PlainKind ResolvePlain(std::string_view s, Json* out) {
  if (IsNullScalar(s)) {
    if (out) *out = nullptr;
    return PlainKind::kNull;
  }
  int b = BoolScalar(s);
  if (b >= 0) {
    if (out) *out = (b == 1);
    return PlainKind::kBool;
  }
  Json tmp;
  char c = s[0];
  bool numeric_start =
      absl::ascii_isdigit(c) || c == '-' || c == '+' || c == '.';
  if (numeric_start && ParseYamlInt(s, tmp)) {
    if (out) *out = tmp;
    return PlainKind::kInt;
  }
  if (numeric_start && LooksLikeFloat(s)) {
    if (out)
      *out = FloatJson(std::strtod(WithoutUnderscores(s).c_str(), nullptr));
    return PlainKind::kFloat;
  }
  static const std::set<std::string_view> kSpecial = {
      ".inf",  ".Inf",  ".INF",  "+.inf", "+.Inf", "+.INF",
      "-.inf", "-.Inf", "-.INF", ".nan",  ".NaN",  ".NAN"};
  if (kSpecial.count(s)) return PlainKind::kSpecialFloat;
  if (out) *out = std::string(s);
  return PlainKind::kString;
}

// go-yaml's bound on alias expansion: the share of decoded nodes that may
// come from aliases, 99 % up to 400,000 nodes, falling to 10 % at
// 4,000,000.
double AllowedAliasRatio(size_t decoded) {
  constexpr double kLow = 400'000, kHigh = 4'000'000;
  if (static_cast<double>(decoded) <= kLow) return 0.99;
  if (static_cast<double>(decoded) >= kHigh) return 0.10;
  return 0.99 - 0.89 * ((static_cast<double>(decoded) - kLow) / (kHigh - kLow));
}

// Nodes taken from a shared budget at a time.
constexpr size_t kBudgetChunk = 4096;

class YamlToJson {
 public:
  YamlToJson(std::string_view source, const YamlDecodeLimits& limits)
      : source_(source), limits_(limits) {}
  ~YamlToJson() {
    if (limits_.shared == nullptr) return;
    if (opening_) limits_.shared->GiveOpening();
    limits_.shared->Give(taken_);
  }
  YamlToJson(const YamlToJson&) = delete;
  YamlToJson& operator=(const YamlToJson&) = delete;

  // Converts one document.
  absl::Status ConvertDocument(const YAML::Node& node, Json& out) {
    nodes_ = 0;
    aliased_ = 0;
    alias_depth_ = 0;
    seen_.clear();
    return Convert(node, out);
  }

 private:
  absl::Status Convert(const YAML::Node& node, Json& out) {
    if (auto s = Count(node); !s.ok()) return s;
    // yaml-cpp gives an alias as its anchor's node again: a node met
    // before is an alias, everything under it an expansion.
    const int pos = node.Mark().pos;
    const bool alias = pos >= 0 && !seen_.insert(pos).second;
    if (alias) ++alias_depth_;
    absl::Status s = ConvertValue(node, out);
    if (alias) --alias_depth_;
    return s;
  }

  // go-yaml's count of decoded nodes and its aliasing rule, and the
  // budgets.
  absl::Status Count(const YAML::Node& node) {
    ++nodes_;
    if (alias_depth_ > 0) ++aliased_;
    if (aliased_ > 100 && nodes_ > 1000 &&
        static_cast<double>(aliased_) / static_cast<double>(nodes_) >
            AllowedAliasRatio(nodes_)) {
      return Error(node, "document contains excessive aliasing");
    }
    if (nodes_ > limits_.max_nodes) {
      return ErrorWithCode(
          absl::StatusCode::kResourceExhausted, node,
          StrCat("document expands to more than ", limits_.max_nodes,
                 " nodes (alias expansion)"));
    }
    if (limits_.shared != nullptr && ++used_ > taken_ + opened_) {
      if (used_ == 1 && limits_.shared->TakeOpening()) {
        opening_ = true;
        opened_ = kYamlOpeningNodes;
        return absl::OkStatus();
      }
      if (!limits_.shared->Take(kBudgetChunk)) {
        return absl::UnavailableError(
            StrCat(source_,
                   ": the server is decoding too much YAML at "
                   "once; try again later"));
      }
      taken_ += kBudgetChunk;
    }
    return absl::OkStatus();
  }

  absl::Status ConvertValue(const YAML::Node& node, Json& out) {
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        out = nullptr;
        return absl::OkStatus();
      case YAML::NodeType::Scalar:
        return Scalar(node, out);
      case YAML::NodeType::Sequence: {
        out = Json::array();
        for (const YAML::Node& item : node) {
          Json value;
          if (auto s = Convert(item, value); !s.ok()) return s;
          out.push_back(std::move(value));
        }
        return absl::OkStatus();
      }
      case YAML::NodeType::Map: {
        out = Json::object();
        for (auto it = node.begin(); it != node.end(); ++it) {
          Json key_json;
          if (auto s = Convert(it->first, key_json); !s.ok()) return s;
          std::string key;
          if (key_json.is_string()) {
            key = key_json.get<std::string>();
          } else if (key_json.is_null()) {
            key = "null";
          } else if (key_json.is_primitive()) {
            key = key_json.dump();
          } else {
            return Error(it->first, "mapping keys must be scalars");
          }
          if (out.contains(key)) {
            return Error(it->first,
                         StrCat("mapping key \"", key, "\" already defined"));
          }
          Json value;
          if (auto s = Convert(it->second, value); !s.ok()) return s;
          out[key] = std::move(value);
        }
        return absl::OkStatus();
      }
    }
    return absl::OkStatus();
  }

 private:
  absl::Status Scalar(const YAML::Node& node, Json& out) {
    const std::string& text = node.Scalar();
    const std::string& tag = node.Tag();
    if (tag == "!" || tag == "tag:yaml.org,2002:str") {
      out = text;
      return absl::OkStatus();
    }
    if (tag == "?" || tag.empty()) {
      PlainKind kind = ResolvePlain(text, &out);
      if (kind == PlainKind::kSpecialFloat) {
        return Error(node, StrCat("cannot represent ", text, " in JSON"));
      }
      return absl::OkStatus();
    }
    if (tag == "tag:yaml.org,2002:int") {
      if (!ParseYamlInt(text, out)) {
        return Error(node, StrCat("invalid !!int value \"", text, "\""));
      }
      return absl::OkStatus();
    }
    if (tag == "tag:yaml.org,2002:bool") {
      int b = BoolScalar(text);
      if (b < 0) {
        return Error(node, StrCat("invalid !!bool value \"", text, "\""));
      }
      out = (b == 1);
      return absl::OkStatus();
    }
    if (tag == "tag:yaml.org,2002:null") {
      out = nullptr;
      return absl::OkStatus();
    }
    if (tag == "tag:yaml.org,2002:float") {
      Json tmp;
      if (ParseYamlInt(text, tmp)) {
        out = tmp.is_number_unsigned()
                  ? static_cast<double>(tmp.get<uint64_t>())
                  : static_cast<double>(tmp.get<int64_t>());
        return absl::OkStatus();
      }
      if (!LooksLikeFloat(text)) {
        return Error(node, StrCat("invalid !!float value \"", text, "\""));
      }
      out = FloatJson(std::strtod(WithoutUnderscores(text).c_str(), nullptr));
      return absl::OkStatus();
    }
    // Unknown local tags (e.g. !Ref) are read as their text, like go-yaml.
    out = text;
    return absl::OkStatus();
  }

  absl::Status Error(const YAML::Node& node, std::string_view message) {
    return ErrorWithCode(absl::StatusCode::kInvalidArgument, node, message);
  }
  absl::Status ErrorWithCode(absl::StatusCode code, const YAML::Node& node,
                             std::string_view message) {
    YAML::Mark mark = node.Mark();
    const absl::Status s =
        PositionError(source_, mark.line + 1, mark.column + 1, message);
    return absl::Status(code, s.message());
  }

  std::string_view source_;
  const YamlDecodeLimits& limits_;
  // Of the document being converted: nodes decoded, those from alias
  // expansion, the aliases being expanded, and the source positions of
  // the nodes met.
  size_t nodes_ = 0;
  size_t aliased_ = 0;
  int alias_depth_ = 0;
  absl::flat_hash_set<int> seen_;
  // Nodes made since the first document (across documents), the
  // opening's nodes (when one was had) and nodes of the shared budget
  // taken.
  size_t used_ = 0;
  bool opening_ = false;
  size_t opened_ = 0;
  size_t taken_ = 0;
};

// Appends `json` (one object, or a List's items) to `out`.
absl::Status AddObject(Json json, int line, std::string_view source,
                       std::vector<ManifestDocument>& out,
                       bool expand_lists = true) {
  if (json.is_null()) return absl::OkStatus();
  if (!json.is_object()) {
    return PositionError(source, line, 1,
                         "expected an object (a mapping with apiVersion and "
                         "kind), got a " +
                             std::string(json.is_array() ? "list" : "scalar"));
  }
  if (expand_lists && json.contains("kind") && json["kind"].is_string() &&
      absl::EndsWith(json["kind"].get<std::string>(), "List") &&
      json.contains("items") && json["items"].is_array()) {
    for (Json& item : json["items"]) {
      if (auto s = AddObject(std::move(item), line, source, out); !s.ok()) {
        return s;
      }
    }
    return absl::OkStatus();
  }
  ManifestDocument doc;
  doc.json = std::move(json);
  doc.line = line;
  doc.index = static_cast<int>(out.size());
  out.push_back(std::move(doc));
  return absl::OkStatus();
}

// One top-level value of a JSON stream, with the line it starts on. The
// text runs from the previous value's end, so positions inside it are
// relative to that point: `line` is the line the chunk text starts on.
struct JsonChunk {
  std::string_view text;
  int line;
};

// Splits concatenated JSON values by tracking bracket depth outside string
// literals. Malformed input still yields chunks; the JSON parser then
// reports the error in context.
std::vector<JsonChunk> SplitJsonStream(std::string_view text) {
  std::vector<JsonChunk> chunks;
  size_t start = 0;
  int start_line = 1, line = 1, depth = 0;
  bool in_string = false, escaped = false, seen_value = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') ++line;
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      seen_value = true;
    } else if (c == '{' || c == '[') {
      ++depth;
      seen_value = true;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) {
        chunks.push_back({text.substr(start, i + 1 - start), start_line});
        start = i + 1;
        start_line = line;
        seen_value = false;
      }
    } else if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
      seen_value = true;
    }
  }
  if (seen_value || chunks.empty()) {
    chunks.push_back({text.substr(start), start_line});
  }
  return chunks;
}

// Re-bases a "<source>:<line>:<col>: msg" error from a chunk onto the
// whole stream by adding `line_offset` lines.
// Columns on a chunk's first line count from the chunk start.
absl::Status ShiftPosition(const absl::Status& status, std::string_view source,
                           int line_offset) {
  if (line_offset == 0) return status;
  std::string message(status.message());
  std::string prefix = StrCat(source, ":");
  if (message.rfind(prefix, 0) != 0) return status;
  size_t colon = message.find(':', prefix.size());
  if (colon == std::string::npos) return status;
  int line =
      std::atoi(message.substr(prefix.size(), colon - prefix.size()).c_str());
  return absl::InvalidArgumentError(
      StrCat(prefix, line + line_offset, message.substr(colon)));
}

bool LooksLikeJson(std::string_view text) {
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
    return c == '{' || c == '[';
  }
  return false;
}

}  // namespace

namespace {

bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (static_cast<unsigned char>(s[i]) < 0x80) continue;
    char32_t rune = 0;
    const size_t n = DecodeRune(s, i, &rune);
    if (n == 0) return false;
    i += n - 1;
  }
  return true;
}

// What DumpJson then parsing makes of a string.
std::string AsSerialised(const std::string& s) {
  return Json::parse(DumpJson(Json(s))).get<std::string>();
}

}  // namespace

void ReplaceInvalidUtf8(Json& json) {
  if (json.is_string()) {
    const std::string& s = json.get_ref<const std::string&>();
    if (!IsValidUtf8(s)) json = AsSerialised(s);
    return;
  }
  if (json.is_array()) {
    for (Json& element : json) ReplaceInvalidUtf8(element);
    return;
  }
  if (!json.is_object()) return;
  bool keys_valid = true;
  for (auto it = json.begin(); it != json.end() && keys_valid; ++it) {
    keys_valid = IsValidUtf8(it.key());
  }
  if (!keys_valid) {
    Json rebuilt = Json::object();
    for (auto it = json.begin(); it != json.end(); ++it) {
      const std::string key =
          IsValidUtf8(it.key()) ? it.key() : AsSerialised(it.key());
      rebuilt[key] = std::move(it.value());
    }
    json = std::move(rebuilt);
  }
  for (auto it = json.begin(); it != json.end(); ++it) {
    ReplaceInvalidUtf8(it.value());
  }
}

absl::StatusOr<Json> ParseJsonText(std::string_view text,
                                   std::string_view source_name) {
  if (auto s = CheckNesting(text, source_name); !s.ok()) return s;
  Json out = Json::parse(text.begin(), text.end(), nullptr,
                         /*allow_exceptions=*/false);
  if (!out.is_discarded()) return out;
  // Re-parse with exceptions to learn where it failed.
  try {
    Json unused = Json::parse(text.begin(), text.end());
    (void)unused;
  } catch (const nlohmann::json::parse_error& e) {
    size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    LineCol pos = PositionOf(text, offset);
    std::string message = e.what();
    // Drop nlohmann's "[json.exception.parse_error.101] parse error at line
    // 1, column 2: " prefix; we print our own position.
    size_t colon = message.find("syntax error");
    if (colon != std::string::npos) message = message.substr(colon);
    return PositionError(source_name, pos.line, pos.column, message);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(StrCat(source_name, ": ", e.what()));
  }
  return absl::InvalidArgumentError(StrCat(source_name, ": invalid JSON"));
}

absl::StatusOr<std::vector<YAML::Node>> LoadYamlDocuments(
    std::string_view text, std::string_view source_name) {
  if (auto s = CheckNesting(text, source_name); !s.ok()) return s;
  if (auto s = CheckBlockFlowIndicators(text, source_name); !s.ok()) return s;
  // JSON text is checked by the JSON parser; YAML text here, because
  // yaml-cpp passes malformed bytes through into strings.
  if (size_t bad = FindInvalidUtf8(text); bad != std::string_view::npos) {
    LineCol pos = PositionOf(text, bad);
    return PositionError(source_name, pos.line, pos.column,
                         "invalid UTF-8 byte sequence");
  }
  if (size_t bad = FindYamlControlCharacter(text);
      bad != std::string_view::npos) {
    LineCol pos = PositionOf(text, bad);
    return PositionError(source_name, pos.line, pos.column,
                         "control characters are not allowed");
  }
  std::vector<YAML::Node> docs;
  try {
    std::string copy(text);
    if (std::optional<YAML::Mark> stuck = internal::FindStuckDocument(copy)) {
      return PositionError(source_name, stuck->line + 1, stuck->column + 1,
                           "unexpected token where a document must start");
    }
    docs = YAML::LoadAll(copy);
  } catch (const YAML::Exception& e) {
    return PositionError(source_name, e.mark.line + 1, e.mark.column + 1,
                         e.msg);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(StrCat(source_name, ": ", e.what()));
  }
  return docs;
}

namespace {

absl::StatusOr<std::vector<ManifestDocument>> ParseDocuments(
    std::string_view text, std::string_view source_name, bool expand_lists,
    const YamlDecodeLimits& limits = {}) {
  std::vector<ManifestDocument> out;
  if (LooksLikeJson(text)) {
    // A JSON stream: one or more values one after another (kubectl and
    // the scenario format accept concatenated objects).
    for (const JsonChunk& chunk : SplitJsonStream(text)) {
      auto json = ParseJsonText(chunk.text, source_name);
      if (!json.ok()) {
        return ShiftPosition(json.status(), source_name, chunk.line - 1);
      }
      if (json->is_array()) {
        for (Json& item : *json) {
          if (auto s = AddObject(std::move(item), chunk.line, source_name, out,
                                 expand_lists);
              !s.ok()) {
            return s;
          }
        }
      } else if (auto s = AddObject(std::move(*json), chunk.line, source_name,
                                    out, expand_lists);
                 !s.ok()) {
        return s;
      }
    }
    return out;
  }
  auto loaded = LoadYamlDocuments(text, source_name);
  if (!loaded.ok()) return loaded.status();
  const std::vector<YAML::Node>& docs = *loaded;
  YamlToJson converter(source_name, limits);
  for (const YAML::Node& doc : docs) {
    Json json;
    try {
      if (auto s = converter.ConvertDocument(doc, json); !s.ok()) return s;
    } catch (const YAML::Exception& e) {
      return PositionError(source_name, e.mark.line + 1, e.mark.column + 1,
                           e.msg);
    }
    int line = doc.Mark().line + 1;
    if (line <= 0) line = 1;
    if (auto s =
            AddObject(std::move(json), line, source_name, out, expand_lists);
        !s.ok()) {
      return s;
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<ManifestDocument>> ParseManifests(
    std::string_view text, std::string_view source_name,
    const YamlDecodeLimits& limits) {
  return ParseDocuments(text, source_name, true, limits);
}

bool YamlDecodeBudget::Take(size_t nodes) {
  const auto n = static_cast<int64_t>(nodes);
  int64_t available = available_.load();
  do {
    if (available < n) return false;
  } while (!available_.compare_exchange_weak(available, available - n));
  return true;
}

void YamlDecodeBudget::Give(size_t nodes) {
  available_.fetch_add(static_cast<int64_t>(nodes));
}

bool YamlDecodeBudget::TakeOpening() {
  int free = openings_.load();
  do {
    if (free <= 0) return false;
  } while (!openings_.compare_exchange_weak(free, free - 1));
  return true;
}

void YamlDecodeBudget::GiveOpening() { openings_.fetch_add(1); }

absl::StatusOr<std::vector<ManifestDocument>> ParseManifestsKeepingLists(
    std::string_view text, std::string_view source_name) {
  return ParseDocuments(text, source_name, false);
}

namespace {

bool NeedsQuotes(const std::string& s) {
  if (s.empty()) return true;
  if (ResolvePlain(s, nullptr) != PlainKind::kString) return true;
  // Anything YAML would read differently or that is ambiguous as plain text.
  static const std::string_view kIndicators = "-?:,[]{}#&*!|>'\"%@`";
  if (kIndicators.find(s[0]) != std::string_view::npos) return true;
  if (s.front() == ' ' || s.back() == ' ') return true;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) return true;
    if (s[i] == ':' && (i + 1 == s.size() || s[i + 1] == ' ')) return true;
    if (s[i] == '#' && i > 0 && s[i - 1] == ' ') return true;
  }
  return false;
}

void Emit(YAML::Emitter& out, const Json& json) {
  switch (json.type()) {
    case Json::value_t::object:
      if (json.empty()) {
        out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
        return;
      }
      out << YAML::BeginMap;
      for (auto it = json.begin(); it != json.end(); ++it) {
        out << YAML::Key;
        if (NeedsQuotes(it.key())) {
          out << YAML::DoubleQuoted << it.key();
        } else {
          out << it.key();
        }
        out << YAML::Value;
        Emit(out, it.value());
      }
      out << YAML::EndMap;
      return;
    case Json::value_t::array:
      if (json.empty()) {
        out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
        return;
      }
      out << YAML::BeginSeq;
      for (const Json& item : json) Emit(out, item);
      out << YAML::EndSeq;
      return;
    case Json::value_t::string: {
      const std::string& s = json.get_ref<const std::string&>();
      if (NeedsQuotes(s)) {
        out << YAML::DoubleQuoted << s;
      } else {
        out << s;
      }
      return;
    }
    case Json::value_t::null:
      out << YAML::Null;
      return;
    case Json::value_t::boolean:
      out << (json.get<bool>() ? "true" : "false");
      return;
    default:
      out << json.dump();
      return;
  }
}

}  // namespace

std::string ToYaml(const Json& json) {
  YAML::Emitter out;
  out.SetIndent(2);
  out.SetSeqFormat(YAML::Block);
  out.SetMapFormat(YAML::Block);
  out.SetNullFormat(YAML::LowerNull);
  Emit(out, json);
  std::string text = out.c_str();
  if (text.empty() || text.back() != '\n') text += '\n';
  return text;
}

std::string ToYamlStream(const std::vector<Json>& objects) {
  std::string text;
  for (size_t i = 0; i < objects.size(); ++i) {
    if (i > 0) text += "---\n";
    text += ToYaml(objects[i]);
  }
  return text;
}

}  // namespace draplane::api

// Label selectors: k8s.io/apimachinery@v0.37.2 pkg/labels/selector.go and
// pkg/apis/meta/v1/helpers.go (LabelSelectorAsSelector).

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/str_join.h"
#include "common/field_errors.h"
#include "common/go_strconv.h"
#include "common/name_validation.h"
#include "common/str_cat.h"
#include "selectors/internal/go_format.h"
#include "selectors/selectors.h"

namespace draplane::selectors {
namespace {

using internal::GoJsonStrings;
using internal::GoParseInt64;

// ------------------------------------------------------------ validation

// field.ErrorList.ToAggregate().Error(): duplicates dropped, one error as
// is, several as "[e1, e2]".
std::string AggregateText(const FieldErrorList& errors) {
  std::vector<std::string> texts;
  for (const FieldError& e : errors) {
    std::string t = e.ToString();
    if (std::find(texts.begin(), texts.end(), t) == texts.end()) {
      texts.push_back(std::move(t));
    }
  }
  if (texts.size() == 1) return texts[0];
  return StrCat("[", absl::StrJoin(texts, ", "), "]");
}

// validateLabelKey: field.Invalid(path, key, errs joined by "; ").
std::optional<FieldError> ValidateLabelKey(std::string_view key,
                                           std::string_view path) {
  std::vector<std::string> errs = name_validation::IsQualifiedName(key);
  if (errs.empty()) return std::nullopt;
  return FieldError{FieldErrorType::kInvalid, std::string(path), BadValue(key),
                    absl::StrJoin(errs, "; ")};
}

// labels.NewRequirement with no path option (the API server's case). Its
// "key" and "values" paths hang off a nil path, so they print bare.
// `values_nil`: the Go slice was nil (json.Marshal prints null, not []).
absl::StatusOr<LabelRequirement> NewRequirementImpl(
    std::string key, LabelOperator op, std::vector<std::string> values,
    bool values_nil) {
  FieldErrorList errs;
  if (auto e = ValidateLabelKey(key, "key")) errs.push_back(std::move(*e));
  const FieldPath values_path("values");
  auto values_json = [&] {
    return BadValue::Json(GoJsonStrings(values, values_nil && values.empty()));
  };
  switch (op) {
    case LabelOperator::kIn:
    case LabelOperator::kNotIn:
      if (values.empty()) {
        errs.push_back(
            Invalid(values_path, values_json(),
                    "for 'in', 'notin' operators, values set can't be empty"));
      }
      break;
    case LabelOperator::kEquals:
    case LabelOperator::kDoubleEquals:
    case LabelOperator::kNotEquals:
      if (values.size() != 1) {
        errs.push_back(
            Invalid(values_path, values_json(),
                    "exact-match compatibility requires one single value"));
      }
      break;
    case LabelOperator::kExists:
    case LabelOperator::kDoesNotExist:
      if (!values.empty()) {
        errs.push_back(
            Invalid(values_path, values_json(),
                    "values set must be empty for exists and does not exist"));
      }
      break;
    case LabelOperator::kGreaterThan:
    case LabelOperator::kLessThan:
      if (values.size() != 1) {
        errs.push_back(
            Invalid(values_path, values_json(),
                    "for 'Gt', 'Lt' operators, exactly one value is required"));
      }
      for (size_t i = 0; i < values.size(); ++i) {
        if (!GoParseInt64(values[i])) {
          errs.push_back(Invalid(
              values_path.Index(static_cast<int64_t>(i)), BadValue(values[i]),
              "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      }
      break;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    std::vector<std::string> verrs = name_validation::IsLabelValue(values[i]);
    if (!verrs.empty()) {
      errs.push_back(
          Invalid(values_path.Index(static_cast<int64_t>(i)).Key(key),
                  BadValue(values[i]), absl::StrJoin(verrs, "; ")));
    }
  }
  if (!errs.empty()) return absl::InvalidArgumentError(AggregateText(errs));
  return LabelRequirement{std::move(key), op, std::move(values)};
}

// ------------------------------------------------------------ lexer

enum class Token {
  kError,
  kEndOfString,
  kClosedPar,
  kComma,
  kDoesNotExist,
  kDoubleEquals,
  kEquals,
  kGreaterThan,
  kIdentifier,
  kIn,
  kLessThan,
  kNotEquals,
  kNotIn,
  kOpenPar,
};

// upstream's string2token.
std::optional<Token> KeywordToken(std::string_view s) {
  static const std::pair<std::string_view, Token> kTable[] = {
      {")", Token::kClosedPar},    {",", Token::kComma},
      {"!", Token::kDoesNotExist}, {"==", Token::kDoubleEquals},
      {"=", Token::kEquals},       {">", Token::kGreaterThan},
      {"in", Token::kIn},          {"<", Token::kLessThan},
      {"!=", Token::kNotEquals},   {"notin", Token::kNotIn},
      {"(", Token::kOpenPar},
  };
  for (const auto& [text, token] : kTable) {
    if (text == s) return token;
  }
  return std::nullopt;
}

bool IsWhitespace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

bool IsSpecialSymbol(char c) {
  switch (c) {
    case '=':
    case '!':
    case '(':
    case ')':
    case ',':
    case '>':
    case '<':
      return true;
    default:
      return false;
  }
}

struct ScannedItem {
  Token token;
  std::string literal;
};

// The lexer of upstream, byte by byte. Read() returns 0 at the end of the
// input, and also for a NUL byte inside it (which it consumes): upstream
// cannot tell them apart, so a NUL ends the current token.
class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  ScannedItem Lex() {
    char ch = Read();
    while (IsWhitespace(ch)) ch = Read();
    if (ch == 0) return {Token::kEndOfString, ""};
    Unread();
    if (IsSpecialSymbol(ch)) return ScanSpecialSymbol();
    return ScanIdOrKeyword();
  }

 private:
  char Read() {
    if (pos_ < s_.size()) return s_[pos_++];
    return 0;
  }
  void Unread() { --pos_; }

  ScannedItem ScanIdOrKeyword() {
    std::string buffer;
    for (;;) {
      char ch = Read();
      if (ch == 0) break;
      if (IsSpecialSymbol(ch) || IsWhitespace(ch)) {
        Unread();
        break;
      }
      buffer += ch;
    }
    if (auto token = KeywordToken(buffer)) return {*token, buffer};
    return {Token::kIdentifier, buffer};
  }

  // The longest operator made of special symbols ("!=" over "!").
  ScannedItem ScanSpecialSymbol() {
    std::optional<ScannedItem> last;
    std::string buffer;
    for (;;) {
      char ch = Read();
      if (ch == 0) break;
      if (!IsSpecialSymbol(ch)) {
        Unread();
        break;
      }
      buffer += ch;
      if (auto token = KeywordToken(buffer)) {
        last = ScannedItem{*token, buffer};
      } else if (last) {
        Unread();
        break;
      }
    }
    // Unreachable in practice: every single special symbol is a token.
    if (!last) {
      return {Token::kError,
              StrCat("error expected: keyword found '", buffer, "'")};
    }
    return *last;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

// ------------------------------------------------------------ parser

// Where "in"/"notin" are read as identifiers (values, keys) or keywords.
enum class Context { kKeyAndOperator, kValues };

class Parser {
 public:
  explicit Parser(std::string_view text) {
    Lexer lexer(text);
    for (;;) {
      items_.push_back(lexer.Lex());
      if (items_.back().token == Token::kEndOfString) break;
    }
  }

  absl::StatusOr<std::vector<LabelRequirement>> Parse() {
    std::vector<LabelRequirement> requirements;
    for (;;) {
      auto [tok, lit] = Lookahead(Context::kValues);
      switch (tok) {
        case Token::kIdentifier:
        case Token::kDoesNotExist: {
          absl::StatusOr<LabelRequirement> r = ParseRequirement();
          if (!r.ok()) {
            return absl::InvalidArgumentError(StrCat(
                "unable to parse requirement: ", ToStd(r.status().message())));
          }
          requirements.push_back(*std::move(r));
          auto [t, l] = Consume(Context::kValues);
          if (t == Token::kEndOfString) return requirements;
          if (t == Token::kComma) {
            auto [t2, l2] = Lookahead(Context::kValues);
            if (t2 != Token::kIdentifier && t2 != Token::kDoesNotExist) {
              return Error("found '", l2, "', expected: identifier after ','");
            }
            break;
          }
          return Error("found '", l, "', expected: ',' or 'end of string'");
        }
        case Token::kEndOfString:
          return requirements;
        default:
          return Error("found '", lit,
                       "', expected: !, identifier, or 'end of string'");
      }
    }
  }

 private:
  template <class... Args>
  static absl::Status Error(const Args&... args) {
    return absl::InvalidArgumentError(StrCat(args...));
  }

  static Token InContext(Token t, Context context) {
    if (context == Context::kValues &&
        (t == Token::kIn || t == Token::kNotIn)) {
      return Token::kIdentifier;
    }
    return t;
  }
  std::pair<Token, std::string> Lookahead(Context context) const {
    const ScannedItem& item = items_[position_];
    return {InContext(item.token, context), item.literal};
  }
  std::pair<Token, std::string> Consume(Context context) {
    const ScannedItem& item = items_[position_];
    // The parser never consumes past the end-of-string item.
    if (position_ + 1 < items_.size()) ++position_;
    return {InContext(item.token, context), item.literal};
  }

  absl::StatusOr<LabelRequirement> ParseRequirement() {
    // parseKeyAndInferOperator
    std::optional<LabelOperator> op;
    auto [tok, literal] = Consume(Context::kValues);
    if (tok == Token::kDoesNotExist) {
      op = LabelOperator::kDoesNotExist;
      std::tie(tok, literal) = Consume(Context::kValues);
    }
    if (tok != Token::kIdentifier) {
      return Error("found '", literal, "', expected: identifier");
    }
    // The parser's own key check has a nil path: "<nil>: Invalid value".
    if (auto e = ValidateLabelKey(literal, "<nil>")) {
      return absl::InvalidArgumentError(e->ToString());
    }
    std::string key = std::move(literal);
    if (Token t = Lookahead(Context::kValues).first;
        t == Token::kEndOfString || t == Token::kComma) {
      if (!op) op = LabelOperator::kExists;
    }
    if (op) return NewRequirementImpl(std::move(key), *op, {}, false);

    // parseOperator
    auto [op_tok, op_lit] = Consume(Context::kKeyAndOperator);
    switch (op_tok) {
      case Token::kIn:
        op = LabelOperator::kIn;
        break;
      case Token::kEquals:
        op = LabelOperator::kEquals;
        break;
      case Token::kDoubleEquals:
        op = LabelOperator::kDoubleEquals;
        break;
      case Token::kGreaterThan:
        op = LabelOperator::kGreaterThan;
        break;
      case Token::kLessThan:
        op = LabelOperator::kLessThan;
        break;
      case Token::kNotIn:
        op = LabelOperator::kNotIn;
        break;
      case Token::kNotEquals:
        op = LabelOperator::kNotEquals;
        break;
      default:
        return Error("found '", op_lit,
                     "', expected: in, notin, =, ==, !=, gt, lt");
    }
    absl::StatusOr<std::set<std::string>> values =
        (*op == LabelOperator::kIn || *op == LabelOperator::kNotIn)
            ? ParseValues()
            : ParseExactValue();
    if (!values.ok()) return values.status();
    // sets.String.List(): sorted, no duplicates.
    return NewRequirementImpl(
        std::move(key), *op,
        std::vector<std::string>(values->begin(), values->end()), false);
  }

  // "(" identifiers ")"
  absl::StatusOr<std::set<std::string>> ParseValues() {
    auto [tok, lit] = Consume(Context::kValues);
    if (tok != Token::kOpenPar) {
      return Error("found '", lit, "' expected: '('");
    }
    std::tie(tok, lit) = Lookahead(Context::kValues);
    switch (tok) {
      case Token::kIdentifier:
      case Token::kComma: {
        absl::StatusOr<std::set<std::string>> s = ParseIdentifiersList();
        if (!s.ok()) return s;
        if (Consume(Context::kValues).first != Token::kClosedPar) {
          return Error("found '", lit, "', expected: ')'");
        }
        return s;
      }
      case Token::kClosedPar:
        Consume(Context::kValues);
        return std::set<std::string>{""};
      default:
        return Error("found '", lit, "', expected: ',', ')' or identifier");
    }
  }

  // A possibly empty list of possibly empty identifiers: "a,,b", ",a", "a,".
  absl::StatusOr<std::set<std::string>> ParseIdentifiersList() {
    std::set<std::string> s;
    for (;;) {
      auto [tok, lit] = Consume(Context::kValues);
      switch (tok) {
        case Token::kIdentifier: {
          s.insert(lit);
          auto [tok2, lit2] = Lookahead(Context::kValues);
          if (tok2 == Token::kComma) continue;
          if (tok2 == Token::kClosedPar) return s;
          return Error("found '", lit2, "', expected: ',' or ')'");
        }
        case Token::kComma: {
          if (s.empty()) s.insert("");  // "(,"
          Token tok2 = Lookahead(Context::kValues).first;
          if (tok2 == Token::kClosedPar) {
            s.insert("");  // ",)"
            return s;
          }
          if (tok2 == Token::kComma) s.insert("");  // ",,"
          continue;
        }
        default:
          return Error("found '", lit, "', expected: ',', or identifier");
      }
    }
  }

  // The single value after =, ==, !=, >, <; "" when none follows.
  absl::StatusOr<std::set<std::string>> ParseExactValue() {
    Token tok = Lookahead(Context::kValues).first;
    if (tok == Token::kEndOfString || tok == Token::kComma) {
      return std::set<std::string>{""};
    }
    auto [t, lit] = Consume(Context::kValues);
    if (t == Token::kIdentifier) return std::set<std::string>{lit};
    return Error("found '", lit, "', expected: identifier");
  }

  std::vector<ScannedItem> items_;
  size_t position_ = 0;
};

void SortByKey(std::vector<LabelRequirement>& requirements) {
  std::stable_sort(requirements.begin(), requirements.end(),
                   [](const LabelRequirement& a, const LabelRequirement& b) {
                     return a.key < b.key;
                   });
}

bool HasValue(const LabelRequirement& r, const std::string& value) {
  return std::find(r.values.begin(), r.values.end(), value) != r.values.end();
}

}  // namespace

// ------------------------------------------------------------ requirement

bool LabelRequirement::Matches(
    const std::map<std::string, std::string>& labels) const {
  auto it = labels.find(key);
  const bool present = it != labels.end();
  switch (op) {
    case LabelOperator::kIn:
    case LabelOperator::kEquals:
    case LabelOperator::kDoubleEquals:
      return present && HasValue(*this, it->second);
    case LabelOperator::kNotIn:
    case LabelOperator::kNotEquals:
      return !present || !HasValue(*this, it->second);
    case LabelOperator::kExists:
      return present;
    case LabelOperator::kDoesNotExist:
      return !present;
    case LabelOperator::kGreaterThan:
    case LabelOperator::kLessThan: {
      if (!present || values.size() != 1) return false;
      std::optional<int64_t> have = GoParseInt64(it->second);
      std::optional<int64_t> want = GoParseInt64(values[0]);
      if (!have || !want) return false;
      return op == LabelOperator::kGreaterThan ? *have > *want : *have < *want;
    }
  }
  return false;
}

std::string LabelRequirement::String() const {
  std::string out;
  if (op == LabelOperator::kDoesNotExist) out += "!";
  out += key;
  switch (op) {
    case LabelOperator::kEquals:
      out += "=";
      break;
    case LabelOperator::kDoubleEquals:
      out += "==";
      break;
    case LabelOperator::kNotEquals:
      out += "!=";
      break;
    case LabelOperator::kIn:
      out += " in ";
      break;
    case LabelOperator::kNotIn:
      out += " notin ";
      break;
    case LabelOperator::kGreaterThan:
      out += ">";
      break;
    case LabelOperator::kLessThan:
      out += "<";
      break;
    case LabelOperator::kExists:
    case LabelOperator::kDoesNotExist:
      return out;
  }
  const bool set_op = op == LabelOperator::kIn || op == LabelOperator::kNotIn;
  if (set_op) out += "(";
  std::vector<std::string> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  out += absl::StrJoin(sorted, ",");
  if (set_op) out += ")";
  return out;
}

absl::StatusOr<LabelRequirement> NewLabelRequirement(
    std::string key, LabelOperator op, std::vector<std::string> values) {
  return NewRequirementImpl(std::move(key), op, std::move(values), false);
}

// ------------------------------------------------------------ selector

LabelSelector LabelSelector::Nothing() {
  LabelSelector s;
  s.nothing_ = true;
  return s;
}

bool LabelSelector::Matches(
    const std::map<std::string, std::string>& labels) const {
  if (nothing_) return false;
  for (const LabelRequirement& r : requirements_) {
    if (!r.Matches(labels)) return false;
  }
  return true;
}

std::string LabelSelector::String() const {
  std::vector<std::string> parts;
  parts.reserve(requirements_.size());
  for (const LabelRequirement& r : requirements_) parts.push_back(r.String());
  return absl::StrJoin(parts, ",");
}

std::optional<std::string> LabelSelector::RequiresExactMatch(
    std::string_view key) const {
  for (const LabelRequirement& r : requirements_) {
    if (r.key != key) continue;
    switch (r.op) {
      case LabelOperator::kEquals:
      case LabelOperator::kDoubleEquals:
      case LabelOperator::kIn:
        if (r.values.size() == 1) return r.values[0];
        break;
      default:
        break;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

absl::StatusOr<LabelSelector> MakeLabelSelector(
    std::vector<LabelRequirement> requirements) {
  LabelSelector selector;
  for (LabelRequirement& r : requirements) {
    absl::StatusOr<LabelRequirement> checked =
        NewLabelRequirement(std::move(r.key), r.op, std::move(r.values));
    if (!checked.ok()) return checked.status();
    selector.requirements_.push_back(*std::move(checked));
  }
  SortByKey(selector.requirements_);
  return selector;
}

absl::StatusOr<LabelSelector> ParseLabelSelector(std::string_view text) {
  Parser parser(text);
  absl::StatusOr<std::vector<LabelRequirement>> requirements = parser.Parse();
  if (!requirements.ok()) return requirements.status();
  // Valid already (the parser ran NewRequirement); MakeLabelSelector sorts
  // them by key, as parse() does.
  return MakeLabelSelector(*std::move(requirements));
}

absl::StatusOr<LabelSelector> LabelSelectorFromJson(const api::Json& json) {
  if (json.is_null()) return LabelSelector::Nothing();
  if (!json.is_object()) {
    return absl::InvalidArgumentError(
        "invalid label selector: must be an object");
  }
  const api::Json* match_labels = nullptr;
  const api::Json* match_expressions = nullptr;
  if (auto it = json.find("matchLabels"); it != json.end() && !it->is_null()) {
    if (!it->is_object()) {
      return absl::InvalidArgumentError(
          "invalid label selector: matchLabels must be an object");
    }
    match_labels = &*it;
  }
  if (auto it = json.find("matchExpressions");
      it != json.end() && !it->is_null()) {
    if (!it->is_array()) {
      return absl::InvalidArgumentError(
          "invalid label selector: matchExpressions must be a list");
    }
    match_expressions = &*it;
  }
  const size_t count = (match_labels ? match_labels->size() : 0) +
                       (match_expressions ? match_expressions->size() : 0);
  if (count == 0) return LabelSelector::Everything();

  std::vector<LabelRequirement> requirements;
  if (match_labels) {
    // Go iterates the map in random order; key order makes the first error
    // reported deterministic.
    std::map<std::string, std::string> labels;
    for (const auto& [k, v] : match_labels->items()) {
      if (!v.is_string()) {
        return absl::InvalidArgumentError(StrCat(
            "invalid label selector: matchLabels[", k, "] must be a string"));
      }
      labels[k] = v.get<std::string>();
    }
    for (const auto& [k, v] : labels) {
      absl::StatusOr<LabelRequirement> r =
          NewRequirementImpl(k, LabelOperator::kEquals, {v}, false);
      if (!r.ok()) return r.status();
      requirements.push_back(*std::move(r));
    }
  }
  if (match_expressions) {
    for (size_t i = 0; i < match_expressions->size(); ++i) {
      const api::Json& expr = (*match_expressions)[i];
      const std::string where = StrCat("matchExpressions[", i, "]");
      if (!expr.is_object()) {
        return absl::InvalidArgumentError(
            StrCat("invalid label selector: ", where, " must be an object"));
      }
      std::string key;
      std::string op_text;
      std::vector<std::string> values;
      for (const auto& [member, value] : expr.items()) {
        if (member == "key" || member == "operator") {
          if (value.is_null()) continue;
          if (!value.is_string()) {
            return absl::InvalidArgumentError(
                StrCat("invalid label selector: ", where, ".", member,
                       " must be a string"));
          }
          (member == "key" ? key : op_text) = value.get<std::string>();
        } else if (member == "values") {
          if (value.is_null()) continue;
          if (!value.is_array()) {
            return absl::InvalidArgumentError(StrCat(
                "invalid label selector: ", where, ".values must be a list"));
          }
          for (const api::Json& v : value) {
            if (!v.is_string()) {
              return absl::InvalidArgumentError(
                  StrCat("invalid label selector: ", where,
                         ".values must be a list of strings"));
            }
            values.push_back(v.get<std::string>());
          }
        }
      }
      LabelOperator op;
      if (op_text == "In") {
        op = LabelOperator::kIn;
      } else if (op_text == "NotIn") {
        op = LabelOperator::kNotIn;
      } else if (op_text == "Exists") {
        op = LabelOperator::kExists;
      } else if (op_text == "DoesNotExist") {
        op = LabelOperator::kDoesNotExist;
      } else {
        return absl::InvalidArgumentError(StrCat(
            StrconvQuote(op_text), " is not a valid label selector operator"));
      }
      // append([]string(nil), expr.Values...) is nil when there are none.
      absl::StatusOr<LabelRequirement> r = NewRequirementImpl(
          std::move(key), op, std::move(values), /*values_nil=*/true);
      if (!r.ok()) return r.status();
      requirements.push_back(*std::move(r));
    }
  }
  // Valid already; MakeLabelSelector sorts them (selector.Add).
  return MakeLabelSelector(std::move(requirements));
}

}  // namespace draplane::selectors

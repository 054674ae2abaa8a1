#include "cel/internal/lexer.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/str_cat.h"

namespace draplane::cel::internal {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHexDigit(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool IsLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool IsIdentStart(char c) { return IsLetter(c) || c == '_'; }
bool IsIdentPart(char c) { return IsIdentStart(c) || IsDigit(c); }
bool IsWhitespace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}
int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}
bool IsQuote(char c) { return c == '"' || c == '\''; }

// Length of the well-formed UTF-8 sequence at s[i], or 0 if ill-formed.
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  auto byte = [&](size_t k) -> unsigned char {
    return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0;
  };
  auto cont = [&](size_t k) { return (byte(k) & 0xC0) == 0x80; };
  unsigned char b0 = byte(0);
  if (b0 < 0x80) return 1;
  if (b0 >= 0xC2 && b0 <= 0xDF) return cont(1) ? 2 : 0;
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    unsigned char b1 = byte(1);
    if (b0 == 0xE0 && b1 < 0xA0) return 0;   // overlong
    if (b0 == 0xED && b1 >= 0xA0) return 0;  // surrogate
    return cont(1) && cont(2) ? 3 : 0;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    unsigned char b1 = byte(1);
    if (b0 == 0xF0 && b1 < 0x90) return 0;   // overlong
    if (b0 == 0xF4 && b1 >= 0x90) return 0;  // > U+10FFFF
    return cont(1) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

// Escapes control characters the way ANTLR's getErrorDisplay does.
std::string EscapeForDisplay(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Validates the escape sequence starting at s[i] == '\\' (CEL.g4 ESC_SEQ).
// Returns its length, or 0 when invalid; *bad_end is then the offset just
// past the offending character (for the error text).
size_t EscapeLength(std::string_view s, size_t i, size_t* bad_end) {
  auto at = [&](size_t k) { return i + k < s.size() ? s[i + k] : '\0'; };
  char c = at(1);
  size_t digits = 0;
  switch (c) {
    case 'a':
    case 'b':
    case 'f':
    case 'n':
    case 'r':
    case 't':
    case 'v':
    case '"':
    case '\'':
    case '\\':
    case '?':
    case '`':
      return 2;
    case 'x':
    case 'X':
      digits = 2;
      break;
    case 'u':
      digits = 4;
      break;
    case 'U':
      digits = 8;
      break;
    case '0':
    case '1':
    case '2':
    case '3':
      for (size_t k = 2; k < 4; ++k) {
        char d = at(k);
        if (d < '0' || d > '7') {
          *bad_end = std::min(i + k + 1, s.size());
          return 0;
        }
      }
      return 4;
    default:
      *bad_end = std::min(i + 2, s.size());
      return 0;
  }
  for (size_t k = 2; k < 2 + digits; ++k) {
    if (!IsHexDigit(at(k))) {
      *bad_end = std::min(i + k + 1, s.size());
      return 0;
    }
  }
  return 2 + digits;
}

}  // namespace

std::string NormalizeUtf8(std::string_view source) {
  std::string out;
  out.reserve(source.size());
  size_t i = 0;
  while (i < source.size()) {
    size_t n = Utf8SequenceLength(source, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(source.substr(i, n));
      i += n;
    }
  }
  return out;
}

int32_t CountCodePoints(std::string_view text) {
  int32_t n = 0;
  for (char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

char32_t DecodeUtf8(std::string_view text, size_t* index) {
  size_t i = *index;
  unsigned char b0 = static_cast<unsigned char>(text[i]);
  size_t n = b0 < 0x80 ? 1 : b0 < 0xE0 ? 2 : b0 < 0xF0 ? 3 : 4;
  if (i + n > text.size()) n = text.size() - i;
  char32_t cp = n == 1   ? b0
                : n == 2 ? (b0 & 0x1F)
                : n == 3 ? (b0 & 0x0F)
                         : (b0 & 0x07);
  for (size_t k = 1; k < n; ++k) {
    cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
  }
  *index = i + n;
  return cp;
}

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

Lexer::Lexer(std::string_view source) : source_(source) {}

void Lexer::Advance() {
  unsigned char b0 = static_cast<unsigned char>(source_[index_]);
  size_t n = b0 < 0x80 ? 1 : b0 < 0xE0 ? 2 : b0 < 0xF0 ? 3 : 4;
  index_ = std::min(index_ + n, source_.size());
  ++cp_;
}

void Lexer::Report(int32_t position, std::string_view text) {
  if (static_cast<int>(errors_.size()) >= max_errors_) {
    ++dropped_errors_;
    return;
  }
  errors_.push_back(
      LexError{position, StrCat("Syntax error: token recognition error at: '",
                                EscapeForDisplay(text), "'")});
}

std::vector<Token> Lexer::Tokenize(int max_errors) {
  max_errors_ = max_errors;
  std::vector<Token> tokens;
  while (true) {
    SkipWhitespaceAndComments();
    if (AtEnd()) break;
    const size_t start = index_;
    const int32_t start_cp = cp_;
    Token token;
    token.position = start_cp;
    bool emit = true;
    char c = PeekByte();
    char n1 = PeekByte(1);
    auto simple = [&](TokenKind kind, size_t len) {
      token.kind = kind;
      for (size_t k = 0; k < len; ++k) Advance();
    };
    auto require_pair = [&](char second, TokenKind kind) {
      if (n1 == second) {
        simple(kind, 2);
      } else {
        // ANTLR reports the text up to and including the character that
        // failed to match, then skips one character.
        size_t probe = index_;
        Advance();
        size_t end =
            AtEnd() ? index_ : index_ + Utf8SequenceLength(source_, index_);
        Report(start_cp, source_.substr(probe, end - probe));
        emit = false;
      }
    };
    switch (c) {
      case '[':
        simple(TokenKind::kLBracket, 1);
        break;
      case ']':
        simple(TokenKind::kRBracket, 1);
        break;
      case '{':
        simple(TokenKind::kLBrace, 1);
        break;
      case '}':
        simple(TokenKind::kRBrace, 1);
        break;
      case '(':
        simple(TokenKind::kLParen, 1);
        break;
      case ')':
        simple(TokenKind::kRParen, 1);
        break;
      case ',':
        simple(TokenKind::kComma, 1);
        break;
      case '-':
        simple(TokenKind::kMinus, 1);
        break;
      case '?':
        simple(TokenKind::kQuestion, 1);
        break;
      case ':':
        simple(TokenKind::kColon, 1);
        break;
      case '+':
        simple(TokenKind::kPlus, 1);
        break;
      case '*':
        simple(TokenKind::kStar, 1);
        break;
      case '/':
        simple(TokenKind::kSlash, 1);
        break;
      case '%':
        simple(TokenKind::kPercent, 1);
        break;
      case '!':
        if (n1 == '=') {
          simple(TokenKind::kNe, 2);
        } else {
          simple(TokenKind::kExclam, 1);
        }
        break;
      case '<':
        if (n1 == '=') {
          simple(TokenKind::kLe, 2);
        } else {
          simple(TokenKind::kLt, 1);
        }
        break;
      case '>':
        if (n1 == '=') {
          simple(TokenKind::kGe, 2);
        } else {
          simple(TokenKind::kGt, 1);
        }
        break;
      case '=':
        require_pair('=', TokenKind::kEq);
        break;
      case '&':
        require_pair('&', TokenKind::kAnd);
        break;
      case '|':
        require_pair('|', TokenKind::kOr);
        break;
      case '.':
        if (IsDigit(n1)) {
          emit = LexNumber(&token);
        } else {
          simple(TokenKind::kDot, 1);
        }
        break;
      case '`':
        emit = LexEscIdentifier(&token);
        break;
      case '"':
      case '\'':
        emit = LexString(0, &token);
        break;
      default:
        emit = LexNumberIdentifierOrPrefixedString(start, start_cp, &token);
    }
    if (emit) {
      token.text = source_.substr(start, index_ - start);
      tokens.push_back(token);
    }
  }
  Token eof;
  eof.kind = TokenKind::kEof;
  eof.position = cp_;
  eof.text = source_.substr(source_.size());
  tokens.push_back(eof);
  return tokens;
}

void Lexer::SkipWhitespaceAndComments() {
  while (!AtEnd()) {
    char c = PeekByte();
    if (IsWhitespace(c)) {
      Advance();
    } else if (c == '/' && PeekByte(1) == '/') {
      while (!AtEnd() && PeekByte() != '\n') Advance();
    } else {
      break;
    }
  }
}

bool Lexer::LexNumberIdentifierOrPrefixedString(size_t start, int32_t start_cp,
                                                Token* token) {
  const char c = PeekByte();
  const char n1 = PeekByte(1);
  if (IsDigit(c)) return LexNumber(token);
  if ((c == 'r' || c == 'R') && IsQuote(n1)) return LexString(1, token);
  if ((c == 'b' || c == 'B') && IsQuote(n1)) {
    const bool ok = LexString(1, token);
    token->kind = TokenKind::kBytes;
    return ok;
  }
  if ((c == 'b' || c == 'B') && (n1 == 'r' || n1 == 'R') &&
      IsQuote(PeekByte(2))) {
    const bool ok = LexString(2, token);
    token->kind = TokenKind::kBytes;
    return ok;
  }
  if (IsIdentStart(c)) {
    while (!AtEnd() && IsIdentPart(PeekByte())) Advance();
    std::string_view text = source_.substr(start, index_ - start);
    token->kind = text == "true"    ? TokenKind::kTrue
                  : text == "false" ? TokenKind::kFalse
                  : text == "null"  ? TokenKind::kNull
                  : text == "in"    ? TokenKind::kIn
                                    : TokenKind::kIdentifier;
    return true;
  }
  Advance();
  Report(start_cp, source_.substr(start, index_ - start));
  return false;
}

bool Lexer::LexNumber(Token* token) {
  // CEL.g4: NUM_FLOAT | NUM_INT | NUM_UINT, longest match.
  if (PeekByte() == '0' && PeekByte(1) == 'x' && IsHexDigit(PeekByte(2))) {
    Advance();
    Advance();
    while (!AtEnd() && IsHexDigit(PeekByte())) Advance();
    if (PeekByte() == 'u' || PeekByte() == 'U') {
      Advance();
      token->kind = TokenKind::kUint;
    } else {
      token->kind = TokenKind::kInt;
    }
    return true;
  }
  bool is_double = false;
  while (!AtEnd() && IsDigit(PeekByte())) Advance();
  if (PeekByte() == '.' && IsDigit(PeekByte(1))) {
    is_double = true;
    Advance();
    while (!AtEnd() && IsDigit(PeekByte())) Advance();
  }
  if (PeekByte() == 'e' || PeekByte() == 'E') {
    size_t k = 1;
    if (PeekByte(1) == '+' || PeekByte(1) == '-') k = 2;
    if (IsDigit(PeekByte(k))) {
      is_double = true;
      for (size_t j = 0; j < k; ++j) Advance();
      while (!AtEnd() && IsDigit(PeekByte())) Advance();
    }
  }
  if (is_double) {
    token->kind = TokenKind::kDouble;
  } else if (PeekByte() == 'u' || PeekByte() == 'U') {
    Advance();
    token->kind = TokenKind::kUint;
  } else {
    token->kind = TokenKind::kInt;
  }
  return true;
}

bool Lexer::LexEscIdentifier(Token* token) {
  const size_t start = index_;
  const int32_t start_cp = cp_;
  Advance();  // `
  size_t count = 0;
  while (!AtEnd()) {
    char c = PeekByte();
    if (IsIdentPart(c) || c == '.' || c == '-' || c == '/' || c == ' ') {
      Advance();
      ++count;
      continue;
    }
    if (c == '`' && count > 0) {
      Advance();
      token->kind = TokenKind::kEscIdentifier;
      return true;
    }
    break;
  }
  // Report up to and including the offending character; skip the '`'.
  size_t end = AtEnd() ? index_ : index_ + Utf8SequenceLength(source_, index_);
  Report(start_cp, source_.substr(start, end - start));
  index_ = start;
  cp_ = start_cp;
  Advance();
  return false;
}

bool Lexer::LexString(size_t prefix_len, Token* token) {
  const size_t start = index_;
  const int32_t start_cp = cp_;
  token->kind = TokenKind::kString;
  bool raw = false;
  for (size_t k = 0; k < prefix_len; ++k) {
    char p = PeekByte();
    if (p == 'r' || p == 'R') raw = true;
    Advance();
  }
  const char quote = PeekByte();
  const bool triple = PeekByte(1) == quote && PeekByte(2) == quote;
  const size_t open_len = triple ? 3 : 1;
  for (size_t k = 0; k < open_len; ++k) Advance();
  bool bad_escape = false;
  size_t bad_end = 0;
  while (true) {
    if (AtEnd()) {
      // Unterminated: report everything scanned and drop the token.
      if (!bad_escape) Report(start_cp, source_.substr(start));
      return false;
    }
    char c = PeekByte();
    if (!triple && (c == '\n' || c == '\r')) {
      if (!bad_escape)
        Report(start_cp, source_.substr(start, index_ + 1 - start));
      return false;
    }
    if (c == quote &&
        (!triple || (PeekByte(1) == quote && PeekByte(2) == quote))) {
      for (size_t k = 0; k < open_len; ++k) Advance();
      break;
    }
    if (c == '\\' && !raw) {
      size_t len = EscapeLength(source_, index_, &bad_end);
      if (len == 0) {
        if (!bad_escape) {
          Report(start_cp, source_.substr(start, bad_end - start));
          bad_escape = true;
        }
        // Skip the backslash and continue to the closing quote, so one bad
        // escape yields one error.
        Advance();
        continue;
      }
      for (size_t k = 0; k < len; ++k) Advance();
      continue;
    }
    Advance();
  }
  token->malformed = bad_escape;
  return true;
}

namespace {

// Appends the value of escape sequence s[*i] == '\\' and advances *i.
// Returns false with *error set when the escape is malformed or names an
// invalid code point.
bool DecodeEscape(std::string_view s, size_t* i, bool is_bytes,
                  std::string* out, std::string* error) {
  size_t bad_end = 0;
  size_t len = EscapeLength(s, *i, &bad_end);
  if (len == 0) {
    *error = "unable to unescape string";
    return false;
  }
  char c = s[*i + 1];
  size_t at = *i;
  *i += len;
  switch (c) {
    case 'a':
      out->push_back('\a');
      return true;
    case 'b':
      out->push_back('\b');
      return true;
    case 'f':
      out->push_back('\f');
      return true;
    case 'n':
      out->push_back('\n');
      return true;
    case 'r':
      out->push_back('\r');
      return true;
    case 't':
      out->push_back('\t');
      return true;
    case 'v':
      out->push_back('\v');
      return true;
    case '"':
    case '\'':
    case '\\':
    case '?':
    case '`':
      out->push_back(c);
      return true;
    default:
      break;
  }
  uint32_t value = 0;
  if (c >= '0' && c <= '3') {
    for (size_t k = 1; k < 4; ++k) value = value * 8 + (s[at + k] - '0');
  } else {
    for (size_t k = 2; k < len; ++k) value = value * 16 + HexValue(s[at + k]);
  }
  const bool octet = (c == 'x' || c == 'X' || (c >= '0' && c <= '3'));
  if (octet && is_bytes) {
    out->push_back(static_cast<char>(value));
    return true;
  }
  if (value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) {
    *error = "invalid unicode code point";
    return false;
  }
  AppendUtf8(value, out);
  return true;
}

}  // namespace

bool DecodeStringLiteral(std::string_view token_text, bool is_bytes,
                         std::string* out, std::string* error) {
  out->clear();
  std::string_view text = token_text;
  if (is_bytes && !text.empty() && (text[0] == 'b' || text[0] == 'B')) {
    text.remove_prefix(1);
  }
  bool raw = false;
  if (!text.empty() && (text[0] == 'r' || text[0] == 'R')) {
    raw = true;
    text.remove_prefix(1);
  }
  size_t quote_len = 1;
  if (text.size() >= 6 && text[1] == text[0] && text[2] == text[0]) {
    quote_len = 3;
  }
  if (text.size() < 2 * quote_len || !IsQuote(text[0])) {
    *error = "unable to unescape string";
    return false;
  }
  text = text.substr(quote_len, text.size() - 2 * quote_len);
  out->reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    // All strings normalize newlines to "\n" (cel-go unescape.go).
    if (c == '\r') {
      out->push_back('\n');
      i += (i + 1 < text.size() && text[i + 1] == '\n') ? 2 : 1;
      continue;
    }
    if (c == '\\' && !raw) {
      if (!DecodeEscape(text, &i, is_bytes, out, error)) return false;
      continue;
    }
    out->push_back(c);
    ++i;
  }
  return true;
}

std::string TokenDisplay(const Token& token) {
  if (token.kind == TokenKind::kEof) return "'<EOF>'";
  return StrCat("'", EscapeForDisplay(token.text), "'");
}

}  // namespace draplane::cel::internal

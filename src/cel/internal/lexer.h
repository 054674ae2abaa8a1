// Hand-written lexer for CEL source text, matching the token rules of
// cel-go's grammar (parser/gen/CEL.g4) and cel-spec langdef "Syntax".
//
// Internal to the cel component; the parser (parser.h) is its only client.
#ifndef DRAPLANE_CEL_INTERNAL_LEXER_H_
#define DRAPLANE_CEL_INTERNAL_LEXER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace draplane::cel::internal {

enum class TokenKind {
  kEof,
  kIdentifier,     // [_a-zA-Z][_a-zA-Z0-9]*, minus the keywords below;
                   // reserved words (if, var, ...) are identifiers here.
  kEscIdentifier,  // `content-type` (back-quoted field name)
  kInt,            // 12, 0x1F (no sign; the parser attaches a leading '-')
  kUint,           // 12u, 0x1FU
  kDouble,         // 1.5, .5, 1e3, 1.5e-3
  kString,         // all string forms, text includes prefix and quotes
  kBytes,          // b"..." and br"..." forms
  kTrue,
  kFalse,
  kNull,
  kIn,
  kLBracket,  // [
  kRBracket,  // ]
  kLBrace,    // {
  kRBrace,    // }
  kLParen,    // (
  kRParen,    // )
  kDot,       // .
  kComma,     // ,
  kMinus,     // -
  kExclam,    // !
  kQuestion,  // ?
  kColon,     // :
  kPlus,      // +
  kStar,      // *
  kSlash,     // /
  kPercent,   // %
  kEq,        // ==
  kNe,        // !=
  kLt,        // <
  kLe,        // <=
  kGt,        // >
  kGe,        // >=
  kAnd,       // &&
  kOr,        // ||
};

struct Token {
  TokenKind kind = TokenKind::kEof;
  // The token's source text (a view into the lexed source).
  std::string_view text;
  // 0-based offset of the token's first character, in code points.
  int32_t position = 0;
  // A string/bytes literal with an invalid escape. The lexer has already
  // reported it; the parser must not decode it.
  bool malformed = false;
};

// A lexical error ("token recognition error" in cel-go terms).
struct LexError {
  int32_t position = 0;  // code points
  std::string message;   // e.g. "Syntax error: token recognition error at: '$'"
};

// Returns `source` with every byte that is not part of a well-formed UTF-8
// sequence replaced by U+FFFD (one replacement per byte, as Go's []rune
// conversion does, so code point offsets match cel-go's). Surrogates and
// code points above U+10FFFF encoded in UTF-8 count as ill-formed.
std::string NormalizeUtf8(std::string_view source);

// Number of code points in well-formed UTF-8 `text`.
int32_t CountCodePoints(std::string_view text);

// Decodes one code point of well-formed UTF-8 at `text[*index]` and advances
// *index. REQUIRES: *index < text.size(), text is well-formed UTF-8.
char32_t DecodeUtf8(std::string_view text, size_t* index);

// Appends the UTF-8 encoding of code point `cp` (a Unicode scalar value).
void AppendUtf8(char32_t cp, std::string* out);

// Splits well-formed UTF-8 `source` into tokens, skipping whitespace
// ([\t\n\f\r ]) and `//` comments. Characters that start no token are
// reported as errors and skipped (ANTLR's lexer recovery); a string literal
// with a missing closing quote is reported once and skipped as a whole, one
// with an invalid escape is reported once and kept as a `malformed` token
// (so that a single bad escape yields a single error). The token list always
// ends with one kEof token.
//
// Escape *syntax* is checked here (as CEL.g4 does); escape *values* (code
// point ranges) are checked by DecodeStringLiteral.
class Lexer {
 public:
  // `source` must be well-formed UTF-8 (see NormalizeUtf8) and must outlive
  // the tokens.
  explicit Lexer(std::string_view source);

  // Lexes the whole source. `max_errors` bounds the errors kept (later ones
  // are counted in dropped_errors()).
  std::vector<Token> Tokenize(int max_errors = 100);

  const std::vector<LexError>& errors() const { return errors_; }
  int dropped_errors() const { return dropped_errors_; }

 private:
  // Current byte is source_[index_]; code point offset is cp_.
  bool AtEnd() const { return index_ >= source_.size(); }
  char PeekByte(size_t ahead = 0) const {
    return index_ + ahead < source_.size() ? source_[index_ + ahead] : '\0';
  }
  // Advances one code point.
  void Advance();
  void Report(int32_t position, std::string_view text);
  // Each returns false (after reporting) when the literal is malformed;
  // index_/cp_ then point past the skipped text.
  void SkipWhitespaceAndComments();
  // A number, an identifier or keyword, or an r/b/br-prefixed string at
  // `start` (code point `start_cp`); false after reporting a bad
  // character.
  bool LexNumberIdentifierOrPrefixedString(size_t start, int32_t start_cp,
                                           Token* token);
  bool LexNumber(Token* token);
  bool LexString(size_t prefix_len, Token* token);
  bool LexEscIdentifier(Token* token);

  std::string_view source_;
  size_t index_ = 0;
  int32_t cp_ = 0;
  int max_errors_ = 100;
  std::vector<LexError> errors_;
  int dropped_errors_ = 0;
};

// Decodes the text of a kString or kBytes token into its value, following
// cel-go parser/unescape.go and cel-spec langdef: "\r\n" and "\r" become
// "\n"; raw literals keep backslashes; in strings \x, octal, \u and \U
// escapes denote code points, in bytes \x and octal escapes denote octets
// while \u and \U denote the UTF-8 encoding of the code point. Returns false
// and sets *error when an escape names a surrogate or a value above
// U+10FFFF. REQUIRES: `token_text` was accepted by the Lexer.
bool DecodeStringLiteral(std::string_view token_text, bool is_bytes,
                         std::string* out, std::string* error);

// Human-readable name of a token for error messages, ANTLR style:
// "'+'", "'<EOF>'", "'foo'" (newlines and tabs escaped).
std::string TokenDisplay(const Token& token);

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_LEXER_H_

#include "cel/internal/parser.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cel/internal/ast.h"
#include "cel/internal/lexer.h"
#include "cel/internal/parser_impl.h"
#include "common/str_cat.h"

namespace draplane::cel::internal {

using parsing::kMaxDisplayedErrors;
using parsing::ParseError;
using parsing::ParserImpl;

std::string FormatError(std::string_view source, int32_t position,
                        std::string_view message) {
  int line = 1;
  size_t line_start = 0;
  size_t i = 0;
  int32_t cp = 0;
  while (i < source.size() && cp < position) {
    if (source[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
    DecodeUtf8(source, &i);
    ++cp;
  }
  size_t line_end = source.find('\n', line_start);
  if (line_end == std::string_view::npos) line_end = source.size();
  std::string_view snippet = source.substr(line_start, line_end - line_start);
  // Column in code points; cel-go prints wide dots/caret (U+FF0E, U+FF3E)
  // for multi-byte characters so the caret lines up in a terminal.
  std::string indicator;
  int column = 0;
  size_t k = 0;
  while (k < snippet.size() && line_start + k < i) {
    size_t before = k;
    DecodeUtf8(snippet, &k);
    indicator += (k - before > 1) ? "\xEF\xBC\x8E" : ".";
    ++column;
  }
  bool wide_caret = false;
  if (k < snippet.size()) {
    size_t probe = k;
    DecodeUtf8(snippet, &probe);
    wide_caret = probe - k > 1;
  }
  indicator += wide_caret ? "\xEF\xBC\xBE" : "^";
  return StrCat("ERROR: <input>:", line, ":", column + 1, ": ", message,
                "\n | ", snippet, "\n | ", indicator);
}

absl::StatusOr<ParsedExpr> Parse(std::string_view source,
                                 const ParserOptions& options) {
  std::string normalized = NormalizeUtf8(source);
  const int64_t size = CountCodePoints(normalized);
  if (size > options.expression_size_code_point_limit) {
    // cel-go reports this without a location ("<input>:-1:0").
    return absl::InvalidArgumentError(StrCat(
        "ERROR: <input>:-1:0: expression code point size exceeds limit: size: ",
        size, ", limit ", options.expression_size_code_point_limit));
  }
  Lexer lexer(normalized);
  std::vector<Token> tokens = lexer.Tokenize(/*max_errors=*/100);
  std::vector<ParseError> errors;
  for (const LexError& e : lexer.errors()) {
    errors.push_back(ParseError{e.position, e.message});
  }
  int dropped = lexer.dropped_errors();
  ParserImpl parser(std::move(tokens), options);
  ExprPtr root = parser.ParseStart();
  for (ParseError& e : parser.errors()) errors.push_back(std::move(e));
  if (root == nullptr && errors.empty()) {
    errors.push_back(ParseError{0, "Syntax error: unknown parse failure"});
  }
  if (!errors.empty()) {
    std::stable_sort(errors.begin(), errors.end(),
                     [](const ParseError& a, const ParseError& b) {
                       return a.position < b.position;
                     });
    std::string message;
    const int total = static_cast<int>(errors.size()) + dropped;
    for (int i = 0;
         i < static_cast<int>(errors.size()) && i < kMaxDisplayedErrors; ++i) {
      if (i > 0) message += "\n";
      message += FormatError(normalized, errors[i].position, errors[i].message);
    }
    if (total > kMaxDisplayedErrors) {
      StrAppend(&message, "\n", total - kMaxDisplayedErrors,
                " more errors were truncated");
    }
    return absl::InvalidArgumentError(message);
  }
  ParsedExpr parsed;
  parsed.root = std::move(root);
  parsed.line_offsets.push_back(0);
  for (size_t i = 0; i < normalized.size(); ++i) {
    if (normalized[i] == '\n') {
      parsed.line_offsets.push_back(static_cast<int32_t>(i + 1));
    }
  }
  parsed.source = std::move(normalized);
  return parsed;
}

}  // namespace draplane::cel::internal

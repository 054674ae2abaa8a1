// Go's strconv.Quote and strconv.IsPrint, exactly (Go 1.26, Unicode
// 15.0.0), for results that must match cel-go byte for byte: Go's `%q`
// verb on a string is strconv.Quote. Kubernetes error texts quote values
// with it too (field.Error, Go errors).
#ifndef DRAPLANE_COMMON_GO_STRCONV_H_
#define DRAPLANE_COMMON_GO_STRCONV_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace draplane {

// Go's utf8.DecodeRuneInString at s[i] (REQUIRES i < s.size()): the length
// of the valid UTF-8 sequence there, with its rune in *rune, or 0 when s[i]
// does not start one (no overlongs, surrogates or values above U+10FFFF;
// Go decodes such a byte as RuneError with width 1).
size_t DecodeRune(std::string_view s, size_t i, char32_t* rune);

// Go's strconv.IsPrint: letters, marks, numbers, punctuation, symbols and
// the ASCII space, as Go's Unicode 15.0.0 tables define them.
bool StrconvIsPrint(char32_t rune);

// Appends Go's backslash escape of `c` when it is one of \a \b \f \n \r
// \t \v (the escapes Go's strconv.Quote and cel-go's strings.quote share);
// false, appending nothing, for any other character.
bool AppendGoControlEscape(std::string* out, char32_t c);

// Go's strconv.Quote: `s` in double quotes with \a \b \f \n \r \t \v \\ \"
// escapes, other non-printable runes as \xHH (below U+0080), \uHHHH or
// \UHHHHHHHH (lower-case hex), and each byte of invalid UTF-8 as \xHH.
std::string StrconvQuote(std::string_view s);

}  // namespace draplane

#endif  // DRAPLANE_COMMON_GO_STRCONV_H_

// Go's strconv.Quote and strconv.IsPrint, exactly (Go 1.26, Unicode
// 15.0.0), for results that must match cel-go byte for byte: Go's `%q`
// verb on a string is strconv.Quote.
//
// Internal to the cel component.
#ifndef DRAPLANE_CEL_INTERNAL_GO_STRCONV_H_
#define DRAPLANE_CEL_INTERNAL_GO_STRCONV_H_

#include <string>
#include <string_view>

namespace draplane::cel::internal {

// Go's strconv.IsPrint: letters, marks, numbers, punctuation, symbols and
// the ASCII space, as Go's Unicode 15.0.0 tables define them.
bool StrconvIsPrint(char32_t rune);

// Go's strconv.Quote: `s` in double quotes with \a \b \f \n \r \t \v \\ \"
// escapes, other non-printable runes as \xHH (below U+0080), \uHHHH or
// \UHHHHHHHH (lower-case hex), and each byte of invalid UTF-8 as \xHH.
std::string StrconvQuote(std::string_view s);

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_GO_STRCONV_H_

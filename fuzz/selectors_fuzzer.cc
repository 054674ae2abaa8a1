// Arbitrary bytes as a label selector and a field selector, as the API
// server reads them from ?labelSelector= and ?fieldSelector=: the text up
// to the first NUL byte is the label selector, the rest the field selector.
// A selector that parses must print (String) to text that parses back to
// a selector matching the same, whose printed form is then a fixed point
// (a label selector's from the first print on). Any
// crash, sanitizer report, hang, exception or round-trip mismatch is a bug;
// parse errors are expected.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

#include "selectors/selectors.h"

namespace {

void Fail(const char* what, const std::string& a, const std::string& b) {
  std::fprintf(stderr, "%s\n  first:  %s\n  second: %s\n", what, a.c_str(),
               b.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace draplane::selectors;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view label_text = input.substr(0, nul);
  const std::string_view field_text = nul == std::string_view::npos
                                          ? std::string_view()
                                          : input.substr(nul + 1);
  static const std::map<std::string, std::string> kLabels = {
      {"app", "web"}, {"tier", "gpu"}, {"n", "3"}, {"a.b/c", ""}};

  if (auto labels = ParseLabelSelector(label_text); labels.ok()) {
    const bool matched = labels->Matches(kLabels);
    const std::string printed = labels->String();
    auto again = ParseLabelSelector(printed);
    if (!again.ok()) {
      Fail("a printed label selector does not parse", printed,
           std::string(again.status().message()));
    }
    if (again->String() != printed) {
      Fail("a label selector prints differently after a round trip", printed,
           again->String());
    }
    if (again->Matches(kLabels) != matched) {
      Fail("a label selector matches differently after a round trip",
           std::string(label_text), printed);
    }
  }
  if (auto fields = ParseFieldSelector(field_text); fields.ok()) {
    const bool matched = fields->Matches(kLabels);
    const std::string printed = fields->String();
    auto again = ParseFieldSelector(printed);
    if (!again.ok()) {
      Fail("a printed field selector does not parse", printed,
           std::string(again.status().message()));
    }
    // Terms print in the order of their raw text, in which "==" and "="
    // differ ("=a,==~" prints "=~,=a"): the printed form is a fixed point
    // from the second print on.
    const std::string reprinted = again->String();
    auto third = ParseFieldSelector(reprinted);
    if (!third.ok() || third->String() != reprinted) {
      Fail(
          "a field selector's printed form is not a fixed point", reprinted,
          third.ok() ? third->String() : std::string(third.status().message()));
    }
    if (again->Matches(kLabels) != matched) {
      Fail("a field selector matches differently after a round trip",
           std::string(field_text), printed);
    }
  }
  return 0;
}

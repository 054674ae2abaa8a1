// Arbitrary bytes as a CDI spec file (JSON or YAML), as a container runtime
// or `draplane` reads one: strict parsing, validation and the minimum
// version. A spec that parses must survive CdiSpecToJson and parse back to
// an equal spec (the kubelet plugin writes what it decoded). Any crash,
// sanitizer report, hang, exception or round-trip mismatch is a bug;
// parse and validation errors are expected.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cdi/cdi_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace draplane::cdi;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<CdiSpec> spec = CdiSpecFromText(text);
  if (!spec.ok()) return 0;
  (void)ValidateCdiSpec(*spec);
  (void)MinimumCdiVersion(*spec);
  const std::string json = CdiSpecToJson(*spec);
  absl::StatusOr<CdiSpec> again = CdiSpecFromText(json);
  if (!again.ok()) {
    std::fprintf(stderr, "CdiSpecToJson output does not parse: %s\n%s\n",
                 std::string(again.status().message()).c_str(), json.c_str());
    std::abort();
  }
  if (!(*again == *spec)) {
    std::fprintf(stderr, "round trip changed the spec; JSON:\n%s\nagain:\n%s\n",
                 json.c_str(), CdiSpecToJson(*again).c_str());
    std::abort();
  }
  return 0;
}

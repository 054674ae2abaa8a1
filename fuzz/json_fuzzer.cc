// Arbitrary bytes as JSON: parsing with positions, typed decoding and
// re-encoding must never crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api/manifest.h"
#include "api/object_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace draplane::api;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto json = ParseJsonText(text, "fuzz");
  if (!json.ok()) return 0;
  auto decoded = DecodeObject(*json);
  if (!decoded.ok()) return 0;
  auto encoded = EncodeObject(decoded->object);
  if (encoded.ok()) (void)encoded->dump();
  return 0;
}

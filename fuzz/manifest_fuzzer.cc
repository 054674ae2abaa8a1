// Feeds arbitrary bytes through the whole manifest path: YAML/JSON parsing,
// typed decoding, defaulting, validation, encoding in every version and YAML
// emission. Any crash, sanitizer report or hang is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api/manifest.h"
#include "api/object_codec.h"
#include "api/validation/validation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace draplane::api;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto docs = ParseManifests(text, "fuzz");
  if (!docs.ok()) return 0;
  for (const ManifestDocument& doc : *docs) {
    auto decoded = DecodeObject(doc.json);
    if (!decoded.ok()) continue;
    Object object = decoded->object;
    SetDefaults(object);
    (void)ValidateObject(object);
    for (const char* version : {"resource.k8s.io/v1", "resource.k8s.io/v1beta1",
                                "resource.k8s.io/v1beta2"}) {
      auto encoded = EncodeObject(object, version);
      if (encoded.ok()) (void)ToYaml(*encoded);
    }
    auto same = EncodeObject(object);
    if (same.ok()) (void)ToYaml(*same);
  }
  return 0;
}

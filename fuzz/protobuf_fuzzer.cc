// Arbitrary bytes as a protobuf request body: decoding must never crash,
// throw or fail with anything but InvalidArgument, and what it returns must
// serialise. Inputs without the "k8s\0" prefix get it prepended so that the
// fuzzer spends its time past the magic check.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "protobuf/kube_protobuf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string body(reinterpret_cast<const char*>(data), size);
  if (body.compare(0, 4, std::string("k8s\0", 4)) != 0) {
    body.insert(0, std::string("k8s\0", 4));
  }
  absl::StatusOr<draplane::api::Json> json =
      draplane::protobuf::DecodeKubeProtobuf(body);
  if (json.ok()) {
    (void)draplane::api::DumpJson(*json);
  } else if (json.status().code() != absl::StatusCode::kInvalidArgument) {
    std::abort();
  }
  return 0;
}

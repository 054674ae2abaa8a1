#include "http/http2_fields.h"

#include <cstdint>

namespace draplane::http {

bool IsConnectionSpecificHeader(std::string_view lower_name) {
  return lower_name == "connection" || lower_name == "keep-alive" ||
         lower_name == "transfer-encoding" || lower_name == "upgrade" ||
         lower_name == "proxy-connection";
}

nghttp2_nv Http2Field(const std::string& name, const std::string& value) {
  // NOLINTBEGIN(cppcoreguidelines-pro-type-const-cast): nghttp2 copies them
  return nghttp2_nv{
      const_cast<uint8_t*>(reinterpret_cast<const uint8_t*>(name.data())),
      const_cast<uint8_t*>(reinterpret_cast<const uint8_t*>(value.data())),
      name.size(), value.size(), NGHTTP2_NV_FLAG_NONE};
  // NOLINTEND(cppcoreguidelines-pro-type-const-cast)
}

}  // namespace draplane::http

// Header fields as HTTP/2 carries them (nghttp2), for both ends: the
// server (http_server.h) and the REST client.
#ifndef DRAPLANE_HTTP_HTTP2_FIELDS_H_
#define DRAPLANE_HTTP_HTTP2_FIELDS_H_

#include <nghttp2/nghttp2.h>

#include <string>
#include <string_view>

namespace draplane::http {

// Whether HTTP/2 forbids a header of this (lower-case) name: the
// connection-specific ones of RFC 9113 8.2.2.
bool IsConnectionSpecificHeader(std::string_view lower_name);

// nghttp2's view of one field; `name` and `value` must outlive the call
// that submits it (nghttp2 copies them then).
nghttp2_nv Http2Field(const std::string& name, const std::string& value);

}  // namespace draplane::http

#endif  // DRAPLANE_HTTP_HTTP2_FIELDS_H_

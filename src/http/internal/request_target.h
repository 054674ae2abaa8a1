// Splits a request target ("/path?query") into HttpRequest's decoded path
// and query, as Go's net/url does (in queries '+' is a space), for every
// protocol the server speaks.
#ifndef DRAPLANE_HTTP_INTERNAL_REQUEST_TARGET_H_
#define DRAPLANE_HTTP_INTERNAL_REQUEST_TARGET_H_

#include <string_view>

#include "http/http_server.h"

namespace draplane::http::internal {

// Sets req.path and req.query from `target`.
void ParseTarget(std::string_view target, HttpRequest& req);

}  // namespace draplane::http::internal

#endif  // DRAPLANE_HTTP_INTERNAL_REQUEST_TARGET_H_

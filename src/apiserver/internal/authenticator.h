// Authentication of API requests by bearer token: every request except the
// unauthenticated health and version paths must carry one of the server's
// tokens. One identity: a valid token acts as "admin".
#ifndef DRAPLANE_APISERVER_INTERNAL_AUTHENTICATOR_H_
#define DRAPLANE_APISERVER_INTERNAL_AUTHENTICATOR_H_

#include <string>
#include <vector>

#include "http/http_server.h"

namespace draplane::apiserver::internal {

class TokenAuthenticator {
 public:
  // No tokens: every request is authenticated, as system:anonymous.
  explicit TokenAuthenticator(std::vector<std::string> tokens);

  // Whether `req` may proceed: a path open to all (/version, /healthz,
  // /livez, /readyz) or an `Authorization: Bearer <token>` header naming
  // one of the tokens (compared in constant time).
  bool Authenticated(const http::HttpRequest& req) const;

  // The user an authenticated request acts as (the seam for
  // authorization).
  std::string UserOf(const http::HttpRequest& req) const;

 private:
  std::vector<std::string> tokens_;
};

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_AUTHENTICATOR_H_

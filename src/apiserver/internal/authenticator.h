// Authentication of API requests as kube-apiserver's chain does it: a
// verified client certificate (CN = user, O = groups), else a bearer token
// from the static token list or a ServiceAccount token, else
// system:anonymous when anonymous
// requests are allowed. Presented credentials that do not authenticate
// (an unverifiable certificate, an unknown token) are a 401 even where
// anonymous requests are allowed, as upstream; the log says why, the
// answer does not. Every authenticated user but system:anonymous also
// gets the group system:authenticated.
#ifndef DRAPLANE_APISERVER_INTERNAL_AUTHENTICATOR_H_
#define DRAPLANE_APISERVER_INTERNAL_AUTHENTICATOR_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "apiserver/internal/service_account_tokens.h"
#include "auth/token_file.h"
#include "auth/user_info.h"
#include "http/http_server.h"

namespace draplane::apiserver::internal {

class Authenticator {
 public:
  // `tokens`: the accepted bearer tokens and their users (a later entry
  // for the same token wins). `anonymous`: requests without credentials
  // act as system:anonymous in system:unauthenticated (false: 401).
  // `service_accounts` (null: none) outlives the authenticator.
  Authenticator(const std::vector<auth::StaticToken>& tokens, bool anonymous,
                const ServiceAccountTokens* service_accounts);

  // The user `req` acts as; Unauthenticated when it has bad credentials,
  // or none and anonymous requests are off.
  absl::StatusOr<auth::UserInfo> Authenticate(
      const http::HttpRequest& req) const;

  // The user a bearer token authenticates as for `audiences` (empty: the
  // API audiences), with the system:authenticated group, as TokenReview
  // asks; `matched` gets the audiences the answer holds for.
  absl::StatusOr<auth::UserInfo> AuthenticateToken(
      std::string_view token, const std::vector<std::string>& audiences,
      std::vector<std::string>* matched) const;

 private:
  // Keyed by the SHA-256 of the token, so that a lookup's timing says
  // nothing about the tokens.
  absl::flat_hash_map<std::string, auth::UserInfo> tokens_;
  const bool anonymous_;
  const ServiceAccountTokens* service_accounts_;
};

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_AUTHENTICATOR_H_

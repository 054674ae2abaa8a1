// ServiceAccount tokens in the API server, as kube-apiserver's
// serviceaccount token authenticator, TokenRequest issuer and
// ServiceAccountIssuerDiscovery: signs and verifies RS256 JWTs with
// ApiServerOptions::ServiceAccountTokenOptions's keys and checks that what
// a token names (its ServiceAccount, and the Pod or Node it is bound to)
// still exists with the UID it had, reading the registry.
#ifndef DRAPLANE_APISERVER_INTERNAL_SERVICE_ACCOUNT_TOKENS_H_
#define DRAPLANE_APISERVER_INTERNAL_SERVICE_ACCOUNT_TOKENS_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "apiserver/api_server.h"
#include "apiserver/internal/registry.h"
#include "auth/service_account_token.h"
#include "auth/user_info.h"

namespace draplane::apiserver::internal {

class ServiceAccountTokens {
 public:
  // Null (and OK) when `options` name no signing key. `registry` outlives
  // the result.
  static absl::StatusOr<std::unique_ptr<ServiceAccountTokens>> Create(
      const ApiServerOptions::ServiceAccountTokenOptions& options,
      const Registry* registry);

  // The user `token` authenticates as when one of its audiences is among
  // `audiences` (empty: the API audiences). NotFound when the token is no
  // ServiceAccount token of this issuer (another authenticator may know
  // it); Unauthenticated with upstream's reason when it is one that does
  // not authenticate (expired, wrong audience, its ServiceAccount or bound
  // object gone or replaced). `matched` (optional) gets the audiences
  // both have.
  absl::StatusOr<auth::UserInfo> Authenticate(
      std::string_view token, const std::vector<std::string>& audiences,
      std::vector<std::string>* matched = nullptr) const;

  // Signs `claims` (issuer filled in) and tells the options' on_issued.
  absl::StatusOr<std::string> Sign(auth::ServiceAccountClaims claims) const;

  // The issuer discovery documents (JSON text); `host` is the request's
  // Host, for a jwks_uri the options do not name.
  std::string OpenIdConfiguration(std::string_view host) const;
  std::string Jwks() const;

  const std::vector<std::string>& api_audiences() const {
    return api_audiences_;
  }
  absl::Duration max_expiration() const { return options_.max_expiration; }

 private:
  ServiceAccountTokens(ApiServerOptions::ServiceAccountTokenOptions options,
                       const Registry* registry, auth::TokenSigner signer,
                       auth::TokenVerifier verifier);

  // Unauthenticated unless the token's ServiceAccount and bound objects
  // exist with the UIDs it names (upstream's validator).
  absl::Status CheckBoundObjects(const auth::ServiceAccountClaims& claims,
                                 absl::Time now) const;

  ApiServerOptions::ServiceAccountTokenOptions options_;
  std::vector<std::string> api_audiences_;
  const Registry* registry_;
  auth::TokenSigner signer_;
  auth::TokenVerifier verifier_;
};

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_SERVICE_ACCOUNT_TOKENS_H_

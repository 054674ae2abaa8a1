// ServiceAccount tokens: JWTs (compact JWS) that kube-apiserver signs for
// service accounts and verifies as bearer tokens, with the semantics of
// k8s.io/kubernetes v1.37 pkg/serviceaccount (jwt.go, claims.go,
// openidmetadata.go), go-jose v2 (jwt/validation.go) and k8s.io/apiserver
// pkg/authentication/serviceaccount (util.go).
//
// Keys: RSA (RS256) and ECDSA P-256/P-384/P-521 (ES256/ES384/ES512) for
// signing and verifying, as upstream's signerFrom*PrivateKey and
// algorithmFromPublicKey.
//
// Not here: upstream's validator also looks up the service account (name
// and UID, not deleted) and the bound pod/secret/node in the store; a
// caller of TokenVerifier::Verify does that with the claims it returns.
#ifndef DRAPLANE_AUTH_SERVICE_ACCOUNT_TOKEN_H_
#define DRAPLANE_AUTH_SERVICE_ACCOUNT_TOKEN_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "auth/user_info.h"

namespace draplane::auth {
namespace service_account_token_internal {
struct Key;  // a parsed key with its kid and alg
}  // namespace service_account_token_internal

// A reference to a Kubernetes object in a token's private claims.
struct TokenObjectRef {
  std::string name;
  std::string uid;
};

// The claims of a ServiceAccount token. The subject ("sub") is not a
// member: it is always system:serviceaccount:<namespace>:<name>
// (upstream's MakeUsername), written by Sign and not read by Verify (as
// upstream, which uses it only in audit annotations).
struct ServiceAccountClaims {
  std::string issuer;                  // "iss"; omitted when empty
  std::vector<std::string> audiences;  // "aud"; omitted when empty
  // "iat", "nbf", "exp" as NumericDate (whole seconds; Sign truncates).
  // An infinite time means the claim is absent: not written, not checked.
  absl::Time issued_at = absl::InfinitePast();
  absl::Time not_before = absl::InfinitePast();
  absl::Time expiry = absl::InfiniteFuture();
  std::string id;  // "jti"; omitted when empty
  // "kubernetes.io": {"namespace", "serviceaccount", "pod", "secret",
  // "node", "warnafter"}.
  std::string namespace_;
  TokenObjectRef service_account;
  std::optional<TokenObjectRef> pod, secret, node;
  std::optional<absl::Time> warn_after;
};

// A new RSA 2048 private key as PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----").
absl::StatusOr<std::string> NewServiceAccountSigningKey();

// The public key of the first private key in `private_key_pem` (PKCS#8,
// PKCS#1 "RSA PRIVATE KEY" or SEC1 "EC PRIVATE KEY"), as PKIX PEM
// ("-----BEGIN PUBLIC KEY-----"). InvalidArgument when there is none.
absl::StatusOr<std::string> PublicKeyOf(std::string_view private_key_pem);

// Upstream's keyIDFromPublicKey for the first key in `public_key_pem` (any
// form TokenVerifier::Create reads): base64url without padding of the
// SHA-256 of the key's PKIX DER.
absl::StatusOr<std::string> KeyId(std::string_view public_key_pem);

// Signs tokens with one private key. Immutable; safe for concurrent use.
class TokenSigner {
 public:
  // `private_key_pem` holds an RSA or ECDSA (P-256/P-384/P-521) private
  // key; InvalidArgument otherwise.
  static absl::StatusOr<TokenSigner> Create(std::string_view private_key_pem);

  // The compact JWS of `claims`: header {"alg":...,"kid":<KeyId>} as
  // go-jose writes it for upstream's signer, payload with members sorted
  // by name (go-jose's builder marshals a map), "aud" always an array.
  absl::StatusOr<std::string> Sign(const ServiceAccountClaims& claims) const;

  const std::string& key_id() const;
  // "RS256", "ES256", "ES384" or "ES512".
  const std::string& algorithm() const;

 private:
  using Key = service_account_token_internal::Key;
  explicit TokenSigner(std::shared_ptr<const Key> key);

  std::shared_ptr<const Key> key_;  // non-null
};

// Verifies tokens against a fixed set of public keys, as upstream's
// jwtTokenAuthenticator with a StaticPublicKeysGetter. Immutable; safe for
// concurrent use.
class TokenVerifier {
 public:
  // Each of `public_key_pems` holds one or more PEM blocks: "PUBLIC KEY",
  // "RSA PUBLIC KEY", "CERTIFICATE", or a private key (its public half is
  // used, as upstream's StaticPublicKeysGetter); blocks of other types are
  // skipped. InvalidArgument when an entry yields no RSA or ECDSA
  // (P-256/P-384/P-521) key, or when there are no keys at all.
  // `issuers`: the accepted "iss" values. `audiences`: the API server's
  // implicit audiences (--api-audiences).
  static absl::StatusOr<TokenVerifier> Create(
      const std::vector<std::string>& public_key_pems,
      std::vector<std::string> issuers, std::vector<std::string> audiences);

  // Verifies `token` at time `now`, in upstream's order:
  //  - NotFound ("not mine", so a caller tries its other authenticators):
  //    not three base64url parts, a payload that is not a JSON object with
  //    a string "iss" among the accepted issuers, or a header that is not
  //    a JSON object with string "alg"/"kid" (upstream's hasCorrectIssuer
  //    and jwt.ParseSigned failing both answer "not mine").
  //  - Unauthenticated, with upstream's texts:
  //    "invalid signature, no keys found" (no key with the token's "kid");
  //    "go-jose/go-jose: error in cryptographic primitive" (no key
  //    verifies the signature under the header's "alg": RS256/384/512 and
  //    PS256/384/512 for RSA keys, ES256/384/512 for ECDSA keys, as
  //    go-jose's verifiers; a "crit" header is refused);
  //    claims of the wrong JSON types (Go's encoding/json texts);
  //    "token audiences [...] is invalid for the target audiences [...]"
  //    (a token without "aud" is given the implicit audiences; with
  //    implicit audiences configured the token's must intersect them);
  //    with go-jose's DefaultLeeway of 1 minute: "service account token is
  //    not valid yet" (nbf), "service account token has expired" (exp),
  //    "service account token is issued in the future" (iat).
  //  - Beyond upstream: Unauthenticated for a token over 64 KiB.
  // Never throws, whatever `token` holds.
  absl::StatusOr<ServiceAccountClaims> Verify(std::string_view token,
                                              absl::Time now) const;

  // The JSON Web Key Set served at /openid/v1/jwks, as upstream's
  // openIDKeysetJSON: {"keys":[{"use":"sig","kty":"RSA","kid":...,
  // "alg":"RS256","n":...,"e":...}, ...]} in the order of the keys given
  // to Create (ECDSA keys: "kty":"EC","crv","alg","x","y").
  std::string Jwks() const;

  // The distinct "alg" of the keys, sorted (upstream's getAlgs).
  std::vector<std::string> Algorithms() const;

 private:
  using Key = service_account_token_internal::Key;
  TokenVerifier(std::vector<std::shared_ptr<const Key>> keys,
                std::vector<std::string> issuers,
                std::vector<std::string> audiences);

  std::vector<std::shared_ptr<const Key>> keys_;
  std::vector<std::string> issuers_;
  std::vector<std::string> audiences_;
};

// The OpenID provider configuration served at
// /.well-known/openid-configuration, as upstream's openIDConfigJSON:
// {"issuer","jwks_uri","response_types_supported":["id_token"],
// "subject_types_supported":["public"],
// "id_token_signing_alg_values_supported":<verifier.Algorithms()>}.
// (Upstream's checks of the URLs, https and no query or fragment, belong
// to flag validation.)
std::string OpenIdConfiguration(std::string_view issuer,
                                std::string_view jwks_uri,
                                const TokenVerifier& verifier);

// The user a verified token authenticates as, as upstream's validator
// fills ServiceAccountInfo and ServiceAccountInfo.UserInfo() builds it:
// name system:serviceaccount:<ns>:<name>, uid the service account's,
// groups {system:serviceaccounts, system:serviceaccounts:<ns>}, extra
// authentication.kubernetes.io/pod-name and pod-uid (both only when the
// pod's name and uid are non-empty), node-name (and node-uid when
// non-empty) and credential-id "JTI=<jti>" when the token has a "jti".
UserInfo ServiceAccountUser(const ServiceAccountClaims& claims);

}  // namespace draplane::auth

#endif  // DRAPLANE_AUTH_SERVICE_ACCOUNT_TOKEN_H_

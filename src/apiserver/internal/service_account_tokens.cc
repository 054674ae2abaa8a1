#include "apiserver/internal/service_account_tokens.h"

#include <algorithm>
#include <utility>

#include "common/rfc3339.h"
#include "common/str_cat.h"
#include "logging/log.h"

namespace draplane::apiserver::internal {
namespace {

using api::Json;

// A token stays valid this long after its bound object was deleted
// (upstream's jwt.DefaultLeeway).
constexpr absl::Duration kLeeway = absl::Minutes(1);

std::string StringAt(const Json& object, const char* a, const char* b) {
  auto i = object.find(a);
  if (i == object.end() || !i->is_object()) return "";
  auto j = i->find(b);
  return j != i->end() && j->is_string() ? j->get<std::string>() : "";
}

// Upstream's `invalidIfDeletedBefore`: an object whose deletion started
// more than the leeway ago no longer backs a token.
bool DeletedLongAgo(const Json& object, absl::Time now) {
  const std::string deleted = StringAt(object, "metadata", "deletionTimestamp");
  if (deleted.empty()) return false;
  absl::Time at;
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, deleted, &at, &err)) return false;
  return at < now - kLeeway;
}

absl::Status Invalidated() {
  return absl::UnauthenticatedError(
      "service account token has been invalidated");
}

std::vector<std::string> Intersection(const std::vector<std::string>& a,
                                      const std::vector<std::string>& b) {
  std::vector<std::string> out;
  for (const std::string& x : a) {
    if (std::find(b.begin(), b.end(), x) != b.end()) out.push_back(x);
  }
  return out;
}

// Go's %q of a []string: ["a" "b"].
std::string Quoted(const std::vector<std::string>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    StrAppend(&out, i ? " " : "", "\"", values[i], "\"");
  }
  return out + "]";
}

}  // namespace

absl::StatusOr<std::unique_ptr<ServiceAccountTokens>>
ServiceAccountTokens::Create(
    const ApiServerOptions::ServiceAccountTokenOptions& options,
    const Registry* registry) {
  if (options.signing_key_pem.empty()) return nullptr;
  auto signer = auth::TokenSigner::Create(options.signing_key_pem);
  if (!signer.ok()) return signer.status();
  auto public_key = auth::PublicKeyOf(options.signing_key_pem);
  if (!public_key.ok()) return public_key.status();
  std::vector<std::string> keys = {*public_key};
  keys.insert(keys.end(), options.extra_verification_key_pems.begin(),
              options.extra_verification_key_pems.end());
  // The audiences are checked here, per request (TokenReview names its
  // own).
  auto verifier = auth::TokenVerifier::Create(keys, {options.issuer}, {});
  if (!verifier.ok()) return verifier.status();
  return std::unique_ptr<ServiceAccountTokens>(new ServiceAccountTokens(
      options, registry, *std::move(signer), *std::move(verifier)));
}

ServiceAccountTokens::ServiceAccountTokens(
    ApiServerOptions::ServiceAccountTokenOptions options,
    const Registry* registry, auth::TokenSigner signer,
    auth::TokenVerifier verifier)
    : options_(std::move(options)),
      api_audiences_(options_.api_audiences.empty()
                         ? std::vector<std::string>{options_.issuer}
                         : options_.api_audiences),
      registry_(registry),
      signer_(std::move(signer)),
      verifier_(std::move(verifier)) {}

absl::StatusOr<auth::UserInfo> ServiceAccountTokens::Authenticate(
    std::string_view token, const std::vector<std::string>& audiences,
    std::vector<std::string>* matched) const {
  const absl::Time now = registry_->clock().Now();
  auto claims = verifier_.Verify(token, now);
  if (!claims.ok()) return claims.status();
  // Upstream's jwtTokenAuthenticator: a token with none of the audiences
  // the request is for does not authenticate it (one without audiences
  // is a legacy token, for the API audiences).
  const std::vector<std::string>& token_audiences =
      claims->audiences.empty() ? api_audiences_ : claims->audiences;
  const std::vector<std::string>& wanted =
      audiences.empty() ? api_audiences_ : audiences;
  std::vector<std::string> both = Intersection(token_audiences, wanted);
  if (both.empty()) {
    return absl::UnauthenticatedError(
        StrCat("token audiences ", Quoted(token_audiences),
               " is invalid for the target audiences ", Quoted(wanted)));
  }
  if (absl::Status s = CheckBoundObjects(*claims, now); !s.ok()) return s;
  if (matched != nullptr) *matched = std::move(both);
  return auth::ServiceAccountUser(*claims);
}

absl::Status ServiceAccountTokens::CheckBoundObjects(
    const auth::ServiceAccountClaims& claims, absl::Time now) const {
  const std::string& ns = claims.namespace_;
  const ResourceInfo& accounts = *FindResource("", "serviceaccounts");
  auto account = registry_->Get(accounts, ns, claims.service_account.name);
  if (!account.ok()) {
    return absl::UnauthenticatedError(StrCat(
        "serviceaccounts \"", claims.service_account.name, "\" not found"));
  }
  const std::string uid = StringAt(*account, "metadata", "uid");
  if (uid != claims.service_account.uid) {
    return absl::UnauthenticatedError(StrCat("service account UID (", uid,
                                             ") does not match claim (",
                                             claims.service_account.uid, ")"));
  }
  if (DeletedLongAgo(*account, now)) {
    return absl::UnauthenticatedError(StrCat("service account ", ns, "/",
                                             claims.service_account.name,
                                             " has been deleted"));
  }
  if (claims.secret.has_value()) {
    // draplane serves no Secrets: it issues no Secret-bound tokens.
    return Invalidated();
  }
  if (claims.pod.has_value()) {
    auto pod = registry_->Get(*FindResource("", "pods"), ns, claims.pod->name);
    if (!pod.ok()) return Invalidated();
    const std::string pod_uid = StringAt(*pod, "metadata", "uid");
    if (pod_uid != claims.pod->uid) {
      return absl::UnauthenticatedError(
          StrCat("pod UID (", pod_uid,
                 ") does not match service account pod ref claim (",
                 claims.pod->uid, ")"));
    }
    if (DeletedLongAgo(*pod, now)) return Invalidated();
  } else if (claims.node.has_value()) {
    auto node =
        registry_->Get(*FindResource("", "nodes"), "", claims.node->name);
    if (!node.ok()) return Invalidated();
    const std::string node_uid = StringAt(*node, "metadata", "uid");
    if (node_uid != claims.node->uid) {
      return absl::UnauthenticatedError(
          StrCat("node UID (", node_uid,
                 ") does not match service account node ref claim (",
                 claims.node->uid, ")"));
    }
    if (DeletedLongAgo(*node, now)) return Invalidated();
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ServiceAccountTokens::Sign(
    auth::ServiceAccountClaims claims) const {
  claims.issuer = options_.issuer;
  const absl::Time expiry = claims.expiry;
  auto token = signer_.Sign(claims);
  if (token.ok() && options_.on_issued) options_.on_issued(expiry);
  return token;
}

std::string ServiceAccountTokens::OpenIdConfiguration(
    std::string_view host) const {
  const std::string jwks_uri = options_.jwks_uri.empty()
                                   ? StrCat("https://", host, "/openid/v1/jwks")
                                   : options_.jwks_uri;
  return auth::OpenIdConfiguration(options_.issuer, jwks_uri, verifier_);
}

std::string ServiceAccountTokens::Jwks() const { return verifier_.Jwks(); }

}  // namespace draplane::apiserver::internal

#include "apiserver/internal/authenticator.h"

#include <openssl/sha.h>

#include <algorithm>
#include <string_view>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "common/str_cat.h"

namespace draplane::apiserver::internal {
namespace {

std::string Digest(std::string_view token) {
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(),
         md);
  return std::string(reinterpret_cast<const char*>(md), sizeof md);
}

// upstream's AuthenticatedGroupAdder.
auth::UserInfo WithAuthenticatedGroup(auth::UserInfo user) {
  if (user.name != auth::kAnonymousUser &&
      !user.InGroup(auth::kAllAuthenticated) &&
      !user.InGroup(auth::kAllUnauthenticated)) {
    user.groups.emplace_back(auth::kAllAuthenticated);
  }
  return user;
}

absl::Status Unauthenticated(std::string_view why) {
  return absl::UnauthenticatedError(std::string(why));
}

}  // namespace

Authenticator::Authenticator(const std::vector<auth::StaticToken>& tokens,
                             bool anonymous,
                             const ServiceAccountTokens* service_accounts)
    : anonymous_(anonymous), service_accounts_(service_accounts) {
  for (const auth::StaticToken& t : tokens) tokens_[Digest(t.token)] = t.user;
}

absl::StatusOr<auth::UserInfo> Authenticator::Authenticate(
    const http::HttpRequest& req) const {
  if (req.client_certificate.has_value()) {
    const http::ClientCertificate& cert = *req.client_certificate;
    if (!cert.verified) {
      return Unauthenticated(
          StrCat("client certificate rejected: ", cert.error));
    }
    // A certificate without a CN authenticates no one (upstream's
    // CommonNameUserConversion); the other credentials may.
    if (!cert.common_name.empty()) {
      auth::UserInfo user;
      user.name = cert.common_name;
      user.groups = cert.organizations;
      return WithAuthenticatedGroup(std::move(user));
    }
  }
  // kube-apiserver's bearer token authenticator: `<scheme> <token>[ ...]`
  // with the scheme "bearer" in any case; an empty token is invalid.
  const std::string raw = req.Header("authorization");
  const std::string_view header = ToStd(absl::StripAsciiWhitespace(raw));
  const size_t space = header.find(' ');
  if (space != std::string_view::npos &&
      absl::EqualsIgnoreCase(absl::string_view(header.data(), space),
                             "bearer")) {
    std::string_view token = header.substr(space + 1);
    token = token.substr(0, token.find(' '));
    return AuthenticateToken(token, {}, nullptr);
  }
  if (!anonymous_) {
    return Unauthenticated("no credentials and anonymous requests are off");
  }
  auth::UserInfo anonymous;
  anonymous.name = std::string(auth::kAnonymousUser);
  anonymous.groups = {std::string(auth::kAllUnauthenticated)};
  return anonymous;
}

absl::StatusOr<auth::UserInfo> Authenticator::AuthenticateToken(
    std::string_view token, const std::vector<std::string>& audiences,
    std::vector<std::string>* matched) const {
  if (token.empty()) return Unauthenticated("empty bearer token");
  // Static tokens hold for the API audiences (upstream's
  // WrapAudienceAgnosticToken): asked for others, they are not
  // recognized, and the next authenticator is asked.
  if (auto it = tokens_.find(Digest(token)); it != tokens_.end()) {
    std::vector<std::string> both;
    if (service_accounts_ != nullptr) {
      const std::vector<std::string>& api = service_accounts_->api_audiences();
      for (const std::string& a : audiences.empty() ? api : audiences) {
        if (std::find(api.begin(), api.end(), a) != api.end()) {
          both.push_back(a);
        }
      }
    }
    if (service_accounts_ == nullptr || !both.empty()) {
      if (matched != nullptr) *matched = std::move(both);
      return WithAuthenticatedGroup(it->second);
    }
  }
  if (service_accounts_ != nullptr) {
    auto user = service_accounts_->Authenticate(token, audiences, matched);
    if (user.ok()) return WithAuthenticatedGroup(*std::move(user));
    if (!absl::IsNotFound(user.status())) return user.status();
  }
  return Unauthenticated("invalid bearer token");
}

}  // namespace draplane::apiserver::internal

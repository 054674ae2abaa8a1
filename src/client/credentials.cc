#include "client/credentials.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "client/internal/exec_credential_plugin.h"
#include "common/private_files.h"
#include "common/str_cat.h"
#include "logging/log.h"

namespace draplane::client {
namespace {

// client-go's cachedFileTokenSource: a token is kept for its period (one
// minute, half the kubelet's rotation margin) less a 10 s leeway.
constexpr absl::Duration kTokenFileRereadAfter = absl::Seconds(50);

absl::StatusOr<std::string> ReadToken(const std::string& path) {
  absl::StatusOr<std::string> data = ReadPrivateFile(path);
  if (!data.ok()) {
    return absl::NotFoundError(
        StrCat("failed to read token file \"", path, "\": cannot open it"));
  }
  std::string token(absl::StripAsciiWhitespace(*data));
  if (token.empty()) {
    return absl::InvalidArgumentError(
        StrCat("read empty token from file \"", path, "\""));
  }
  return token;
}

}  // namespace

CredentialSource::CredentialSource(RestConfig config, Clock& clock)
    : config_(std::move(config)), clock_(clock) {
  auto initial = std::make_shared<Credential>();
  initial->bearer_token = config_.bearer_token;
  initial->client_cert_pem = config_.client_cert_pem;
  initial->client_key_pem = config_.client_key_pem;
  absl::MutexLock lock(&mu_);
  read_at_ = clock_.Now();
  if (!UsesPlugin()) current_ = std::move(initial);
}

absl::StatusOr<std::shared_ptr<const Credential>> CredentialSource::Current() {
  absl::MutexLock lock(&mu_);
  const absl::Time now = clock_.Now();
  if (!config_.bearer_token_file.empty()) {
    if (now - read_at_ >= kTokenFileRereadAfter) {
      absl::StatusOr<std::string> token = ReadToken(config_.bearer_token_file);
      if (token.ok()) {
        if (*token != current_->bearer_token) {
          auto next = std::make_shared<Credential>(*current_);
          next->bearer_token = *std::move(token);
          current_ = std::move(next);
        }
        read_at_ = now;
      } else {
        logging::Error("Unable to rotate token", {{"err", token.status()}});
      }
    }
    return current_;
  }
  if (!UsesPlugin() || (current_ != nullptr && now <= expires_)) {
    return current_;
  }
  return RunPlugin();
}

absl::StatusOr<std::shared_ptr<const Credential>>
CredentialSource::RunPlugin() {
  absl::StatusOr<internal::ExecCredential> got =
      internal::RunExecPlugin(*config_.exec, config_);
  if (!got.ok()) {
    return absl::UnauthenticatedError(
        StrCat("getting credentials: ", got.status().message()));
  }
  auto next = std::make_shared<Credential>();
  next->bearer_token = std::move(got->token);
  next->client_cert_pem = std::move(got->client_cert_pem);
  next->client_key_pem = std::move(got->client_key_pem);
  if (next->client_cert_pem.empty()) {
    next->client_cert_pem = config_.client_cert_pem;
    next->client_key_pem = config_.client_key_pem;
  }
  if (current_ != nullptr &&
      (current_->client_cert_pem != next->client_cert_pem ||
       current_->client_key_pem != next->client_key_pem)) {
    ++certificate_generation_;
  }
  next->certificate_generation = certificate_generation_;
  expires_ = got->expiration.value_or(absl::InfiniteFuture());
  current_ = std::move(next);
  return current_;
}

void CredentialSource::Unauthorized(
    const std::shared_ptr<const Credential>& used) {
  if (!UsesPlugin()) return;
  absl::MutexLock lock(&mu_);
  if (used == current_) {
    // Expired now: the next Current() runs the plugin. The credential
    // stays in hand to compare certificates with the next one.
    expires_ = absl::InfinitePast();
  }
}

}  // namespace draplane::client

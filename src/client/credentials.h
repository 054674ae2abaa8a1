// What each request to a remote API server authenticates with, decided as
// client-go's transport decides it:
//   - a bearer token set in the configuration, re-read from
//     RestConfig::bearer_token_file when the token in hand is older than
//     50 s (client-go's cachedFileTokenSource: period 1 min, leeway 10 s;
//     a failed re-read logs "Unable to rotate token" and keeps the token
//     in hand);
//   - else an exec credential plugin (RestConfig::exec), run on first use
//     and again when its credential's expirationTimestamp has passed or a
//     request made with it was answered 401 (unless another request
//     already replaced it);
//   - the static client certificate of the configuration, or the one the
//     plugin returned (a new one closes the connections made with the old,
//     as client-go's connection tracker does).
#ifndef DRAPLANE_CLIENT_CREDENTIALS_H_
#define DRAPLANE_CLIENT_CREDENTIALS_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "client/rest_config.h"
#include "clock/clock.h"

namespace draplane::client {

// One set of credentials; immutable once handed out.
struct Credential {
  std::string bearer_token;  // "" = none
  // PEM; empty = none.
  std::string client_cert_pem;
  std::string client_key_pem;
  // Changes whenever the client certificate does.
  uint64_t certificate_generation = 0;
};

// Thread-safe.
class CredentialSource {
 public:
  // `clock` outlives the source.
  explicit CredentialSource(RestConfig config, Clock& clock = RealClock());
  CredentialSource(const CredentialSource&) = delete;
  CredentialSource& operator=(const CredentialSource&) = delete;

  // The credential for the next request. Fails only when an exec plugin
  // has to run and fails ("getting credentials: <client-go's reason>",
  // Unauthenticated); a later call runs it again.
  absl::StatusOr<std::shared_ptr<const Credential>> Current();

  // A request made with `used` was answered 401: an exec plugin's
  // credential is dropped, so that the next Current() runs the plugin,
  // unless it was replaced since `used` was handed out. Nothing for other
  // kinds of credential (client-go neither re-reads a token file on 401).
  void Unauthorized(const std::shared_ptr<const Credential>& used);

 private:
  // An exec plugin and no static token.
  bool UsesPlugin() const {
    return config_.exec.has_value() && config_.bearer_token.empty();
  }
  absl::StatusOr<std::shared_ptr<const Credential>> RunPlugin()
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const RestConfig config_;
  Clock& clock_;
  absl::Mutex mu_;
  std::shared_ptr<const Credential> current_ ABSL_GUARDED_BY(mu_);
  // Token file: when `current_` was read. Exec: when it expires
  // (InfiniteFuture: at a 401 only).
  absl::Time read_at_ ABSL_GUARDED_BY(mu_);
  absl::Time expires_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  uint64_t certificate_generation_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace draplane::client

#endif  // DRAPLANE_CLIENT_CREDENTIALS_H_

// The ServiceAccount token keys of the standalone server's data directory
// (its pki folder):
// - sa.key: the signing key (RSA 2048, PKCS#8 PEM), made when missing;
// - sa-<kid>.expiry: the latest expiry of a token the key with that key ID
//   signed (Unix seconds), kept by the server as it issues tokens;
// - sa-retired.json: the public keys of earlier signing keys, each with
//   the time until which it still verifies: the expiry of the last token
//   it signed. Keys past that time are dropped when the keys are loaded.
#ifndef DRAPLANE_APISERVER_SERVICE_ACCOUNT_KEYS_H_
#define DRAPLANE_APISERVER_SERVICE_ACCOUNT_KEYS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace draplane::apiserver {

struct ServiceAccountKeys {
  std::string signing_key_pem;
  // Public keys (PEM) of retired signing keys that still verify at `now`.
  std::vector<std::string> retired_public_key_pems;
  // The signing key's key ID (upstream's keyIDFromPublicKey).
  std::string key_id;
};

// Reads the keys in `dir`, making sa.key when missing and dropping retired
// keys whose tokens have all expired by `now`.
absl::StatusOr<ServiceAccountKeys> LoadOrCreateServiceAccountKeys(
    const std::string& dir, absl::Time now);

// Retires the signing key in `dir` (its public key verifies until the last
// token it signed expires, and at least until `now`) and makes a new one.
// A running server goes on signing with the old key until it restarts;
// what it signs meanwhile is still covered.
absl::Status RotateServiceAccountKey(const std::string& dir, absl::Time now);

// Keeps `dir`/sa-<key_id>.expiry at or after the expiry of every token
// recorded, writing at most once per hour of token lifetime.
// Thread-safe.
class ServiceAccountExpiryLog {
 public:
  ServiceAccountExpiryLog(const std::string& dir, const std::string& key_id);
  // The log says why when the file cannot be written.
  void Record(absl::Time expiry);

 private:
  const std::string path_;
  absl::Mutex mu_;
  absl::Time recorded_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
};

}  // namespace draplane::apiserver

#endif  // DRAPLANE_APISERVER_SERVICE_ACCOUNT_KEYS_H_

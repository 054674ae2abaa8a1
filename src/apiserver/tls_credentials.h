// The standalone server's credentials in its data directory: a self-signed
// CA (kept), a serving certificate signed by it (made anew at every start,
// for the hosts asked), and the admin bearer token (kept).
#ifndef DRAPLANE_APISERVER_TLS_CREDENTIALS_H_
#define DRAPLANE_APISERVER_TLS_CREDENTIALS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace draplane::apiserver {

struct ServingCredentials {
  std::string ca_cert_pem;
  std::string cert_pem;  // serving certificate
  std::string key_pem;   // its private key
  std::string admin_token;
};

// Reads `dir`/ca.crt, ca.key and admin.token, creating them when missing
// (ECDSA P-256 CA valid 10 years; 256-bit random token; files 0600), and
// issues a serving certificate valid one year for `hosts` (IP addresses
// and DNS names, e.g. "127.0.0.1", "localhost"), written to
// `dir`/server.crt and server.key.
absl::StatusOr<ServingCredentials> LoadOrCreateCredentials(
    const std::string& dir, const std::vector<std::string>& hosts);

// A kubeconfig for the admin user: cluster "draplane" at `server_url`
// trusting `ca_cert_pem`, user "admin" with `token`, context "draplane"
// with namespace default.
std::string AdminKubeconfig(const std::string& server_url,
                            const std::string& ca_cert_pem,
                            const std::string& token);

}  // namespace draplane::apiserver

#endif  // DRAPLANE_APISERVER_TLS_CREDENTIALS_H_

// The standalone server's credentials in its data directory: a self-signed
// CA (kept), a serving certificate and the admin's client certificate
// signed by it (made anew at every start), and the admin bearer token
// (kept; it authenticates as the admin too).
#ifndef DRAPLANE_APISERVER_TLS_CREDENTIALS_H_
#define DRAPLANE_APISERVER_TLS_CREDENTIALS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "auth/token_file.h"

namespace draplane::apiserver {

// A client certificate and its private key (PEM).
struct ClientCredentials {
  std::string cert_pem;
  std::string key_pem;
};

struct ServingCredentials {
  std::string ca_cert_pem;
  std::string cert_pem;  // serving certificate
  std::string key_pem;   // its private key
  // The admin's client certificate: CN admin, O system:masters.
  std::string admin_cert_pem;
  std::string admin_key_pem;
  std::string admin_token;
};

// The user the admin token authenticates as: admin in system:masters.
auth::StaticToken AdminToken(const std::string& token);

// 256 random bits from OpenSSL's generator, hex-encoded: a bearer token.
absl::StatusOr<std::string> NewRandomToken();

// The format of the credentials folder this draplane writes, recorded in
// `dir`/format ("draplane-pki 1"). Format 0 is the same files without it.
inline constexpr int64_t kPkiFormat = 1;

// Checks `dir`/format: writes it when missing (upgrading format 0),
// FailedPrecondition when a newer draplane wrote the folder.
absl::Status CheckPkiFormat(const std::string& dir);

// Checks the folder's format (CheckPkiFormat), then reads `dir`/ca.crt,
// ca.key and admin.token, creating them when missing
// (ECDSA P-256 CA valid 10 years; 256-bit random token; files 0600),
// issues a serving certificate valid one year for `hosts` (IP addresses
// and DNS names, e.g. "127.0.0.1", "localhost"), written to
// `dir`/server.crt and server.key, and the admin's client certificate,
// valid one year (kept in memory only).
absl::StatusOr<ServingCredentials> LoadOrCreateCredentials(
    const std::string& dir, const std::vector<std::string>& hosts);

// A serving certificate for `hosts` (IP addresses or DNS names) and its
// key, signed by a CA made for it alone, both valid one year and kept in
// memory only: what kube-scheduler and kube-controller-manager serve when
// given no --tls-cert-file (client-go's GenerateSelfSignedCertKey: the
// CA "<name>-ca@<unix time>", the certificate "<name>@<unix time>").
// `cert_pem` holds the certificate then the CA.
absl::StatusOr<ClientCredentials> SelfSignedServingCertificate(
    const std::string& name, const std::vector<std::string>& hosts);

// Replaces `dir`/admin.token (of an existing CA) with a new random token,
// atomically, and returns it. The old token is retired: a server started
// after this no longer accepts it.
absl::StatusOr<std::string> RotateAdminToken(const std::string& dir);

// A client certificate for `user` in `groups` (CN and O), valid for
// `validity` from now (less an hour of clock skew allowance before),
// signed by the CA in `dir` (ca.crt, ca.key). Certificates cannot be
// revoked: keep `validity` short.
absl::StatusOr<ClientCredentials> IssueClientCredentials(
    const std::string& dir, const std::string& user,
    const std::vector<std::string>& groups, absl::Duration validity);

// Who a kubeconfig authenticates as: a bearer token, or a client
// certificate and key.
struct KubeconfigUser {
  std::string name;
  std::string token;
  std::string cert_pem;
  std::string key_pem;
};

// A kubeconfig with cluster "draplane" at `server_url` trusting
// `ca_cert_pem`, `user`, and context "draplane" with namespace default.
std::string Kubeconfig(const std::string& server_url,
                       const std::string& ca_cert_pem,
                       const KubeconfigUser& user);

}  // namespace draplane::apiserver

#endif  // DRAPLANE_APISERVER_TLS_CREDENTIALS_H_

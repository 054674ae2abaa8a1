#include "apiserver/tls_credentials.h"

#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdlib>
#include <filesystem>
#include <memory>

#include "absl/strings/escaping.h"
#include "absl/time/clock.h"
#include "common/private_files.h"
#include "common/str_cat.h"

namespace draplane::apiserver {
namespace {

namespace fs = std::filesystem;

struct Deleter {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
};
using Key = std::unique_ptr<EVP_PKEY, Deleter>;
using Cert = std::unique_ptr<X509, Deleter>;
using Bio = std::unique_ptr<BIO, Deleter>;

absl::Status OpenSslError(std::string_view what) {
  return absl::InternalError(StrCat("openssl: ", what));
}

std::string ToPem(X509* cert) {
  Bio bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509(bio.get(), cert);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, n);
}

std::string ToPem(EVP_PKEY* key) {
  Bio bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr,
                           nullptr);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, n);
}

absl::StatusOr<Key> KeyFromPem(const std::string& pem) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  Key key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!key) return OpenSslError("invalid private key");
  return key;
}

absl::StatusOr<Cert> CertFromPem(const std::string& pem) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  Cert cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!cert) return OpenSslError("invalid certificate");
  return cert;
}

Key NewKey() { return Key(EVP_EC_gen("P-256")); }

constexpr int64_t kDay = int64_t{24} * 60 * 60;

bool AddExtension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) return false;
  const bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

// A certificate for `key`, signed by `issuer_key` (self-signed when
// `issuer` is null).
absl::StatusOr<Cert> Issue(EVP_PKEY* key, const std::string& common_name,
                           int64_t seconds, X509* issuer, EVP_PKEY* issuer_key,
                           const std::vector<std::pair<int, std::string>>& ext,
                           const std::vector<std::string>& organizations = {}) {
  Cert cert(X509_new());
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  RAND_bytes(serial, sizeof serial);
  serial[0] &= 0x7f;
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -60 * 60);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), seconds);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(
      name, "CN", MBSTRING_UTF8,
      reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1, 0);
  for (const std::string& o : organizations) {
    X509_NAME_add_entry_by_txt(
        name, "O", MBSTRING_UTF8,
        reinterpret_cast<const unsigned char*>(o.c_str()), -1, -1, 0);
  }
  X509* signer = issuer != nullptr ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  for (const auto& [nid, value] : ext) {
    if (!AddExtension(cert.get(), signer, nid, value)) {
      return OpenSslError(StrCat("cannot add extension ", value));
    }
  }
  if (X509_sign(cert.get(), issuer_key, EVP_sha256()) == 0) {
    return OpenSslError("cannot sign certificate");
  }
  return cert;
}

absl::StatusOr<ClientCredentials> IssueClient(
    X509* ca_cert, EVP_PKEY* ca_key, const std::string& user,
    const std::vector<std::string>& groups, int64_t seconds) {
  Key key = NewKey();
  if (!key) return OpenSslError("cannot generate a key");
  auto cert = Issue(key.get(), user, seconds, ca_cert, ca_key,
                    {{NID_basic_constraints, "critical,CA:FALSE"},
                     {NID_key_usage, "critical,digitalSignature"},
                     {NID_ext_key_usage, "clientAuth"}},
                    groups);
  if (!cert.ok()) return cert.status();
  ClientCredentials out;
  out.cert_pem = ToPem(cert->get());
  out.key_pem = ToPem(key.get());
  return out;
}

bool IsIpAddress(const std::string& host) {
  unsigned char buf[16];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 ||
         inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

}  // namespace

absl::Status CheckPkiFormat(const std::string& dir) {
  const fs::path file = fs::path(dir) / "format";
  const std::string current = StrCat("draplane-pki ", kPkiFormat, "\n");
  auto stored = ReadPrivateFile(file);
  if (!stored.ok()) {
    // Format 0: the same files, without this one. Upgraded by writing it.
    return WritePrivateFile(file, current);
  }
  int64_t version = -1;
  const std::string_view prefix = "draplane-pki ";
  if (stored->rfind(prefix, 0) == 0) {
    version = std::strtoll(stored->c_str() + prefix.size(), nullptr, 10);
  }
  if (version > kPkiFormat) {
    return absl::FailedPreconditionError(
        StrCat(file.string(), ": credentials of format ", version,
               ", newer than this draplane reads (format ", kPkiFormat,
               "): run the draplane release that wrote them"));
  }
  if (version < 1) {
    return absl::FailedPreconditionError(
        StrCat(file.string(), " is not a draplane credentials format file"));
  }
  return absl::OkStatus();
}

absl::StatusOr<ServingCredentials> LoadOrCreateCredentials(
    const std::string& dir, const std::vector<std::string>& hosts) {
  if (absl::Status s = CreatePrivateDirectories(dir); !s.ok()) return s;
  if (absl::Status s = CheckPkiFormat(dir); !s.ok()) return s;
  const fs::path base(dir);
  ServingCredentials out;
  Key ca_key;
  Cert ca_cert;
  auto ca_pem = ReadPrivateFile(base / "ca.crt");
  auto ca_key_pem = ReadPrivateFile(base / "ca.key");
  if (ca_pem.ok() && ca_key_pem.ok()) {
    auto k = KeyFromPem(*ca_key_pem);
    auto c = CertFromPem(*ca_pem);
    if (!k.ok()) return k.status();
    if (!c.ok()) return c.status();
    ca_key = std::move(*k);
    ca_cert = std::move(*c);
  } else {
    ca_key = NewKey();
    if (!ca_key) return OpenSslError("cannot generate a key");
    auto c =
        Issue(ca_key.get(), "draplane-ca", kDay * 3650, nullptr, ca_key.get(),
              {{NID_basic_constraints, "critical,CA:TRUE"},
               {NID_key_usage, "critical,keyCertSign,cRLSign"},
               {NID_subject_key_identifier, "hash"}});
    if (!c.ok()) return c.status();
    ca_cert = std::move(*c);
    if (auto s = WritePrivateFile(base / "ca.key", ToPem(ca_key.get()));
        !s.ok()) {
      return s;
    }
    if (auto s = WritePrivateFile(base / "ca.crt", ToPem(ca_cert.get()));
        !s.ok()) {
      return s;
    }
  }
  out.ca_cert_pem = ToPem(ca_cert.get());

  std::string san;
  for (const std::string& host : hosts) {
    if (!san.empty()) san += ",";
    san += (IsIpAddress(host) ? "IP:" : "DNS:") + host;
  }
  Key key = NewKey();
  if (!key) return OpenSslError("cannot generate a key");
  std::vector<std::pair<int, std::string>> ext = {
      {NID_basic_constraints, "critical,CA:FALSE"},
      {NID_key_usage, "critical,digitalSignature,keyEncipherment"},
      {NID_ext_key_usage, "serverAuth"}};
  if (!san.empty()) ext.emplace_back(NID_subject_alt_name, san);
  auto cert = Issue(key.get(), "draplane-apiserver", kDay * 365, ca_cert.get(),
                    ca_key.get(), ext);
  if (!cert.ok()) return cert.status();
  out.cert_pem = ToPem(cert->get());
  out.key_pem = ToPem(key.get());
  if (auto s = WritePrivateFile(base / "server.crt", out.cert_pem); !s.ok())
    return s;
  if (auto s = WritePrivateFile(base / "server.key", out.key_pem); !s.ok())
    return s;

  auto admin =
      IssueClient(ca_cert.get(), ca_key.get(), "admin",
                  {std::string(auth::kSystemPrivilegedGroup)}, kDay * 365);
  if (!admin.ok()) return admin.status();
  out.admin_cert_pem = std::move(admin->cert_pem);
  out.admin_key_pem = std::move(admin->key_pem);

  auto token = ReadPrivateFile(base / "admin.token");
  if (token.ok() && !token->empty()) {
    out.admin_token = *token;
    while (!out.admin_token.empty() &&
           (out.admin_token.back() == '\n' || out.admin_token.back() == '\r')) {
      out.admin_token.pop_back();
    }
  } else {
    auto token = NewRandomToken();
    if (!token.ok()) return token.status();
    out.admin_token = *std::move(token);
    if (auto s = WritePrivateFile(base / "admin.token", out.admin_token + "\n");
        !s.ok()) {
      return s;
    }
  }
  return out;
}

absl::StatusOr<ClientCredentials> SelfSignedServingCertificate(
    const std::string& name, const std::vector<std::string>& hosts) {
  const std::string now = std::to_string(absl::ToUnixSeconds(absl::Now()));
  Key ca_key = NewKey();
  Key key = NewKey();
  if (!ca_key || !key) return OpenSslError("cannot generate a key");
  auto ca = Issue(ca_key.get(), StrCat(name, "-ca@", now), kDay * 365, nullptr,
                  ca_key.get(),
                  {{NID_basic_constraints, "critical,CA:TRUE"},
                   {NID_key_usage, "critical,keyCertSign,cRLSign"},
                   {NID_subject_key_identifier, "hash"}});
  if (!ca.ok()) return ca.status();
  std::string san;
  for (const std::string& host : hosts) {
    if (!san.empty()) san += ",";
    san += (IsIpAddress(host) ? "IP:" : "DNS:") + host;
  }
  std::vector<std::pair<int, std::string>> ext = {
      {NID_basic_constraints, "critical,CA:FALSE"},
      {NID_key_usage, "critical,digitalSignature,keyEncipherment"},
      {NID_ext_key_usage, "serverAuth"}};
  if (!san.empty()) ext.emplace_back(NID_subject_alt_name, san);
  auto cert = Issue(key.get(), StrCat(name, "@", now), kDay * 365, ca->get(),
                    ca_key.get(), ext);
  if (!cert.ok()) return cert.status();
  ClientCredentials out;
  out.cert_pem = ToPem(cert->get()) + ToPem(ca->get());
  out.key_pem = ToPem(key.get());
  return out;
}

absl::StatusOr<std::string> RotateAdminToken(const std::string& dir) {
  const fs::path base(dir);
  std::error_code ec;
  if (!fs::exists(base / "ca.crt", ec)) {
    return absl::FailedPreconditionError(
        StrCat("no cluster CA at ", (base / "ca.crt").string()));
  }
  if (absl::Status s = CheckPkiFormat(dir); !s.ok()) return s;
  auto token = NewRandomToken();
  if (!token.ok()) return token.status();
  if (auto s = WritePrivateFile(base / "admin.token", *token + "\n"); !s.ok()) {
    return s;
  }
  return token;
}

absl::StatusOr<std::string> NewRandomToken() {
  unsigned char raw[32];
  if (RAND_bytes(raw, sizeof raw) != 1) {
    return OpenSslError("no randomness for a token");
  }
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(raw), sizeof raw));
}

auth::StaticToken AdminToken(const std::string& token) {
  auth::StaticToken t;
  t.token = token;
  t.user.name = "admin";
  t.user.groups = {std::string(auth::kSystemPrivilegedGroup)};
  return t;
}

absl::StatusOr<ClientCredentials> IssueClientCredentials(
    const std::string& dir, const std::string& user,
    const std::vector<std::string>& groups, absl::Duration validity) {
  const fs::path base(dir);
  auto ca_pem = ReadPrivateFile(base / "ca.crt");
  if (!ca_pem.ok()) return ca_pem.status();
  auto ca_key_pem = ReadPrivateFile(base / "ca.key");
  if (!ca_key_pem.ok()) return ca_key_pem.status();
  auto ca_cert = CertFromPem(*ca_pem);
  if (!ca_cert.ok()) return ca_cert.status();
  auto ca_key = KeyFromPem(*ca_key_pem);
  if (!ca_key.ok()) return ca_key.status();
  return IssueClient(ca_cert->get(), ca_key->get(), user, groups,
                     absl::ToInt64Seconds(validity));
}

std::string Kubeconfig(const std::string& server_url,
                       const std::string& ca_cert_pem,
                       const KubeconfigUser& user) {
  auto b64 = [](const std::string& pem) {
    std::string out;
    absl::Base64Escape(pem, &out);
    return out;
  };
  std::string credentials;
  if (!user.token.empty()) {
    credentials = StrCat("    token: ", user.token, "\n");
  } else {
    credentials = StrCat("    client-certificate-data: ", b64(user.cert_pem),
                         "\n    client-key-data: ", b64(user.key_pem), "\n");
  }
  return StrCat(
      "apiVersion: v1\n"
      "kind: Config\n"
      "clusters:\n"
      "- name: draplane\n"
      "  cluster:\n"
      "    server: ",
      server_url, "\n    certificate-authority-data: ", b64(ca_cert_pem),
      "\nusers:\n- name: ", user.name, "\n  user:\n", credentials,
      "contexts:\n"
      "- name: draplane\n"
      "  context:\n"
      "    cluster: draplane\n"
      "    user: ",
      user.name,
      "\n"
      "    namespace: default\n"
      "current-context: draplane\n");
}

}  // namespace draplane::apiserver

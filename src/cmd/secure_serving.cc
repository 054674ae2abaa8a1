#include "cmd/secure_serving.h"

#include <openssl/sha.h>

#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "api/json_members.h"
#include "api/meta_types.h"
#include "apiserver/tls_credentials.h"
#include "common/private_files.h"
#include "common/str_cat.h"
#include "logging/log.h"

namespace draplane::cmd {
namespace {

constexpr char kMastersGroup[] = "system:masters";
constexpr char kConfigMapPath[] =
    "/api/v1/namespaces/kube-system/configmaps/"
    "extension-apiserver-authentication";

std::string Sha256Hex(const std::string& data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(),
         digest);
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest), sizeof(digest)));
}

// A Kubernetes Status answer.
void SendStatus(http::ResponseWriter& w, int code, const std::string& reason,
                const std::string& message) {
  api::Json status = {{"kind", "Status"},
                      {"apiVersion", "v1"},
                      {"metadata", api::Json::object()},
                      {"status", "Failure"},
                      {"message", message},
                      {"reason", reason},
                      {"code", code}};
  if (code == 403) status["details"] = api::Json::object();
  w.Send(code,
         {{"Content-Type", "application/json"},
          {"X-Content-Type-Options", "nosniff"}},
         api::DumpJson(status) + "\n");
}

// Members of an API server's answer, of the type expected or absent (an
// answer of the wrong shape is read as a refusal, never thrown).
bool BoolMember(const api::Json& object, const char* name) {
  const api::Json& v = api::MemberOrNull(object, name);
  return v.is_boolean() && v.get<bool>();
}
std::vector<std::string> Strings(const api::Json& list) {
  std::vector<std::string> out;
  if (!list.is_array()) return out;
  for (const api::Json& x : list) {
    if (x.is_string()) out.push_back(x.get<std::string>());
  }
  return out;
}

api::Json UserJson(const auth::UserInfo& user) {
  api::Json extra = api::Json::object();
  for (const auto& [k, v] : user.extra) extra[k] = v;
  api::Json out = {{"user", user.name}, {"groups", user.groups}};
  if (!user.uid.empty()) out["uid"] = user.uid;
  if (!user.extra.empty()) out["extra"] = extra;
  return out;
}

}  // namespace

void AddSecureServingFlags(CLI::App* cmd, SecureServingFlags* flags,
                           int default_port) {
  flags->secure_port = default_port;
  cmd->add_option("--secure-port", flags->secure_port,
                  "HTTPS port for /healthz, /livez, /readyz and /metrics, "
                  "authenticated and authorized by the API server (0: off)")
      ->capture_default_str();
  cmd->add_option("--bind-address", flags->bind_address,
                  "Address of --secure-port")
      ->capture_default_str();
  cmd->add_option("--tls-cert-file", flags->tls_cert_file,
                  "Serving certificate (PEM, with its chain) of --secure-port "
                  "(default: a self-signed one made at start)");
  cmd->add_option("--tls-private-key-file", flags->tls_private_key_file,
                  "Its private key");
  cmd->add_option("--client-ca-file", flags->client_ca_file,
                  "CA bundle whose client certificates authenticate on "
                  "--secure-port (default: client-ca-file of ConfigMap "
                  "kube-system/extension-apiserver-authentication)");
  cmd->add_option("--authorization-always-allow-paths",
                  flags->always_allow_paths,
                  "Paths served without authorization (comma-separated; a "
                  "trailing * is a prefix)")
      ->capture_default_str();
}

DelegatedAuth::DelegatedAuth(client::Client* client, Options options,
                             Clock& clock)
    : client_(client), options_(std::move(options)), clock_(clock) {}

void DelegatedAuth::Remember(std::map<std::string, Cached>& cache,
                             std::string key, Cached value) {
  if (cache.size() >= options_.max_cache_entries) {
    // Expired entries first; then the one that expires soonest.
    const absl::Time now = clock_.Now();
    for (auto it = cache.begin(); it != cache.end();) {
      it = it->second.until <= now ? cache.erase(it) : std::next(it);
    }
    while (cache.size() >= options_.max_cache_entries) {
      auto oldest = cache.begin();
      for (auto it = cache.begin(); it != cache.end(); ++it) {
        if (it->second.until < oldest->second.until) oldest = it;
      }
      cache.erase(oldest);
    }
  }
  cache[std::move(key)] = std::move(value);
}

absl::StatusOr<auth::UserInfo> DelegatedAuth::ReviewToken(
    const std::string& token) {
  const std::string key = Sha256Hex(token);
  {
    absl::MutexLock lock(&mu_);
    auto it = tokens_.find(key);
    if (it != tokens_.end() && it->second.until > clock_.Now()) {
      if (!it->second.ok) return absl::UnauthenticatedError("Unauthorized");
      return it->second.user;
    }
  }
  api::Json review = {{"apiVersion", "authentication.k8s.io/v1"},
                      {"kind", "TokenReview"},
                      {"spec", {{"token", token}}}};
  absl::StatusOr<api::Json> answer =
      client_->PostJson("/apis/authentication.k8s.io/v1/tokenreviews", review);
  if (!answer.ok()) {
    // Not cached: the next request asks again.
    logging::Error("Unable to authenticate the request",
                   {{"err", answer.status()}});
    return absl::UnauthenticatedError("Unauthorized");
  }
  Cached entry;
  entry.until = clock_.Now() + options_.cache_ttl;
  const api::Json& status = api::MemberOrNull(*answer, "status");
  entry.ok = BoolMember(status, "authenticated");
  if (entry.ok) {
    const api::Json& user = api::MemberOrNull(status, "user");
    entry.user.name = api::StringMemberOrEmpty(user, "username");
    entry.user.uid = api::StringMemberOrEmpty(user, "uid");
    entry.user.groups = Strings(api::MemberOrNull(user, "groups"));
    const api::Json& extra = api::MemberOrNull(user, "extra");
    if (extra.is_object()) {
      for (auto it = extra.begin(); it != extra.end(); ++it) {
        entry.user.extra[it.key()] = Strings(it.value());
      }
    }
    entry.ok = !entry.user.name.empty();
  }
  // As k8s.io/apiserver's AuthenticatedGroupAdder.
  if (entry.ok && !entry.user.InGroup("system:authenticated")) {
    entry.user.groups.emplace_back("system:authenticated");
  }
  absl::MutexLock lock(&mu_);
  Remember(tokens_, key, entry);
  if (!entry.ok) return absl::UnauthenticatedError("Unauthorized");
  return entry.user;
}

absl::StatusOr<auth::UserInfo> DelegatedAuth::Authenticate(
    const http::HttpRequest& req) {
  if (req.client_certificate.has_value() && !options_.client_ca_pem.empty()) {
    const http::ClientCertificate& cert = *req.client_certificate;
    if (!cert.verified) {
      logging::V(2).Info("Client certificate refused", {{"err", cert.error}});
      return absl::UnauthenticatedError("Unauthorized");
    }
    auth::UserInfo user;
    user.name = cert.common_name;
    user.groups = cert.organizations;
    user.groups.emplace_back("system:authenticated");
    return user;
  }
  const std::string authorization = req.Header("authorization");
  if (!authorization.empty()) {
    constexpr absl::string_view kBearer = "Bearer ";
    if (authorization.size() <= kBearer.size() ||
        !absl::EqualsIgnoreCase(
            absl::string_view(authorization).substr(0, kBearer.size()),
            kBearer)) {
      return absl::UnauthenticatedError("Unauthorized");
    }
    return ReviewToken(authorization.substr(kBearer.size()));
  }
  auth::UserInfo anonymous;
  anonymous.name = "system:anonymous";
  anonymous.groups = {"system:unauthenticated"};
  return anonymous;
}

absl::Status DelegatedAuth::Authorize(const auth::UserInfo& user,
                                      const std::string& verb,
                                      const std::string& path) {
  std::string key = StrCat(user.name, "\n", user.uid, "\n", verb, "\n", path);
  for (const std::string& g : user.groups) StrAppend(&key, "\ng:", g);
  for (const auto& [k, values] : user.extra) {
    for (const std::string& v : values) StrAppend(&key, "\nx:", k, "=", v);
  }
  {
    absl::MutexLock lock(&mu_);
    auto it = decisions_.find(key);
    if (it != decisions_.end() && it->second.until > clock_.Now()) {
      return it->second.ok ? absl::OkStatus()
                           : absl::PermissionDeniedError(it->second.user.name);
    }
  }
  api::Json spec = UserJson(user);
  spec["nonResourceAttributes"] = {{"path", path}, {"verb", verb}};
  api::Json review = {{"apiVersion", "authorization.k8s.io/v1"},
                      {"kind", "SubjectAccessReview"},
                      {"spec", spec}};
  absl::StatusOr<api::Json> answer = client_->PostJson(
      "/apis/authorization.k8s.io/v1/subjectaccessreviews", review);
  if (!answer.ok()) return answer.status();  // not cached
  const api::Json& status = api::MemberOrNull(*answer, "status");
  Cached entry;
  entry.until = clock_.Now() + options_.cache_ttl;
  entry.ok = BoolMember(status, "allowed") && !BoolMember(status, "denied");
  entry.user.name = api::StringMemberOrEmpty(status, "reason");
  absl::MutexLock lock(&mu_);
  Remember(decisions_, std::move(key), entry);
  return entry.ok ? absl::OkStatus()
                  : absl::PermissionDeniedError(entry.user.name);
}

bool DelegatedAuth::Admit(const http::HttpRequest& req,
                          http::ResponseWriter& w) {
  absl::StatusOr<auth::UserInfo> user = Authenticate(req);
  if (!user.ok()) {
    SendStatus(w, 401, "Unauthorized", "Unauthorized");
    return false;
  }
  for (const std::string& allowed : options_.always_allow_paths) {
    const bool prefix = !allowed.empty() && allowed.back() == '*';
    if (prefix ? req.path.rfind(allowed.substr(0, allowed.size() - 1), 0) == 0
               : req.path == allowed) {
      return true;
    }
  }
  if (user->InGroup(kMastersGroup)) return true;
  std::string verb = req.method;
  for (char& c : verb) c = static_cast<char>(std::tolower(c));
  absl::Status decision = Authorize(*user, verb, req.path);
  if (decision.ok()) return true;
  if (!absl::IsPermissionDenied(decision)) {
    logging::Error("Authorization failed", {{"err", decision}});
    SendStatus(w, 500, "InternalError",
               StrCat("Internal error occurred: ", decision.message()));
    return false;
  }
  std::string message = StrCat("forbidden: User \"", user->name, "\" cannot ",
                               verb, " path \"", req.path, "\"");
  if (!decision.message().empty()) {
    StrAppend(&message, ": ", decision.message());
  }
  SendStatus(w, 403, "Forbidden", message);
  return false;
}

absl::StatusOr<std::string> SecureServingClientCa(
    const SecureServingFlags& flags, client::Client* client) {
  if (!flags.client_ca_file.empty()) {
    auto ca = ReadPrivateFile(flags.client_ca_file);
    if (!ca.ok()) {
      return absl::InvalidArgumentError(
          StrCat("--client-ca-file: ", ca.status().message()));
    }
    return ca;
  }
  absl::StatusOr<api::Json> cm = client->GetJson(kConfigMapPath);
  std::string ca;
  if (cm.ok())
    ca = api::StringMemberOrEmpty(api::MemberOrNull(*cm, "data"),
                                  "client-ca-file");
  if (ca.empty()) {
    logging::Warning(
        "Error looking up in-cluster authentication configuration",
        {{"err", cm.ok() ? std::string("no client-ca-file in "
                                       "configmap/extension-apiserver-"
                                       "authentication")
                         : std::string(cm.status().message())}});
    logging::Warning(
        "Continuing without client certificate authentication: bearer "
        "tokens (TokenReview) and anonymous requests only");
  }
  return ca;
}

absl::StatusOr<std::unique_ptr<SecurePort>> ServeSecurely(
    const SecureServingFlags& flags, const std::string& component,
    client::Client* client, metrics::Registry* registry,
    const HealthChecks* health) {
  if (flags.secure_port == 0) return nullptr;
  if (flags.secure_port < 0 || flags.secure_port > 65535) {
    return absl::InvalidArgumentError(
        StrCat("--secure-port: ", flags.secure_port,
               " is not a port (1-65535, or 0 for off)"));
  }
  if (flags.tls_cert_file.empty() != flags.tls_private_key_file.empty()) {
    return absl::InvalidArgumentError(
        "--tls-cert-file and --tls-private-key-file go together");
  }
  http::HttpServerOptions options;
  options.address = flags.bind_address;
  options.port = static_cast<uint16_t>(flags.secure_port);
  if (!flags.tls_cert_file.empty()) {
    auto cert = ReadPrivateFile(flags.tls_cert_file);
    if (!cert.ok()) {
      return absl::InvalidArgumentError(
          StrCat("--tls-cert-file: ", cert.status().message()));
    }
    auto key = ReadPrivateFile(flags.tls_private_key_file);
    if (!key.ok()) {
      return absl::InvalidArgumentError(
          StrCat("--tls-private-key-file: ", key.status().message()));
    }
    options.tls_cert_pem = *std::move(cert);
    options.tls_key_pem = *std::move(key);
  } else {
    auto self_signed = apiserver::SelfSignedServingCertificate(
        component, {"localhost", "127.0.0.1"});
    if (!self_signed.ok()) return self_signed.status();
    logging::Info("Generated self-signed cert (in-memory)");
    options.tls_cert_pem = std::move(self_signed->cert_pem);
    options.tls_key_pem = std::move(self_signed->key_pem);
  }
  auto ca = SecureServingClientCa(flags, client);
  if (!ca.ok()) return ca.status();
  options.tls_client_ca_pem = *ca;
  options.max_body_bytes = 64 * 1024;  // nothing here takes a body
  options.max_handler_threads = 32;
  DelegatedAuth::Options auth_options;
  auth_options.client_ca_pem = *ca;
  for (absl::string_view p :
       absl::StrSplit(flags.always_allow_paths, ',', absl::SkipWhitespace())) {
    auth_options.always_allow_paths.emplace_back(p);
  }
  auto port = std::make_unique<SecurePort>();
  client::RestConfig review_config = client->config();
  review_config.qps = 200;
  review_config.burst = 400;
  review_config.user_agent =
      StrCat(review_config.user_agent, "/auth-delegation");
  auto review_client = client::Client::Connect(review_config);
  if (!review_client.ok()) return review_client.status();
  port->review_client = *std::move(review_client);
  port->auth =
      std::make_unique<DelegatedAuth>(port->review_client.get(), auth_options);
  DelegatedAuth* auth = port->auth.get();
  auto ping_only = std::make_shared<HealthChecks>();
  auto server = http::HttpServer::Start(
      options, [auth, registry, health, ping_only](const http::HttpRequest& req,
                                                   http::ResponseWriter& w) {
        if (!auth->Admit(req, w)) return;
        if (req.path == "/metrics") {
          w.Send(200,
                 {{"Content-Type", std::string(metrics::kTextContentType)}},
                 registry->Text());
          return;
        }
        if ((health != nullptr ? health : ping_only.get())->Serve(req, w)) {
          return;
        }
        w.Send(404, {{"Content-Type", "text/plain"}}, "404 page not found\n");
      });
  if (!server.ok()) {
    return absl::InvalidArgumentError(
        StrCat("--secure-port ", flags.secure_port, " on ", flags.bind_address,
               ": ", server.status().message()));
  }
  port->server = *std::move(server);
  return port;
}

}  // namespace draplane::cmd

#include "client/rest_config.h"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "api/meta_types.h"
#include "common/str_cat.h"
#include "logging/log.h"
#include "yaml-cpp/yaml.h"

namespace draplane::client {
namespace {

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(StrCat("cannot read ", path));
  }
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) return absl::DataLossError(StrCat("error reading ", path));
  return out.str();
}

std::string Dir(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string Resolve(const std::string& dir, const std::string& file) {
  if (file.empty() || file[0] == '/') return file;
  return StrCat(dir, "/", file);
}

// A named entry of a kubeconfig list (clusters, users, contexts): the
// member `field` of the element whose name is `name`.
// nullopt when there is no such element.
std::optional<YAML::Node> FindNamed(const YAML::Node& list,
                                    const std::string& name,
                                    const char* field) {
  if (!list || !list.IsSequence()) return std::nullopt;
  for (const YAML::Node& item : list) {
    if (!item.IsMap()) continue;
    const YAML::Node n = item["name"];
    if (n && n.IsScalar() && n.Scalar() == name) {
      const YAML::Node value = item[field];
      if (value && value.IsMap()) return value;
      return YAML::Node(YAML::NodeType::Map);
    }
  }
  return std::nullopt;
}

std::string Scalar(const YAML::Node& map, const char* key) {
  if (!map || !map.IsMap()) return "";
  const YAML::Node v = map[key];
  if (!v || !v.IsScalar()) return "";
  return v.Scalar();
}

bool Bool(const YAML::Node& map, const char* key) {
  const std::string v = Scalar(map, key);
  return v == "true" || v == "True" || v == "TRUE" || v == "yes" || v == "on";
}

// `<key>-data` (base64) or `<key>` (a file relative to `dir`); "" when
// neither is set.
absl::StatusOr<std::string> DataOrFile(const YAML::Node& map,
                                       const std::string& key,
                                       const std::string& dir,
                                       const std::string& where) {
  const std::string data = Scalar(map, (key + "-data").c_str());
  if (!data.empty()) {
    std::string out;
    if (!absl::Base64Unescape(data, &out)) {
      return absl::InvalidArgumentError(
          StrCat(where, ": ", key, "-data is not valid base64"));
    }
    return out;
  }
  const std::string file = Scalar(map, key.c_str());
  if (file.empty()) return std::string();
  auto content = ReadFile(Resolve(dir, file));
  if (!content.ok()) {
    return absl::InvalidArgumentError(
        StrCat(where, ": ", key, ": ", content.status().message()));
  }
  return *std::move(content);
}

// A YAML value as JSON: plain scalars that read as null, booleans or
// numbers become those, everything else a string.
api::Json YamlToJson(const YAML::Node& node) {
  if (node.IsMap()) {
    api::Json out = api::Json::object();
    for (const auto& kv : node) {
      out[kv.first.as<std::string>()] = YamlToJson(kv.second);
    }
    return out;
  }
  if (node.IsSequence()) {
    api::Json out = api::Json::array();
    for (const YAML::Node& item : node) out.push_back(YamlToJson(item));
    return out;
  }
  if (!node.IsScalar()) return nullptr;
  const std::string& text = node.Scalar();
  if (node.Tag() != "!") {
    if (text == "null" || text == "~" || text.empty()) return nullptr;
    if (text == "true") return true;
    if (text == "false") return false;
    int64_t i = 0;
    if (absl::SimpleAtoi(text, &i)) return i;
    double d = 0;
    if (text.find_first_of("0123456789") != std::string::npos &&
        absl::SimpleAtod(text, &d)) {
      return d;
    }
  }
  return text;
}

// kubeconfig users[].user.exec, validated as clientcmd's
// validateAuthInfo and defaulted as its v1 SetDefaults_ExecConfig.
absl::StatusOr<ExecPluginConfig> ParseExec(const YAML::Node& user,
                                           const std::string& user_name,
                                           const YAML::Node& cluster,
                                           const std::string& dir) {
  const YAML::Node exec = user["exec"];
  ExecPluginConfig out;
  std::vector<std::string> errors;
  if (user["auth-provider"]) {
    errors.push_back(
        StrCat("authProvider cannot be provided in combination with an exec "
               "plugin for ",
               user_name));
  }
  out.command = Scalar(exec, "command");
  if (out.command.find('/') != std::string::npos) {
    out.command = Resolve(dir, out.command);
  }
  out.api_version = Scalar(exec, "apiVersion");
  out.install_hint = Scalar(exec, "installHint");
  out.provide_cluster_info = Bool(exec, "provideClusterInfo");
  out.interactive_mode = Scalar(exec, "interactiveMode");
  if (out.interactive_mode.empty() &&
      (out.api_version == "client.authentication.k8s.io/v1beta1" ||
       out.api_version == "client.authentication.k8s.io/v1alpha1")) {
    out.interactive_mode = "IfAvailable";
  }
  if (const YAML::Node args = exec.IsMap() ? exec["args"] : YAML::Node();
      args && args.IsSequence()) {
    for (const YAML::Node& a : args) {
      if (a.IsScalar()) out.args.push_back(a.Scalar());
    }
  }
  if (const YAML::Node env = exec.IsMap() ? exec["env"] : YAML::Node();
      env && env.IsSequence()) {
    for (const YAML::Node& e : env) {
      const std::string name = Scalar(e, "name");
      if (name.empty()) {
        errors.push_back(StrCat("env variable name must be specified for ",
                                user_name,
                                " to use exec authentication plugin"));
        continue;
      }
      out.env.emplace_back(name, Scalar(e, "value"));
    }
  }
  if (out.command.empty()) {
    errors.push_back(StrCat("command must be specified for ", user_name,
                            " to use exec authentication plugin"));
  }
  if (out.api_version.empty()) {
    errors.push_back(StrCat("apiVersion must be specified for ", user_name,
                            " to use exec authentication plugin"));
  }
  if (out.interactive_mode.empty()) {
    errors.push_back(StrCat("interactiveMode must be specified for ", user_name,
                            " to use exec authentication plugin"));
  } else if (out.interactive_mode != "Never" &&
             out.interactive_mode != "IfAvailable" &&
             out.interactive_mode != "Always") {
    errors.push_back(StrCat("invalid interactiveMode for ", user_name, ": \"",
                            out.interactive_mode, "\""));
  }
  if (!errors.empty()) {
    // utilerrors.NewAggregate's text, as clientcmd's "invalid
    // configuration" error prints it.
    std::string joined = errors.size() == 1 ? errors[0] : "[";
    if (errors.size() > 1) {
      for (size_t i = 0; i < errors.size(); ++i) {
        joined = StrCat(joined, i > 0 ? ", " : "", errors[i]);
      }
      joined += "]";
    }
    return absl::InvalidArgumentError(
        StrCat("invalid configuration: ", joined));
  }
  if (out.api_version != "client.authentication.k8s.io/v1" &&
      out.api_version != "client.authentication.k8s.io/v1beta1") {
    return absl::InvalidArgumentError(
        StrCat("exec plugin: invalid apiVersion \"", out.api_version, "\""));
  }
  if (const YAML::Node ext = cluster["extensions"]; ext && ext.IsSequence()) {
    for (const YAML::Node& e : ext) {
      if (Scalar(e, "name") == "client.authentication.k8s.io/exec" &&
          e["extension"]) {
        out.cluster_extension_json = api::DumpJson(YamlToJson(e["extension"]));
      }
    }
  }
  return out;
}

absl::StatusOr<RestConfig> Parse(const YAML::Node& root,
                                 const std::string& path,
                                 std::string_view context_name) {
  if (!root.IsMap()) {
    return absl::InvalidArgumentError(
        StrCat("kubeconfig ", path, ": not a YAML mapping"));
  }
  const std::string dir = Dir(path);
  std::string context(context_name);
  if (context.empty()) context = Scalar(root, "current-context");
  if (context.empty()) {
    return absl::InvalidArgumentError(StrCat(
        "kubeconfig ", path, ": no current-context and no context given"));
  }
  const std::optional<YAML::Node> ctx_entry =
      FindNamed(root["contexts"], context, "context");
  if (!ctx_entry) {
    return absl::NotFoundError(
        StrCat("kubeconfig ", path, ": context \"", context, "\" not found"));
  }
  const YAML::Node& ctx = *ctx_entry;
  const std::string cluster_name = Scalar(ctx, "cluster");
  const std::string user_name = Scalar(ctx, "user");
  const std::optional<YAML::Node> cluster_entry =
      FindNamed(root["clusters"], cluster_name, "cluster");
  if (cluster_name.empty() || !cluster_entry) {
    return absl::NotFoundError(StrCat("kubeconfig ", path, ": cluster \"",
                                      cluster_name, "\" of context \"", context,
                                      "\" not found"));
  }
  const YAML::Node& cluster = *cluster_entry;
  RestConfig config;
  config.server = Scalar(cluster, "server");
  if (config.server.empty()) {
    return absl::InvalidArgumentError(StrCat(
        "kubeconfig ", path, ": cluster \"", cluster_name, "\" has no server"));
  }
  if (config.server.rfind("https://", 0) != 0 &&
      config.server.rfind("http://", 0) != 0) {
    return absl::InvalidArgumentError(StrCat(
        "kubeconfig ", path, ": cluster \"", cluster_name, "\": server \"",
        config.server, "\" is not an http:// or https:// URL"));
  }
  config.proxy_url = Scalar(cluster, "proxy-url");
  const std::string cluster_where = StrCat("cluster \"", cluster_name, "\"");
  auto ca = DataOrFile(cluster, "certificate-authority", dir, cluster_where);
  if (!ca.ok()) return ca.status();
  config.ca_pem = *std::move(ca);
  config.insecure_skip_tls_verify = Bool(cluster, "insecure-skip-tls-verify");
  config.tls_server_name = Scalar(cluster, "tls-server-name");

  if (const std::string ns = Scalar(ctx, "namespace"); !ns.empty()) {
    config.namespace_name = ns;
  }

  if (user_name.empty()) return config;  // anonymous
  const std::optional<YAML::Node> user_entry =
      FindNamed(root["users"], user_name, "user");
  if (!user_entry) {
    return absl::NotFoundError(StrCat("kubeconfig ", path, ": user \"",
                                      user_name, "\" of context \"", context,
                                      "\" not found"));
  }
  const YAML::Node& user = *user_entry;
  const std::string user_where = StrCat("user \"", user_name, "\"");
  if (user.IsMap()) {
    if (user["auth-provider"] && !user["exec"]) {
      return absl::UnimplementedError(
          StrCat("kubeconfig ", path, ": ", user_where,
                 " uses auth-provider, which draplane's client does not "
                 "support (use an exec plugin)"));
    }
    if (user["exec"]) {
      auto exec = ParseExec(user, user_name, cluster, dir);
      if (!exec.ok()) {
        return absl::Status(
            exec.status().code(),
            StrCat("kubeconfig ", path, ": ", exec.status().message()));
      }
      config.exec = *std::move(exec);
    }
    if (!Scalar(user, "username").empty() ||
        !Scalar(user, "password").empty()) {
      return absl::UnimplementedError(
          StrCat("kubeconfig ", path, ": ", user_where,
                 " uses basic authentication, which is not supported"));
    }
  }
  auto cert = DataOrFile(user, "client-certificate", dir, user_where);
  if (!cert.ok()) return cert.status();
  auto key = DataOrFile(user, "client-key", dir, user_where);
  if (!key.ok()) return key.status();
  if (cert->empty() != key->empty()) {
    return absl::InvalidArgumentError(
        StrCat("kubeconfig ", path, ": ", user_where,
               " needs both a client certificate and a client key"));
  }
  config.client_cert_pem = *std::move(cert);
  config.client_key_pem = *std::move(key);
  config.bearer_token = Scalar(user, "token");
  const std::string token_file = Scalar(user, "tokenFile");
  if (config.bearer_token.empty() && !token_file.empty()) {
    auto token = ReadFile(Resolve(dir, token_file));
    if (!token.ok()) {
      return absl::InvalidArgumentError(
          StrCat("kubeconfig ", path, ": ", user_where,
                 ": tokenFile: ", token.status().message()));
    }
    std::string t = *std::move(token);
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r' ||
                          t.back() == ' ' || t.back() == '\t')) {
      t.pop_back();
    }
    config.bearer_token = std::move(t);
    config.bearer_token_file = Resolve(dir, token_file);
  }
  return config;
}

}  // namespace

absl::StatusOr<RestConfig> LoadKubeconfig(const std::string& path,
                                          std::string_view context) {
  auto text = ReadFile(path);
  if (!text.ok()) {
    return absl::NotFoundError(StrCat("kubeconfig: ", text.status().message()));
  }
  try {
    const YAML::Node root = YAML::Load(*text);
    return Parse(root, path, context);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(
        StrCat("kubeconfig ", path, ": invalid YAML: ", e.what()));
  }
}

namespace {

constexpr char kNotInCluster[] =
    "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and "
    "KUBERNETES_SERVICE_PORT must be defined";

std::string Env(const char* name) {
  const char* v = std::getenv(name);  // NOLINT(concurrency-mt-unsafe)
  return v != nullptr ? v : "";
}

// clientcmd's inClusterClientConfig.Namespace.
std::string InClusterNamespace() {
  if (std::string ns = Env("POD_NAMESPACE"); !ns.empty()) return ns;
  auto data = ReadFile(StrCat(kServiceAccountDir, "/namespace"));
  if (data.ok()) {
    if (std::string ns = std::string(absl::StripAsciiWhitespace(*data));
        !ns.empty())
      return ns;
  }
  return "default";
}

}  // namespace

absl::StatusOr<RestConfig> InClusterConfig() {
  const std::string host = Env("KUBERNETES_SERVICE_HOST");
  const std::string port = Env("KUBERNETES_SERVICE_PORT");
  if (host.empty() || port.empty()) {
    return absl::FailedPreconditionError(kNotInCluster);
  }
  const std::string token_file = StrCat(kServiceAccountDir, "/token");
  auto token = ReadFile(token_file);
  if (!token.ok()) {
    return absl::NotFoundError(
        StrCat("open ", token_file, ": ", token.status().message()));
  }
  RestConfig config;
  // net.JoinHostPort: brackets around an IPv6 address.
  config.server = StrCat(
      "https://",
      host.find(':') != std::string::npos ? StrCat("[", host, "]") : host, ":",
      port);
  config.bearer_token = *std::move(token);
  config.bearer_token_file = token_file;
  const std::string ca_file = StrCat(kServiceAccountDir, "/ca.crt");
  auto ca = ReadFile(ca_file);
  if (ca.ok() && ca->find("-----BEGIN CERTIFICATE-----") != std::string::npos) {
    config.ca_pem = *std::move(ca);
  } else {
    logging::Error(
        "Expected to load root CA config, but got err",
        {{"file", ca_file},
         {"err", ca.ok() ? "data does not contain any valid RSA or ECDSA "
                           "certificates"
                         : std::string(ca.status().message())}});
  }
  config.namespace_name = InClusterNamespace();
  return config;
}

absl::StatusOr<RestConfig> LoadClientConfig(
    std::string_view explicit_kubeconfig, std::string_view context) {
  const std::string path = DefaultKubeconfigPath(explicit_kubeconfig);
  const bool chosen =
      !explicit_kubeconfig.empty() || !Env("KUBECONFIG").empty();
  std::error_code ec;
  if (chosen || std::filesystem::exists(path, ec)) {
    return LoadKubeconfig(path, context);
  }
  if (Env("KUBERNETES_SERVICE_HOST").empty() ||
      Env("KUBERNETES_SERVICE_PORT").empty()) {
    return absl::FailedPreconditionError(
        StrCat("no kubeconfig (--kubeconfig, $KUBECONFIG or ", path,
               ") and not in a cluster: ", kNotInCluster));
  }
  if (!context.empty()) {
    return absl::InvalidArgumentError(
        StrCat("--context ", context,
               ": there is no kubeconfig (using the in-cluster "
               "configuration)"));
  }
  return InClusterConfig();
}

std::string DefaultKubeconfigPath(std::string_view explicit_path) {
  if (!explicit_path.empty()) return std::string(explicit_path);
  if (const char* env = std::getenv("KUBECONFIG"); env != nullptr) {
    std::string_view list(env);
    while (!list.empty()) {
      const size_t colon = list.find(':');
      const std::string_view first = list.substr(0, colon);
      if (!first.empty()) return std::string(first);
      if (colon == std::string_view::npos) break;
      list.remove_prefix(colon + 1);
    }
  }
  const char* home = std::getenv("HOME");
  return StrCat(home != nullptr ? home : "", "/.kube/config");
}

}  // namespace draplane::client

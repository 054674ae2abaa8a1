#include "client/rest_config.h"

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "absl/strings/escaping.h"
#include "common/str_cat.h"
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
  if (!Scalar(cluster, "proxy-url").empty()) {
    return absl::UnimplementedError(StrCat("kubeconfig ", path, ": cluster \"",
                                           cluster_name,
                                           "\": proxy-url is not supported"));
  }
  const std::string cluster_where = StrCat("cluster \"", cluster_name, "\"");
  auto ca = DataOrFile(cluster, "certificate-authority", dir, cluster_where);
  if (!ca.ok()) return ca.status();
  config.ca_pem = *std::move(ca);
  config.insecure_skip_tls_verify = Bool(cluster, "insecure-skip-tls-verify");
  config.tls_server_name = Scalar(cluster, "tls-server-name");

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
    for (const char* plugin : {"exec", "auth-provider"}) {
      if (user[plugin]) {
        return absl::UnimplementedError(
            StrCat("kubeconfig ", path, ": ", user_where, " uses ", plugin,
                   ", which draplane's client does not support"));
      }
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

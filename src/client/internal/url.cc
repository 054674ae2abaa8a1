#include "client/internal/url.h"

#include "common/str_cat.h"

namespace draplane::client::internal {
namespace {

bool Unreserved(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
}

void AppendEscaped(std::string& out, char c) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  const auto u = static_cast<unsigned char>(c);
  out.push_back('%');
  out.push_back(kHex[u >> 4]);
  out.push_back(kHex[u & 15]);
}

}  // namespace

std::string PathEscape(std::string_view path) {
  static constexpr std::string_view kKept = "/:@!$&'()*+,;=";
  std::string out;
  out.reserve(path.size());
  for (char c : path) {
    if (Unreserved(c) || kKept.find(c) != std::string_view::npos) {
      out.push_back(c);
    } else {
      AppendEscaped(out, c);
    }
  }
  return out;
}

std::string QueryEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (Unreserved(c)) {
      out.push_back(c);
    } else if (c == ' ') {
      out.push_back('+');
    } else {
      AppendEscaped(out, c);
    }
  }
  return out;
}

std::string Url::Describe() const {
  return StrCat(tls ? "https://" : "http://", HostHeader(), prefix);
}

std::string Url::HostHeader() const {
  const bool v6 = host.find(':') != std::string::npos;
  std::string h = v6 ? StrCat("[", host, "]") : host;
  if ((tls && port == "443") || (!tls && port == "80")) return h;
  return StrCat(h, ":", port);
}

std::string Url::Target(
    std::string_view path,
    const std::multimap<std::string, std::string>& query) const {
  std::string out = prefix + PathEscape(path);
  if (out.empty() || out[0] != '/') out.insert(out.begin(), '/');
  char sep = '?';
  for (const auto& [name, value] : query) {
    out.push_back(sep);
    sep = '&';
    StrAppend(&out, QueryEscape(name), "=", QueryEscape(value));
  }
  return out;
}

absl::StatusOr<Url> ParseServerUrl(std::string_view server) {
  Url url;
  std::string_view rest = server;
  if (rest.rfind("https://", 0) == 0) {
    url.tls = true;
    rest.remove_prefix(8);
  } else if (rest.rfind("http://", 0) == 0) {
    rest.remove_prefix(7);
  } else {
    return absl::InvalidArgumentError(
        StrCat("server \"", server, "\" is not an http:// or https:// URL"));
  }
  const size_t slash = rest.find('/');
  std::string_view hostport = rest.substr(0, slash);
  if (slash != std::string_view::npos) {
    url.prefix = std::string(rest.substr(slash));
    while (!url.prefix.empty() && url.prefix.back() == '/') {
      url.prefix.pop_back();
    }
  }
  if (hostport.find('@') != std::string_view::npos) {
    return absl::InvalidArgumentError(
        StrCat("server \"", server, "\": user info is not supported"));
  }
  std::string_view port;
  if (!hostport.empty() && hostport[0] == '[') {
    const size_t close = hostport.find(']');
    if (close == std::string_view::npos) {
      return absl::InvalidArgumentError(
          StrCat("server \"", server, "\": unterminated IPv6 address"));
    }
    url.host = std::string(hostport.substr(1, close - 1));
    std::string_view after = hostport.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') {
        return absl::InvalidArgumentError(
            StrCat("server \"", server, "\": invalid host"));
      }
      port = after.substr(1);
    }
  } else {
    const size_t colon = hostport.rfind(':');
    url.host = std::string(hostport.substr(0, colon));
    if (colon != std::string_view::npos) port = hostport.substr(colon + 1);
  }
  if (url.host.empty()) {
    return absl::InvalidArgumentError(
        StrCat("server \"", server, "\" has no host"));
  }
  for (char c : port) {
    if (c < '0' || c > '9') {
      return absl::InvalidArgumentError(
          StrCat("server \"", server, "\": invalid port"));
    }
  }
  url.port = port.empty() ? (url.tls ? "443" : "80") : std::string(port);
  return url;
}

}  // namespace draplane::client::internal

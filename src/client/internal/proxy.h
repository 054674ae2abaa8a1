// Which HTTP proxy a request to the API server goes through, as Go's
// http.ProxyFromEnvironment decides it (golang.org/x/net/http/httpproxy),
// which client-go uses unless the kubeconfig names a proxy-url.
#ifndef DRAPLANE_CLIENT_INTERNAL_PROXY_H_
#define DRAPLANE_CLIENT_INTERNAL_PROXY_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "client/internal/url.h"

namespace draplane::client::internal {

// The proxy environment: the first non-empty of each upper- and
// lower-case pair.
struct ProxyEnvironment {
  std::string https_proxy;  // HTTPS_PROXY, https_proxy
  std::string http_proxy;   // HTTP_PROXY, http_proxy
  std::string no_proxy;     // NO_PROXY, no_proxy
  // REQUEST_METHOD set: a CGI program, where HTTP_PROXY may come from a
  // request header ("httpoxy") and is ignored.
  bool cgi = false;

  static ProxyEnvironment FromProcess();
};

struct Proxy {
  std::string host;  // without brackets for IPv6
  std::string port;  // "80" when absent
  // "Basic <base64 user:password>" when the URL has user information.
  std::string authorization;
  // "http://host:port" for messages (no credentials).
  std::string Describe() const;
};

// Parses a proxy URL as httpproxy's parseProxy: "host:port" alone means
// http://host:port. Only http proxies are supported (an https or SOCKS
// proxy is InvalidArgument saying so).
absl::StatusOr<Proxy> ParseProxyUrl(std::string_view text);

// The proxy for `target` from `env`, nullopt for a direct connection:
// HTTPS_PROXY for https, HTTP_PROXY for http (not in CGI); never for
// "localhost" or a loopback address; never for a host NO_PROXY matches
// ("*"; an IP address or CIDR block; "example.com" for it and its
// subdomains, ".example.com" and "*.example.com" for subdomains only;
// an entry with ":port" for that port only).
absl::StatusOr<std::optional<Proxy>> ProxyFor(const Url& target,
                                              const ProxyEnvironment& env);

}  // namespace draplane::client::internal

#endif  // DRAPLANE_CLIENT_INTERNAL_PROXY_H_

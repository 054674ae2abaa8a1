// The API server's URL and request targets (percent-escaping as Go's
// net/url does for paths and url.Values.Encode for queries).
#ifndef DRAPLANE_CLIENT_INTERNAL_URL_H_
#define DRAPLANE_CLIENT_INTERNAL_URL_H_

#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace draplane::client::internal {

struct Url {
  bool tls = false;
  std::string host;    // without brackets for IPv6
  std::string port;    // "443"/"80" when absent
  std::string prefix;  // path prefix without a trailing '/', or ""

  // "https://host:port" for messages.
  std::string Describe() const;
  // The Host header: host[:port] (brackets for IPv6).
  std::string HostHeader() const;
  // prefix + escaped path + "?" + encoded query (sorted by name).
  std::string Target(
      std::string_view path,
      const std::multimap<std::string, std::string>& query) const;
};

// Parses "https://host[:port][/prefix]" or "http://...".
absl::StatusOr<Url> ParseServerUrl(std::string_view server);

// Escapes a path: everything but unreserved characters and
// "/:@!$&'()*+,;=" is %XX-encoded.
std::string PathEscape(std::string_view path);
// Go's url.QueryEscape: unreserved kept, space as '+', the rest %XX.
std::string QueryEscape(std::string_view s);

}  // namespace draplane::client::internal

#endif  // DRAPLANE_CLIENT_INTERNAL_URL_H_

#include "client/internal/proxy.h"

#include <algorithm>
#include <array>
#include <boost/asio/ip/address.hpp>
#include <cctype>
#include <cstdlib>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "common/str_cat.h"

namespace draplane::client::internal {
namespace {

using boost::asio::ip::address;

std::string EnvAny(const char* upper, const char* lower) {
  for (const char* name : {upper, lower}) {
    const char* v = std::getenv(name);  // NOLINT(concurrency-mt-unsafe)
    if (v != nullptr && *v != '\0') return v;
  }
  return "";
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(c));
  return out;
}

std::optional<address> ParseIp(std::string_view text) {
  boost::system::error_code ec;
  address a = boost::asio::ip::make_address(std::string(text), ec);
  if (ec) return std::nullopt;
  return a;
}

// 16 bytes, IPv4 as IPv4-mapped IPv6 (as Go's net.IP).
std::array<unsigned char, 16> Bytes16(const address& a) {
  if (a.is_v6()) return a.to_v6().to_bytes();
  return boost::asio::ip::make_address_v6(boost::asio::ip::v4_mapped, a.to_v4())
      .to_bytes();
}

struct Cidr {
  std::array<unsigned char, 16> net{};
  int bits = 0;  // of the 16-byte form
  bool Contains(const address& ip) const {
    const auto b = Bytes16(ip);
    for (int i = 0; i < bits; ++i) {
      const int byte = i / 8;
      const int mask = 0x80 >> (i % 8);
      if ((b[byte] & mask) != (net[byte] & mask)) return false;
    }
    return true;
  }
};

std::optional<Cidr> ParseCidr(std::string_view text) {
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  std::optional<address> ip = ParseIp(text.substr(0, slash));
  int bits = 0;
  if (!ip || !absl::SimpleAtoi(std::string(text.substr(slash + 1)), &bits)) {
    return std::nullopt;
  }
  const int max = ip->is_v4() ? 32 : 128;
  if (bits < 0 || bits > max) return std::nullopt;
  Cidr c;
  c.net = Bytes16(*ip);
  c.bits = ip->is_v4() ? bits + 96 : bits;
  return c;
}

// net.SplitHostPort for "host:port" and "[v6]:port"; nullopt without a
// port.
std::optional<std::pair<std::string, std::string>> SplitHostPort(
    std::string_view s) {
  if (!s.empty() && s[0] == '[') {
    const size_t close = s.find(']');
    if (close == std::string_view::npos || close + 1 >= s.size() ||
        s[close + 1] != ':') {
      return std::nullopt;
    }
    return std::make_pair(std::string(s.substr(1, close - 1)),
                          std::string(s.substr(close + 2)));
  }
  const size_t colon = s.rfind(':');
  if (colon == std::string_view::npos ||
      s.find(':') != colon) {  // none, or an IPv6 address without brackets
    return std::nullopt;
  }
  return std::make_pair(std::string(s.substr(0, colon)),
                        std::string(s.substr(colon + 1)));
}

std::string PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    int hi = 0;
    int lo = 0;
    if (s[i] == '%' && i + 2 < s.size() &&
        std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      hi = std::isdigit(static_cast<unsigned char>(s[i + 1]))
               ? s[i + 1] - '0'
               : std::tolower(s[i + 1]) - 'a' + 10;
      lo = std::isdigit(static_cast<unsigned char>(s[i + 2]))
               ? s[i + 2] - '0'
               : std::tolower(s[i + 2]) - 'a' + 10;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// NO_PROXY says no proxy for host:port (httpproxy's useProxy, after its
// localhost and loopback checks).
bool NoProxyMatches(std::string_view no_proxy, const std::string& host,
                    const std::string& port) {
  const std::optional<address> ip = ParseIp(host);
  size_t start = 0;
  while (start <= no_proxy.size()) {
    size_t comma = no_proxy.find(',', start);
    if (comma == std::string_view::npos) comma = no_proxy.size();
    const std::string p = Lower(std::string(absl::StripAsciiWhitespace(
        absl::string_view(no_proxy.data() + start, comma - start))));
    start = comma + 1;
    if (p.empty()) continue;
    if (p == "*") return true;
    if (std::optional<Cidr> cidr = ParseCidr(p)) {
      if (ip && cidr->Contains(*ip)) return true;
      continue;
    }
    std::string phost = p;
    std::string pport;
    if (auto hp = SplitHostPort(p)) {
      if (hp->first.empty()) continue;
      phost = hp->first;
      pport = hp->second;
    }
    if (std::optional<address> pip = ParseIp(phost)) {
      if (ip && Bytes16(*ip) == Bytes16(*pip) &&
          (pport.empty() || pport == port)) {
        return true;
      }
      continue;
    }
    if (phost.empty()) continue;
    if (phost.rfind("*.", 0) == 0) phost = phost.substr(1);
    bool match_host = false;
    if (phost[0] != '.') {
      match_host = true;
      phost.insert(0, ".");
    }
    const bool suffix =
        host.size() >= phost.size() &&
        host.compare(host.size() - phost.size(), phost.size(), phost) == 0;
    if ((suffix || (match_host && host == phost.substr(1))) &&
        (pport.empty() || pport == port)) {
      return true;
    }
  }
  return false;
}

}  // namespace

ProxyEnvironment ProxyEnvironment::FromProcess() {
  ProxyEnvironment env;
  env.https_proxy = EnvAny("HTTPS_PROXY", "https_proxy");
  env.http_proxy = EnvAny("HTTP_PROXY", "http_proxy");
  env.no_proxy = EnvAny("NO_PROXY", "no_proxy");
  const char* method = std::getenv("REQUEST_METHOD");  // NOLINT
  env.cgi = method != nullptr && *method != '\0';
  return env;
}

std::string Proxy::Describe() const {
  const bool v6 = host.find(':') != std::string::npos;
  return StrCat("http://", v6 ? "[" : "", host, v6 ? "]" : "", ":", port);
}

absl::StatusOr<Proxy> ParseProxyUrl(std::string_view text) {
  std::string_view rest = text;
  std::string scheme = "http";
  const size_t sep = rest.find("://");
  if (sep != std::string_view::npos) {
    scheme = Lower(rest.substr(0, sep));
    rest.remove_prefix(sep + 3);
  }
  if (scheme != "http") {
    return absl::InvalidArgumentError(
        StrCat("proxy \"", text, "\": scheme ", scheme,
               " is not supported (draplane's client tunnels through http:// "
               "proxies only)"));
  }
  rest = rest.substr(0, rest.find_first_of("/?#"));
  Proxy proxy;
  const size_t at = rest.rfind('@');
  if (at != std::string_view::npos) {
    const std::string_view userinfo = rest.substr(0, at);
    rest.remove_prefix(at + 1);
    const size_t colon = userinfo.find(':');
    const std::string user = PercentDecode(userinfo.substr(0, colon));
    const std::string password =
        colon == std::string_view::npos
            ? ""
            : PercentDecode(userinfo.substr(colon + 1));
    std::string b64;
    absl::Base64Escape(StrCat(user, ":", password), &b64);
    proxy.authorization = StrCat("Basic ", b64);
  }
  if (auto hp = SplitHostPort(rest)) {
    proxy.host = hp->first;
    proxy.port = hp->second;
  } else {
    proxy.host = std::string(rest);
    if (!proxy.host.empty() && proxy.host.front() == '[' &&
        proxy.host.back() == ']') {
      proxy.host = proxy.host.substr(1, proxy.host.size() - 2);
    }
    proxy.port = "80";
  }
  int port = 0;
  if (proxy.host.empty() || !absl::SimpleAtoi(proxy.port, &port) || port <= 0 ||
      port > 65535) {
    return absl::InvalidArgumentError(
        StrCat("invalid proxy address \"", text, "\""));
  }
  return proxy;
}

absl::StatusOr<std::optional<Proxy>> ProxyFor(const Url& target,
                                              const ProxyEnvironment& env) {
  const std::string& value = target.tls ? env.https_proxy : env.http_proxy;
  if (value.empty()) return std::optional<Proxy>();
  if (!target.tls && env.cgi) {
    return absl::FailedPreconditionError(
        "refusing to use HTTP_PROXY value in CGI environment; see "
        "golang.org/s/cgihttpproxy");
  }
  const std::string host = Lower(target.host);
  if (host == "localhost") return std::optional<Proxy>();
  if (std::optional<address> ip = ParseIp(host); ip && ip->is_loopback()) {
    return std::optional<Proxy>();
  }
  if (std::optional<address> ip = ParseIp(host);
      ip && ip->is_v6() && ip->to_v6().is_v4_mapped() &&
      boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, ip->to_v6())
          .is_loopback()) {
    return std::optional<Proxy>();
  }
  if (NoProxyMatches(env.no_proxy, host, target.port)) {
    return std::optional<Proxy>();
  }
  auto proxy = ParseProxyUrl(value);
  if (!proxy.ok()) return proxy.status();
  return std::optional<Proxy>(*std::move(proxy));
}

}  // namespace draplane::client::internal

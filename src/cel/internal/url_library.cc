#include "cel/internal/url_library.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cel/internal/library_support.h"
#include "cel/internal/network_library.h"
#include "common/go_strconv.h"
#include "common/str_cat.h"

namespace draplane::cel::internal {
namespace {

using K = ValueKind;
using Args = absl::Span<const Value>;

// --- UTF-8 ---

// Text that percent-decoding may have left as invalid UTF-8 (Go strings
// may hold any bytes, CEL strings may not), made valid: each byte that does
// not start a valid sequence becomes U+FFFD.
std::string SanitizeUtf8(std::string text) {
  if (IsValidUtf8(text)) return text;
  std::string out;
  for (size_t i = 0; i < text.size();) {
    char32_t r;
    size_t n = DecodeRune(text, i, &r);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(text, i, n);
      i += n;
    }
  }
  return out;
}

Value TextValue(std::string text) {
  return Value::String(SanitizeUtf8(std::move(text)));
}

// --- net/url escaping (Go src/net/url/url.go) ---

enum Mode : uint8_t {
  kPath,
  kPathSegment,
  kHost,
  kZone,
  kUserPassword,
  kQueryComponent,
  kFragment,
};

bool IsAlnum(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9');
}

// net/url shouldEscape (the reference version in gen_encoding_table.go).
bool ShouldEscape(unsigned char c, Mode mode) {
  if (IsAlnum(c)) return false;
  if (mode == kHost || mode == kZone) {
    switch (c) {
      case '!':
      case '$':
      case '&':
      case '\'':
      case '(':
      case ')':
      case '*':
      case '+':
      case ',':
      case ';':
      case '=':
      case ':':
      case '[':
      case ']':
      case '<':
      case '>':
      case '"':
        return false;
    }
  }
  switch (c) {
    case '-':
    case '_':
    case '.':
    case '~':
      return false;
    case '$':
    case '&':
    case '+':
    case ',':
    case '/':
    case ':':
    case ';':
    case '=':
    case '?':
    case '@':
      switch (mode) {
        case kPath:
          return c == '?';
        case kPathSegment:
          return c == '/' || c == ';' || c == ',' || c == '?';
        case kUserPassword:
          return c == '@' || c == '/' || c == '?' || c == ':';
        case kQueryComponent:
          return true;
        case kFragment:
          return false;
        default:
          break;
      }
  }
  if (mode == kFragment) {
    switch (c) {
      case '!':
      case '(':
      case ')':
      case '*':
        return false;
    }
  }
  return true;
}

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
         (c >= 'A' && c <= 'F');
}

unsigned char Unhex(char c) {
  if (c >= '0' && c <= '9') return static_cast<unsigned char>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<unsigned char>(c - 'a' + 10);
  return static_cast<unsigned char>(c - 'A' + 10);
}

// net/url unescape. On failure returns false with Go's error text.
bool Unescape(std::string_view s, Mode mode, std::string* out,
              std::string* error) {
  size_t percents = 0;
  bool has_plus = false;
  for (size_t i = 0; i < s.size();) {
    switch (s[i]) {
      case '%': {
        ++percents;
        if (i + 2 >= s.size() || !IsHex(s[i + 1]) || !IsHex(s[i + 2])) {
          *error = StrCat("invalid URL escape ", StrconvQuote(s.substr(i, 3)));
          return false;
        }
        std::string_view escape = s.substr(i, 3);
        if (mode == kHost && Unhex(s[i + 1]) < 8 && escape != "%25") {
          *error = StrCat("invalid URL escape ", StrconvQuote(escape));
          return false;
        }
        if (mode == kZone) {
          unsigned char v = static_cast<unsigned char>(Unhex(s[i + 1]) << 4 |
                                                       Unhex(s[i + 2]));
          if (escape != "%25" && v != ' ' && ShouldEscape(v, kHost)) {
            *error = StrCat("invalid URL escape ", StrconvQuote(escape));
            return false;
          }
        }
        i += 3;
        break;
      }
      case '+':
        has_plus = mode == kQueryComponent;
        ++i;
        break;
      default:
        if ((mode == kHost || mode == kZone) &&
            static_cast<unsigned char>(s[i]) < 0x80 &&
            ShouldEscape(static_cast<unsigned char>(s[i]), mode)) {
          *error = StrCat("invalid character ", StrconvQuote(s.substr(i, 1)),
                          " in host name");
          return false;
        }
        ++i;
    }
  }
  if (percents == 0 && !has_plus) {
    out->assign(s);
    return true;
  }
  out->clear();
  out->reserve(s.size() - 2 * percents);
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      out->push_back(static_cast<char>(Unhex(s[i + 1]) << 4 | Unhex(s[i + 2])));
      i += 2;
    } else if (s[i] == '+') {
      out->push_back(mode == kQueryComponent ? ' ' : '+');
    } else {
      out->push_back(s[i]);
    }
  }
  return true;
}

std::string Escape(std::string_view s, Mode mode) {
  static constexpr char kUpperHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (!ShouldEscape(c, mode)) {
      out.push_back(ch);
    } else if (c == ' ' && mode == kQueryComponent) {
      out.push_back('+');
    } else {
      out.push_back('%');
      out.push_back(kUpperHex[c >> 4]);
      out.push_back(kUpperHex[c & 15]);
    }
  }
  return out;
}

// validEncoded: whether `s` needs no escaping beyond its %-escapes.
bool ValidEncoded(std::string_view s, Mode mode) {
  for (char ch : s) {
    switch (ch) {
      case '!':
      case '$':
      case '&':
      case '\'':
      case '(':
      case ')':
      case '*':
      case '+':
      case ',':
      case ';':
      case '=':
      case ':':
      case '@':
      case '[':
      case ']':
      case '%':
        break;
      default:
        if (ShouldEscape(static_cast<unsigned char>(ch), mode)) return false;
    }
  }
  return true;
}

// validOptionalPort: "" or ":" followed by decimal digits.
bool ValidOptionalPort(std::string_view port) {
  if (port.empty()) return true;
  if (port[0] != ':') return false;
  for (char c : port.substr(1)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// --- net/url URL ---

struct GoUrl {
  std::string scheme;
  std::string opaque;
  bool has_user = false;
  std::string username;
  std::string password;
  bool password_set = false;
  std::string host;
  std::string path;
  std::string raw_path;
  bool omit_host = false;
  bool force_query = false;
  std::string raw_query;
  std::string fragment;
  std::string raw_fragment;
};

// getScheme: splits "scheme:rest"; false (with Go's error) for ":rest".
bool SplitScheme(std::string_view raw, std::string_view* scheme,
                 std::string_view* rest, std::string* error) {
  *scheme = {};
  *rest = raw;
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) continue;
    if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
      if (i == 0) return true;
      continue;
    }
    if (c == ':') {
      if (i == 0) {
        *error = "missing protocol scheme";
        return false;
      }
      *scheme = raw.substr(0, i);
      *rest = raw.substr(i + 1);
    }
    return true;
  }
  return true;
}

bool ParseHost(std::string_view scheme, std::string_view host, std::string* out,
               std::string* error) {
  size_t open = host.rfind('[');
  if (open != std::string_view::npos && open > 0) {
    *error = "invalid IP-literal";
    return false;
  }
  if (open == 0) {
    size_t close = host.rfind(']');
    if (close == std::string_view::npos) {
      *error = "missing ']' in host";
      return false;
    }
    std::string_view colon_port = host.substr(close + 1);
    if (!ValidOptionalPort(colon_port)) {
      *error = StrCat("invalid port ", StrconvQuote(colon_port), " after host");
      return false;
    }
    std::string port;
    if (!Unescape(colon_port, kHost, &port, error)) return false;
    std::string_view hostname = host.substr(1, close - 1);
    std::string unescaped;
    size_t zone = hostname.find("%25");
    if (zone != std::string_view::npos) {
      std::string host_part, zone_part;
      if (!Unescape(hostname.substr(0, zone), kHost, &host_part, error) ||
          !Unescape(hostname.substr(zone), kZone, &zone_part, error)) {
        return false;
      }
      unescaped = host_part + zone_part;
    } else if (!Unescape(hostname, kHost, &unescaped, error)) {
      return false;
    }
    absl::StatusOr<IPAddress> addr = ParseIPAddress(unescaped);
    if (!addr.ok()) {
      *error = StrCat("invalid host: ", std::string(addr.status().message()));
      return false;
    }
    if (addr->is4) {
      *error = "invalid IP-literal";
      return false;
    }
    *out = StrCat("[", unescaped, "]", port);
    return true;
  }
  if (size_t i = host.find(':'); i != std::string_view::npos) {
    size_t last = host.rfind(':');
    // Go 1.26 (urlstrictcolons): several colons are tolerated, the last
    // one starting the port, except for http and https.
    if (last != i && scheme != "http" && scheme != "https") i = last;
    std::string_view colon_port = host.substr(i);
    if (!ValidOptionalPort(colon_port)) {
      *error = StrCat("invalid port ", StrconvQuote(colon_port), " after host");
      return false;
    }
  }
  return Unescape(host, kHost, out, error);
}

bool ValidUserinfo(std::string_view s) {
  for (char c : s) {
    if (IsAlnum(static_cast<unsigned char>(c))) continue;
    switch (c) {
      case '-':
      case '.':
      case '_':
      case ':':
      case '~':
      case '!':
      case '$':
      case '&':
      case '\'':
      case '(':
      case ')':
      case '*':
      case '+':
      case ',':
      case ';':
      case '=':
      case '%':
      case '@':
        continue;
      default:
        return false;
    }
  }
  return true;
}

bool ParseAuthority(std::string_view scheme, std::string_view authority,
                    GoUrl* u, std::string* error) {
  size_t at = authority.rfind('@');
  std::string_view host_port =
      at == std::string_view::npos ? authority : authority.substr(at + 1);
  if (!ParseHost(scheme, host_port, &u->host, error)) return false;
  if (at == std::string_view::npos) return true;
  std::string_view userinfo = authority.substr(0, at);
  if (!ValidUserinfo(userinfo)) {
    *error = "net/url: invalid userinfo";
    return false;
  }
  u->has_user = true;
  size_t colon = userinfo.find(':');
  if (colon == std::string_view::npos) {
    return Unescape(userinfo, kUserPassword, &u->username, error);
  }
  u->password_set = true;
  return Unescape(userinfo.substr(0, colon), kUserPassword, &u->username,
                  error) &&
         Unescape(userinfo.substr(colon + 1), kUserPassword, &u->password,
                  error);
}

bool SetPath(std::string_view p, GoUrl* u, std::string* error) {
  if (!Unescape(p, kPath, &u->path, error)) return false;
  u->raw_path = Escape(u->path, kPath) == p ? "" : std::string(p);
  return true;
}

// net/url parse(rawURL, viaRequest).
bool ParseUrl(std::string_view raw, bool via_request, GoUrl* u,
              std::string* error) {
  for (char c : raw) {
    if (static_cast<unsigned char>(c) < ' ' || c == 0x7F) {
      *error = "net/url: invalid control character in URL";
      return false;
    }
  }
  if (raw.empty() && via_request) {
    *error = "empty url";
    return false;
  }
  if (raw == "*") {
    u->path = "*";
    return true;
  }
  std::string_view scheme, rest;
  if (!SplitScheme(raw, &scheme, &rest, error)) return false;
  u->scheme.assign(scheme);
  for (char& c : u->scheme) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  size_t q = rest.find('?');
  if (!rest.empty() && rest.back() == '?' && q == rest.size() - 1) {
    u->force_query = true;
    rest.remove_suffix(1);
  } else if (q != std::string_view::npos) {
    u->raw_query.assign(rest.substr(q + 1));
    rest = rest.substr(0, q);
  }
  const bool slash = !rest.empty() && rest[0] == '/';
  if (!slash) {
    if (!u->scheme.empty()) {
      u->opaque.assign(rest);
      return true;
    }
    if (via_request) {
      *error = "invalid URI for request";
      return false;
    }
    std::string_view segment = rest.substr(0, rest.find('/'));
    if (segment.find(':') != std::string_view::npos) {
      *error = "first path segment in URL cannot contain colon";
      return false;
    }
  }
  const bool double_slash = rest.substr(0, 2) == "//";
  const bool triple_slash = rest.substr(0, 3) == "///";
  if ((!u->scheme.empty() || (!via_request && !triple_slash)) && double_slash) {
    std::string_view authority = rest.substr(2);
    rest = {};
    if (size_t i = authority.find('/'); i != std::string_view::npos) {
      rest = authority.substr(i);
      authority = authority.substr(0, i);
    }
    if (!ParseAuthority(u->scheme, authority, u, error)) return false;
  } else if (!u->scheme.empty() && slash) {
    u->omit_host = true;
  }
  return SetPath(rest, u, error);
}

std::string ParseError(std::string_view url, std::string_view error) {
  return StrCat("parse ", StrconvQuote(url), ": ", error);
}

// url.ParseRequestURI: true, or false with the *url.Error text.
bool ParseRequestUri(std::string_view raw, GoUrl* u, std::string* error) {
  std::string err;
  if (!ParseUrl(raw, true, u, &err)) {
    *error = ParseError(raw, err);
    return false;
  }
  return true;
}

// url.Parse: as parse(rawURL, false) with the #fragment split off first.
bool ParseFull(std::string_view raw, GoUrl* u, std::string* error) {
  size_t hash = raw.find('#');
  std::string_view before = raw.substr(0, hash);
  std::string err;
  if (!ParseUrl(before, false, u, &err)) {
    *error = ParseError(before, err);
    return false;
  }
  if (hash == std::string_view::npos || hash + 1 == raw.size()) return true;
  std::string_view frag = raw.substr(hash + 1);
  if (!Unescape(frag, kFragment, &u->fragment, &err)) {
    *error = ParseError(raw, err);
    return false;
  }
  u->raw_fragment =
      Escape(u->fragment, kFragment) == frag ? "" : std::string(frag);
  return true;
}

std::string EscapedPath(const GoUrl& u) {
  if (!u.raw_path.empty() && ValidEncoded(u.raw_path, kPath)) {
    std::string p, err;
    if (Unescape(u.raw_path, kPath, &p, &err) && p == u.path) {
      return u.raw_path;
    }
  }
  if (u.path == "*") return "*";
  return Escape(u.path, kPath);
}

std::string EscapedFragment(const GoUrl& u) {
  if (!u.raw_fragment.empty() && ValidEncoded(u.raw_fragment, kFragment)) {
    std::string f, err;
    if (Unescape(u.raw_fragment, kFragment, &f, &err) && f == u.fragment) {
      return u.raw_fragment;
    }
  }
  return Escape(u.fragment, kFragment);
}

// url.URL.String.
std::string ToString(const GoUrl& u) {
  std::string buf;
  if (!u.scheme.empty()) {
    buf += u.scheme;
    buf += ':';
  }
  if (!u.opaque.empty()) {
    buf += u.opaque;
  } else {
    if (!u.scheme.empty() || !u.host.empty() || u.has_user) {
      if (!(u.omit_host && u.host.empty() && !u.has_user)) {
        if (!u.host.empty() || !u.path.empty() || u.has_user) buf += "//";
        if (u.has_user) {
          buf += Escape(u.username, kUserPassword);
          if (u.password_set) {
            buf += ':';
            buf += Escape(u.password, kUserPassword);
          }
          buf += '@';
        }
        if (!u.host.empty()) buf += Escape(u.host, kHost);
      }
    }
    std::string path = EscapedPath(u);
    if (!path.empty() && path[0] != '/' && !u.host.empty()) buf += '/';
    if (buf.empty()) {
      std::string_view segment =
          std::string_view(path).substr(0, path.find('/'));
      if (segment.find(':') != std::string_view::npos) buf += "./";
    }
    buf += path;
  }
  if (u.force_query || !u.raw_query.empty()) {
    buf += '?';
    buf += u.raw_query;
  }
  if (!u.fragment.empty()) {
    buf += '#';
    buf += EscapedFragment(u);
  }
  return buf;
}

// splitHostPort: the host without a valid ":port" and without brackets.
std::pair<std::string_view, std::string_view> SplitHostPort(
    std::string_view host_port) {
  std::string_view host = host_port, port;
  size_t colon = host.rfind(':');
  if (colon != std::string_view::npos &&
      ValidOptionalPort(host.substr(colon))) {
    port = host.substr(colon + 1);
    host = host.substr(0, colon);
  }
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return {host, port};
}

// url.URL.Query: parseQuery, dropping malformed pairs; more than 10000
// parameters give no values at all (Go's default urlmaxqueryparams).
Value Query(const GoUrl& u) {
  std::string_view query = u.raw_query;
  size_t params = 1;
  for (char c : query) params += c == '&';
  std::vector<std::string> keys;
  std::unordered_map<std::string, std::vector<Value>> values;
  if (params <= 10000) {
    while (!query.empty()) {
      size_t amp = query.find('&');
      std::string_view pair = query.substr(0, amp);
      query = amp == std::string_view::npos ? std::string_view()
                                            : query.substr(amp + 1);
      if (pair.find(';') != std::string_view::npos || pair.empty()) continue;
      size_t eq = pair.find('=');
      std::string key, value, err;
      if (!Unescape(pair.substr(0, eq), kQueryComponent, &key, &err)) continue;
      std::string_view raw_value = eq == std::string_view::npos
                                       ? std::string_view()
                                       : pair.substr(eq + 1);
      if (!Unescape(raw_value, kQueryComponent, &value, &err)) continue;
      key = SanitizeUtf8(std::move(key));
      auto [it, inserted] = values.try_emplace(key);
      if (inserted) keys.push_back(key);
      it->second.push_back(TextValue(std::move(value)));
    }
  }
  std::vector<std::pair<Value, Value>> entries;
  entries.reserve(keys.size());
  for (std::string& key : keys) {
    std::vector<Value> list = std::move(values[key]);
    entries.emplace_back(Value::String(std::move(key)),
                         Value::List(std::move(list)));
  }
  return Value::Map(std::move(entries));
}

// Not a TypedOpaque: two URLs are equal when their url.URL.String() forms
// are (as upstream's Equal), which is kept beside the parsed URL.
class UrlObject final : public OpaqueValue {
 public:
  explicit UrlObject(GoUrl url) : url_(std::move(url)), text_(ToString(url_)) {}
  std::string_view TypeName() const override { return kUrlTypeName; }
  bool Equals(const OpaqueValue& other) const override {
    return text_ == static_cast<const UrlObject&>(other).text_;
  }
  std::string DebugString() const override { return text_; }
  const GoUrl& url() const { return url_; }
  const std::string& text() const { return text_; }

 private:
  GoUrl url_;
  std::string text_;  // url.URL.String()
};

const GoUrl& UrlOf(const Value& v) {
  return static_cast<const UrlObject&>(v.opaque()).url();
}

uint64_t CostUrl(Args args, const Value&) {
  return static_cast<uint64_t>(
      std::ceil(static_cast<double>(CostSize(args[0])) * 0.1));
}

}  // namespace

Value UrlValue(std::string_view text) {
  GoUrl check, url;
  std::string error;
  // ParseRequestURI decides validity; url.Parse gives the value (it splits
  // off a #fragment, which ParseRequestURI keeps in the path or query).
  if (!ParseRequestUri(text, &check, &error) ||
      !ParseFull(text, &url, &error)) {
    return Value::Error(
        StrCat("URL parse error during conversion from string: ", error));
  }
  return Value::Opaque(new UrlObject(std::move(url)));
}

std::optional<std::string> RequestUriError(std::string_view text) {
  GoUrl u;
  std::string error;
  if (ParseRequestUri(text, &u, &error)) return std::nullopt;
  return error;
}

std::string UrlString(const Value& value) {
  return static_cast<const UrlObject&>(value.opaque()).text();
}

absl::Status RegisterUrlFunctions(FunctionRegistry* registry) {
  const ArgType str = ArgType::Of(K::kString);
  const ArgType url = ArgType::Opaque(kUrlTypeName);
  std::vector<FunctionOverload> o;
  o.push_back(Overload(
      "url", "string_to_url", false, str,
      [](Args a) { return UrlValue(a[0].string_value()); }, CostUrl));
  o.push_back(Overload("isURL", "is_url_string", false, str, [](Args a) {
    GoUrl u;
    std::string error;
    return Value::Bool(ParseRequestUri(a[0].string_value(), &u, &error));
  }));
  o.push_back(Overload("getScheme", "url_get_scheme", true, url, [](Args a) {
    return Value::String(UrlOf(a[0]).scheme);
  }));
  o.push_back(Overload("getHost", "url_get_host", true, url,
                       [](Args a) { return TextValue(UrlOf(a[0]).host); }));
  o.push_back(
      Overload("getHostname", "url_get_hostname", true, url, [](Args a) {
        return TextValue(std::string(SplitHostPort(UrlOf(a[0]).host).first));
      }));
  o.push_back(Overload("getPort", "url_get_port", true, url, [](Args a) {
    return Value::String(std::string(SplitHostPort(UrlOf(a[0]).host).second));
  }));
  o.push_back(
      Overload("getEscapedPath", "url_get_escaped_path", true, url,
               [](Args a) { return Value::String(EscapedPath(UrlOf(a[0]))); }));
  o.push_back(Overload("getQuery", "url_get_query", true, url,
                       [](Args a) { return Query(UrlOf(a[0])); }));
  for (FunctionOverload& overload : o) {
    absl::Status s = registry->Register(std::move(overload));
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace draplane::cel::internal

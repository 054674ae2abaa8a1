#include "apiserver/internal/impersonation.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "apiserver/internal/api_errors.h"
#include "common/go_strconv.h"
#include "common/name_validation.h"
#include "common/str_cat.h"
#include "common/str_split.h"

namespace draplane::apiserver::internal {
namespace {

constexpr char kUserHeader[] = "impersonate-user";
constexpr char kUidHeader[] = "impersonate-uid";
constexpr char kGroupHeader[] = "impersonate-group";
constexpr std::string_view kExtraPrefix = "impersonate-extra-";
constexpr char kAuthenticationGroup[] = "authentication.k8s.io";
// Beyond this many checks a constrained mode first tries a wildcard one.
constexpr size_t kManyChecks = 4;
// Beyond upstream: each impersonated group or extra value costs an
// authorization check, so one request may ask for at most this many.
constexpr size_t kMaxImpersonatedValues = 100;

// The values of a header sent once or more (the HTTP server joins repeats
// with '\n').
std::vector<std::string> Values(const http::HttpRequest& req,
                                const std::string& name) {
  std::vector<std::string> out;
  auto it = req.headers.find(name);
  if (it == req.headers.end()) return out;
  for (std::string_view v : StrSplit(it->second, '\n')) out.emplace_back(v);
  return out;
}

// url.PathUnescape; the key as it is when it does not unescape.
std::string UnescapeExtraKey(const std::string& key) {
  std::string out;
  for (size_t i = 0; i < key.size(); ++i) {
    if (key[i] != '%') {
      out += key[i];
      continue;
    }
    if (i + 2 >= key.size() ||
        !std::isxdigit(static_cast<unsigned char>(key[i + 1])) ||
        !std::isxdigit(static_cast<unsigned char>(key[i + 2]))) {
      return key;
    }
    out += static_cast<char>(std::stoi(key.substr(i + 1, 2), nullptr, 16));
    i += 2;
  }
  return out;
}

std::optional<std::string> NodeName(const std::string& username) {
  constexpr std::string_view kPrefix = "system:node:";
  if (username.rfind(kPrefix, 0) != 0) return std::nullopt;
  std::string name = username.substr(kPrefix.size());
  if (!name_validation::NameIsDNSSubdomain(name, false).empty()) {
    return std::nullopt;
  }
  return name;
}

// serviceaccount.SplitUsername.
std::optional<std::pair<std::string, std::string>> ServiceAccount(
    const std::string& username) {
  constexpr std::string_view kPrefix = "system:serviceaccount:";
  if (username.rfind(kPrefix, 0) != 0) return std::nullopt;
  std::vector<std::string_view> parts =
      StrSplit(std::string_view(username).substr(kPrefix.size()), ':');
  if (parts.size() != 2) return std::nullopt;
  std::string ns(parts[0]);
  std::string name(parts[1]);
  if (!name_validation::NameIsDNSLabel(ns, false).empty() ||
      !name_validation::NameIsDNSSubdomain(name, false).empty()) {
    return std::nullopt;
  }
  return std::make_pair(std::move(ns), std::move(name));
}

bool OnlyUsernameSet(const auth::UserInfo& u) {
  return u.uid.empty() && u.groups.empty() && u.extra.empty();
}

void EnsureGroup(auth::UserInfo& u, std::string_view group) {
  if (!u.InGroup(group)) u.groups.emplace_back(group);
}

// checkAuthorization: OK, or the 403 of `a` with the authorizer's reason.
absl::Status Check(const auth::Authorizer& authorizer,
                   const auth::RequestAttributes& a) {
  const auth::Authorization d = authorizer.Authorize(a);
  if (d.decision == auth::Decision::kAllow) return absl::OkStatus();
  return RequestForbidden(a, d.reason);
}

auth::RequestAttributes Attributes(const auth::UserInfo& requestor,
                                   std::string verb, std::string group,
                                   std::string resource, std::string name) {
  auth::RequestAttributes a;
  a.user = requestor;
  a.verb = std::move(verb);
  a.resource_request = true;
  a.api_group = std::move(group);
  a.api_version = "v1";
  a.resource = std::move(resource);
  a.name = std::move(name);
  return a;
}

// impersonationModeState.check: `verb` is "impersonate" (legacy) or
// "impersonate:<mode>".
absl::StatusOr<auth::UserInfo> CheckFields(const auth::Authorizer& authorizer,
                                           const auth::UserInfo& requestor,
                                           const auth::UserInfo& wanted,
                                           const std::string& verb,
                                           bool constrained) {
  const std::string user_group = constrained ? kAuthenticationGroup : "";
  auth::UserInfo actual = wanted;
  auth::RequestAttributes user =
      Attributes(requestor, verb, user_group, "users", wanted.name);
  if (constrained) {
    if (auto node = NodeName(wanted.name)) {
      user.resource = "nodes";
      user.name = *node;
      actual.groups = {std::string(auth::kNodesGroup)};
    }
  }
  if (auto sa = ServiceAccount(wanted.name)) {
    user.resource = "serviceaccounts";
    user.namespace_ = sa->first;
    user.name = sa->second;
    if (wanted.groups.empty()) {
      actual.groups = {"system:serviceaccounts",
                       StrCat("system:serviceaccounts:", sa->first)};
    }
  }
  if (auto s = Check(authorizer, user); !s.ok()) return s;
  if (!wanted.uid.empty()) {
    if (auto s =
            Check(authorizer, Attributes(requestor, verb, kAuthenticationGroup,
                                         "uids", wanted.uid));
        !s.ok()) {
      return s;
    }
  }
  if (!wanted.groups.empty()) {
    auth::RequestAttributes groups =
        Attributes(requestor, verb, user_group, "groups", "");
    bool all = false;
    if (constrained) {
      if (wanted.InGroup("")) {
        return RequestForbidden(groups,
                                "impersonating the empty string group "
                                "is not allowed");
      }
      if (wanted.InGroup(auth::kSystemPrivilegedGroup)) {
        groups.name = std::string(auth::kSystemPrivilegedGroup);
        return RequestForbidden(groups,
                                "impersonating the system:masters "
                                "group is not allowed");
      }
      if (wanted.groups.size() >= kManyChecks) {
        groups.name = "*";
        all = Check(authorizer, groups).ok();
      }
    }
    for (size_t i = 0; !all && i < wanted.groups.size(); ++i) {
      groups.name = wanted.groups[i];
      if (auto s = Check(authorizer, groups); !s.ok()) return s;
    }
  }
  if (!wanted.extra.empty()) {
    auth::RequestAttributes extras =
        Attributes(requestor, verb, kAuthenticationGroup, "userextras", "");
    bool all = false;
    if (constrained) {
      size_t count = 0;
      for (const auto& [key, values] : wanted.extra) {
        std::string problem;
        if (key.empty()) {
          problem =
              "impersonating the empty string key in extra is not "
              "allowed";
        } else if (key.find('/') == std::string::npos ||
                   !name_validation::NameIsDNSSubdomain(
                        key.substr(0, key.find('/')), false)
                        .empty()) {
          problem = StrCat(
              "impersonating an invalid key in extra is not "
              "allowed: extra.key: Invalid value: ",
              StrconvQuote(key),
              ": must be a domain-prefixed path (such as "
              "\"acme.io/foo\")");
        } else if (values.empty()) {
          problem = "impersonating empty values in extra is not allowed";
        } else if (std::find(values.begin(), values.end(), "") !=
                   values.end()) {
          problem =
              "impersonating the empty string value in extra is not "
              "allowed";
        }
        if (!problem.empty()) return RequestForbidden(extras, problem);
        count += values.size();
      }
      if (wanted.extra.size() >= kManyChecks || count >= kManyChecks) {
        extras.subresource = "*";
        extras.name = "*";
        all = Check(authorizer, extras).ok();
      }
    }
    for (auto it = wanted.extra.begin(); !all && it != wanted.extra.end();
         ++it) {
      extras.subresource = it->first;
      for (const std::string& value : it->second) {
        extras.name = value;
        if (auto s = Check(authorizer, extras); !s.ok()) return s;
      }
    }
  }
  if (actual.name == auth::kAnonymousUser) {
    EnsureGroup(actual, auth::kAllUnauthenticated);
  } else if (!actual.InGroup(auth::kAllUnauthenticated)) {
    EnsureGroup(actual, auth::kAllAuthenticated);
  }
  return actual;
}

// %#v of the wanted user, as upstream's 400 prints it.
std::string GoString(const auth::UserInfo& u) {
  std::string groups = "[]string(nil)";
  if (!u.groups.empty()) {
    groups = "[]string{";
    for (size_t i = 0; i < u.groups.size(); ++i) {
      StrAppend(&groups, i ? ", " : "", StrconvQuote(u.groups[i]));
    }
    groups += "}";
  }
  return StrCat("&user.DefaultInfo{Name:", StrconvQuote(u.name),
                ", UID:", StrconvQuote(u.uid), ", Groups:", groups,
                ", Extra:map[string][]string",
                u.extra.empty() ? "(nil)" : "{...}", "}");
}

}  // namespace

absl::StatusOr<auth::UserInfo> Impersonate(
    const http::HttpRequest& req, const auth::RequestAttributes& request,
    const auth::Authorizer& authorizer) {
  auth::UserInfo wanted;
  const std::vector<std::string> users = Values(req, kUserHeader);
  if (!users.empty()) wanted.name = users.front();
  const std::vector<std::string> uids = Values(req, kUidHeader);
  if (!uids.empty()) wanted.uid = uids.front();
  wanted.groups = Values(req, kGroupHeader);
  for (const auto& [name, value] : req.headers) {
    if (name.rfind(kExtraPrefix, 0) != 0) continue;
    std::vector<std::string>& values =
        wanted.extra[UnescapeExtraKey(name.substr(kExtraPrefix.size()))];
    for (std::string_view v : StrSplit(value, '\n')) values.emplace_back(v);
  }
  size_t values = wanted.groups.size();
  for (const auto& [key, v] : wanted.extra) values += v.size();
  if (values > kMaxImpersonatedValues) {
    return BadRequest(StrCat("impersonating more than ", kMaxImpersonatedValues,
                             " groups and extra values in one request is not "
                             "allowed"));
  }
  if (wanted.name.empty()) {
    if (!wanted.uid.empty() || !wanted.groups.empty() ||
        !wanted.extra.empty()) {
      return BadRequest(StrCat("requested ", GoString(wanted),
                               " without impersonating a user name"));
    }
    return request.user;
  }
  const auth::UserInfo& requestor = request.user;
  const bool only_name = OnlyUsernameSet(wanted);
  const bool node = NodeName(wanted.name).has_value();
  const bool service_account = ServiceAccount(wanted.name).has_value();
  struct Mode {
    const char* name;
    bool applies;
  };
  const Mode modes[] = {
      {"arbitrary-node", only_name && node},
      {"serviceaccount", only_name && service_account},
      {"user-info", !node && !service_account},
  };
  std::optional<absl::Status> first_error;
  for (const Mode& mode : modes) {
    if (!mode.applies) continue;
    auth::RequestAttributes on = request;
    on.verb = StrCat("impersonate-on:", mode.name, ":", request.verb);
    const absl::Status allowed = Check(authorizer, on);
    absl::StatusOr<auth::UserInfo> user =
        allowed.ok() ? CheckFields(authorizer, requestor, wanted,
                                   StrCat("impersonate:", mode.name), true)
                     : absl::StatusOr<auth::UserInfo>(allowed);
    if (user.ok()) return user;
    if (!first_error) first_error = user.status();
  }
  absl::StatusOr<auth::UserInfo> legacy =
      CheckFields(authorizer, requestor, wanted, "impersonate", false);
  if (legacy.ok()) return legacy;
  return first_error ? *first_error : legacy.status();
}

}  // namespace draplane::apiserver::internal

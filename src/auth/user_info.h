// Who a request acts as: k8s.io/apiserver's user.Info, and the well-known
// names upstream gives users and groups.
#ifndef DRAPLANE_AUTH_USER_INFO_H_
#define DRAPLANE_AUTH_USER_INFO_H_

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace draplane::auth {

inline constexpr std::string_view kAnonymousUser = "system:anonymous";
inline constexpr std::string_view kAllAuthenticated = "system:authenticated";
inline constexpr std::string_view kAllUnauthenticated =
    "system:unauthenticated";
// Members are allowed everything, before any authorizer is asked
// (kube-apiserver's privileged group).
inline constexpr std::string_view kSystemPrivilegedGroup = "system:masters";
inline constexpr std::string_view kNodesGroup = "system:nodes";
inline constexpr std::string_view kMonitoringGroup = "system:monitoring";

struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;

  bool InGroup(std::string_view group) const {
    return std::find(groups.begin(), groups.end(), group) != groups.end();
  }
};

// Upstream's NodeIdentifier: a user named `system:node:<name>` in
// system:nodes is a node. `is_node` false for every other user; `name`
// empty for the user `system:node:` (a node that cannot be identified).
struct NodeIdentity {
  bool is_node = false;
  std::string name;
};
inline NodeIdentity NodeIdentityOf(const UserInfo& user) {
  constexpr std::string_view kPrefix = "system:node:";
  if (user.name.rfind(kPrefix, 0) != 0 || !user.InGroup(kNodesGroup)) {
    return {};
  }
  return {true, user.name.substr(kPrefix.size())};
}

// The API server's own identity for what it writes itself (bootstrap
// policy, controllers): kube-apiserver's loopback user, in system:masters.
inline UserInfo ApiServerUser() {
  return UserInfo{
      "system:apiserver", "", {std::string(kSystemPrivilegedGroup)}, {}};
}

}  // namespace draplane::auth

#endif  // DRAPLANE_AUTH_USER_INFO_H_

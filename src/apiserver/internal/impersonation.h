// Impersonation (`kubectl --as`, `--as-group`, `--as-uid`; the
// Impersonate-User, -Group, -Uid and -Extra-<key> headers), as
// kube-apiserver 1.37 decides it (k8s.io/apiserver endpoints/filters/
// impersonation with constrained impersonation, on by default since 1.36).
// The modes are tried in upstream's order; the first that allows wins:
// - arbitrary-node: only a user name `system:node:<name>` is asked for;
//   needs `impersonate-on:arbitrary-node:<verb>` on the request and
//   `impersonate:arbitrary-node` on nodes/<name>; the user is in
//   system:nodes only;
// - serviceaccount: only `system:serviceaccount:<ns>:<name>`; the same
//   with `serviceaccount` and serviceaccounts/<name> in <ns>; the groups
//   are the ServiceAccount's;
// - user-info: any other user, with groups, uid and extra; the same with
//   `user-info` and users, groups (never system:masters or ""), uids,
//   userextras/<key> (keys lower-case domain-prefixed paths);
// - legacy: the `impersonate` verb on users, groups (core group),
//   serviceaccounts, uids and userextras (authentication.k8s.io).
// The impersonated user is in system:authenticated (system:anonymous:
// system:unauthenticated) unless the asked groups say otherwise. Beyond
// upstream, a request asking for more than 100 groups and extra values
// together is a 400 (each costs an authorization check). The
// associated-node mode (a ServiceAccount token bound to a pod on the node
// it impersonates) needs bound ServiceAccount tokens, which draplane does
// not issue yet; its filter never matches.
#ifndef DRAPLANE_APISERVER_INTERNAL_IMPERSONATION_H_
#define DRAPLANE_APISERVER_INTERNAL_IMPERSONATION_H_

#include "absl/status/statusor.h"
#include "auth/rbac.h"
#include "auth/request_attributes.h"
#include "auth/user_info.h"
#include "http/http_server.h"

namespace draplane::apiserver::internal {

// The user the request acts as: `request.user` when the request asks for
// no impersonation; the impersonated user when `authorizer` allows it;
// otherwise the first refusal (403, upstream's text), or 400 for groups,
// uid or extra asked for without a user.
absl::StatusOr<auth::UserInfo> Impersonate(
    const http::HttpRequest& req, const auth::RequestAttributes& request,
    const auth::Authorizer& authorizer);

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_IMPERSONATION_H_

// What an authorizer decides on: k8s.io/apiserver's authorizer.Attributes,
// resolved from a request as its RequestInfoFactory does, and the text of
// a refusal as its responsewriters write it.
#ifndef DRAPLANE_AUTH_REQUEST_ATTRIBUTES_H_
#define DRAPLANE_AUTH_REQUEST_ATTRIBUTES_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "auth/user_info.h"
#include "selectors/selectors.h"

namespace draplane::auth {

struct RequestAttributes {
  UserInfo user;
  // Resource requests: get, list, watch, create, update, patch, delete,
  // deletecollection (or a special verb in the path, "proxy"); otherwise
  // the lower-cased HTTP method.
  std::string verb;
  bool resource_request = false;
  // Resource requests only.
  std::string namespace_;  // for `namespaces` itself, the name
  std::string api_group;   // "" for the core group
  std::string api_version;
  std::string resource;
  std::string subresource;
  std::string name;
  // Non-resource requests only: the URL path.
  std::string path;
  // list, watch and deletecollection: the fieldSelector's terms, as
  // authorizer.Attributes.GetFieldSelector returns them (the Node
  // authorizer reads them). Empty without a selector, or when it does not
  // parse (`field_selector_error` set): a rule that needs a term then
  // finds none.
  std::vector<selectors::FieldRequirement> field_selector;
  bool field_selector_error = false;
};

// Resolves verb, group, version, resource, subresource, namespace and name
// of a request (`user` left empty) exactly as upstream's
// RequestInfoFactory for the prefixes "api" (groupless) and "apis":
// `/api/v1/namespaces/ns/pods/p/status` is a resource request; `/api`,
// `/apis/g/v` and every other path are non-resource requests. A list or
// watch whose fieldSelector requires `metadata.name=x` names `x`.
// `query` holds the decoded query parameters.
RequestAttributes ResolveRequest(
    std::string_view method, std::string_view path,
    const std::multimap<std::string, std::string>& query);

// Upstream's forbidden text without the resource prefix: `User "u" cannot
// create resource "deviceclasses" in API group "resource.k8s.io" at the
// cluster scope`, `... in the namespace "ns"`, or `User "u" cannot get
// path "/api"`; `reason`, when not empty, follows after ": ".
std::string ForbiddenText(const RequestAttributes& a, std::string_view reason);

// The whole message of the 403 Status, as apierrors.NewForbidden writes
// it: `deviceclasses.resource.k8s.io "x" is forbidden: <text>`, or
// `forbidden: <text>` for a non-resource request.
std::string ForbiddenMessage(const RequestAttributes& a,
                             std::string_view reason);

}  // namespace draplane::auth

#endif  // DRAPLANE_AUTH_REQUEST_ATTRIBUTES_H_

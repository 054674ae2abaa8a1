// What a request asks for, read from its URL and query: the resource it
// names (upstream's RequestInfo), fieldValidation, dryRun and the field
// manager (upstream's handlers.RequestScope and the options' parsing).
#ifndef DRAPLANE_APISERVER_INTERNAL_REQUEST_SCOPE_H_
#define DRAPLANE_APISERVER_INTERNAL_REQUEST_SCOPE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "apiserver/internal/registry.h"
#include "apiserver/internal/resources.h"
#include "auth/user_info.h"
#include "http/http_server.h"

namespace draplane::apiserver::internal {

// What a resource URL names.
struct Target {
  const ResourceInfo* resource = nullptr;
  std::string group;
  std::string version;
  std::string namespace_;  // for namespaced resources ("" = all)
  std::string name;        // "" for collections
  std::string subresource;
  auth::UserInfo user;  // who asks, as authenticated
};

// The non-empty segments of a URL path ("/apis/g/v" -> {"apis", "g", "v"}).
std::vector<std::string_view> SplitPath(std::string_view path);

// Parses /api/v1/... and /apis/<g>/<v>/... resource paths; NotFound (a
// Status body) when the path names no served resource or subresource.
absl::StatusOr<Target> ParseResourcePath(
    const std::vector<std::string_view>& segments);

enum class FieldValidation { kIgnore, kWarn, kStrict };

// The fieldValidation query parameter ("" = Warn); BadRequest otherwise.
absl::StatusOr<FieldValidation> ParseFieldValidation(const std::string& v);

// Whether dryRun=All is set; BadRequest for any other dryRun value.
absl::StatusOr<bool> ParseDryRun(const http::HttpRequest& req);

// The field manager of a write: fieldManager, else the User-Agent's
// product (what upstream derives), else "unknown".
std::string ManagerOf(const http::HttpRequest& req);

// The options of a write the server makes on its own behalf (scale, the
// dry-run check of a pod's inline claim templates): main resource, no
// field manager.
WriteOptions OwnWrite(bool dry_run);

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_REQUEST_SCOPE_H_

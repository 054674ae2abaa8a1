// Kubernetes API errors: absl::Status values that carry the full
// meta/v1 Status object the server answers with (reason, code, details,
// causes), built with upstream's message texts
// (k8s.io/apimachinery/pkg/api/errors).
#ifndef DRAPLANE_APISERVER_INTERNAL_API_ERRORS_H_
#define DRAPLANE_APISERVER_INTERNAL_API_ERRORS_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "api/meta_types.h"
#include "apiserver/internal/resources.h"
#include "auth/request_attributes.h"
#include "common/field_errors.h"

namespace draplane::apiserver::internal {

// A Status object as the server sends it.
api::Json StatusObject(int code, std::string_view reason,
                       std::string_view message,
                       api::Json details = api::Json());

// An error status with the given HTTP code, reason and message; `details`
// (a Status details object) is optional.
absl::Status ApiError(int code, std::string_view reason,
                      std::string_view message,
                      api::Json details = api::Json());

// The HTTP code and Status object of `status`: those of ApiError(), or 500
// InternalError for any other non-OK status (store or I/O failures).
int HttpCode(const absl::Status& status);
api::Json StatusBody(const absl::Status& status);

// Upstream's constructors.
absl::Status NotFound(const ResourceInfo& r, std::string_view name);
absl::Status AlreadyExists(const ResourceInfo& r, std::string_view name);
// "Operation cannot be fulfilled on <qualified> "<name>": <detail>".
absl::Status Conflict(const ResourceInfo& r, std::string_view name,
                      std::string_view detail);
// The same for a subresource's own errors: "... on pods/binding "<name>":
// ..." (upstream's errors.NewConflict(api.Resource("pods/binding"), ...)).
absl::Status SubresourceConflict(const ResourceInfo& r,
                                 std::string_view subresource,
                                 std::string_view name,
                                 std::string_view detail);
// A failed storage precondition: "... \"<name>\": Precondition failed:
// <field> in precondition: <wanted>, <field> in object meta: <actual>"
// (`field` is "UID" or "ResourceVersion").
absl::Status PreconditionFailed(const ResourceInfo& r, std::string_view name,
                                std::string_view field, std::string_view wanted,
                                std::string_view actual);
// The stale-resourceVersion conflict.
absl::Status ObjectModified(const ResourceInfo& r, std::string_view name);
// 422 "<Kind>[.<group>] "<name>" is invalid: <aggregate>" with causes.
absl::Status Invalid(const ResourceInfo& r, std::string_view name,
                     const FieldErrorList& errors);
// The same for a kind that is not stored (the review kinds).
absl::Status InvalidKind(std::string_view group, std::string_view kind,
                         std::string_view name, const FieldErrorList& errors);
absl::Status BadRequest(std::string_view message);
absl::Status MethodNotSupported(const ResourceInfo& r, std::string_view method);
// 410 Expired.
absl::Status Gone(std::string_view message);
absl::Status Forbidden(const ResourceInfo& r, std::string_view name,
                       std::string_view message);
absl::Status Unauthorized();
// The 403 of a request the authorizer refused, upstream's text and
// details (auth::ForbiddenMessage).
absl::Status RequestForbidden(const auth::RequestAttributes& a,
                              std::string_view reason);
absl::Status UnsupportedMediaType(std::string_view content_type);
absl::Status RequestEntityTooLarge(std::string_view message);
// Upstream's NewTooManyRequests: 429 with the delay in the details (and
// so in a Retry-After header).
absl::Status TooManyRequests(std::string_view message, int retry_after_seconds);
absl::Status InternalServerError(std::string_view message);
// 504 Timeout (e.g. "Too large resource version").
absl::Status Timeout(std::string_view message, int retry_after_seconds);
// 404 for a URL that names nothing served.
absl::Status PathNotFound();

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_API_ERRORS_H_

// A typed Kubernetes REST client: CRUD, status subresources, patches,
// subresource POSTs (pods/binding), list with paging, watch. Only
// documented API calls, so it works against draplane's server and any
// kube-apiserver. Objects are api::Object in the internal form; requests
// use the kind's preferred version (resource.k8s.io/v1, v1, ...).
//
// Errors: the server's Status object becomes an absl::Status whose code
// follows the HTTP code (404 NotFound, 409 AlreadyExists for reason
// AlreadyExists and Aborted for Conflict, 410 OutOfRange "Expired/Gone",
// 422 InvalidArgument, 403 PermissionDenied, 401 Unauthenticated, 429/5xx
// Unavailable) and whose message is the Status message; Reason() returns
// the Status reason. Thread-safe.
#ifndef DRAPLANE_CLIENT_CLIENT_H_
#define DRAPLANE_CLIENT_CLIENT_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "api/object.h"
#include "client/rest_config.h"
#include "client/transport.h"

namespace draplane::client {

// The served kind with this Kind name ("ResourceClaim", "Pod", "Lease").
// Every kind name in api::ServedKinds() is unique; dies on an unknown name
// (a programming error).
const api::KindInfo& Kind(std::string_view kind);

// Kubernetes Status reasons of an error returned by the client.
std::string Reason(const absl::Status& status);  // "" for other errors
bool IsNotFound(const absl::Status& status);
bool IsAlreadyExists(const absl::Status& status);
bool IsConflict(const absl::Status& status);  // 409 reason Conflict
bool IsGone(const absl::Status& status);      // 410 (Expired, Gone)
bool IsInvalid(const absl::Status& status);   // 422

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;  // "" = most recent (quorum read)
  std::string resource_version_match;
  int64_t limit = 0;  // 0 = no paging
  std::string continue_token;
  // Leave metadata.managedFields out of the decoded items (they are still
  // sent by the server). An object read this way and written back with
  // Update keeps its managedFields: the server keeps the live ones when a
  // write carries none.
  bool drop_managed_fields = false;
};

struct ObjectList {
  std::vector<api::Object> items;
  std::string resource_version;
  std::string continue_token;
};

struct WriteOptions {
  std::string field_manager;  // "" = the server's default
  bool dry_run = false;
  // The returned object without metadata.managedFields (as informers keep
  // objects). An in-process client then gets the server's shared typed
  // object instead of decoding the reply.
  bool drop_managed_fields = false;
};

enum class PatchType { kJson, kMerge, kStrategicMerge, kApply };

struct PatchOptions {
  std::string field_manager;  // required for kApply
  bool force = false;         // kApply only
  std::string subresource;    // "" or "status"
};

struct DeleteOptions {
  std::string precondition_uid;
  std::string precondition_resource_version;
  std::string propagation_policy;  // "", "Background", "Foreground", "Orphan"
  // Unset: the object's default (a pod's terminationGracePeriodSeconds);
  // 0 deletes at once (what the kubelet sends once a pod has stopped).
  std::optional<int64_t> grace_period_seconds;
};

struct WatchOptions {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;
  bool allow_bookmarks = true;
  int64_t timeout_seconds = 0;  // 0 = the server's default
  // As ListOptions::drop_managed_fields, for the events' objects.
  bool drop_managed_fields = false;
};

struct WatchEvent {
  std::string type;  // ADDED, MODIFIED, DELETED, BOOKMARK, ERROR
  // ADDED/MODIFIED/DELETED: the object; BOOKMARK: only type/metadata set;
  // null for ERROR. Immutable: an in-process watch shares it with the
  // server's other watchers.
  std::shared_ptr<const api::Object> object;
  // ERROR: the Status as an absl::Status (IsGone for 410).
  absl::Status error;
};

class Client {
 public:
  Client(std::unique_ptr<Transport> transport, RestConfig config);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // An HTTP client for `config` (NewHttpTransport).
  static absl::StatusOr<std::unique_ptr<Client>> Connect(
      const RestConfig& config);

  // `ns` is ignored for cluster-scoped kinds.
  absl::StatusOr<api::Object> Get(const api::KindInfo& kind,
                                  std::string_view ns, std::string_view name);
  // `ns` "" lists all namespaces.
  absl::StatusOr<ObjectList> List(const api::KindInfo& kind,
                                  std::string_view ns,
                                  const ListOptions& options = {});
  // The kind and namespace come from the object.
  absl::StatusOr<api::Object> Create(const api::Object& object,
                                     const WriteOptions& options = {});
  // PUT with metadata.resourceVersion as precondition (409 on mismatch).
  absl::StatusOr<api::Object> Update(const api::Object& object,
                                     const WriteOptions& options = {});
  absl::StatusOr<api::Object> UpdateStatus(const api::Object& object,
                                           const WriteOptions& options = {});
  absl::StatusOr<api::Object> Patch(const api::KindInfo& kind,
                                    std::string_view ns, std::string_view name,
                                    PatchType type, std::string_view body,
                                    const PatchOptions& options = {});
  absl::Status Delete(const api::KindInfo& kind, std::string_view ns,
                      std::string_view name, const DeleteOptions& options = {});
  // POST of `body` (JSON) to a subresource, e.g. pods/<name>/binding.
  // Returns the response body parsed as JSON.
  absl::StatusOr<api::Json> PostSubresource(const api::KindInfo& kind,
                                            std::string_view ns,
                                            std::string_view name,
                                            std::string_view subresource,
                                            const api::Json& body);

  // GET of `path` (an object of a kind outside the served-kinds table,
  // e.g. /api/v1/namespaces/kube-system/configmaps/NAME) parsed as JSON.
  absl::StatusOr<api::Json> GetJson(std::string_view path);
  // POST of `body` to `path` (a create of a kind outside the served-kinds
  // table, e.g. /apis/authentication.k8s.io/v1/tokenreviews); the answer
  // parsed as JSON, errors as for the other calls.
  absl::StatusOr<api::Json> PostJson(std::string_view path,
                                     const api::Json& body);

  // Watches until the stream ends (OK), `on_event` returns false (OK),
  // `cancel` is set (OK) or the connection fails. A 410 answer to the
  // request itself is reported as IsGone. Blocks the calling thread.
  absl::Status Watch(const api::KindInfo& kind, std::string_view ns,
                     const WatchOptions& options,
                     const std::function<bool(WatchEvent)>& on_event,
                     const CancelFlag& cancel);

  const RestConfig& config() const { return config_; }
  // Transport::WatchQueueIsUnbounded of this client's transport.
  bool WatchQueueIsUnbounded() const {
    return transport_->WatchQueueIsUnbounded();
  }

 private:
  class RateLimiter;
  absl::StatusOr<HttpReply> Do(const HttpCall& call);
  // POST of `object` (create), or PUT to it or to its `subresource`.
  absl::StatusOr<api::Object> WriteObject(bool create,
                                          std::string_view subresource,
                                          const api::Object& object,
                                          const WriteOptions& options);

  std::unique_ptr<Transport> transport_;
  RestConfig config_;
  std::unique_ptr<RateLimiter> limiter_;
};

// Runs `fn` until it returns something other than a conflict error, at most
// `attempts` times (client-go's retry.RetryOnConflict with its default
// backoff: 10 ms, x1, jitter 0.1, 5 steps when attempts = 5).
absl::Status RetryOnConflict(const std::function<absl::Status()>& fn,
                             int attempts = 5);

}  // namespace draplane::client

#endif  // DRAPLANE_CLIENT_CLIENT_H_

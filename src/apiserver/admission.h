// The admission chain later components extend (quota, RBAC-style policy):
// plugins see every create, update and delete after draplane's built-in
// admission (defaulting, validation, CEL compilation, namespace checks)
// and before the store is written; any plugin can deny the request, and
// mutating plugins may change the object.
#ifndef DRAPLANE_APISERVER_ADMISSION_H_
#define DRAPLANE_APISERVER_ADMISSION_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "api/meta_types.h"
#include "auth/user_info.h"

namespace draplane::apiserver {

struct AdmissionRequest {
  enum class Operation { kCreate, kUpdate, kDelete };
  Operation operation = Operation::kCreate;
  std::string group;        // "" for core
  std::string kind;         // "ResourceClaim"
  std::string resource;     // "resourceclaims"
  std::string subresource;  // "", "status", ...
  std::string namespace_;
  std::string name;
  bool dry_run = false;
  // Who asks (as authenticated; empty for the server's own writes).
  auth::UserInfo user;
  // The stored object before the request (null for create).
  const api::Json* old_object = nullptr;
};

class AdmissionPlugin {
 public:
  virtual ~AdmissionPlugin() = default;
  virtual std::string_view Name() const = 0;
  // `object` is the object about to be stored (storage version JSON; for
  // delete, the object being deleted). Returning a non-OK status denies the
  // request: build it with AdmissionError() to choose the HTTP answer.
  virtual absl::Status Admit(const AdmissionRequest& request,
                             api::Json& object) = 0;
  // Whether Admit may change `object` for `request`. A plugin that only
  // validates (or never changes objects of that request) says false; the
  // registry then publishes the typed object it validated as what was
  // stored instead of decoding the stored value again.
  virtual bool MayMutate(const AdmissionRequest& request) const {
    (void)request;
    return true;
  }
};

// A denial answered with `code` (e.g. 403) and a Status with `reason`
// (e.g. "Forbidden") and `message`.
absl::Status AdmissionError(int code, std::string_view reason,
                            std::string_view message);

}  // namespace draplane::apiserver

#endif  // DRAPLANE_APISERVER_ADMISSION_H_

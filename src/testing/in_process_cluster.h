// A whole API server in the test process: draplane's ApiServer over an
// in-memory (or SQLite) store, with clients that call it in-process
// (client::NewInProcessTransport), so components are tested against the
// real API (admission, validation, resourceVersions, watches) without
// sockets. The built-in controllers deletion depends on (garbage
// collector, namespace finalizer) run every `controller_period`.
#ifndef DRAPLANE_TESTING_IN_PROCESS_CLUSTER_H_
#define DRAPLANE_TESTING_IN_PROCESS_CLUSTER_H_

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "api/meta_types.h"
#include "apiserver/api_server.h"
#include "auth/user_info.h"
#include "client/client.h"
#include "store/store.h"

namespace draplane::testing {

struct InProcessClusterOptions {
  // Empty: in-memory store; else an SQLite data file at this path.
  std::string sqlite_path;
  // absl::InfiniteDuration(): they never run (e.g. a namespace stays
  // Terminating with its content).
  absl::Duration controller_period = absl::Milliseconds(200);
  // Set: the server authenticates every request and authorizes it as
  // `draplane server` does (Node, RBAC, upstream's bootstrap policy);
  // NewClient() is then a system:masters user, NewClientAs() one of
  // `users`. Unset: AlwaysAllow, no credentials needed.
  bool authorization = false;
  std::vector<auth::UserInfo> users;
};

class InProcessCluster {
 public:
  static absl::StatusOr<std::unique_ptr<InProcessCluster>> Start(
      const InProcessClusterOptions& options = {});
  ~InProcessCluster();

  // A new client of the server (unlimited QPS).
  std::unique_ptr<client::Client> NewClient() const;
  // A new client that authenticates as options.users' user `name`; dies
  // when there is none.
  std::unique_ptr<client::Client> NewClientAs(std::string_view name) const;
  // The cluster's shared client.
  client::Client& client() { return *client_; }
  apiserver::ApiServer& server() { return *server_; }
  const store::Store& store() const { return *store_; }

  // Creates an object given as API JSON; dies with the server's message on
  // failure (test setup).
  api::Object MustCreate(const api::Json& json);

 private:
  InProcessCluster() = default;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<apiserver::ApiServer> server_;
  std::unique_ptr<client::Client> client_;
  // Bearer tokens by user name ("" = the system:masters user).
  std::map<std::string, std::string, std::less<>> tokens_;
  std::unique_ptr<client::Client> NewClientWithToken(
      const std::string& token) const;
  std::atomic<bool> stop_{false};
  std::thread controllers_;
};

}  // namespace draplane::testing

#endif  // DRAPLANE_TESTING_IN_PROCESS_CLUSTER_H_

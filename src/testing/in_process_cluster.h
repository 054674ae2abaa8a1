// A whole API server in the test process: draplane's ApiServer over an
// in-memory (or SQLite) store, with clients that call it in-process
// (client::NewInProcessTransport), so components are tested against the
// real API (admission, validation, resourceVersions, watches) without
// sockets. The built-in controllers deletion depends on (garbage
// collector, namespace finalizer) run every `controller_period`.
#ifndef DRAPLANE_TESTING_IN_PROCESS_CLUSTER_H_
#define DRAPLANE_TESTING_IN_PROCESS_CLUSTER_H_

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "api/meta_types.h"
#include "apiserver/api_server.h"
#include "client/client.h"
#include "store/store.h"

namespace draplane::testing {

struct InProcessClusterOptions {
  // Empty: in-memory store; else an SQLite data file at this path.
  std::string sqlite_path;
  // absl::InfiniteDuration(): they never run (e.g. a namespace stays
  // Terminating with its content).
  absl::Duration controller_period = absl::Milliseconds(200);
};

class InProcessCluster {
 public:
  static absl::StatusOr<std::unique_ptr<InProcessCluster>> Start(
      const InProcessClusterOptions& options = {});
  ~InProcessCluster();

  // A new client of the server (unlimited QPS).
  std::unique_ptr<client::Client> NewClient() const;
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
  std::atomic<bool> stop_{false};
  std::thread controllers_;
};

}  // namespace draplane::testing

#endif  // DRAPLANE_TESTING_IN_PROCESS_CLUSTER_H_

// One HTTP exchange with an API server, over TCP/TLS or in-process (the
// standalone server's handler called directly: the same request path,
// admission and store, without sockets).
#ifndef DRAPLANE_CLIENT_TRANSPORT_H_
#define DRAPLANE_CLIENT_TRANSPORT_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "api/meta_types.h"
#include "api/object.h"
#include "client/rest_config.h"
#include "http/http_server.h"
#include "http/in_process_exchange.h"

namespace draplane::client {

struct HttpCall {
  std::string method;  // "GET", "POST", ...
  std::string path;    // "/api/v1/namespaces/x/pods" (not escaped)
  // Query parameters (not escaped); repeated names keep every value.
  std::multimap<std::string, std::string> query;
  // Extra headers; Authorization, User-Agent and Accept are added by the
  // transport unless set here.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // A JSON body not serialised yet (`body` is then empty): the in-process
  // transport hands it to the server as it is (which may move from it),
  // the others serialise it.
  std::shared_ptr<api::Json> json_body;
  // `json_body` is api::EncodeObject's output for a typed object (the
  // server need not decode and encode it again to normalise it).
  bool json_body_is_encoded_object = false;
  // Through the in-process transport: a watch's typed events, or a create's
  // or update's typed reply, leave out metadata.managedFields
  // (WatchOptions / WriteOptions::drop_managed_fields).
  bool drop_managed_fields = false;
};

struct HttpReply {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
  // In-process only: the JSON body as the server built it, in place of
  // `body` (which is then empty).
  std::shared_ptr<const api::Json> json;
  // In-process only, for a write whose call dropped managedFields: the
  // written object typed, without them, in place of `body` and `json`.
  std::shared_ptr<const api::Object> typed;
};

// A watch event handed over typed (in-process only; see
// http/in_process_exchange.h): the type and the object the event's
// line would have decoded to. False stops the stream.
using ObjectEventFn = std::function<bool(
    std::string_view type, std::shared_ptr<const api::Object> object)>;

// Set to true (from any thread) to end a Stream() call.
using CancelFlag = std::atomic<bool>;

// Thread-safe: calls may run concurrently from many threads.
class Transport {
 public:
  virtual ~Transport() = default;
  // A complete request. Non-OK only when no HTTP answer came (connection
  // refused, TLS failure, timeout); HTTP errors are replies.
  virtual absl::StatusOr<HttpReply> RoundTrip(const HttpCall& call) = 0;
  // A long response (watch): `on_status` gets the status and headers once,
  // then `on_data` every piece of the body as it arrives, until the body
  // ends (OK), `on_data` returns false (OK), `cancel` becomes true (OK,
  // noticed within ~100 ms) or the connection fails (non-OK). A transport
  // that can (in-process) hands watch events to a non-null `on_object`
  // instead of as lines of the body, in the body's order; false from it
  // stops the stream as from `on_data`.
  virtual absl::Status Stream(
      const HttpCall& call,
      const std::function<void(
          int status, const std::map<std::string, std::string>&)>& on_status,
      const std::function<bool(std::string_view data)>& on_data,
      const ObjectEventFn& on_object, const CancelFlag& cancel) = 0;
  // Whether the server queues a watch's events without bound while the
  // caller handles one (in process: draplane's server), so that a caller
  // may handle each event on the watching thread before reading the next;
  // a remote server may end a watch that is read too slowly.
  virtual bool WatchQueueIsUnbounded() const { return false; }
};

// HTTP/1.1 over TCP, with TLS for https (CA, client certificate, server
// name checks from `config`); keeps a pool of idle keep-alive connections.
absl::StatusOr<std::unique_ptr<Transport>> NewHttpTransport(
    const RestConfig& config);

// Calls `handler` (e.g. ApiServer::HandleInProcess) on the calling thread,
// with the bearer token of `config` in the Authorization header. The
// handler must outlive the transport. JSON bodies and watch events pass
// unserialised (http::InProcessExchange).
std::unique_ptr<Transport> NewInProcessTransport(http::InProcessHandler handler,
                                                 const RestConfig& config);

}  // namespace draplane::client

#endif  // DRAPLANE_CLIENT_TRANSPORT_H_

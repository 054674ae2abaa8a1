// How a handler answers its caller. Two kinds of caller reach the API
// server: HTTP clients, which get bytes, and in-process clients
// (http::InProcessExchange), which get the JSON and typed objects that
// those bytes would have decoded to. The handlers speak only to this
// interface; NewHttpResponder and NewInProcessResponder hold the
// difference. Contract: for the same request, both send what decodes to
// the same answer.
#ifndef DRAPLANE_APISERVER_INTERNAL_RESPONDER_H_
#define DRAPLANE_APISERVER_INTERNAL_RESPONDER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "api/meta_types.h"
#include "api/object.h"
#include "http/http_server.h"
#include "http/in_process_exchange.h"

namespace draplane::apiserver::internal {

inline constexpr char kJsonContentType[] = "application/json";

class Responder {
 public:
  virtual ~Responder() = default;

  // The connection itself: bodies that are not JSON objects (health,
  // metrics, OpenAPI documents) and streams.
  virtual http::ResponseWriter& writer() = 0;

  // An in-process caller's request body, already parsed (the handler may
  // move from it), or null: the body is HttpRequest::body.
  virtual api::Json* ParsedBody() = 0;
  // Whether ParsedBody() is api::EncodeObject's output for a typed object.
  virtual bool ParsedBodyIsEncodedObject() const = 0;

  // A complete JSON answer: serialised for HTTP, shared in process.
  virtual void SendJsonBody(int status, const http::HttpHeaders& headers,
                            std::shared_ptr<const api::Json> body) = 0;

  // Whether a create's or update's answer may be the typed object, less
  // metadata.managedFields (never for HTTP), and sending it.
  virtual bool TakesTypedReply() const = 0;
  virtual void SendTyped(int status, const http::HttpHeaders& headers,
                         std::shared_ptr<const api::Object> object) = 0;

  // Whether a watch may hand over ADDED/MODIFIED/DELETED events typed
  // (never for HTTP), whether their objects leave out managedFields, and
  // one such event after writer().StartStream (false: the caller is gone).
  virtual bool TakesTypedEvents() const = 0;
  virtual bool DropsManagedFields() const = 0;
  virtual bool WriteEvent(std::string_view type,
                          std::shared_ptr<const api::Object> object) = 0;

  // SendJsonBody with upstream's headers: the content type, no caching,
  // one Warning header per warning.
  void SendJson(int code, const api::Json& body,
                const std::vector<std::string>& warnings,
                std::string content_type = kJsonContentType);
  void SendJson(int code, std::shared_ptr<const api::Json> body,
                const std::vector<std::string>& warnings);
  // A Status body for `status` with its HTTP code.
  void SendError(const absl::Status& status,
                 const std::vector<std::string>& warnings);
};

// The headers of a JSON answer (content type, Cache-Control, Warnings).
http::HttpHeaders JsonHeaders(const std::vector<std::string>& warnings,
                              std::string content_type);

// A responder for an HTTP caller: JSON is serialised, nothing typed.
std::unique_ptr<Responder> NewHttpResponder(http::ResponseWriter& writer);

// A responder for an in-process caller: JSON and typed objects are handed
// over as the exchange accepts them.
std::unique_ptr<Responder> NewInProcessResponder(
    http::InProcessExchange& exchange);

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_RESPONDER_H_

// The in-process side channel of the API server. A caller in the same
// process (the client's in-process transport) passes an InProcessExchange
// to ApiServer::HandleInProcess, a ResponseWriter that also takes parsed
// and typed answers; the server then takes the request body already parsed and
// answers with parsed JSON and typed watch events, so that nothing is
// serialised only to be parsed again in the same process. Contract: what the
// caller gets this way is exactly what it would have decoded from the bytes
// (same JSON, same typed object); HTTP callers never see a difference. Beyond
// upstream (kube-apiserver has no in-process clients); see docs/apiserver.md.
#ifndef DRAPLANE_HTTP_IN_PROCESS_EXCHANGE_H_
#define DRAPLANE_HTTP_IN_PROCESS_EXCHANGE_H_

#include <functional>
#include <memory>
#include <string_view>

#include "api/meta_types.h"
#include "api/object.h"
#include "http/http_server.h"

namespace draplane::http {

class InProcessExchange : public ResponseWriter {
 public:
  // The request body as JSON (with Content-Type application/json), or null
  // when the caller sent bytes (HttpRequest::body). The server may move
  // from it.
  virtual api::Json* ParsedBody() = 0;
  // Whether ParsedBody() is api::EncodeObject's output for a typed object:
  // decoding and encoding it again would change nothing and find no
  // unknown fields (FixturesTest.EncodingIsAFixedPointOfDecodeThenEncode),
  // so the server stores it without that round trip.
  virtual bool ParsedBodyIsEncodedObject() const = 0;

  // In place of ResponseWriter::Send for a JSON body: `body` is what would
  // have been serialised. Not for streamed answers.
  virtual void SendJson(int status, const HttpHeaders& headers,
                        std::shared_ptr<const api::Json> body) = 0;

  // Whether a create's or update's answer may be the written object typed,
  // without metadata.managedFields (the caller asked for that, as it would
  // have dropped them from the decoded body).
  virtual bool TakesTypedReply() const = 0;
  // In place of SendJson for such an answer: `object` is what the caller
  // would have decoded from the body, less managedFields, shared with
  // the watchers of that version.
  virtual void SendTyped(int status, const HttpHeaders& headers,
                         std::shared_ptr<const api::Object> object) = 0;

  // Whether a watch may hand its ADDED/MODIFIED/DELETED events over with
  // WriteEvent instead of JSON lines (bookmarks and errors stay lines).
  virtual bool TakesTypedEvents() const = 0;
  // Whether the typed events' objects leave out metadata.managedFields
  // (the caller would have dropped them from the decoded lines).
  virtual bool DropsManagedFields() const = 0;
  // One watch event after StartStream: `object` is what the caller would
  // have decoded from the line's "object" (in the watched version), shared
  // with every other in-process watcher of that version. False when the
  // caller is gone (the handler should then return).
  virtual bool WriteEvent(std::string_view type,
                          std::shared_ptr<const api::Object> object) = 0;
};

// Called on the caller's thread (e.g. ApiServer::HandleInProcess).
using InProcessHandler =
    std::function<void(const HttpRequest&, InProcessExchange&)>;

}  // namespace draplane::http

#endif  // DRAPLANE_HTTP_IN_PROCESS_EXCHANGE_H_

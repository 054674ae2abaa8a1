// The in-process transport: the API server's handler called directly.
#include <cctype>
#include <utility>

#include "api/object_codec.h"
#include "client/transport.h"
#include "common/str_cat.h"
#include "http/in_process_exchange.h"

namespace draplane::client {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(c));
  return s;
}

std::map<std::string, std::string> LowerHeaders(
    const http::HttpHeaders& headers) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : headers) out[Lower(name)] = value;
  return out;
}

// Captures a complete response; a streamed one is collected whole.
class CapturingWriter : public http::InProcessExchange {
 public:
  explicit CapturingWriter(const HttpCall& call)
      : body_(call.json_body),
        encoded_object_(call.json_body_is_encoded_object),
        typed_reply_(call.drop_managed_fields) {}

  void Send(int status, const http::HttpHeaders& headers,
            std::string body) override {
    reply.status = status;
    reply.headers = LowerHeaders(headers);
    reply.body = std::move(body);
  }
  bool StartStream(int status, const http::HttpHeaders& headers) override {
    reply.status = status;
    reply.headers = LowerHeaders(headers);
    return true;
  }
  bool WriteChunk(std::string_view data) override {
    reply.body.append(data);
    return true;
  }
  // A RoundTrip of a streaming request (a watch) would never end; the
  // handler ends it at its first check.
  bool Stopping() const override { return false; }
  bool ClientGone() const override { return false; }

  api::Json* ParsedBody() override { return body_.get(); }
  bool ParsedBodyIsEncodedObject() const override {
    return body_ != nullptr && encoded_object_;
  }
  void SendJson(int status, const http::HttpHeaders& headers,
                std::shared_ptr<const api::Json> body) override {
    reply.status = status;
    reply.headers = LowerHeaders(headers);
    reply.json = std::move(body);
  }
  bool TakesTypedReply() const override { return typed_reply_; }
  void SendTyped(int status, const http::HttpHeaders& headers,
                 std::shared_ptr<const api::Object> object) override {
    reply.status = status;
    reply.headers = LowerHeaders(headers);
    reply.typed = std::move(object);
  }
  bool TakesTypedEvents() const override { return false; }
  bool DropsManagedFields() const override { return false; }
  bool WriteEvent(std::string_view,
                  std::shared_ptr<const api::Object>) override {
    return false;
  }

  HttpReply reply;

 private:
  std::shared_ptr<api::Json> body_;
  const bool encoded_object_;
  const bool typed_reply_;
};

// Forwards a streamed body to the caller's callbacks.
class StreamingWriter : public http::InProcessExchange {
 public:
  using StatusFn =
      std::function<void(int, const std::map<std::string, std::string>&)>;
  using DataFn = std::function<bool(std::string_view)>;

  StreamingWriter(const HttpCall& call, const StatusFn& on_status,
                  const DataFn& on_data, const ObjectEventFn& on_object,
                  const CancelFlag& cancel)
      : body_(call.json_body),
        drop_managed_fields_(call.drop_managed_fields),
        on_status_(on_status),
        on_data_(on_data),
        on_object_(on_object),
        cancel_(cancel) {}

  void Send(int status, const http::HttpHeaders& headers,
            std::string body) override {
    if (on_status_) on_status_(status, LowerHeaders(headers));
    if (!Gone() && !body.empty() && !on_data_(body)) done_ = true;
  }
  bool StartStream(int status, const http::HttpHeaders& headers) override {
    if (on_status_) on_status_(status, LowerHeaders(headers));
    return !Gone();
  }
  bool WriteChunk(std::string_view data) override {
    if (Gone()) return false;
    if (!data.empty() && !on_data_(data)) done_ = true;
    return !Gone();
  }
  bool Stopping() const override { return Gone(); }
  bool ClientGone() const override { return Gone(); }

  api::Json* ParsedBody() override { return body_.get(); }
  bool ParsedBodyIsEncodedObject() const override { return false; }
  // A complete answer to a streamed request (an error) reaches the caller
  // as bytes, as over HTTP.
  void SendJson(int status, const http::HttpHeaders& headers,
                std::shared_ptr<const api::Json> body) override {
    Send(status, headers, api::DumpJson(*body) + "\n");
  }
  bool TakesTypedReply() const override { return false; }
  // Not asked for (TakesTypedReply); would reach the caller as bytes.
  void SendTyped(int status, const http::HttpHeaders& headers,
                 std::shared_ptr<const api::Object> object) override {
    auto json = api::EncodeObject(*object);
    Send(status, headers, json.ok() ? api::DumpJson(*json) + "\n" : "");
  }
  bool TakesTypedEvents() const override { return on_object_ != nullptr; }
  bool DropsManagedFields() const override { return drop_managed_fields_; }
  bool WriteEvent(std::string_view type,
                  std::shared_ptr<const api::Object> object) override {
    if (Gone()) return false;
    if (!on_object_(type, std::move(object))) done_ = true;
    return !Gone();
  }

 private:
  bool Gone() const { return done_ || cancel_.load(); }

  std::shared_ptr<api::Json> body_;
  const bool drop_managed_fields_;
  const StatusFn& on_status_;
  const DataFn& on_data_;
  const ObjectEventFn& on_object_;
  const CancelFlag& cancel_;
  bool done_ = false;  // a callback returned false (handler thread only)
};

class InProcessTransport : public Transport {
 public:
  InProcessTransport(http::InProcessHandler handler, const RestConfig& config)
      : handler_(std::move(handler)), config_(config) {}

  absl::StatusOr<HttpReply> RoundTrip(const HttpCall& call) override {
    CapturingWriter writer(call);
    handler_(Request(call), writer);
    if (writer.reply.status == 0) {
      return absl::InternalError(
          StrCat(call.method, " ", call.path, ": the handler sent no answer"));
    }
    return std::move(writer.reply);
  }

  absl::Status Stream(
      const HttpCall& call,
      const std::function<void(int, const std::map<std::string, std::string>&)>&
          on_status,
      const std::function<bool(std::string_view)>& on_data,
      const ObjectEventFn& on_object, const CancelFlag& cancel) override {
    StreamingWriter writer(call, on_status, on_data, on_object, cancel);
    handler_(Request(call), writer);
    return absl::OkStatus();
  }

  // ApiServer::Handle's watches queue the store's events without bound.
  bool WatchQueueIsUnbounded() const override { return true; }

 private:
  http::HttpRequest Request(const HttpCall& call) const {
    http::HttpRequest req;
    req.method = call.method;
    req.path = call.path;
    req.query = call.query;
    req.body = call.body;
    for (const auto& [name, value] : call.headers) {
      req.headers[Lower(name)] = value;
    }
    if (!config_.bearer_token.empty() && !req.headers.count("authorization")) {
      req.headers["authorization"] = StrCat("Bearer ", config_.bearer_token);
    }
    if (!req.headers.count("user-agent")) {
      req.headers["user-agent"] = config_.user_agent;
    }
    if (!req.headers.count("accept")) {
      req.headers["accept"] = "application/json";
    }
    if ((!req.body.empty() || call.json_body != nullptr) &&
        !req.headers.count("content-type")) {
      req.headers["content-type"] = "application/json";
    }
    return req;
  }

  http::InProcessHandler handler_;
  const RestConfig config_;
};

}  // namespace

std::unique_ptr<Transport> NewInProcessTransport(http::InProcessHandler handler,
                                                 const RestConfig& config) {
  return std::make_unique<InProcessTransport>(std::move(handler), config);
}

}  // namespace draplane::client

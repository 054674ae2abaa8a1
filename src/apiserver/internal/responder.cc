#include "apiserver/internal/responder.h"

#include <utility>

#include "apiserver/internal/api_errors.h"
#include "apiserver/internal/negotiation.h"

namespace draplane::apiserver::internal {
namespace {

class HttpResponder : public Responder {
 public:
  explicit HttpResponder(http::ResponseWriter& writer) : writer_(writer) {}

  http::ResponseWriter& writer() override { return writer_; }
  api::Json* ParsedBody() override { return nullptr; }
  bool ParsedBodyIsEncodedObject() const override { return false; }
  void SendJsonBody(int status, const http::HttpHeaders& headers,
                    std::shared_ptr<const api::Json> body) override {
    writer_.Send(status, headers, api::DumpJson(*body) + "\n");
  }
  bool TakesTypedReply() const override { return false; }
  void SendTyped(int status, const http::HttpHeaders& headers,
                 std::shared_ptr<const api::Object> object) override {
    // Never called: TakesTypedReply() is false. An answer is still owed.
    SendError(InternalServerError("typed reply to an HTTP caller"), {});
  }
  bool TakesTypedEvents() const override { return false; }
  bool DropsManagedFields() const override { return false; }
  bool WriteEvent(std::string_view,
                  std::shared_ptr<const api::Object>) override {
    return false;  // Never called: TakesTypedEvents() is false.
  }

 private:
  http::ResponseWriter& writer_;
};

class InProcessResponder : public Responder {
 public:
  explicit InProcessResponder(http::InProcessExchange& exchange)
      : exchange_(exchange) {}

  http::ResponseWriter& writer() override { return exchange_; }
  api::Json* ParsedBody() override { return exchange_.ParsedBody(); }
  bool ParsedBodyIsEncodedObject() const override {
    return exchange_.ParsedBodyIsEncodedObject();
  }
  void SendJsonBody(int status, const http::HttpHeaders& headers,
                    std::shared_ptr<const api::Json> body) override {
    exchange_.SendJson(status, headers, std::move(body));
  }
  bool TakesTypedReply() const override { return exchange_.TakesTypedReply(); }
  void SendTyped(int status, const http::HttpHeaders& headers,
                 std::shared_ptr<const api::Object> object) override {
    exchange_.SendTyped(status, headers, std::move(object));
  }
  bool TakesTypedEvents() const override {
    return exchange_.TakesTypedEvents();
  }
  bool DropsManagedFields() const override {
    return exchange_.DropsManagedFields();
  }
  bool WriteEvent(std::string_view type,
                  std::shared_ptr<const api::Object> object) override {
    return exchange_.WriteEvent(type, std::move(object));
  }

 private:
  http::InProcessExchange& exchange_;
};

}  // namespace

http::HttpHeaders JsonHeaders(const std::vector<std::string>& warnings,
                              std::string content_type) {
  http::HttpHeaders headers{{"Content-Type", std::move(content_type)},
                            {"Cache-Control", "no-cache, private"}};
  for (const std::string& warning : warnings) {
    headers.emplace_back("Warning", WarningHeader(warning));
  }
  return headers;
}

void Responder::SendJson(int code, const api::Json& body,
                         const std::vector<std::string>& warnings,
                         std::string content_type) {
  SendJsonBody(code, JsonHeaders(warnings, std::move(content_type)),
               std::make_shared<const api::Json>(body));
}

void Responder::SendJson(int code, std::shared_ptr<const api::Json> body,
                         const std::vector<std::string>& warnings) {
  SendJsonBody(code, JsonHeaders(warnings, kJsonContentType), std::move(body));
}

void Responder::SendError(const absl::Status& status,
                          const std::vector<std::string>& warnings) {
  const api::Json body = StatusBody(status);
  http::HttpHeaders headers = JsonHeaders(warnings, kJsonContentType);
  // As upstream's ErrorNegotiated: a retry delay in the details is also a
  // Retry-After header.
  if (auto details = body.find("details");
      details != body.end() && details->is_object()) {
    if (auto after = details->find("retryAfterSeconds");
        after != details->end() && after->is_number_integer() &&
        after->get<int64_t>() > 0) {
      headers.emplace_back("Retry-After",
                           std::to_string(after->get<int64_t>()));
    }
  }
  SendJsonBody(HttpCode(status), headers,
               std::make_shared<const api::Json>(body));
}

std::unique_ptr<Responder> NewHttpResponder(http::ResponseWriter& writer) {
  return std::make_unique<HttpResponder>(writer);
}

std::unique_ptr<Responder> NewInProcessResponder(
    http::InProcessExchange& exchange) {
  return std::make_unique<InProcessResponder>(exchange);
}

}  // namespace draplane::apiserver::internal

#include "apiserver/api_server.h"

#include <memory>
#include <utility>

#include "apiserver/internal/handlers.h"
#include "apiserver/internal/responder.h"

namespace draplane::apiserver {

class ApiServer::Impl : public internal::Handlers {
 public:
  using Handlers::Handlers;
};

ApiServer::ApiServer(store::Store* store, ApiServerOptions options)
    : impl_(std::make_unique<Impl>(store, std::move(options))) {}

ApiServer::~ApiServer() = default;

void ApiServer::Handle(const http::HttpRequest& request,
                       http::ResponseWriter& writer) {
  impl_->Handle(request, *internal::NewHttpResponder(writer));
}

bool ApiServer::MayReadBody(const http::HttpRequest& request) {
  return impl_->MayReadBody(request);
}

void ApiServer::HandleInProcess(const http::HttpRequest& request,
                                http::InProcessExchange& exchange) {
  impl_->Handle(request, *internal::NewInProcessResponder(exchange));
}

void ApiServer::RunControllersOnce() { impl_->RunControllersOnce(); }

}  // namespace draplane::apiserver

#include "apiserver/internal/authenticator.h"

#include <string_view>
#include <utility>

namespace draplane::apiserver::internal {
namespace {

// Constant-time comparison of two equally long buffers.
bool ConstantTimeEqual(const char* a, const char* b, size_t n) {
  unsigned char diff = 0;
  for (size_t i = 0; i < n; ++i) diff |= a[i] ^ b[i];
  return diff == 0;
}

}  // namespace

TokenAuthenticator::TokenAuthenticator(std::vector<std::string> tokens)
    : tokens_(std::move(tokens)) {}

bool TokenAuthenticator::Authenticated(const http::HttpRequest& req) const {
  if (tokens_.empty()) return true;
  if (req.path == "/version" || req.path == "/healthz" ||
      req.path == "/livez" || req.path == "/readyz") {
    return true;
  }
  const std::string auth = req.Header("authorization");
  constexpr std::string_view kBearer = "Bearer ";
  if (auth.size() <= kBearer.size() ||
      auth.compare(0, kBearer.size(), kBearer) != 0) {
    return false;
  }
  const std::string token = auth.substr(kBearer.size());
  for (const std::string& t : tokens_) {
    if (t.size() == token.size() &&
        ConstantTimeEqual(t.data(), token.data(), t.size())) {
      return true;
    }
  }
  return false;
}

std::string TokenAuthenticator::UserOf(const http::HttpRequest&) const {
  return tokens_.empty() ? "system:anonymous" : "admin";
}

}  // namespace draplane::apiserver::internal

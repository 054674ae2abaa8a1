// Test support: an http::ResponseWriter that keeps what a handler sent.
#ifndef DRAPLANE_CMD_RESPONSE_RECORDER_TEST_UTIL_H_
#define DRAPLANE_CMD_RESPONSE_RECORDER_TEST_UTIL_H_

#include <string>
#include <string_view>
#include <utility>

#include "http/http_server.h"

namespace draplane::cmd {

// A complete answer's status and body; streams are refused.
struct ResponseRecorder : http::ResponseWriter {
  int status = 0;
  std::string body;
  void Send(int s, const http::HttpHeaders&, std::string b) override {
    status = s;
    body = std::move(b);
  }
  bool StartStream(int, const http::HttpHeaders&) override { return false; }
  bool WriteChunk(std::string_view) override { return false; }
  bool Stopping() const override { return false; }
  bool ClientGone() const override { return false; }
};

}  // namespace draplane::cmd

#endif  // DRAPLANE_CMD_RESPONSE_RECORDER_TEST_UTIL_H_

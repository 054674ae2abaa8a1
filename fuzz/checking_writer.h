// What the API server fuzzers check of every answer: JSON, and for an
// error a Status object with the HTTP code it was sent with (abort
// otherwise). Watches end at once: the fuzzers check how they start.
#ifndef DRAPLANE_FUZZ_CHECKING_WRITER_H_
#define DRAPLANE_FUZZ_CHECKING_WRITER_H_

#include <cstdlib>
#include <string>
#include <string_view>

#include "api/meta_types.h"
#include "http/http_server.h"

namespace draplane::fuzz {

class CheckingWriter : public http::ResponseWriter {
 public:
  void Send(int status, const http::HttpHeaders&, std::string body) override {
    api::Json json =
        api::Json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) std::abort();
    if (status >= 400 && (json.value("kind", "") != "Status" ||
                          json.value("code", 0) != status)) {
      std::abort();
    }
  }
  bool StartStream(int, const http::HttpHeaders&) override { return true; }
  bool WriteChunk(std::string_view) override { return true; }
  bool Stopping() const override { return true; }
  bool ClientGone() const override { return true; }
};

}  // namespace draplane::fuzz

#endif  // DRAPLANE_FUZZ_CHECKING_WRITER_H_

// client-go's retries: a 429, or a 5xx with Retry-After, is sent again
// after the seconds Retry-After names, at most ten times; other answers
// are returned at once.
#include <deque>
#include <memory>
#include <string>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "client/client.h"
#include "gtest/gtest.h"

namespace draplane::client {
namespace {

// Answers from a script, then 200 with an empty namespace list.
class ScriptedTransport : public Transport {
 public:
  explicit ScriptedTransport(std::deque<HttpReply> script)
      : script_(std::move(script)) {}

  absl::StatusOr<HttpReply> RoundTrip(const HttpCall& call) override {
    (void)call;
    absl::MutexLock lock(&mu_);
    ++calls_;
    if (!script_.empty()) {
      HttpReply r = std::move(script_.front());
      script_.pop_front();
      return r;
    }
    HttpReply ok;
    ok.status = 200;
    ok.headers["content-type"] = "application/json";
    ok.body = R"({"apiVersion":"v1","kind":"Namespace",)"
              R"("metadata":{"name":"ns"}})";
    return ok;
  }
  absl::Status Stream(const HttpCall&,
                      const std::function<void(
                          int, const std::map<std::string, std::string>&)>&,
                      const std::function<bool(std::string_view)>&,
                      const ObjectEventFn&, const CancelFlag&) override {
    return absl::UnimplementedError("no streams");
  }
  int calls() {
    absl::MutexLock lock(&mu_);
    return calls_;
  }

 private:
  absl::Mutex mu_;
  std::deque<HttpReply> script_ ABSL_GUARDED_BY(mu_);
  int calls_ ABSL_GUARDED_BY(mu_) = 0;
};

HttpReply Reply(int status, const std::string& retry_after) {
  HttpReply r;
  r.status = status;
  r.headers["content-type"] = "text/plain";
  if (!retry_after.empty()) r.headers["retry-after"] = retry_after;
  r.body = "Too many requests, please try again later.\n";
  return r;
}

// A client over `script`; `transport` gets the transport to count calls.
std::unique_ptr<Client> ClientOver(std::deque<HttpReply> script,
                                   ScriptedTransport** transport) {
  auto t = std::make_unique<ScriptedTransport>(std::move(script));
  *transport = t.get();
  RestConfig config;
  config.server = "https://example.invalid";
  return std::make_unique<Client>(std::move(t), config);
}

TEST(RetryAfterTest, TooManyRequestsIsRetried) {
  ScriptedTransport* t = nullptr;
  auto c = ClientOver({Reply(429, "0"), Reply(503, "0")}, &t);
  auto got = c->Get(Kind("Namespace"), "", "ns");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(t->calls(), 3);
}

TEST(RetryAfterTest, OnlyWithRetryAfterAndAtMostTenTimes) {
  ScriptedTransport* t = nullptr;
  auto c = ClientOver({Reply(503, "")}, &t);
  EXPECT_FALSE(c->Get(Kind("Namespace"), "", "ns").ok());
  EXPECT_EQ(t->calls(), 1) << "a 5xx without Retry-After is not retried";

  c = ClientOver({Reply(404, "0")}, &t);
  EXPECT_FALSE(c->Get(Kind("Namespace"), "", "ns").ok());
  EXPECT_EQ(t->calls(), 1) << "a 4xx other than 429 is not retried";

  std::deque<HttpReply> busy(12, Reply(429, "0"));
  c = ClientOver(busy, &t);
  auto got = c->Get(Kind("Namespace"), "", "ns");
  EXPECT_FALSE(got.ok());
  EXPECT_EQ(t->calls(), 11) << "the first try and ten retries";
  EXPECT_EQ(Reason(got.status()), "TooManyRequests");
}

}  // namespace
}  // namespace draplane::client

// A watcher that stops reading is closed once it falls too far behind
// (ApiServerOptions::watch_queue_limit), and what it held is let go; a
// watcher that keeps up is not.
#include <memory>
#include <string>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "apiserver/api_server_test_util.h"
#include "gtest/gtest.h"

namespace draplane::apiserver::api_server_test {
namespace {

constexpr char kClasses[] = "/apis/resource.k8s.io/v1/deviceclasses";

// A client that never reads: its first chunk blocks until the exchange is
// aborted, as a write into a full socket does.
class StuckWriter : public RecordingWriter {
 public:
  bool WriteChunk(std::string_view data) override {
    (void)data;
    blocked.Notify();
    aborted.WaitForNotification();
    return false;
  }
  void Abort() override {
    if (!aborted.HasBeenNotified()) aborted.Notify();
  }
  absl::Notification blocked, aborted;
};

std::string Class(const std::string& name) {
  return R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass",)"
         R"("metadata":{"name":")" +
         name + R"("}})";
}

// Creates a DeviceClass; the answer.
Response Create(ApiServer& server, const std::string& name) {
  http::HttpRequest req;
  req.method = "POST";
  req.path = kClasses;
  req.headers["content-type"] = "application/json";
  req.headers["accept"] = "application/json";
  req.body = Class(name);
  RecordingWriter w;
  server.Handle(req, w);
  return Response{w.code, w.headers, w.body};
}

http::HttpRequest WatchFrom(const std::string& rv) {
  http::HttpRequest req;
  req.method = "GET";
  req.path = kClasses;
  req.query = {{"watch", "true"}, {"resourceVersion", rv}};
  req.headers["accept"] = "application/json";
  return req;
}

TEST(WatchBackpressureTest, AWatcherThatStopsReadingIsClosed) {
  auto store = store::NewMemoryStore();
  ApiServerOptions options;
  options.watch_queue_limit = 10;
  ApiServer server(store.get(), options);
  auto first = Create(server, "c0");
  ASSERT_EQ(first.code, 201);
  const std::string rv = first.JsonBody()["metadata"]["resourceVersion"];

  StuckWriter stuck;
  std::thread watcher([&] { server.Handle(WatchFrom(rv), stuck); });
  ASSERT_EQ(Create(server, "c1").code, 201);
  stuck.blocked.WaitForNotification();
  for (int i = 2; i < 40 && !stuck.aborted.HasBeenNotified(); ++i) {
    ASSERT_EQ(Create(server, "c" + std::to_string(i)).code, 201);
  }
  EXPECT_TRUE(stuck.aborted.HasBeenNotified())
      << "aborted once more than 10 events waited";
  watcher.join();  // the handler returned
}

TEST(WatchBackpressureTest, AWatcherThatKeepsUpSeesEverything) {
  auto store = store::NewMemoryStore();
  ApiServer server(store.get(), {});
  auto first = Create(server, "c0");
  const std::string rv = first.JsonBody()["metadata"]["resourceVersion"];
  RecordingWriter w;
  std::thread watcher([&] { server.Handle(WatchFrom(rv), w); });
  for (int i = 1; i <= 100; ++i) {
    ASSERT_EQ(Create(server, "c" + std::to_string(i)).code, 201);
  }
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (w.Events().size() < 100u && absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  w.stop = true;  // the server stops: the watch ends
  watcher.join();
  EXPECT_EQ(w.Events().size(), 100u);
}

}  // namespace
}  // namespace draplane::apiserver::api_server_test

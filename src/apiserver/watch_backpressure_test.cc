// A watcher that stops reading is closed once it falls too far behind
// (ApiServerOptions::watch_queue_limit), and what it held is let go; a
// watcher that keeps up is not. Both for a watch served on its handler's
// thread and for one whose stream is detached (HTTP).
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
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

// A detached stream whose client reads everything written, or (stuck)
// nothing: then its queue is always full.
class FakeStream : public http::DetachedStream {
 public:
  explicit FakeStream(bool stuck = false) : stuck_(stuck) {}
  bool Write(std::string data) override {
    absl::MutexLock lock(&mu_);
    if (ended_) return false;
    chunks_.push_back(std::move(data));
    return true;
  }
  size_t QueuedBytes() const override { return stuck_ ? size_t{1} << 30 : 0; }
  bool Ended() const override {
    absl::MutexLock lock(&mu_);
    return ended_;
  }
  void Close() override { End(&closed_); }
  void Abort() override { End(&aborted_); }
  void OnDrainOrEnd(std::function<void()> f) override {
    absl::MutexLock lock(&mu_);
    on_end_ = std::move(f);
  }
  // The client goes away.
  void ClientCloses() { End(nullptr); }

  size_t Events() const {
    absl::MutexLock lock(&mu_);
    return chunks_.size();
  }
  bool closed() const {
    absl::MutexLock lock(&mu_);
    return closed_;
  }
  bool aborted() const {
    absl::MutexLock lock(&mu_);
    return aborted_;
  }

 private:
  void End(bool* how) {
    std::function<void()> f;
    {
      absl::MutexLock lock(&mu_);
      if (ended_) return;
      ended_ = true;
      if (how != nullptr) *how = true;
      f = std::move(on_end_);
    }
    if (f) f();
  }

  const bool stuck_;
  mutable absl::Mutex mu_;
  std::vector<std::string> chunks_ ABSL_GUARDED_BY(mu_);
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool aborted_ ABSL_GUARDED_BY(mu_) = false;
  std::function<void()> on_end_ ABSL_GUARDED_BY(mu_);
};

// An HTTP-like writer whose stream the handler detaches.
class DetachingWriter : public RecordingWriter {
 public:
  explicit DetachingWriter(std::shared_ptr<FakeStream> stream)
      : stream(std::move(stream)) {}
  std::shared_ptr<http::DetachedStream> Detach() override { return stream; }
  std::shared_ptr<FakeStream> stream;
};

// True once `done` holds, checked for up to 30 s.
bool Eventually(const std::function<bool()>& done) {
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (!done()) {
    if (absl::Now() > give_up) return false;
    absl::SleepFor(absl::Milliseconds(2));
  }
  return true;
}

TEST(DetachedWatchTest, TheHandlerReturnsAndTheWatcherSeesEverything) {
  auto store = store::NewMemoryStore();
  ApiServer server(store.get(), {});
  const std::string rv =
      Create(server, "c0").JsonBody()["metadata"]["resourceVersion"];
  DetachingWriter w(std::make_shared<FakeStream>());
  server.Handle(WatchFrom(rv), w);  // returns: the stream is detached
  EXPECT_EQ(w.code, 200);
  for (int i = 1; i <= 100; ++i) {
    ASSERT_EQ(Create(server, "c" + std::to_string(i)).code, 201);
  }
  EXPECT_TRUE(Eventually([&] { return w.stream->Events() == 100u; }))
      << w.stream->Events();
  EXPECT_FALSE(w.stream->Ended());
  // The client goes away: the watch ends; later events go nowhere.
  w.stream->ClientCloses();
  ASSERT_EQ(Create(server, "late").code, 201);
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_EQ(w.stream->Events(), 100u);
}

TEST(DetachedWatchTest, AWatcherThatStopsReadingIsAborted) {
  auto store = store::NewMemoryStore();
  ApiServerOptions options;
  options.watch_queue_limit = 10;
  ApiServer server(store.get(), options);
  const std::string rv =
      Create(server, "c0").JsonBody()["metadata"]["resourceVersion"];
  DetachingWriter w(std::make_shared<FakeStream>(/*stuck=*/true));
  server.Handle(WatchFrom(rv), w);
  for (int i = 1; i < 40 && !w.stream->aborted(); ++i) {
    ASSERT_EQ(Create(server, "c" + std::to_string(i)).code, 201);
    absl::SleepFor(absl::Milliseconds(2));
  }
  EXPECT_TRUE(Eventually([&] { return w.stream->aborted(); }))
      << "aborted once more than 10 events waited: " << w.stream->Events();
  EXPECT_FALSE(w.stream->closed());
}

TEST(DetachedWatchTest, TheDeadlineClosesTheStream) {
  auto store = store::NewMemoryStore();
  ApiServer server(store.get(), {});
  const std::string rv =
      Create(server, "c0").JsonBody()["metadata"]["resourceVersion"];
  DetachingWriter w(std::make_shared<FakeStream>());
  http::HttpRequest req = WatchFrom(rv);
  req.query.emplace("timeoutSeconds", "1");
  server.Handle(req, w);
  EXPECT_FALSE(w.stream->Ended());
  EXPECT_TRUE(Eventually([&] { return w.stream->closed(); }));
  EXPECT_FALSE(w.stream->aborted());
}

}  // namespace
}  // namespace draplane::apiserver::api_server_test

#include "client/informer.h"

#include <atomic>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "client/testing/test_server.h"
#include "gtest/gtest.h"
#include "testing/eventually.h"

namespace draplane::client {
namespace {

using testing::Claim;
using testing::Meta;
using testing::TestServer;

// The in-process transport with a switch that breaks every open stream
// and refuses new ones (a network partition).
class PartitionableTransport : public Transport {
 public:
  explicit PartitionableTransport(std::unique_ptr<Transport> inner)
      : inner_(std::move(inner)) {}

  void SetDown(bool down) { down_ = down; }
  int streams() const { return streams_.load(); }
  // Streams started and not yet returned.
  int open_streams() const { return open_.load(); }

  absl::StatusOr<HttpReply> RoundTrip(const HttpCall& call) override {
    if (down_) return absl::UnavailableError("partitioned");
    return inner_->RoundTrip(call);
  }

  absl::Status Stream(
      const HttpCall& call,
      const std::function<void(int, const std::map<std::string, std::string>&)>&
          on_status,
      const std::function<bool(std::string_view)>& on_data,
      const ObjectEventFn& on_object, const CancelFlag& cancel) override {
    if (down_) return absl::UnavailableError("partitioned");
    ++streams_;
    ++open_;
    CancelFlag inner_cancel{false};
    std::atomic<bool> done{false};
    std::thread poller([&] {
      while (!done) {
        if (cancel || down_) inner_cancel = true;
        absl::SleepFor(absl::Milliseconds(5));
      }
    });
    absl::Status st =
        inner_->Stream(call, on_status, on_data, on_object, inner_cancel);
    done = true;
    poller.join();
    --open_;
    if (down_ && !cancel) return absl::UnavailableError("connection reset");
    return st;
  }

 private:
  std::unique_ptr<Transport> inner_;
  std::atomic<bool> down_{false};
  std::atomic<int> streams_{0};
  std::atomic<int> open_{0};
};

// What the handlers saw, as "add c1", "update c1", "delete c1".
class Recorder {
 public:
  EventHandler Handler(const std::string& prefix = "") {
    return EventHandler{
        .on_add =
            [this, prefix](const ObjectPtr& o) {
              Add(prefix + "add " + Meta(*o).name);
            },
        .on_update =
            [this, prefix](const ObjectPtr& old, const ObjectPtr& o) {
              Add(prefix + "update " + Meta(*o).name +
                  (old == o ? " (resync)" : ""));
            },
        .on_delete =
            [this, prefix](const ObjectPtr& o) {
              Add(prefix + "delete " + Meta(*o).name);
            },
    };
  }
  std::vector<std::string> Events() {
    absl::MutexLock lock(&mu_);
    return events_;
  }
  // Waits until `n` events were recorded (up to 10 s).
  bool WaitFor(size_t n) {
    return draplane::testing::Eventually([&] { return Events().size() >= n; });
  }

 private:
  void Add(std::string e) {
    absl::MutexLock lock(&mu_);
    events_.push_back(std::move(e));
  }
  absl::Mutex mu_;
  std::vector<std::string> events_;
};

InformerOptions ClaimOptions() {
  InformerOptions options;
  options.kind = &Kind("ResourceClaim");
  options.page_size = 2;
  options.initial_backoff = absl::Milliseconds(10);
  options.max_backoff = absl::Milliseconds(50);
  return options;
}

TEST(InformerTest, SyncsThenDeliversAddsUpdatesAndDeletes) {
  TestServer server(false);
  auto client = server.NewClient();
  for (const char* name : {"a", "b", "c"}) {
    ASSERT_TRUE(client->Create(Claim(name)).ok());
  }
  Informer informer(client.get(), ClaimOptions());
  Recorder recorder;
  informer.AddHandler(recorder.Handler());
  EXPECT_FALSE(informer.HasSynced());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(10)));
  // Three objects over two pages, delivered before HasSynced().
  EXPECT_EQ(recorder.Events(),
            (std::vector<std::string>{"add a", "add b", "add c"}));
  EXPECT_EQ(informer.List().size(), 3u);
  ASSERT_NE(informer.Get("default", "b"), nullptr);
  EXPECT_EQ(informer.Get("other", "b"), nullptr);

  auto d = client->Create(Claim("d"));
  ASSERT_TRUE(d.ok());
  api::Object changed = *d;
  changed.mutable_metadata()->labels["x"] = "1";
  auto updated = client->Update(changed);
  ASSERT_TRUE(updated.ok());
  ASSERT_TRUE(client->Delete(Kind("ResourceClaim"), "default", "a").ok());
  ASSERT_TRUE(recorder.WaitFor(6));
  EXPECT_EQ(recorder.Events(),
            (std::vector<std::string>{"add a", "add b", "add c", "add d",
                                      "update d", "delete a"}));
  EXPECT_EQ(informer.Get("default", "a"), nullptr);
  ASSERT_NE(informer.Get("default", "d"), nullptr);
  EXPECT_EQ(Meta(*informer.Get("default", "d")).labels.at("x"), "1");
  // The cache reflects the delete's revision (or a later bookmark).
  EXPECT_GE(std::stoll(informer.ResourceVersion()),
            std::stoll(Meta(*updated).resource_version));

  // A late handler first sees the cache as adds.
  Recorder late;
  informer.AddHandler(late.Handler());
  ASSERT_TRUE(late.WaitFor(3));
  EXPECT_EQ(late.Events(),
            (std::vector<std::string>{"add b", "add c", "add d"}));
  informer.Stop();
}

// Like kube-scheduler's and kube-controller-manager's informers, the cache
// has no managedFields unless asked; writing a cached object back keeps
// the server's.
TEST(InformerTest, DropsManagedFieldsUnlessAsked) {
  TestServer server(false);
  auto client = server.NewClient();
  ASSERT_TRUE(client->Create(Claim("listed")).ok());
  InformerOptions keep_options = ClaimOptions();
  keep_options.drop_managed_fields = false;
  Informer trimmed(client.get(), ClaimOptions());
  Informer kept(client.get(), keep_options);
  trimmed.Start();
  kept.Start();
  ASSERT_TRUE(trimmed.WaitForSync(absl::Seconds(10)));
  ASSERT_TRUE(kept.WaitForSync(absl::Seconds(10)));
  ASSERT_TRUE(client->Create(Claim("watched")).ok());
  ASSERT_TRUE(draplane::testing::Eventually([&] {
    return trimmed.Get("default", "watched") != nullptr &&
           kept.Get("default", "watched") != nullptr;
  }));
  for (const char* name : {"listed", "watched"}) {
    SCOPED_TRACE(name);
    ASSERT_NE(trimmed.Get("default", name), nullptr);
    ASSERT_NE(kept.Get("default", name), nullptr);
    EXPECT_TRUE(Meta(*trimmed.Get("default", name)).managed_fields.empty());
    EXPECT_FALSE(Meta(*kept.Get("default", name)).managed_fields.empty());
  }

  api::Object changed = *trimmed.Get("default", "watched");
  changed.mutable_metadata()->labels["x"] = "1";
  // Held: the informer replaces its cached object when the update arrives.
  const ObjectPtr kept_before = kept.Get("default", "watched");
  WriteOptions other_manager;
  other_manager.field_manager = "other-writer";
  auto updated = client->Update(changed, other_manager);
  ASSERT_TRUE(updated.ok()) << updated.status();
  const auto& before = Meta(*kept_before).managed_fields;
  const auto& after = Meta(*updated).managed_fields;
  ASSERT_EQ(after.size(), before.size() + 1);
  EXPECT_EQ(after.front().manager, before.front().manager);
  EXPECT_EQ(after.back().manager, "other-writer");
  trimmed.Stop();
  kept.Stop();
}

TEST(InformerTest, RelistsAfterTheWatchVersionIsCompacted) {
  TestServer server(false);
  auto partitionable = std::make_unique<PartitionableTransport>(
      NewInProcessTransport(server.InProcessHandler(), server.Config()));
  PartitionableTransport* net = partitionable.get();
  Client client(std::move(partitionable), server.Config());
  Client direct(
      NewInProcessTransport(server.InProcessHandler(), server.Config()),
      server.Config());
  for (const char* name : {"a", "b", "c"}) {
    ASSERT_TRUE(direct.Create(Claim(name)).ok());
  }
  Informer informer(&client, ClaimOptions());
  Recorder recorder;
  informer.AddHandler(recorder.Handler());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(10)));
  ASSERT_TRUE(
      draplane::testing::Eventually([&] { return net->streams() > 0; }));
  const std::string synced_rv = informer.ResourceVersion();

  // Partitioned: the informer misses a create, an update and a delete, and
  // the history it would resume from is compacted away.
  net->SetDown(true);
  ASSERT_TRUE(draplane::testing::Eventually(
      [&] { return net->open_streams() == 0; }));  // the open stream is cut
  ASSERT_TRUE(direct.Create(Claim("d")).ok());
  auto b = direct.Get(Kind("ResourceClaim"), "default", "b");
  ASSERT_TRUE(b.ok());
  b->mutable_metadata()->labels["x"] = "1";
  ASSERT_TRUE(direct.Update(*b).ok());
  ASSERT_TRUE(direct.Delete(Kind("ResourceClaim"), "default", "c").ok());
  ASSERT_TRUE(server.store().Compact(server.store().Revision()).ok());
  const int streams_before = net->streams();
  net->SetDown(false);

  // The re-watch from the old version gets 410; the re-list reports the
  // differences.
  ASSERT_TRUE(recorder.WaitFor(6));
  EXPECT_TRUE(draplane::testing::Consistently(
      [&] { return recorder.Events().size() == 6; }, absl::Milliseconds(100)));
  EXPECT_EQ(recorder.Events(),
            (std::vector<std::string>{"add a", "add b", "add c", "update b",
                                      "add d", "delete c"}));
  EXPECT_GT(net->streams(), streams_before);
  EXPECT_GT(std::stoll(informer.ResourceVersion()), std::stoll(synced_rv));
  EXPECT_EQ(informer.List().size(), 3u);
  EXPECT_EQ(informer.Get("default", "c"), nullptr);

  // And it watches again.
  ASSERT_TRUE(direct.Create(Claim("e")).ok());
  ASSERT_TRUE(recorder.WaitFor(7));
  EXPECT_EQ(recorder.Events().back(), "add e");
}

TEST(InformerTest, ResyncRedeliversTheCache) {
  TestServer server(false);
  auto client = server.NewClient();
  ASSERT_TRUE(client->Create(Claim("a")).ok());
  InformerOptions options = ClaimOptions();
  options.resync = absl::Milliseconds(50);
  Informer informer(client.get(), options);
  Recorder recorder;
  informer.AddHandler(recorder.Handler());
  informer.Start();
  ASSERT_TRUE(recorder.WaitFor(3));
  informer.Stop();
  const auto events = recorder.Events();
  EXPECT_EQ(events[0], "add a");
  EXPECT_EQ(events[1], "update a (resync)");
  EXPECT_EQ(events[2], "update a (resync)");
}

TEST(InformerTest, StopIsPromptAndFinal) {
  TestServer server(false);
  auto client = server.NewClient();
  Informer informer(client.get(), ClaimOptions());
  Recorder recorder;
  informer.AddHandler(recorder.Handler());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(10)));
  // The watch is open once it delivers an object created after the list.
  ASSERT_TRUE(client->Create(Claim("probe")).ok());
  ASSERT_TRUE(recorder.WaitFor(1));
  const absl::Time start = absl::Now();
  informer.Stop();
  const absl::Duration took = absl::Now() - start;
  std::printf("informer Stop() took %s (in-process)\n",
              absl::FormatDuration(took).c_str());
  // The in-process watch notices within the API server's 500 ms poll.
  EXPECT_LT(took, absl::Seconds(3));
  const size_t seen = recorder.Events().size();
  ASSERT_TRUE(client->Create(Claim("late")).ok());
  EXPECT_TRUE(draplane::testing::Consistently(
      [&] { return recorder.Events().size() == seen; },
      absl::Milliseconds(50)));
  informer.Stop();  // idempotent
}

TEST(InformerTest, StopWhileTheServerIsUnreachable) {
  TestServer server(false);
  auto partitionable = std::make_unique<PartitionableTransport>(
      NewInProcessTransport(server.InProcessHandler(), server.Config()));
  partitionable->SetDown(true);
  Client client(std::move(partitionable), server.Config());
  InformerOptions options = ClaimOptions();
  options.initial_backoff = absl::Seconds(30);  // Stop interrupts it
  Informer informer(&client, options);
  informer.Start();
  EXPECT_FALSE(informer.WaitForSync(absl::Milliseconds(100)));
  const absl::Time start = absl::Now();
  informer.Stop();
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
}

TEST(InformerTest, HttpsInformerStopsPromptly) {
  TestServer server(true);
  auto client = server.NewClient();
  ASSERT_TRUE(client->Create(Claim("a")).ok());
  Informer informer(client.get(), ClaimOptions());
  Recorder recorder;
  informer.AddHandler(recorder.Handler());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(10)));
  ASSERT_TRUE(client->Create(Claim("b")).ok());
  ASSERT_TRUE(recorder.WaitFor(2));
  const absl::Time start = absl::Now();
  informer.Stop();
  std::printf("informer Stop() took %s (https)\n",
              absl::FormatDuration(absl::Now() - start).c_str());
  EXPECT_EQ(recorder.Events(), (std::vector<std::string>{"add a", "add b"}));
}

}  // namespace
}  // namespace draplane::client

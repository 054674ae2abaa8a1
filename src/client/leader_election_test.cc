#include "client/leader_election.h"

#include <atomic>
#include <mutex>

#include "absl/time/clock.h"
#include "client/internal/test_server.h"
#include "gtest/gtest.h"

namespace draplane::client {
namespace {

using testing::TestServer;

struct Observer {
  std::atomic<int> started{0};
  std::atomic<int> stopped{0};
  std::mutex mu;
  std::vector<std::string> leaders;

  LeaderCallbacks Callbacks() {
    return LeaderCallbacks{
        .on_started_leading = [this] { ++started; },
        .on_stopped_leading = [this] { ++stopped; },
        .on_new_leader =
            [this](const std::string& id) {
              std::lock_guard lock(mu);
              leaders.push_back(id);
            },
    };
  }
  std::vector<std::string> Leaders() {
    std::lock_guard lock(mu);
    return leaders;
  }
};

LeaderElectionConfig FastConfig(const std::string& identity) {
  LeaderElectionConfig config;
  config.lease_name = "draplane-test";
  config.identity = identity;
  config.lease_duration = absl::Seconds(1);
  config.renew_deadline = absl::Milliseconds(500);
  config.retry_period = absl::Milliseconds(100);
  return config;
}

// Polls `fn` for up to `timeout`.
template <class Fn>
bool Eventually(Fn&& fn, absl::Duration timeout = absl::Seconds(10)) {
  const absl::Time end = absl::Now() + timeout;
  while (absl::Now() < end) {
    if (fn()) return true;
    absl::SleepFor(absl::Milliseconds(10));
  }
  return fn();
}

api::Lease GetLease(Client& client) {
  auto got = client.Get(Kind("Lease"), "kube-system", "draplane-test");
  EXPECT_TRUE(got.ok()) << got.status();
  return got.ok() ? std::get<api::Lease>(got->value) : api::Lease{};
}

TEST(LeaderElectionTest, OneLeadsAndTheOtherTakesOverAfterRelease) {
  TestServer server(false);
  auto client_a = server.NewClient();
  auto client_b = server.NewClient();
  Observer a_obs, b_obs;
  auto a = std::make_unique<LeaderElector>(client_a.get(), FastConfig("a"),
                                           a_obs.Callbacks());
  LeaderElector b(client_b.get(), FastConfig("b"), b_obs.Callbacks());
  a->Start();
  ASSERT_TRUE(Eventually([&] { return a->IsLeader(); }));
  b.Start();
  // b sees a as leader and does not take over while a renews.
  ASSERT_TRUE(Eventually([&] { return !b_obs.Leaders().empty(); }));
  absl::SleepFor(absl::Milliseconds(1500));  // longer than the lease
  EXPECT_TRUE(a->IsLeader());
  EXPECT_FALSE(b.IsLeader());
  EXPECT_EQ(a_obs.started.load(), 1);
  EXPECT_EQ(b_obs.started.load(), 0);
  EXPECT_EQ(b_obs.Leaders(), std::vector<std::string>{"a"});
  api::Lease lease = GetLease(*client_a);
  EXPECT_EQ(lease.spec.holder_identity, "a");
  EXPECT_EQ(lease.spec.lease_duration_seconds, 1);
  EXPECT_EQ(lease.spec.lease_transitions, 0);
  ASSERT_TRUE(lease.spec.renew_time.has_value());
  EXPECT_EQ(lease.spec.renew_time->size(),
            std::string("2024-01-01T00:00:00.000000Z").size());

  // Stopping the leader releases the lease; b takes over quickly.
  const absl::Time stopped = absl::Now();
  a->Stop();
  EXPECT_FALSE(a->IsLeader());
  EXPECT_EQ(a_obs.stopped.load(), 1);
  ASSERT_TRUE(Eventually([&] { return b.IsLeader(); }, absl::Seconds(5)));
  std::printf("takeover after release: %s\n",
              absl::FormatDuration(absl::Now() - stopped).c_str());
  EXPECT_EQ(b_obs.started.load(), 1);
  lease = GetLease(*client_b);
  EXPECT_EQ(lease.spec.holder_identity, "b");
  EXPECT_EQ(lease.spec.lease_transitions, 1);
  EXPECT_EQ(b_obs.Leaders().back(), "b");
  b.Stop();
  lease = GetLease(*client_b);
  EXPECT_EQ(lease.spec.holder_identity, "");
  EXPECT_EQ(lease.spec.lease_duration_seconds, 1);
  EXPECT_EQ(b_obs.stopped.load(), 1);
}

TEST(LeaderElectionTest, TakesOverAnExpiredLeaseWithoutRelease) {
  TestServer server(false);
  auto client_a = server.NewClient();
  auto client_b = server.NewClient();
  Observer a_obs, b_obs;
  LeaderElectionConfig a_config = FastConfig("a");
  a_config.release_on_cancel = false;  // a "crashes"
  LeaderElector a(client_a.get(), a_config, a_obs.Callbacks());
  LeaderElector b(client_b.get(), FastConfig("b"), b_obs.Callbacks());
  a.Start();
  ASSERT_TRUE(Eventually([&] { return a.IsLeader(); }));
  b.Start();
  ASSERT_TRUE(Eventually([&] { return !b_obs.Leaders().empty(); }));
  a.Stop();
  EXPECT_EQ(GetLease(*client_a).spec.holder_identity, "a");
  // b waits for the 1 s lease to expire by its own clock, then acquires.
  ASSERT_TRUE(Eventually([&] { return b.IsLeader(); }, absl::Seconds(5)));
  EXPECT_EQ(GetLease(*client_b).spec.holder_identity, "b");
}

TEST(LeaderElectionTest, LosesLeadershipWhenRenewalFails) {
  TestServer server(false);
  auto client = server.NewClient();
  Observer obs;
  LeaderElector a(client.get(), FastConfig("a"), obs.Callbacks());
  a.Start();
  ASSERT_TRUE(Eventually([&] { return a.IsLeader(); }));
  // Someone else takes the lease for a long time (e.g. after a partition).
  ASSERT_TRUE(RetryOnConflict(
                  [&]() -> absl::Status {
                    auto got = client->Get(Kind("Lease"), "kube-system",
                                           "draplane-test");
                    if (!got.ok()) return got.status();
                    auto& lease = std::get<api::Lease>(got->value);
                    lease.spec.holder_identity = "intruder";
                    lease.spec.lease_duration_seconds = 3600;
                    return client->Update(*got).status();
                  },
                  50)
                  .ok());
  ASSERT_TRUE(Eventually([&] { return obs.stopped.load() == 1; }));
  EXPECT_FALSE(a.IsLeader());
  EXPECT_EQ(obs.Leaders().back(), "intruder");
  a.Stop();
  EXPECT_EQ(obs.started.load(), 1);
  EXPECT_EQ(obs.stopped.load(), 1);
  EXPECT_EQ(GetLease(*client).spec.holder_identity, "intruder");
}

}  // namespace
}  // namespace draplane::client

#include "client/leader_election.h"

#include <atomic>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "client/testing/test_server.h"
#include "clock/simulated_clock.h"
#include "gtest/gtest.h"
#include "testing/eventually.h"

namespace draplane::client {
namespace {

using draplane::testing::Eventually;
using testing::TestServer;

struct Observer {
  std::atomic<int> started{0};
  std::atomic<int> stopped{0};
  std::atomic<int> lost{0};
  absl::Mutex mu;
  std::vector<std::string> leaders;

  LeaderCallbacks Callbacks() {
    return LeaderCallbacks{
        .on_started_leading = [this] { ++started; },
        .on_stopped_leading =
            [this](LeadershipEnd end) {
              ++stopped;
              if (end == LeadershipEnd::kLost) ++lost;
            },
        .on_new_leader =
            [this](const std::string& id) {
              absl::MutexLock lock(&mu);
              leaders.push_back(id);
            },
    };
  }
  std::vector<std::string> Leaders() {
    absl::MutexLock lock(&mu);
    return leaders;
  }
};

// Upstream's defaults (15 s lease, 10 s renew deadline, 2 s retry) on a
// simulated clock.
LeaderElectionConfig ConfigFor(const std::string& identity,
                               SimulatedClock* clock) {
  LeaderElectionConfig config;
  config.lease_name = "draplane-test";
  config.identity = identity;
  config.clock = clock;
  return config;
}

// Advances `clock` by `step`, `steps` times, each time once the `electors`
// campaigning are all waiting on it.
void RunClock(SimulatedClock& clock, int electors, absl::Duration step,
              int steps) {
  for (int i = 0; i < steps; ++i) {
    ASSERT_TRUE(clock.AwaitWaiters(electors));
    clock.Advance(step);
  }
  ASSERT_TRUE(clock.AwaitWaiters(electors));
}

// Steps `clock` by one second until `done()`; false after `max_seconds`.
// Stops stepping when the electors stop waiting on the clock (an elector
// that lost its lease ends its thread).
template <class Fn>
bool RunUntil(SimulatedClock& clock, int electors, Fn done, int max_seconds) {
  for (int i = 0; i < max_seconds && !done(); ++i) {
    if (!clock.AwaitWaiters(electors, absl::Seconds(5))) break;
    clock.Advance(absl::Seconds(1));
  }
  return done() || Eventually(done, absl::Seconds(5));
}

// Writes the test lease's holder as another process would.
absl::Status SetHolder(Client& client, const std::string& holder,
                       int32_t duration_seconds) {
  return RetryOnConflict(
      [&]() -> absl::Status {
        auto got = client.Get(Kind("Lease"), "kube-system", "draplane-test");
        if (!got.ok()) return got.status();
        auto& lease = std::get<api::Lease>(got->value);
        lease.spec.holder_identity = holder;
        lease.spec.lease_duration_seconds = duration_seconds;
        return client.Update(*got).status();
      },
      50);
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
  SimulatedClock clock;
  Observer a_obs, b_obs;
  auto a = std::make_unique<LeaderElector>(
      client_a.get(), ConfigFor("a", &clock), a_obs.Callbacks());
  LeaderElector b(client_b.get(), ConfigFor("b", &clock), b_obs.Callbacks());
  a->Start();
  ASSERT_TRUE(Eventually([&] { return a->IsLeader(); }));
  b.Start();
  // b sees a as leader and does not take over while a renews, for three
  // lease durations.
  ASSERT_TRUE(Eventually([&] { return !b_obs.Leaders().empty(); }));
  RunClock(clock, 2, absl::Seconds(1), 45);
  EXPECT_TRUE(a->IsLeader());
  EXPECT_FALSE(b.IsLeader());
  EXPECT_EQ(a_obs.started.load(), 1);
  EXPECT_EQ(b_obs.started.load(), 0);
  EXPECT_EQ(b_obs.Leaders(), std::vector<std::string>{"a"});
  api::Lease lease = GetLease(*client_a);
  EXPECT_EQ(lease.spec.holder_identity, "a");
  EXPECT_EQ(lease.spec.lease_duration_seconds, 15);
  EXPECT_EQ(lease.spec.lease_transitions, 0);
  ASSERT_TRUE(lease.spec.renew_time.has_value());
  EXPECT_EQ(lease.spec.renew_time->size(),
            std::string("2024-01-01T00:00:00.000000Z").size());

  // Stopping the leader releases the lease; b takes over at its next
  // retry (2 s, jittered up to 4.4 s), not after the 15 s lease.
  a->Stop();
  EXPECT_FALSE(a->IsLeader());
  EXPECT_EQ(a_obs.stopped.load(), 1);
  ASSERT_TRUE(RunUntil(
      clock, 1, [&] { return b.IsLeader(); }, 5));
  EXPECT_EQ(b_obs.started.load(), 1);
  lease = GetLease(*client_b);
  EXPECT_EQ(lease.spec.holder_identity, "b");
  EXPECT_EQ(lease.spec.lease_transitions, 1);
  EXPECT_EQ(b_obs.Leaders().back(), "b");
  b.Stop();
  lease = GetLease(*client_b);
  EXPECT_EQ(lease.spec.holder_identity, "");
  EXPECT_EQ(lease.spec.lease_duration_seconds, 1);  // client-go's release
  EXPECT_EQ(b_obs.stopped.load(), 1);
}

TEST(LeaderElectionTest, TakesOverAnExpiredLeaseWithoutRelease) {
  TestServer server(false);
  auto client_a = server.NewClient();
  auto client_b = server.NewClient();
  SimulatedClock clock;
  Observer a_obs, b_obs;
  LeaderElectionConfig a_config = ConfigFor("a", &clock);
  a_config.release_on_cancel = false;  // a "crashes"
  LeaderElector a(client_a.get(), a_config, a_obs.Callbacks());
  LeaderElector b(client_b.get(), ConfigFor("b", &clock), b_obs.Callbacks());
  a.Start();
  ASSERT_TRUE(Eventually([&] { return a.IsLeader(); }));
  b.Start();
  ASSERT_TRUE(Eventually([&] { return !b_obs.Leaders().empty(); }));
  a.Stop();
  EXPECT_EQ(GetLease(*client_a).spec.holder_identity, "a");
  // b waits for the 15 s lease to expire by its own clock, then acquires
  // at a retry.
  RunClock(clock, 1, absl::Seconds(1), 14);
  EXPECT_FALSE(b.IsLeader());
  ASSERT_TRUE(RunUntil(
      clock, 1, [&] { return b.IsLeader(); }, 6));
  EXPECT_EQ(GetLease(*client_b).spec.holder_identity, "b");
}

TEST(LeaderElectionTest, LosesLeadershipWhenRenewalFails) {
  TestServer server(false);
  auto client = server.NewClient();
  SimulatedClock clock;
  Observer obs;
  LeaderElector a(client.get(), ConfigFor("a", &clock), obs.Callbacks());
  a.Start();
  ASSERT_TRUE(Eventually([&] { return a.IsLeader(); }));
  // Someone else takes the lease for a long time (e.g. after a partition).
  ASSERT_TRUE(SetHolder(*client, "intruder", 3600).ok());
  // a's renewals fail from its next one on; it gives up once the 10 s
  // renew deadline cannot be met.
  ASSERT_TRUE(RunUntil(
      clock, 1, [&] { return obs.stopped.load() == 1; }, 15));
  EXPECT_FALSE(a.IsLeader());
  EXPECT_EQ(obs.lost.load(), 1);
  EXPECT_EQ(obs.Leaders().back(), "intruder");
  EXPECT_EQ(GetLease(*client).spec.holder_identity, "intruder");
  // As client-go's Run, a campaigns no more (its process exits and
  // restarts): the lease freed, a does not take it.
  ASSERT_TRUE(SetHolder(*client, "", 1).ok());
  for (int i = 0; i < 30; ++i) clock.Advance(absl::Seconds(1));
  absl::SleepFor(absl::Milliseconds(200));
  EXPECT_FALSE(a.IsLeader());
  EXPECT_EQ(GetLease(*client).spec.holder_identity, "");
  a.Stop();
  EXPECT_EQ(obs.started.load(), 1);
  EXPECT_EQ(obs.stopped.load(), 1);
}

TEST(LeaderElectionTest, StopReleasesWithoutCountingAsLost) {
  TestServer server(false);
  auto client = server.NewClient();
  SimulatedClock clock;
  Observer obs;
  LeaderElector a(client.get(), ConfigFor("a", &clock), obs.Callbacks());
  a.Start();
  ASSERT_TRUE(Eventually([&] { return a.IsLeader(); }));
  a.Stop();
  EXPECT_EQ(obs.stopped.load(), 1);
  EXPECT_EQ(obs.lost.load(), 0);
  EXPECT_EQ(GetLease(*client).spec.holder_identity, "");
}

// client-go's HealthzAdaptor: a leader whose elector cannot renew (here:
// stuck in its callback) fails the check once the lease duration plus 20 s
// have passed since its last renewal.
TEST(LeaderElectionTest, CheckFailsWhenTheLeaderStopsRenewing) {
  TestServer server(false);
  auto client = server.NewClient();
  SimulatedClock clock;
  absl::Notification entered, release;
  LeaderCallbacks callbacks;
  callbacks.on_started_leading = [&] {
    entered.Notify();
    release.WaitForNotification();
  };
  LeaderElector a(client.get(), ConfigFor("a", &clock), callbacks);
  EXPECT_TRUE(a.Check().ok()) << "not leading: healthy";
  a.Start();
  entered.WaitForNotification();
  ASSERT_TRUE(a.IsLeader());
  clock.Advance(absl::Seconds(35));
  EXPECT_TRUE(a.Check().ok()) << a.Check();
  clock.Advance(absl::Seconds(1));
  EXPECT_EQ(a.Check().message(),
            "failed election to renew leadership on lease draplane-test");
  release.Notify();
  a.Stop();
  EXPECT_TRUE(a.Check().ok()) << "no longer leading";
}

TEST(LeaderElectionTest, ValidatesTheConfigurationAsClientGo) {
  auto with = [](absl::Duration lease, absl::Duration renew,
                 absl::Duration retry, std::string identity = "a") {
    LeaderElectionConfig config;
    config.lease_name = "l";
    config.identity = std::move(identity);
    config.lease_duration = lease;
    config.renew_deadline = renew;
    config.retry_period = retry;
    return std::string(ValidateLeaderElectionConfig(config).message());
  };
  const absl::Duration s = absl::Seconds(1);
  EXPECT_EQ(with(15 * s, 10 * s, 2 * s), "");
  EXPECT_EQ(with(10 * s, 10 * s, 2 * s),
            "leaseDuration must be greater than renewDeadline");
  EXPECT_EQ(with(15 * s, 11 * s, 10 * s),
            "renewDeadline must be greater than retryPeriod*JitterFactor");
  EXPECT_EQ(with(15 * s, 12 * s, 10 * s),
            "renewDeadline must be greater than retryPeriod*JitterFactor")
      << "equal is not greater";
  EXPECT_EQ(with(15 * s, 12 * s + absl::Nanoseconds(1), 10 * s), "");
  EXPECT_EQ(with(15 * s, 2400 * absl::Milliseconds(1), 2 * s),
            "renewDeadline must be greater than retryPeriod*JitterFactor");
  EXPECT_EQ(with(15 * s, 10 * s, -s), "retryPeriod must be greater than zero");
  EXPECT_EQ(with(15 * s, 10 * s, 2 * s, ""), "Lock identity is empty");
}

}  // namespace
}  // namespace draplane::client

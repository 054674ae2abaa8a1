#include "cmd/health_checks.h"

#include <string>

#include "cmd/response_recorder_test_util.h"
#include "gtest/gtest.h"

namespace draplane::cmd {
namespace {

using Recorder = ResponseRecorder;

Recorder Get(const HealthChecks& checks, const std::string& path,
             bool verbose = false) {
  http::HttpRequest req;
  req.method = "GET";
  req.path = path;
  if (verbose) req.query.emplace("verbose", "");
  Recorder r;
  EXPECT_TRUE(checks.Serve(req, r)) << path;
  return r;
}

TEST(HealthChecksTest, AnswersAsKubernetesHealthz) {
  HealthChecks checks;
  bool healthy = true;
  checks.Add("leaderElection", [&] {
    return healthy ? absl::OkStatus()
                   : absl::UnavailableError("failed election to renew");
  });
  for (const char* path : {"/healthz", "/livez"}) {
    Recorder ok = Get(checks, path);
    EXPECT_EQ(ok.status, 200);
    EXPECT_EQ(ok.body, "ok");
  }
  EXPECT_EQ(Get(checks, "/livez", true).body,
            "[+]ping ok\n[+]leaderElection ok\nlivez check passed\n");
  healthy = false;
  Recorder failed = Get(checks, "/healthz");
  EXPECT_EQ(failed.status, 500);
  EXPECT_EQ(failed.body,
            "[+]ping ok\n[-]leaderElection failed: reason withheld\n"
            "healthz check failed\n");
  EXPECT_EQ(Get(checks, "/livez/leaderElection").status, 500);
  EXPECT_EQ(Get(checks, "/livez/ping").status, 200);
  EXPECT_EQ(Get(checks, "/livez/nothing").status, 404);
  http::HttpRequest other;
  other.path = "/readyz-not";
  Recorder r;
  EXPECT_FALSE(checks.Serve(other, r)) << "other paths are not answered";
}

TEST(HealthChecksTest, ReadinessChecksRunOnReadyzOnly) {
  HealthChecks checks;
  bool synced = false;
  bool stopping = false;
  checks.Add("leaderElection", [] { return absl::OkStatus(); });
  checks.AddReadiness("shutdown", [&] {
    return stopping ? absl::UnavailableError("process is shutting down")
                    : absl::OkStatus();
  });
  checks.AddReadiness("sched-handler-sync", [&] {
    return synced
               ? absl::OkStatus()
               : absl::UnavailableError("handlers are not fully synchronized");
  });
  Recorder not_ready = Get(checks, "/readyz");
  EXPECT_EQ(not_ready.status, 500);
  EXPECT_EQ(not_ready.body,
            "[+]ping ok\n[+]leaderElection ok\n[+]shutdown ok\n"
            "[-]sched-handler-sync failed: reason withheld\n"
            "readyz check failed\n");
  EXPECT_EQ(Get(checks, "/livez").status, 200);  // alive, not ready
  EXPECT_EQ(Get(checks, "/healthz").status, 200);
  EXPECT_EQ(Get(checks, "/livez/sched-handler-sync").status, 404);
  synced = true;
  EXPECT_EQ(Get(checks, "/readyz").body, "ok");
  stopping = true;
  EXPECT_EQ(Get(checks, "/readyz/shutdown").status, 500);
  EXPECT_EQ(Get(checks, "/readyz/sched-handler-sync").status, 200);
}

}  // namespace
}  // namespace draplane::cmd

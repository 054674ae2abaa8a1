// The audit log as `draplane server --audit-policy-file --audit-log-path`
// writes it: one audit.k8s.io/v1 Event per line and stage, with what
// kube-apiserver records at each level, for allowed, forbidden (403) and
// unauthenticated (401) requests, impersonation and watches, and the
// rotation of the file.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "apiserver/api_server_test_util.h"
#include "clock/simulated_clock.h"
#include "gtest/gtest.h"

namespace draplane::apiserver::api_server_test {
namespace {

namespace fs = std::filesystem;

class AuditLogTest : public ::testing::Test {
 protected:
  AuditLogTest() {
    std::string tmpl = ::testing::TempDir() + "/audit_log_test.XXXXXX";
    EXPECT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/audit.log";
  }
  ~AuditLogTest() override {
    server_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // A server with RBAC, users admin (system:masters), alice and bob, and
  // the audit policy `rules` (YAML after `rules:`).
  void Start(const std::string& rules, int max_size_mb = 0, int max_backups = 0,
             const std::string& extra = "") {
    auto policy =
        ParseAuditPolicy("apiVersion: audit.k8s.io/v1\nkind: Policy\n" + extra +
                         "rules:\n" + rules);
    ASSERT_TRUE(policy.ok()) << policy.status();
    ApiServerOptions options;
    options.authorization_mode = ApiServerOptions::AuthorizationMode::kRbac;
    for (const auto& [token, name, group] :
         std::vector<std::tuple<std::string, std::string, std::string>>{
             {"admin", "admin", "system:masters"},
             {"alice", "alice", "team-a"},
             {"bob", "bob", "team-b"}}) {
      auth::StaticToken t;
      t.token = token;
      t.user.name = name;
      t.user.uid = name + "-uid";
      t.user.groups = {group};
      options.tokens.push_back(t);
    }
    options.audit_policy =
        std::make_shared<const AuditPolicy>(*std::move(policy));
    options.audit_log_path = path_;
    options.audit_log_max_size_mb = max_size_mb;
    options.audit_log_max_backups = max_backups;
    options.clock = &clock_;
    server_ = std::make_unique<ApiServer>(store_.get(), options);
  }

  Response Do(const std::string& who, std::string method,
              const std::string& target, const std::string& body = "",
              const std::map<std::string, std::string>& headers = {},
              RecordingWriter* writer = nullptr) {
    http::HttpRequest req;
    req.method = std::move(method);
    req.target = target;
    const size_t q = target.find('?');
    req.path = target.substr(0, q);
    if (q != std::string::npos) {
      const std::string query = target.substr(q + 1);
      const size_t eq = query.find('=');
      req.query.emplace(query.substr(0, eq), query.substr(eq + 1));
    }
    req.headers = headers;
    if (!who.empty()) req.headers["authorization"] = "Bearer " + who;
    req.headers["accept"] = "application/json";
    req.headers["user-agent"] = "kubectl/v1.37.2 (linux/amd64)";
    req.remote_address = "10.0.0.7";
    if (!body.empty()) {
      req.headers["content-type"] = "application/json";
      req.body = body;
    }
    RecordingWriter local;
    RecordingWriter& w = writer != nullptr ? *writer : local;
    server_->Handle(req, w);
    return Response{w.code, w.headers, w.body};
  }

  // The events written so far (each line one JSON object).
  std::vector<Json> Events(const std::string& file = "") const {
    std::ifstream in(file.empty() ? path_ : file);
    std::vector<Json> events;
    std::string line;
    while (std::getline(in, line)) {
      events.push_back(Json::parse(line));
    }
    if (file.empty()) {
      events.erase(events.begin(),
                   events.begin() + static_cast<std::ptrdiff_t>(
                                        std::min(skip_, events.size())));
    }
    return events;
  }
  // Forgets the events so far (the server keeps its file open, as
  // kube-apiserver does: the test skips them instead).
  void ClearLog() { skip_ += Events().size(); }

  std::string dir_;
  std::string path_;
  size_t skip_ = 0;
  SimulatedClock clock_;  // 2026-01-01T00:00:00Z
  std::unique_ptr<store::Store> store_ = store::NewMemoryStore();
  std::unique_ptr<ApiServer> server_;
};

constexpr char kEverything[] = "- level: Metadata\n";

TEST_F(AuditLogTest, MetadataLevelRecordsWhoDidWhatAndNoBodies) {
  Start(kEverything);
  Response r = Do("admin", "POST", kClasses, DeviceClass("gpu"),
                  {{"x-forwarded-for", "1.2.3.4, not-an-ip, 5.6.7.8"}});
  ASSERT_EQ(r.code, 201) << r.body;
  std::vector<Json> events = Events();
  ASSERT_EQ(events.size(), 2u);
  const Json& received = events[0];
  const Json& complete = events[1];
  EXPECT_EQ(received["stage"], "RequestReceived");
  EXPECT_EQ(complete["stage"], "ResponseComplete");
  EXPECT_EQ(received["auditID"], complete["auditID"]);
  EXPECT_EQ(r.Header("Audit-Id"), complete["auditID"]);
  EXPECT_EQ(complete["auditID"].get<std::string>().size(), 36u);
  const Json expected_user =
      Json::parse(R"({"username":"admin","uid":"admin-uid",)"
                  R"("groups":["system:masters","system:authenticated"]})");
  const Json expected = Json::parse(
      R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata",)"
      R"("stage":"ResponseComplete",)"
      R"("requestURI":"/apis/resource.k8s.io/v1/deviceclasses",)"
      R"("verb":"create",)"
      R"("sourceIPs":["1.2.3.4","5.6.7.8","10.0.0.7"],)"
      R"x("userAgent":"kubectl/v1.37.2 (linux/amd64)",)x"
      R"("objectRef":{"resource":"deviceclasses","name":"gpu",)"
      R"("apiGroup":"resource.k8s.io","apiVersion":"v1"},)"
      R"("responseStatus":{"metadata":{},"code":201},)"
      R"("requestReceivedTimestamp":"2026-01-01T00:00:00.000000Z",)"
      R"("stageTimestamp":"2026-01-01T00:00:00.000000Z"})");
  Json got = complete;
  got.erase("auditID");
  const Json user = got["user"];
  const Json annotations = got["annotations"];
  got.erase("user");
  got.erase("annotations");
  EXPECT_EQ(got, expected) << complete.dump();
  EXPECT_EQ(user, expected_user);
  EXPECT_EQ(annotations["authorization.k8s.io/decision"], "allow");
  // system:masters is allowed before RBAC, without a reason, as by
  // upstream's privileged-groups authorizer.
  EXPECT_EQ(annotations["authorization.k8s.io/reason"], "");
  // RequestReceived: no answer or decision yet.
  EXPECT_FALSE(received.contains("responseStatus"));
  EXPECT_FALSE(received.contains("annotations"));
  EXPECT_EQ(received["user"], expected_user);
  // The key order is upstream's (Go's struct order).
  EXPECT_EQ(complete.begin().key(), "kind");
  std::vector<std::string> keys;
  for (const auto& [key, value] : complete.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "kind", "apiVersion", "level", "auditID", "stage",
                      "requestURI", "verb", "user", "sourceIPs", "userAgent",
                      "objectRef", "responseStatus", "requestReceivedTimestamp",
                      "stageTimestamp", "annotations"}));
}

TEST_F(AuditLogTest, RequestLevelRecordsTheRequestObjectOnly) {
  Start("- level: Request\n");
  ASSERT_EQ(Do("admin", "POST", kClasses, DeviceClass("gpu")).code, 201);
  std::vector<Json> events = Events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1]["level"], "Request");
  EXPECT_EQ(events[1]["requestObject"], Json::parse(DeviceClass("gpu")));
  EXPECT_FALSE(events[1].contains("responseObject"));
  // A get has no request object.
  ClearLog();
  ASSERT_EQ(Do("admin", "GET", std::string(kClasses) + "/gpu").code, 200);
  events = Events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_FALSE(events[1].contains("requestObject"));
  EXPECT_EQ(events[1]["verb"], "get");
  EXPECT_EQ(events[1]["objectRef"]["name"], "gpu");
}

TEST_F(AuditLogTest, RequestResponseLevelRecordsTheAnswer) {
  Start("- level: RequestResponse\n");
  Response created = Do("admin", "POST", kClasses, DeviceClass("gpu"));
  ASSERT_EQ(created.code, 201);
  std::vector<Json> events = Events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1]["requestObject"], Json::parse(DeviceClass("gpu")));
  EXPECT_EQ(events[1]["responseObject"], created.JsonBody());
  EXPECT_TRUE(
      events[1]["responseObject"]["metadata"].contains("managedFields"));
  // A failure's Status: its fields in responseStatus, the body too.
  ClearLog();
  Response missing = Do("admin", "GET", std::string(kClasses) + "/nope");
  ASSERT_EQ(missing.code, 404);
  events = Events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1]["responseStatus"],
            Json::parse(R"({"metadata":{},"status":"Failure",)"
                        R"("message":"deviceclasses.resource.k8s.io \"nope\" )"
                        R"(not found","reason":"NotFound",)"
                        R"("details":{"name":"nope","group":"resource.k8s.io",)"
                        R"("kind":"deviceclasses"},"code":404})"));
  EXPECT_EQ(events[1]["responseObject"], missing.JsonBody());
}

TEST_F(AuditLogTest, OmitManagedFieldsDropsThemFromBothBodies) {
  Start("- level: RequestResponse\n", 0, 0, "omitManagedFields: true\n");
  Json body = Json::parse(DeviceClass("gpu"));
  body["metadata"]["managedFields"] =
      Json::array({Json{{"manager", "m"},
                        {"operation", "Update"},
                        {"apiVersion", "resource.k8s.io/v1"}}});
  ASSERT_EQ(Do("admin", "POST", kClasses, body.dump()).code, 201);
  ASSERT_EQ(Do("admin", "GET", kClasses).code, 200);
  std::vector<Json> events = Events();
  ASSERT_EQ(events.size(), 4u);
  EXPECT_FALSE(
      events[1]["requestObject"]["metadata"].contains("managedFields"));
  EXPECT_EQ(events[1]["responseObject"]["metadata"]["name"], "gpu");
  EXPECT_FALSE(
      events[1]["responseObject"]["metadata"].contains("managedFields"));
  EXPECT_EQ(events[3]["responseObject"]["kind"], "DeviceClassList");
  ASSERT_EQ(events[3]["responseObject"]["items"].size(), 1u);
  EXPECT_FALSE(events[3]["responseObject"]["items"][0]["metadata"].contains(
      "managedFields"));
}

TEST_F(AuditLogTest, AForbiddenRequestIsAuditedWithDecisionForbid) {
  Start(kEverything);
  Response r = Do("bob", "GET", "/api/v1/namespaces/default/pods");
  ASSERT_EQ(r.code, 403);
  std::vector<Json> events = Events();
  ASSERT_EQ(events.size(), 2u);
  const Json& e = events[1];
  EXPECT_EQ(e["stage"], "ResponseComplete");
  EXPECT_EQ(e["verb"], "list");
  EXPECT_EQ(e["user"]["username"], "bob");
  EXPECT_EQ(e["objectRef"], Json::parse(R"({"resource":"pods",)"
                                        R"("namespace":"default",)"
                                        R"("apiVersion":"v1"})"));
  EXPECT_EQ(e["annotations"]["authorization.k8s.io/decision"], "forbid");
  EXPECT_EQ(e["annotations"]["authorization.k8s.io/reason"], "");
  EXPECT_EQ(e["responseStatus"]["code"], 403);
  EXPECT_EQ(e["responseStatus"]["status"], "Failure");
  EXPECT_EQ(e["responseStatus"]["reason"], "Forbidden");
  EXPECT_EQ(e["responseStatus"]["message"], r.JsonBody()["message"]);
  EXPECT_FALSE(e.contains("requestObject"));
}

TEST_F(AuditLogTest, AFailedAuthenticationIsOneEventWithoutAUser) {
  // As upstream's WithFailedAuthenticationAudit: ResponseStarted only,
  // and rules naming users never match.
  Start("- level: None\n  users: [\"system:anonymous\"]\n- level: Metadata\n");
  Response r = Do("wrong-token", "GET", "/api/v1/namespaces/default/pods");
  ASSERT_EQ(r.code, 401);
  std::vector<Json> events = Events();
  ASSERT_EQ(events.size(), 1u);
  const Json& e = events[0];
  EXPECT_EQ(e["stage"], "ResponseStarted");
  EXPECT_EQ(e["user"], Json::object());
  EXPECT_EQ(e["verb"], "list");
  EXPECT_EQ(e["responseStatus"],
            Json::parse(R"({"metadata":{},"status":"Failure",)"
                        R"("message":"Unauthorized","reason":"Unauthorized",)"
                        R"("code":401})"));
  EXPECT_FALSE(e.contains("annotations"));
  EXPECT_EQ(r.Header("Audit-Id"), e["auditID"]);
}

TEST_F(AuditLogTest, ImpersonationRecordsBothUsersAndThePolicySeesTheCaller) {
  // The policy is evaluated for the authenticated user, as upstream's
  // audit filter runs before impersonation.
  Start("- level: None\n  users: [alice]\n- level: Metadata\n");
  ASSERT_EQ(Do("admin", "GET", "/api/v1/namespaces", "",
               {{"impersonate-user", "alice"}})
                .code,
            403);
  std::vector<Json> events = Events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1]["user"]["username"], "admin");
  EXPECT_EQ(events[1]["impersonatedUser"],
            Json::parse(R"({"username":"alice",)"
                        R"("groups":["system:authenticated"]})"));
  EXPECT_EQ(events[1]["annotations"]["authorization.k8s.io/decision"],
            "forbid");
  ClearLog();
  ASSERT_EQ(Do("alice", "GET", "/api/v1/namespaces").code, 403);
  EXPECT_TRUE(Events().empty());
}

TEST_F(AuditLogTest, OmitStagesAndNoneLeaveEventsOut) {
  Start(
      "- level: None\n  nonResourceURLs: [\"/healthz*\"]\n"
      "- level: Metadata\n  omitStages: [RequestReceived]\n");
  ASSERT_EQ(Do("admin", "GET", "/healthz").code, 200);
  EXPECT_TRUE(Events().empty());
  ASSERT_EQ(Do("admin", "GET", "/version?timeout=32s").code, 200);
  std::vector<Json> events = Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["stage"], "ResponseComplete");
  EXPECT_EQ(events[0]["verb"], "get");
  EXPECT_EQ(events[0]["requestURI"], "/version?timeout=32s");
  EXPECT_FALSE(events[0].contains("objectRef"));
  EXPECT_EQ(events[0]["responseStatus"]["code"], 200);
}

TEST_F(AuditLogTest, AWatchHasResponseStartedThenResponseComplete) {
  Start(kEverything);
  RecordingWriter w;
  w.stop = true;  // the watch ends once started
  clock_.Advance(absl::Microseconds(5));
  Do("admin", "GET", std::string(kClasses) + "?watch=true", "", {}, &w);
  ASSERT_EQ(w.code, 200);
  std::vector<Json> events = Events();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0]["stage"], "RequestReceived");
  EXPECT_EQ(events[1]["stage"], "ResponseStarted");
  EXPECT_EQ(events[2]["stage"], "ResponseComplete");
  EXPECT_EQ(events[2]["verb"], "watch");
  EXPECT_EQ(events[1]["responseStatus"]["code"], 200);
  EXPECT_EQ(events[2]["requestReceivedTimestamp"],
            "2026-01-01T00:00:00.000005Z");
}

TEST_F(AuditLogTest, BodiesBeyondTheCapAreLeftOutAndTheEventSaysSo) {
  Start("- level: RequestResponse\n");
  Json body = Json::parse(DeviceClass("big"));
  body["metadata"]["annotations"]["big"] = std::string(300 * 1024, 'x');
  Do("admin", "POST", kClasses, body.dump());
  std::vector<Json> events = Events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_FALSE(events[1].contains("requestObject"));
  EXPECT_EQ(events[1]["annotations"]["audit.k8s.io/truncated"], "true");
}

TEST_F(AuditLogTest, AnUnwritableLogNeverFailsTheRequest) {
  path_ = dir_ + "/blocked/audit.log";
  { std::ofstream blocker(dir_ + "/blocked"); }
  Start(kEverything);
  EXPECT_EQ(Do("admin", "POST", kClasses, DeviceClass("gpu")).code, 201);
  EXPECT_EQ(Do("admin", "GET", std::string(kClasses) + "/gpu").code, 200);
}

TEST_F(AuditLogTest, TheLogRotatesAtMaxSizeMegabytesKeepingMaxBackups) {
  Start("- level: RequestResponse\n  verbs: [get]\n", /*max_size_mb=*/1,
        /*max_backups=*/2);
  Json body = Json::parse(DeviceClass("gpu"));
  body["metadata"]["annotations"]["filler"] = std::string(200 * 1024, 'x');
  ASSERT_EQ(Do("admin", "POST", kClasses, body.dump()).code, 201);
  // A get's ResponseComplete holds the class (~200 KiB): five fit in
  // 1 MiB, the sixth starts a new file.
  for (int i = 1; i <= 16; ++i) {
    clock_.Advance(absl::Seconds(1));
    ASSERT_EQ(Do("admin", "GET", std::string(kClasses) + "/gpu").code, 200);
  }
  std::vector<std::string> backups;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    const std::string name = entry.path().filename().string();
    if (name != "audit.log") backups.push_back(name);
    EXPECT_LE(fs::file_size(entry.path()), 1u << 20) << name;
  }
  std::sort(backups.begin(), backups.end());
  // Rotated at the 6th, 11th and 16th get; the two newest backups kept.
  EXPECT_EQ(backups,
            (std::vector<std::string>{"audit-2026-01-01T00-00-11.000.log",
                                      "audit-2026-01-01T00-00-16.000.log"}));
  std::vector<Json> current = Events();
  ASSERT_EQ(current.size(), 1u);
  EXPECT_EQ(current[0]["stage"], "ResponseComplete");
  EXPECT_EQ(current[0]["stageTimestamp"], "2026-01-01T00:00:16.000000Z");
  // Each backup: the big event that did not fit, four gets, and the
  // RequestReceived of the get whose answer rotated it.
  EXPECT_EQ(Events(dir_ + "/" + backups[0]).size(), 10u);
  EXPECT_EQ(Events(dir_ + "/" + backups[1]).size(), 10u);
}

}  // namespace
}  // namespace draplane::apiserver::api_server_test

// GET /draplane/store/backup: a consistent copy of the store for
// cluster-admin only, streamed, nothing left in the data directory.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "apiserver/api_server_test_util.h"
#include "gtest/gtest.h"
#include "store/store.h"

namespace draplane::apiserver::api_server_test {
namespace {

namespace fs = std::filesystem;

class StoreBackupTest : public ::testing::Test {
 protected:
  StoreBackupTest() {
    char tmpl[] = "/tmp/dpbackup-XXXXXX";
    dir_ = mkdtemp(tmpl);
    ApiServerOptions options;
    options.authorization_mode = ApiServerOptions::AuthorizationMode::kRbac;
    options.store_backup_dir = dir_;
    for (auto [token, groups] :
         std::vector<std::pair<std::string, std::vector<std::string>>>{
             {"admin", {"system:masters"}}, {"alice", {"team-a"}}}) {
      auth::StaticToken t;
      t.token = token;
      t.user.name = token;
      t.user.groups = groups;
      options.tokens.push_back(t);
    }
    server_ = std::make_unique<ApiServer>(store_.get(), options);
  }
  ~StoreBackupTest() override { fs::remove_all(dir_); }

  void Get(const std::string& token, RecordingWriter& w) {
    http::HttpRequest req;
    req.method = "GET";
    req.path = "/draplane/store/backup";
    req.headers["authorization"] = "Bearer " + token;
    server_->Handle(req, w);
  }

  std::string dir_;
  std::unique_ptr<store::Store> store_ = store::NewMemoryStore();
  std::unique_ptr<ApiServer> server_;
};

TEST_F(StoreBackupTest, ClusterAdminGetsAStoreFileOthersAreForbidden) {
  ASSERT_EQ(DoWithToken(*server_, "admin", "POST",
                        "/apis/resource.k8s.io/v1/deviceclasses",
                        R"({"apiVersion":"resource.k8s.io/v1",
                            "kind":"DeviceClass","metadata":{"name":"c"}})")
                .code,
            201);
  RecordingWriter denied;
  Get("alice", denied);
  EXPECT_EQ(denied.code, 403) << denied.body;

  RecordingWriter w;
  Get("admin", w);
  ASSERT_EQ(w.code, 200) << w.body;
  EXPECT_EQ(w.Header("Content-Type"), "application/vnd.sqlite3");
  EXPECT_EQ(w.Header("X-Draplane-Store-Revision"),
            std::to_string(store_->Revision()));
  std::string file;
  for (const std::string& c : w.chunks) file += c;
  ASSERT_GT(file.size(), 100u);
  EXPECT_EQ(file.substr(0, 15), "SQLite format 3");
  // The copy opens as a store with the class at its revision.
  const std::string copy = dir_ + "/copy.db";
  {
    std::ofstream out(copy, std::ios::binary);
    out << file;
  }
  auto restored = store::OpenSqliteStore(copy);
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ((*restored)->Revision(), store_->Revision());
  EXPECT_TRUE(
      (*restored)->Get("/registry/resource.k8s.io/deviceclasses/c").ok());
  restored->reset();
  // Nothing but the test's own copy is left in the data directory.
  for (const auto& e : fs::directory_iterator(dir_)) {
    const std::string name = e.path().filename().string();
    EXPECT_TRUE(name.rfind("copy.db", 0) == 0) << name;
  }
}

}  // namespace
}  // namespace draplane::apiserver::api_server_test

// The serviceaccount controller against an in-process API server: every
// active namespace gets `default`, a deleted one comes back, and a
// namespace being deleted gets none.
#include "controllers/service_account_controller.h"

#include "gtest/gtest.h"
#include "testing/eventually.h"
#include "testing/in_process_cluster.h"

namespace draplane::controllers {
namespace {

using api::Json;
using draplane::testing::Eventually;

bool HasDefault(client::Client& c, const std::string& ns) {
  return c.Get(client::Kind("ServiceAccount"), ns, "default").ok();
}

TEST(ServiceAccountControllerTest, EveryActiveNamespaceHasDefault) {
  auto cluster = *testing::InProcessCluster::Start();
  client::Client& c = cluster->client();
  cluster->MustCreate({{"apiVersion", "v1"},
                       {"kind", "Namespace"},
                       {"metadata", {{"name", "before"}}}});
  ServiceAccountController controller(&c);
  ASSERT_TRUE(controller.Start().ok());
  ASSERT_TRUE(Eventually([&] { return HasDefault(c, "before"); }))
      << "a namespace that existed at start";
  ASSERT_TRUE(Eventually([&] { return HasDefault(c, "default"); }));

  cluster->MustCreate({{"apiVersion", "v1"},
                       {"kind", "Namespace"},
                       {"metadata", {{"name", "after"}}}});
  ASSERT_TRUE(Eventually([&] { return HasDefault(c, "after"); }))
      << "a namespace created later";
  auto account = c.Get(client::Kind("ServiceAccount"), "after", "default");
  ASSERT_TRUE(account.ok());
  const std::string first_uid = account->metadata()->uid;
  EXPECT_FALSE(first_uid.empty());

  ASSERT_TRUE(
      c.Delete(client::Kind("ServiceAccount"), "after", "default").ok());
  ASSERT_TRUE(Eventually([&] {
    auto again = c.Get(client::Kind("ServiceAccount"), "after", "default");
    return again.ok() && again->metadata()->uid != first_uid;
  })) << "a deleted default ServiceAccount is made anew";
  const int64_t created = controller.created();
  EXPECT_GE(created, 4);  // default, before, after, after again

  // Other ServiceAccounts are the users' own: left alone.
  cluster->MustCreate(
      {{"apiVersion", "v1"},
       {"kind", "ServiceAccount"},
       {"metadata", {{"name", "robot"}, {"namespace", "after"}}}});
  ASSERT_TRUE(c.Delete(client::Kind("ServiceAccount"), "after", "robot").ok());
  EXPECT_FALSE(Eventually(
      [&] {
        return c.Get(client::Kind("ServiceAccount"), "after", "robot").ok();
      },
      absl::Milliseconds(500)));
  EXPECT_EQ(controller.created(), created);
}

}  // namespace
}  // namespace draplane::controllers

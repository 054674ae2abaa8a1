// The standalone Deployment and Job controllers against the in-process
// API server.
#include <algorithm>

#include "absl/time/clock.h"
#include "api/object_codec.h"
#include "controllers/deployment_controller.h"
#include "controllers/job_controller.h"
#include "gtest/gtest.h"
#include "testing/eventually.h"
#include "testing/in_process_cluster.h"

namespace draplane::controllers {
namespace {

using api::Json;
using draplane::testing::Consistently;
using draplane::testing::Eventually;

Json Template(const std::string& app, const std::string& image,
              const char* restart = nullptr) {
  Json spec = {
      {"containers", Json::array({{{"name", "c"}, {"image", image}}})}};
  if (restart != nullptr) spec["restartPolicy"] = restart;
  return {{"metadata", {{"labels", {{"app", app}}}}}, {"spec", spec}};
}

Json Deployment(int replicas, const std::string& image = "server:1") {
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", {{"name", "web"}, {"namespace", "default"}}},
          {"spec",
           {{"replicas", replicas},
            {"selector", {{"matchLabels", {{"app", "web"}}}}},
            {"template", Template("web", image)}}}};
}

std::vector<api::Pod> Pods(client::Client& c, const std::string& label) {
  std::vector<api::Pod> out;
  client::ListOptions o;
  o.label_selector = label;
  auto list = c.List(client::Kind("Pod"), "default", o);
  if (!list.ok()) return out;
  for (auto& item : list->items) out.push_back(std::get<api::Pod>(item.value));
  return out;
}

void Scale(client::Client& c, int replicas) {
  Json patch = {{"spec", {{"replicas", replicas}}}};
  ASSERT_TRUE(c.Patch(client::Kind("Deployment"), "default", "web",
                      client::PatchType::kMerge, api::DumpJson(patch))
                  .ok());
}

TEST(DeploymentControllerTest, KeepsReplicasThroughScalingAndDeletion) {
  auto cluster = *testing::InProcessCluster::Start();
  client::Client& c = cluster->client();
  api::Object d = cluster->MustCreate(Deployment(3));
  DeploymentController controller(&c);
  ASSERT_TRUE(controller.Start().ok());
  ASSERT_TRUE(Eventually([&] { return Pods(c, "app=web").size() == 3; }));
  ASSERT_TRUE(Consistently([&] { return Pods(c, "app=web").size() == 3; }))
      << "no more than the replicas";
  std::vector<api::Pod> pods = Pods(c, "app=web");
  const std::string hash = pods[0].metadata.labels.at("pod-template-hash");
  for (const api::Pod& p : pods) {
    EXPECT_EQ(p.metadata.name.rfind("web-" + hash + "-", 0), 0u)
        << p.metadata.name;
    ASSERT_EQ(p.metadata.owner_references.size(), 1u);
    EXPECT_EQ(p.metadata.owner_references[0].kind, "Deployment");
    EXPECT_EQ(p.metadata.owner_references[0].uid, d.metadata()->uid);
    EXPECT_EQ(p.spec.containers[0].image, "server:1");
  }
  ASSERT_TRUE(Eventually([&] {
    auto got = c.Get(client::Kind("Deployment"), "default", "web");
    const auto& s = std::get<api::Deployment>(got->value).status;
    return s.replicas == 3 && s.observed_generation == 1 &&
           s.unknown_fields.value("updatedReplicas", 0) == 3;
  }));

  Scale(c, 1);
  ASSERT_TRUE(Eventually([&] { return Pods(c, "app=web").size() == 1; }));
  Scale(c, 2);
  ASSERT_TRUE(Eventually([&] { return Pods(c, "app=web").size() == 2; }));
  // A deleted pod is replaced.
  const std::string deleted = Pods(c, "app=web")[0].metadata.name;
  ASSERT_TRUE(c.Delete(client::Kind("Pod"), "default", deleted).ok());
  auto replaced = [&] {
    std::vector<api::Pod> now = Pods(c, "app=web");
    return now.size() == 2 &&
           std::none_of(now.begin(), now.end(), [&](const api::Pod& p) {
             return p.metadata.name == deleted;
           });
  };
  ASSERT_TRUE(Eventually(replaced));
  EXPECT_TRUE(Consistently(replaced)) << "replaced once";

  // A new template: new pods use it, scale-down removes old ones first.
  Json patch = {{"spec", {{"template", Template("web", "server:2")}}}};
  ASSERT_TRUE(c.Patch(client::Kind("Deployment"), "default", "web",
                      client::PatchType::kMerge, api::DumpJson(patch))
                  .ok());
  Scale(c, 3);
  ASSERT_TRUE(Eventually([&] { return Pods(c, "app=web").size() == 3; }));
  Scale(c, 1);
  ASSERT_TRUE(Eventually([&] {
    std::vector<api::Pod> left = Pods(c, "app=web");
    return left.size() == 1 && left[0].spec.containers[0].image == "server:2";
  }));
}

Json JobJson(int completions, int parallelism, int backoff) {
  return {{"apiVersion", "batch/v1"},
          {"kind", "Job"},
          {"metadata", {{"name", "train"}, {"namespace", "default"}}},
          {"spec",
           {{"completions", completions},
            {"parallelism", parallelism},
            {"backoffLimit", backoff},
            {"template", Template("train", "trainer:1", "Never")}}}};
}

void SetPhase(client::Client& c, const std::string& pod, const char* phase) {
  client::PatchOptions o;
  o.subresource = "status";
  Json body = {{"status", {{"phase", phase}}}};
  ASSERT_TRUE(c.Patch(client::Kind("Pod"), "default", pod,
                      client::PatchType::kMerge, api::DumpJson(body), o)
                  .ok());
}

std::vector<std::string> Running(client::Client& c) {
  std::vector<std::string> out;
  for (const api::Pod& p : Pods(c, "job-name=train")) {
    if (p.status.phase != "Succeeded" && p.status.phase != "Failed") {
      out.push_back(p.metadata.name);
    }
  }
  return out;
}

std::string JobCondition(client::Client& c) {
  auto got = c.Get(client::Kind("Job"), "default", "train");
  if (!got.ok()) return "";
  const auto& u = std::get<api::Job>(got->value).status.unknown_fields;
  std::string out;
  for (const Json& cond : u.value("conditions", Json::array())) {
    out += cond.value("type", "") + "/" + cond.value("reason", "") + " ";
  }
  return out;
}

TEST(JobControllerTest, RunsParallelPodsUntilCompletions) {
  auto cluster = *testing::InProcessCluster::Start();
  client::Client& c = cluster->client();
  cluster->MustCreate(JobJson(3, 2, 6));
  JobController controller(&c);
  ASSERT_TRUE(controller.Start().ok());
  ASSERT_TRUE(Eventually([&] { return Running(c).size() == 2; }));
  ASSERT_TRUE(Consistently([&] { return Running(c).size() == 2; }))
      << "parallelism";
  api::Pod first = Pods(c, "job-name=train")[0];
  EXPECT_EQ(first.metadata.name.rfind("train-", 0), 0u);
  EXPECT_EQ(first.metadata.owner_references[0].kind, "Job");
  EXPECT_EQ(first.metadata.labels.at("batch.kubernetes.io/job-name"), "train");
  // Two finish: one more is needed for the third completion.
  for (const std::string& name : Running(c)) SetPhase(c, name, "Succeeded");
  ASSERT_TRUE(Eventually([&] { return Running(c).size() == 1; }));
  EXPECT_TRUE(Consistently([&] { return Running(c).size() == 1; }))
      << "only completions - succeeded";
  SetPhase(c, Running(c)[0], "Succeeded");
  ASSERT_TRUE(Eventually([&] {
    return JobCondition(c) ==
           "SuccessCriteriaMet/CompletionsReached Complete/CompletionsReached ";
  })) << JobCondition(c);
  auto job = c.Get(client::Kind("Job"), "default", "train");
  const auto& status = std::get<api::Job>(job->value).status;
  EXPECT_EQ(status.succeeded, 3);
  EXPECT_EQ(status.active, 0);
  EXPECT_TRUE(status.unknown_fields.contains("completionTime"));
  EXPECT_TRUE(Consistently([&] { return Running(c).empty(); }))
      << "nothing after completion";
}

TEST(JobControllerTest, FailsAfterTheBackoffLimit) {
  auto cluster = *testing::InProcessCluster::Start();
  client::Client& c = cluster->client();
  cluster->MustCreate(JobJson(1, 1, 1));
  JobController controller(&c);
  ASSERT_TRUE(controller.Start().ok());
  for (int failures = 0; failures < 2; ++failures) {
    ASSERT_TRUE(Eventually([&] { return Running(c).size() == 1; }));
    SetPhase(c, Running(c)[0], "Failed");
  }
  ASSERT_TRUE(Eventually([&] {
    return JobCondition(c) ==
           "FailureTarget/BackoffLimitExceeded Failed/BackoffLimitExceeded ";
  })) << JobCondition(c);
  EXPECT_TRUE(Consistently([&] { return Running(c).empty(); }));
  auto job = c.Get(client::Kind("Job"), "default", "train");
  EXPECT_EQ(std::get<api::Job>(job->value).status.failed, 2);
}

}  // namespace
}  // namespace draplane::controllers

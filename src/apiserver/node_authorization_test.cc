// Nodes as kube-apiserver authorizes them with --authorization-mode=Node,RBAC
// and the NodeRestriction admission plugin: a node reads and writes what is
// its own (Node, Lease, ResourceSlices, the pods bound to it and their
// claims) and nothing of another node, with upstream's refusal texts.
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "apiserver/api_server_test_util.h"
#include "gtest/gtest.h"

namespace draplane::apiserver::api_server_test {
namespace {

constexpr char kSlices[] = "/apis/resource.k8s.io/v1/resourceslices";
constexpr char kLeases[] =
    "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases";
constexpr char kPods[] = "/api/v1/namespaces/default/pods";

class NodeAuthorizationTest : public ::testing::Test {
 protected:
  NodeAuthorizationTest() {
    ApiServerOptions options;
    options.authorization_mode =
        ApiServerOptions::AuthorizationMode::kNodeAndRbac;
    for (auto [token, name, groups] : std::vector<
             std::tuple<std::string, std::string, std::vector<std::string>>>{
             {"admin", "admin", {"system:masters"}},
             {"node1", "system:node:node1", {"system:nodes"}},
             {"node2", "system:node:node2", {"system:nodes"}},
             {"nameless", "system:node:", {"system:nodes"}},
             {"impostor", "system:node:node1", {}}}) {
      auth::StaticToken t;
      t.token = token;
      t.user.name = name;
      t.user.groups = groups;
      options.tokens.push_back(t);
    }
    server_ = std::make_unique<ApiServer>(store_.get(), options);
    for (const char* node : {"node1", "node2"}) {
      EXPECT_EQ(Do("admin", "POST", "/api/v1/nodes", NodeJson(node)).code, 201);
      EXPECT_EQ(Do("admin", "POST", kSlices, SliceJson(node, node)).code, 201);
    }
  }

  Response Do(const std::string& who, std::string method,
              const std::string& path, const std::string& body = "",
              const std::multimap<std::string, std::string>& query = {}) {
    return DoWithToken(*server_, who, std::move(method), path, body, {}, query);
  }

  static std::string Message(const Response& r) {
    return r.JsonBody().value("message", "");
  }

  static std::string NodeJson(const std::string& name,
                              const Json& labels = Json::object()) {
    return api::DumpJson(
        Json{{"apiVersion", "v1"},
             {"kind", "Node"},
             {"metadata", {{"name", name}, {"labels", labels}}}});
  }

  static std::string SliceJson(const std::string& name,
                               const std::string& node) {
    return api::DumpJson(
        Json{{"apiVersion", "resource.k8s.io/v1"},
             {"kind", "ResourceSlice"},
             {"metadata", {{"name", name}}},
             {"spec",
              {{"driver", "gpu.example.com"},
               {"nodeName", node},
               {"pool",
                {{"name", node}, {"generation", 1}, {"resourceSliceCount", 1}}},
               {"devices", Json::array({{{"name", "gpu-0"}}})}}}});
  }

  static std::string LeaseJson(const std::string& name) {
    return api::DumpJson(Json{{"apiVersion", "coordination.k8s.io/v1"},
                              {"kind", "Lease"},
                              {"metadata", {{"name", name}}},
                              {"spec", {{"holderIdentity", name}}}});
  }

  // Pod `name` bound to `node`, using ResourceClaim `claim` ("" = none).
  void CreateBoundPod(const std::string& name, const std::string& node,
                      const std::string& claim) {
    Json spec = {
        {"nodeName", node},
        {"containers", Json::array({{{"name", "c"}, {"image", "busybox"}}})}};
    if (!claim.empty()) {
      spec["resourceClaims"] =
          Json::array({{{"name", "gpu"}, {"resourceClaimName", claim}}});
    }
    Response r = Do("admin", "POST", kPods,
                    api::DumpJson(Json{{"apiVersion", "v1"},
                                       {"kind", "Pod"},
                                       {"metadata", {{"name", name}}},
                                       {"spec", spec}}));
    ASSERT_EQ(r.code, 201) << r.body;
  }

  std::unique_ptr<store::Store> store_ = store::NewMemoryStore();
  std::unique_ptr<ApiServer> server_;
};

TEST_F(NodeAuthorizationTest, ReadsOnlyItsOwnNode) {
  EXPECT_EQ(Do("node1", "GET", "/api/v1/nodes/node1").code, 200);
  Response other = Do("node1", "GET", "/api/v1/nodes/node2");
  EXPECT_EQ(other.code, 403);
  EXPECT_EQ(Message(other),
            "nodes \"node2\" is forbidden: User \"system:node:node1\" cannot "
            "get resource \"nodes\" in API group \"\" at the cluster scope: "
            "node 'node1' cannot read 'node2', only its own Node object");
  Response all = Do("node1", "GET", "/api/v1/nodes");
  EXPECT_EQ(all.code, 403);
  EXPECT_NE(Message(all).find("node 'node1' cannot read all nodes, only its "
                              "own Node object"),
            std::string::npos)
      << all.body;
  // A list that names the node by field selector is a read of that node.
  EXPECT_EQ(Do("node1", "GET", "/api/v1/nodes", "",
               {{"fieldSelector", "metadata.name=node1"}})
                .code,
            200);
}

TEST_F(NodeAuthorizationTest, WritesOnlyItsOwnNode) {
  Response r = Do("node1", "PUT", "/api/v1/nodes/node2", NodeJson("node2"));
  EXPECT_EQ(r.code, 403);
  EXPECT_EQ(Message(r),
            "nodes \"node2\" is forbidden: node \"node1\" is not allowed to "
            "modify node \"node2\"");
  EXPECT_EQ(Do("node1", "POST", "/api/v1/nodes", NodeJson("node3")).code, 403);
  // Labels of the node-restriction.kubernetes.io namespace are the
  // cluster's to set, not the node's.
  Response label =
      Do("node1", "PUT", "/api/v1/nodes/node1",
         NodeJson("node1", {{"node-restriction.kubernetes.io/tier", "gold"}}));
  EXPECT_EQ(label.code, 403);
  EXPECT_NE(Message(label).find("is not allowed to modify labels: "
                                "node-restriction.kubernetes.io/tier"),
            std::string::npos)
      << label.body;
  EXPECT_EQ(Do("node1", "PUT", "/api/v1/nodes/node1",
               NodeJson("node1", {{"kubernetes.io/hostname", "node1"}}))
                .code,
            200);
}

TEST_F(NodeAuthorizationTest, LeasesOnlyItsOwn) {
  EXPECT_EQ(Do("node1", "POST", kLeases, LeaseJson("node1")).code, 201);
  EXPECT_EQ(Do("node2", "POST", kLeases, LeaseJson("node2")).code, 201);
  Response create = Do("node1", "POST", kLeases, LeaseJson("node3"));
  EXPECT_EQ(create.code, 403);
  EXPECT_EQ(Message(create),
            "leases.coordination.k8s.io \"node3\" is forbidden: can only "
            "access node lease with the same name as the requesting node");
  Response update =
      Do("node1", "PUT", StrCat(kLeases, "/node2"), LeaseJson("node2"));
  EXPECT_EQ(update.code, 403);
  EXPECT_NE(Message(update).find("can only access node lease with the same "
                                 "name as the requesting node"),
            std::string::npos);
  EXPECT_EQ(Do("node1", "GET", StrCat(kLeases, "/node1")).code, 200);
  EXPECT_EQ(Do("node1", "GET", StrCat(kLeases, "/node2")).code, 403);
  EXPECT_EQ(Do("node1", "POST",
               "/apis/coordination.k8s.io/v1/namespaces/default/leases",
               LeaseJson("node1"))
                .code,
            403);
}

TEST_F(NodeAuthorizationTest, ResourceSlicesOnlyOfItsNode) {
  EXPECT_EQ(Do("node1", "POST", kSlices, SliceJson("node1-b", "node1")).code,
            201);
  Response foreign = Do("node1", "POST", kSlices, SliceJson("x", "node2"));
  EXPECT_EQ(foreign.code, 403);
  EXPECT_EQ(Message(foreign),
            "resourceslices.resource.k8s.io \"x\" is forbidden: can only "
            "create ResourceSlice with the same NodeName as the requesting "
            "node");
  EXPECT_EQ(Do("node1", "GET", StrCat(kSlices, "/node1")).code, 200);
  Response get = Do("node1", "GET", StrCat(kSlices, "/node2"));
  EXPECT_EQ(get.code, 403);
  EXPECT_NE(Message(get).find("no relationship found between node 'node1' "
                              "and this object"),
            std::string::npos);
  EXPECT_EQ(
      Do("node1", "PUT", StrCat(kSlices, "/node2"), SliceJson("node2", "node2"))
          .code,
      403);
  EXPECT_EQ(Do("node1", "DELETE", StrCat(kSlices, "/node2")).code, 403);
  EXPECT_EQ(Do("admin", "GET", StrCat(kSlices, "/node2")).code, 200);
  Response list = Do("node1", "GET", kSlices);
  EXPECT_EQ(list.code, 403);
  EXPECT_NE(Message(list).find("can only list/watch/deletecollection "
                               "resourceslices with nodeName field selector"),
            std::string::npos);
  EXPECT_EQ(Do("node1", "GET", kSlices, "",
               {{"fieldSelector", "spec.nodeName=node2"}})
                .code,
            403);
  Response mine = Do("node1", "GET", kSlices, "",
                     {{"fieldSelector", "spec.nodeName=node1"}});
  ASSERT_EQ(mine.code, 200) << mine.body;
  EXPECT_EQ(mine.JsonBody()["items"].size(), 2u);
  EXPECT_EQ(Do("node1", "DELETE", StrCat(kSlices, "/node1-b")).code, 200);
}

TEST_F(NodeAuthorizationTest, PodsBoundToIt) {
  CreateBoundPod("p1", "node1", "");
  CreateBoundPod("p2", "node2", "");
  EXPECT_EQ(Do("node1", "GET", StrCat(kPods, "/p1")).code, 200);
  EXPECT_EQ(Do("node1", "GET", StrCat(kPods, "/p2")).code, 403);
  Response list = Do("node1", "GET", "/api/v1/pods");
  EXPECT_EQ(list.code, 403);
  EXPECT_NE(Message(list).find(
                "can only list/watch pods with spec.nodeName field selector"),
            std::string::npos);
  Response mine = Do("node1", "GET", "/api/v1/pods", "",
                     {{"fieldSelector", "spec.nodeName=node1"}});
  ASSERT_EQ(mine.code, 200);
  ASSERT_EQ(mine.JsonBody()["items"].size(), 1u);
  EXPECT_EQ(mine.JsonBody()["items"][0]["metadata"]["name"], "p1");

  Json p2 = Do("admin", "GET", StrCat(kPods, "/p2")).JsonBody();
  p2["status"]["phase"] = "Running";
  Response status =
      Do("node1", "PUT", StrCat(kPods, "/p2/status"), api::DumpJson(p2));
  EXPECT_EQ(status.code, 403);
  EXPECT_EQ(Message(status),
            "pods \"p2\" is forbidden: node \"node1\" can only update pod "
            "status for pods with spec.nodeName set to itself");
  Json p1 = Do("admin", "GET", StrCat(kPods, "/p1")).JsonBody();
  p1["status"]["phase"] = "Running";
  EXPECT_EQ(
      Do("node1", "PUT", StrCat(kPods, "/p1/status"), api::DumpJson(p1)).code,
      200);
  // Pod status carries the pod's labels and annotations (upstream's
  // status strategy); a node may change the annotations, not the labels.
  p1 = Do("admin", "GET", StrCat(kPods, "/p1")).JsonBody();
  p1["metadata"]["annotations"] = {{"note", "x"}};
  ASSERT_EQ(
      Do("node1", "PUT", StrCat(kPods, "/p1/status"), api::DumpJson(p1)).code,
      200);
  p1 = Do("admin", "GET", StrCat(kPods, "/p1")).JsonBody();
  EXPECT_EQ(p1["metadata"]["annotations"]["note"], "x");
  p1["metadata"]["labels"] = {{"app", "x"}};
  Response labels =
      Do("node1", "PUT", StrCat(kPods, "/p1/status"), api::DumpJson(p1));
  EXPECT_EQ(labels.code, 403);
  EXPECT_EQ(Message(labels),
            "pods \"p1\" is forbidden: node \"node1\" cannot update labels "
            "through pod status");

  Response del = Do("node1", "DELETE", StrCat(kPods, "/p2"));
  EXPECT_EQ(del.code, 403);
  EXPECT_EQ(Message(del),
            "pods \"p2\" is forbidden: node \"node1\" can only delete pods "
            "with spec.nodeName set to itself");
  Response create = Do("node1", "POST", kPods,
                       R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":)"
                       R"("p3"},"spec":{"nodeName":"node1","containers":)"
                       R"([{"name":"c","image":"busybox"}]}})");
  EXPECT_EQ(create.code, 403);
  EXPECT_EQ(Message(create),
            "pods \"p3\" is forbidden: pod does not have "
            "\"kubernetes.io/config.mirror\" annotation, node \"node1\" can "
            "only create mirror pods");
}

TEST_F(NodeAuthorizationTest, ClaimsOfItsPods) {
  ASSERT_EQ(Do("admin", "POST", kClaims, Claim("c1")).code, 201);
  ASSERT_EQ(Do("admin", "POST", kClaims, Claim("c2")).code, 201);
  ASSERT_EQ(Do("admin", "POST", kClaims, Claim("unused")).code, 201);
  CreateBoundPod("p1", "node1", "c1");
  CreateBoundPod("p2", "node2", "c2");
  EXPECT_EQ(Do("node1", "GET", StrCat(kClaims, "/c1")).code, 200);
  EXPECT_EQ(Do("node1", "GET", StrCat(kClaims, "/c2")).code, 403);
  EXPECT_EQ(Do("node1", "GET", StrCat(kClaims, "/unused")).code, 403);
  Response list = Do("node1", "GET", kClaims);
  EXPECT_EQ(list.code, 403);
  EXPECT_NE(
      Message(list).find("can only get individual resources of this type"),
      std::string::npos);
  EXPECT_EQ(Do("node2", "GET", StrCat(kClaims, "/c2")).code, 200);
  // Once the pod is gone, so is the relation.
  ASSERT_EQ(Do("admin", "DELETE", StrCat(kPods, "/p1")).code, 200);
  EXPECT_EQ(Do("node1", "GET", StrCat(kClaims, "/c1")).code, 403);
}

TEST_F(NodeAuthorizationTest, OnlyNodesAreNodes) {
  // Named like a node, but not in system:nodes: RBAC alone decides.
  Response impostor = Do("impostor", "GET", "/api/v1/nodes/node1");
  EXPECT_EQ(impostor.code, 403);
  EXPECT_EQ(Message(impostor),
            "nodes \"node1\" is forbidden: User \"system:node:node1\" cannot "
            "get resource \"nodes\" in API group \"\" at the cluster scope");
  Response nameless = Do("nameless", "GET", "/api/v1/nodes/node1");
  EXPECT_EQ(nameless.code, 403);
  EXPECT_NE(Message(nameless).find("unknown node for user \"system:node:\""),
            std::string::npos)
      << nameless.body;
  // The rest of a node's rights come from the system:node role's rules.
  EXPECT_EQ(Do("node1", "POST", "/api/v1/namespaces/default/events",
               R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"e"},)"
               R"("involvedObject":{"kind":"Node","name":"node1"},)"
               R"("reason":"R","message":"m"})")
                .code,
            201);
  EXPECT_EQ(Do("node1", "GET", "/apis/resource.k8s.io/v1/deviceclasses").code,
            403);
}

// kubectl auth can-i --list as a node: the Node authorizer cannot list
// rules, as upstream says; kubectl auth can-i asks the same chain.
TEST_F(NodeAuthorizationTest, RulesReviewIsIncompleteForNodes) {
  Response r = Do(
      "node1", "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
      R"({"apiVersion":"authorization.k8s.io/v1","kind":)"
      R"("SelfSubjectRulesReview","spec":{"namespace":"default"}})");
  ASSERT_EQ(r.code, 201) << r.body;
  EXPECT_EQ(r.JsonBody()["status"]["incomplete"], true);
  EXPECT_EQ(r.JsonBody()["status"]["evaluationError"],
            "node authorizer does not support user rule resolution");
  auto can = [&](const Json& attributes) {
    Response review =
        Do("node1", "POST",
           "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
           api::DumpJson(Json{{"apiVersion", "authorization.k8s.io/v1"},
                              {"kind", "SelfSubjectAccessReview"},
                              {"spec", {{"resourceAttributes", attributes}}}}));
    EXPECT_EQ(review.code, 201) << review.body;
    return review.JsonBody()["status"].value("allowed", false);
  };
  EXPECT_TRUE(can({{"verb", "get"}, {"resource", "nodes"}, {"name", "node1"}}));
  EXPECT_FALSE(
      can({{"verb", "get"}, {"resource", "nodes"}, {"name", "node2"}}));
  EXPECT_TRUE(can({{"verb", "create"},
                   {"group", "coordination.k8s.io"},
                   {"resource", "leases"},
                   {"namespace", "kube-node-lease"}}));
}

}  // namespace
}  // namespace draplane::apiserver::api_server_test

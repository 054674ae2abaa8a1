#include "auth/request_attributes.h"

#include "gtest/gtest.h"

namespace draplane::auth {
namespace {

RequestAttributes Resolve(
    std::string_view method, std::string_view path,
    const std::multimap<std::string, std::string>& query = {}) {
  return ResolveRequest(method, path, query);
}

TEST(RequestAttributesTest, ResourceRequestsAsUpstreamResolvesThem) {
  RequestAttributes a = Resolve("GET", "/api/v1/namespaces/ns/pods/p/status");
  EXPECT_TRUE(a.resource_request);
  EXPECT_EQ(a.verb, "get");
  EXPECT_EQ(a.api_group, "");
  EXPECT_EQ(a.api_version, "v1");
  EXPECT_EQ(a.namespace_, "ns");
  EXPECT_EQ(a.resource, "pods");
  EXPECT_EQ(a.name, "p");
  EXPECT_EQ(a.subresource, "status");

  a = Resolve("POST", "/apis/resource.k8s.io/v1/deviceclasses");
  EXPECT_EQ(a.verb, "create");
  EXPECT_EQ(a.api_group, "resource.k8s.io");
  EXPECT_EQ(a.resource, "deviceclasses");
  EXPECT_EQ(a.namespace_, "");

  EXPECT_EQ(Resolve("GET", "/api/v1/pods").verb, "list");
  EXPECT_EQ(Resolve("GET", "/api/v1/pods", {{"watch", "true"}}).verb, "watch");
  EXPECT_EQ(Resolve("GET", "/api/v1/pods", {{"watch", "1"}}).verb, "watch");
  EXPECT_EQ(Resolve("GET", "/api/v1/watch/pods").verb, "watch");
  EXPECT_EQ(Resolve("DELETE", "/api/v1/namespaces/ns/pods").verb,
            "deletecollection");
  EXPECT_EQ(Resolve("DELETE", "/api/v1/namespaces/ns/pods/p").verb, "delete");
  EXPECT_EQ(Resolve("PATCH", "/api/v1/nodes/n/status").verb, "patch");
  EXPECT_EQ(Resolve("PUT", "/api/v1/nodes/n").verb, "update");
  EXPECT_EQ(Resolve("OPTIONS", "/api/v1/nodes/n").verb, "");

  // A namespace is its own namespace; status and finalize are its
  // subresources, anything else a namespaced resource.
  a = Resolve("GET", "/api/v1/namespaces/team-a");
  EXPECT_EQ(a.resource, "namespaces");
  EXPECT_EQ(a.name, "team-a");
  EXPECT_EQ(a.namespace_, "team-a");
  a = Resolve("PUT", "/api/v1/namespaces/team-a/finalize");
  EXPECT_EQ(a.resource, "namespaces");
  EXPECT_EQ(a.subresource, "finalize");
  a = Resolve("POST", "/api/v1/namespaces/ns/pods/p/binding");
  EXPECT_EQ(a.resource, "pods");
  EXPECT_EQ(a.subresource, "binding");
  EXPECT_EQ(a.verb, "create");

  // A list naming one object by field selector names it.
  a = Resolve("GET", "/api/v1/namespaces/ns/pods",
              {{"fieldSelector", "metadata.name=p1"}});
  EXPECT_EQ(a.verb, "list");
  EXPECT_EQ(a.name, "p1");
  EXPECT_EQ(
      Resolve("GET", "/api/v1/pods", {{"fieldSelector", "metadata.name!=p1"}})
          .name,
      "");
}

TEST(RequestAttributesTest, OtherPathsAreNonResourceRequests) {
  for (const char* path :
       {"/api", "/api/v1", "/apis", "/apis/resource.k8s.io",
        "/apis/resource.k8s.io/v1", "/version", "/healthz", "/openapi/v3"}) {
    RequestAttributes a = Resolve("GET", path);
    EXPECT_FALSE(a.resource_request) << path;
    EXPECT_EQ(a.verb, "get") << path;
    EXPECT_EQ(a.path, path);
  }
  EXPECT_EQ(Resolve("POST", "/metrics").verb, "post");
}

TEST(RequestAttributesTest, ForbiddenMessagesAreUpstreams) {
  RequestAttributes a =
      Resolve("POST", "/apis/resource.k8s.io/v1/deviceclasses");
  a.user.name = "alice";
  EXPECT_EQ(ForbiddenMessage(a, ""),
            "deviceclasses.resource.k8s.io is forbidden: User \"alice\" "
            "cannot create resource \"deviceclasses\" in API group "
            "\"resource.k8s.io\" at the cluster scope");
  a = Resolve("GET", "/api/v1/namespaces/default/pods/p/log");
  a.user.name = "system:anonymous";
  EXPECT_EQ(ForbiddenMessage(a, ""),
            "pods \"p\" is forbidden: User \"system:anonymous\" cannot get "
            "resource \"pods/log\" in API group \"\" in the namespace "
            "\"default\"");
  a = Resolve("GET", "/apis");
  a.user.name = "system:anonymous";
  EXPECT_EQ(ForbiddenMessage(a,
                             "RBAC: clusterrole.rbac.authorization.k8s.io "
                             "\"x\" not found"),
            "forbidden: User \"system:anonymous\" cannot get path \"/apis\": "
            "RBAC: clusterrole.rbac.authorization.k8s.io \"x\" not found");
}

// fields.ParseSelector (selectors::ParseFieldSelector): "=", "==" and
// "!=", backslash escapes in values, empty terms skipped, terms in
// upstream's order; the attributes of a list carry the terms.
TEST(RequestAttributesTest, FieldSelectorsParseAsUpstreams) {
  using Op = selectors::FieldOperator;
  auto parsed = selectors::ParseFieldSelector(
      "spec.nodeName=node1,metadata.name==a\\,b,,status.phase!=Running");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const std::vector<selectors::FieldRequirement>& terms =
      parsed->Requirements();
  ASSERT_EQ(terms.size(), 3u);
  EXPECT_EQ(terms[1].field, "spec.nodeName");
  EXPECT_EQ(terms[1].op, Op::kEquals);
  EXPECT_EQ(terms[1].value, "node1");
  EXPECT_EQ(terms[0].field, "metadata.name");
  EXPECT_EQ(terms[0].op, Op::kEquals);
  EXPECT_EQ(terms[0].value, "a,b");
  EXPECT_EQ(terms[2].op, Op::kNotEquals);
  EXPECT_EQ(terms[2].value, "Running");
  EXPECT_FALSE(selectors::ParseFieldSelector("spec.nodeName").ok());
  EXPECT_FALSE(selectors::ParseFieldSelector("a=b\\x").ok());
  EXPECT_FALSE(selectors::ParseFieldSelector("a=b\\").ok());

  RequestAttributes list = ResolveRequest(
      "GET", "/api/v1/pods", {{"fieldSelector", "spec.nodeName=n1"}});
  EXPECT_EQ(list.verb, "list");
  ASSERT_EQ(list.field_selector.size(), 1u);
  EXPECT_EQ(list.field_selector[0].value, "n1");
  EXPECT_FALSE(list.field_selector_error);
  RequestAttributes bad =
      ResolveRequest("GET", "/api/v1/pods", {{"fieldSelector", "nonsense"}});
  EXPECT_TRUE(bad.field_selector.empty());
  EXPECT_TRUE(bad.field_selector_error);
  // Only lists, watches and collection deletes carry the selector.
  RequestAttributes get = ResolveRequest("GET", "/api/v1/namespaces/d/pods/p",
                                         {{"fieldSelector", "a=b"}});
  EXPECT_TRUE(get.field_selector.empty());
}

}  // namespace
}  // namespace draplane::auth

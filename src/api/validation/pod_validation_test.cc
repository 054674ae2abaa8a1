// The DRA parts of Pod validation against upstream Kubernetes 1.37
// (pkg/apis/core/validation: pod resource claims, container claims).
// Every table case starts from a valid object (checked to produce no
// errors), breaks one thing and compares the exact rendered errors in order.

#include <string>
#include <vector>

#include "api/validation/validation.h"
#include "api/validation/validation_test_util.h"
#include "common/str_cat.h"
#include "gtest/gtest.h"

namespace draplane::api::validation_test {
namespace {

// ===================================================== Pod (DRA parts)

TEST(ValidatePodTest, ResourceClaims) {
  const std::string rc = "spec.resourceClaims";
  const std::string cc = "spec.containers[0].resources.claims";
  std::vector<Case<Pod>> cases = {
      {"missing-namespace",
       [](Pod& p) { p.metadata.namespace_ = ""; },
       {"metadata.namespace: Required value"}},
      // The guide's case: an empty template name is not "unset".
      {"empty-template-name",
       [](Pod& p) {
         p.spec.resource_claims[0] = {"my-claim", std::nullopt, ""};
       },
       {rc + "[0].resourceClaimTemplateName: Invalid value: \"\": " +
        kSubdomainMsg}},
      {"empty-claim-name",
       [](Pod& p) { p.spec.resource_claims[0].resource_claim_name = ""; },
       {rc + "[0].resourceClaimName: Invalid value: \"\": " + kSubdomainMsg}},
      {"bad-claim-name",
       [](Pod& p) { p.spec.resource_claims[0].resource_claim_name = kBadName; },
       {rc + "[0].resourceClaimName: Invalid value: " + kBadNameQ + ": " +
        kSubdomainMsg}},
      {"neither-claim-nor-template",
       [](Pod& p) { p.spec.resource_claims[0].resource_claim_name.reset(); },
       {rc + "[0]: Invalid value: core.PodResourceClaim{Name:\"my-claim\", "
             "ResourceClaimName:(*string)(nil), "
             "ResourceClaimTemplateName:(*string)(nil)}: must specify one of: "
             "`resourceClaimName`, `resourceClaimTemplateName`"}},
      {"both-claim-and-template",
       [](Pod& p) {
         p.spec.resource_claims[0].resource_claim_template_name = "template";
       },
       {rc + "[0]: Invalid value: core.PodResourceClaim{Name:\"my-claim\", "
             "ResourceClaimName:(*string)(0xc000000000), "
             "ResourceClaimTemplateName:(*string)(0xc000000000)}: at most one "
             "of `resourceClaimName` or `resourceClaimTemplateName` may be "
             "specified"}},
      {"missing-name",
       [](Pod& p) { p.spec.resource_claims[0].name = ""; },
       {rc + "[0].name: Required value",
        cc + "[0]: Not found: \"my-claim\": must be one of the names in "
             "pod.spec.resourceClaims: tmpl"}},
      {"bad-name",
       [](Pod& p) {
         p.spec.resource_claims[0].name = "My_Claim";
         p.spec.containers[0].resources.claims[0].name = "My_Claim";
       },
       {rc + "[0].name: Invalid value: \"My_Claim\": " + kLabelMsg}},
      {"duplicate-name",
       [](Pod& p) { p.spec.resource_claims[1].name = "my-claim"; },
       {rc + "[1].name: Duplicate value: \"my-claim\"",
        cc + "[1]: Not found: \"tmpl\": must be one of the names in "
             "pod.spec.resourceClaims: my-claim"}},
      {"container-claim-not-found",
       [](Pod& p) {
         p.spec.containers[0].resources.claims.push_back({"nope", ""});
       },
       {cc + "[2]: Not found: \"nope\": must be one of the names in "
             "pod.spec.resourceClaims: my-claim, tmpl"}},
      {"no-pod-claims",
       [](Pod& p) { p.spec.resource_claims.clear(); },
       {cc + "[0]: Not found: \"my-claim\": must be one of the names in "
             "pod.spec.resourceClaims which is empty",
        cc + "[1]: Not found: \"tmpl\": must be one of the names in "
             "pod.spec.resourceClaims which is empty"}},
      {"container-claim-empty-name",
       [](Pod& p) {
         p.spec.containers[0].resources.claims.push_back({"", "x"});
       },
       {cc + "[2]: Required value"}},
      {"container-claim-duplicate",
       [](Pod& p) {
         p.spec.containers[0].resources.claims.push_back({"my-claim", ""});
       },
       {cc + "[2]: Duplicate value: \"my-claim\""}},
      {"container-claim-duplicate-request",
       [](Pod& p) {
         p.spec.containers[0].resources.claims.push_back({"tmpl", "req"});
       },
       {cc + "[2]: Duplicate value: \"tmpl/req\""}},
      {"container-claim-other-request",
       [](Pod& p) {
         p.spec.containers[0].resources.claims.push_back({"tmpl", "other"});
       },
       {}},
      // The whole claim is referenced after one of its requests...
      {"container-claim-after-request",
       [](Pod& p) {
         p.spec.containers[0].resources.claims.push_back({"tmpl", ""});
       },
       {cc + "[2]: Duplicate value: \"tmpl\""}},
      // ... or one of its requests after the whole claim.
      {"container-request-after-claim",
       [](Pod& p) {
         p.spec.containers[0].resources.claims.push_back({"my-claim", "req"});
       },
       {cc + "[2]: Duplicate value: \"my-claim\""}},
      {"container-claim-bad-request",
       [](Pod& p) { p.spec.containers[0].resources.claims[1].request = "Bad"; },
       {cc + "[1].request: Invalid value: \"Bad\": " + kLabelMsg}},
      {"init-container-claims",
       [](Pod& p) {
         Container init;
         init.name = "init";
         init.resources.claims = {{"tmpl", ""}, {"nope", ""}};
         p.spec.init_containers.push_back(init);
       },
       {"spec.initContainers[0].resources.claims[1]: Not found: \"nope\": must "
        "be one of the names in pod.spec.resourceClaims: my-claim, tmpl"}},
  };
  RunCases<Pod>("Pod", "v1", ValidPod(), cases);
}

TEST(ValidatePodTest, PodTemplatesInWorkloads) {
  Pod pod = ValidPod();
  pod.spec.resource_claims[0].resource_claim_template_name = "";
  pod.spec.resource_claims[0].resource_claim_name.reset();
  Deployment d;
  d.metadata.name = "deploy";
  d.metadata.namespace_ = "ns";
  d.spec.template_.Mutable().spec = pod.spec;
  EXPECT_EQ(
      Errors(Obj("Deployment", d, "apps/v1")),
      (Want{"spec.template.spec.resourceClaims[0].resourceClaimTemplateName: "
            "Invalid value: \"\": " +
            kSubdomainMsg}));
  Job j;
  j.metadata.name = "job";
  j.spec.template_.Mutable().spec = pod.spec;
  EXPECT_EQ(
      Errors(Obj("Job", j, "batch/v1")),
      (Want{"metadata.namespace: Required value",
            "spec.template.spec.resourceClaims[0].resourceClaimTemplateName: "
            "Invalid value: \"\": " +
                kSubdomainMsg}));
}

}  // namespace
}  // namespace draplane::api::validation_test

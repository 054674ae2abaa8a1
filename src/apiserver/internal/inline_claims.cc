#include "apiserver/internal/inline_claims.h"

#include "apiserver/internal/api_errors.h"
#include "common/str_cat.h"

namespace draplane::apiserver::internal {

using api::Json;

absl::StatusOr<std::vector<InlineClaimTemplate>> ExtractInlineClaims(
    Json& pod) {
  std::vector<InlineClaimTemplate> out;
  if (!pod.is_object() || !pod.contains("spec") || !pod["spec"].is_object()) {
    return out;
  }
  Json& claims = pod["spec"]["resourceClaims"];
  if (!claims.is_array()) {
    if (claims.is_null()) pod["spec"].erase("resourceClaims");
    return out;
  }
  const std::string pod_name =
      pod.value("metadata", Json::object()).value("name", "");
  for (size_t i = 0; i < claims.size(); ++i) {
    Json& claim = claims[i];
    if (!claim.is_object() || !claim.contains("source")) continue;
    const std::string path = StrCat("spec.resourceClaims[", i, "].source");
    const Json& source = claim["source"];
    if (!source.is_object() || !source.contains("devices") ||
        !source["devices"].is_object() || source.size() != 1) {
      return BadRequest(
          StrCat(path,
                 ": draplane reads an inline request only as {devices: {...}} "
                 "(the guide's form); upstream Kubernetes has no such "
                 "field"));
    }
    if (pod_name.empty()) {
      return BadRequest(StrCat(path,
                               ": an inline request needs metadata.name "
                               "(the template is named after the pod)"));
    }
    const std::string claim_name = claim.value("name", "");
    const Json& devices = source["devices"];
    bool v1 = true;
    if (devices.contains("requests") && devices["requests"].is_array()) {
      v1 = devices["requests"].empty();
      for (const Json& r : devices["requests"]) {
        if (r.is_object() && (r.contains("exactly"))) v1 = true;
      }
    }
    InlineClaimTemplate t;
    t.name = StrCat(pod_name, "-", claim_name);
    t.object = Json{
        {"apiVersion", v1 ? "resource.k8s.io/v1" : "resource.k8s.io/v1beta1"},
        {"kind", "ResourceClaimTemplate"},
        {"metadata",
         Json{{"name", t.name},
              {"labels", Json{{"draplane.dev/inline-claim-of", pod_name}}}}},
        {"spec", Json{{"spec", Json{{"devices", devices}}}}}};
    t.warning = StrCat(
        path,
        ": draplane extension: the inline device request became "
        "ResourceClaimTemplate ",
        t.name,
        " (owned by this pod); upstream Kubernetes rejects `source`. Portable "
        "form: create that ResourceClaimTemplate yourself and set "
        "resourceClaimTemplateName: ",
        t.name, " instead of source");
    claim.erase("source");
    claim.erase("resourceClaimName");
    claim["resourceClaimTemplateName"] = t.name;
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace draplane::apiserver::internal

// The DRA parts of Pod validation (pkg/apis/core/validation:
// pod resource claims and container resources.claims).

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <ctime>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/object_codec.h"
#include "api/validation/internal/validation_rules.h"
#include "common/go_strconv.h"
#include "common/name_validation.h"
#include "common/str_cat.h"

namespace draplane::api::validation_internal {

namespace {

// ------------------------------------------------ Pod (DRA parts only)

// core validateResourceClaimNames.
Errs ValidateContainerClaims(const std::vector<ResourceClaimReference>& claims,
                             const std::set<std::string>& pod_claim_names,
                             const FieldPath& path) {
  Errs errs;
  std::set<std::string> names;
  for (size_t i = 0; i < claims.size(); ++i) {
    const ResourceClaimReference& c = claims[i];
    FieldPath p = path.Index(static_cast<int64_t>(i));
    if (c.name.empty()) {
      errs.push_back(Required(p));
      continue;
    }
    if (names.count(c.name)) {
      // All requests of that claim already referenced.
      errs.push_back(Duplicate(p, c.name));
    } else {
      std::string key = c.name;
      if (!c.request.empty()) {
        Extend(errs, ValidateDNS1123Label(c.request, p.Child("request")));
        key += "/" + c.request;
      }
      if (names.count(key)) {
        // The exact same entry was already referenced.
        errs.push_back(Duplicate(p, key));
      } else if (c.request.empty()) {
        // Referencing the whole claim overlaps with every earlier reference
        // to one of its requests (one error per such reference).
        for (const std::string& other : names) {
          size_t slash = other.find('/');
          if (slash != std::string::npos && other.substr(0, slash) == c.name) {
            errs.push_back(Duplicate(p, c.name));
          }
        }
      }
      names.insert(key);
    }
    if (!pod_claim_names.count(c.name)) {
      FieldError e = NotFound(p, c.name);
      e.detail = "must be one of the names in pod.spec.resourceClaims";
      if (pod_claim_names.empty()) {
        e.detail += " which is empty";
      } else {
        e.detail +=
            ": " + Join({pod_claim_names.begin(), pod_claim_names.end()}, ", ");
      }
      errs.push_back(std::move(e));
    }
  }
  return errs;
}

}  // namespace

Errs ValidatePodSpecResourceClaims(const PodSpec& spec, const FieldPath& path) {
  Errs errs;
  std::set<std::string> pod_claim_names;
  for (const auto& c : spec.resource_claims) {
    if (!c.name.empty()) pod_claim_names.insert(c.name);
  }
  std::set<std::string> seen;
  FieldPath claims_path = path.Child("resourceClaims");
  for (size_t i = 0; i < spec.resource_claims.size(); ++i) {
    const PodResourceClaim& c = spec.resource_claims[i];
    FieldPath p = claims_path.Index(static_cast<int64_t>(i));
    if (c.name.empty()) {
      errs.push_back(Required(p.Child("name")));
    } else if (seen.count(c.name)) {
      errs.push_back(Duplicate(p.Child("name"), c.name));
    } else {
      Extend(errs, ValidateDNS1123Label(c.name, p.Child("name")));
      seen.insert(c.name);
    }
    bool has_claim = c.resource_claim_name.has_value();
    bool has_template = c.resource_claim_template_name.has_value();
    if (has_claim && has_template) {
      errs.push_back(Invalid(p, BadValue::Json(GoPodResourceClaim(c)),
                             "at most one of `resourceClaimName` or "
                             "`resourceClaimTemplateName` may be specified"));
    }
    if (!has_claim && !has_template) {
      errs.push_back(Invalid(p, BadValue::Json(GoPodResourceClaim(c)),
                             "must specify one of: `resourceClaimName`, "
                             "`resourceClaimTemplateName`"));
    }
    if (has_claim) {
      Extend(errs, InvalidEach(
                       p.Child("resourceClaimName"), *c.resource_claim_name,
                       nv::NameIsDNSSubdomain(*c.resource_claim_name, false)));
    }
    if (has_template) {
      Extend(errs, InvalidEach(p.Child("resourceClaimTemplateName"),
                               *c.resource_claim_template_name,
                               nv::NameIsDNSSubdomain(
                                   *c.resource_claim_template_name, false)));
    }
  }
  for (size_t i = 0; i < spec.containers.size(); ++i) {
    Extend(errs, ValidateContainerClaims(spec.containers[i].resources.claims,
                                         pod_claim_names,
                                         path.Child("containers")
                                             .Index(static_cast<int64_t>(i))
                                             .Child("resources")
                                             .Child("claims")));
  }
  for (size_t i = 0; i < spec.init_containers.size(); ++i) {
    Extend(errs, ValidateContainerClaims(
                     spec.init_containers[i].resources.claims, pod_claim_names,
                     path.Child("initContainers")
                         .Index(static_cast<int64_t>(i))
                         .Child("resources")
                         .Child("claims")));
  }
  return errs;
}

}  // namespace draplane::api::validation_internal

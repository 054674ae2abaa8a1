#include "apiserver/internal/resource_quota_admission.h"

#include <map>
#include <string>
#include <vector>

#include "api/helpers/quota_usage.h"
#include "api/object_codec.h"
#include "apiserver/internal/registry.h"
#include "apiserver/internal/resources.h"
#include "common/quantity.h"
#include "common/str_cat.h"

namespace draplane::apiserver::internal {

namespace {

using api::Json;

// A quantity list member of a quota ("spec.hard", "status.used", ...).
std::map<std::string, Quantity> Quantities(const Json& quota, const char* part,
                                           const char* field) {
  std::map<std::string, Quantity> out;
  auto p = quota.find(part);
  if (p == quota.end() || !p->is_object()) return out;
  auto f = p->find(field);
  if (f == p->end() || !f->is_object()) return out;
  for (const auto& [name, value] : f->items()) {
    if (!value.is_string()) continue;
    absl::StatusOr<Quantity> q = Quantity::Parse(value.get<std::string>());
    if (q.ok()) out.emplace(name, *q);
  }
  return out;
}

// Upstream prettyPrint: "a=1,b=2", names sorted.
std::string Pretty(const std::map<std::string, Quantity>& list) {
  std::string out;
  for (const auto& [name, q] : list) {
    if (!out.empty()) out += ",";
    out += StrCat(name, "=", q.ToString());
  }
  return out;
}

// The charge `charge` against `quota` (its status.hard and status.used):
// OK, or upstream's 403 naming what would be exceeded. `forbidden` starts
// the message.
absl::Status CheckCharge(const Json& quota,
                         const std::map<std::string, Quantity>& charge,
                         const std::string& forbidden) {
  const std::string quota_name =
      quota.value("metadata", Json::object()).value("name", "");
  std::map<std::string, Quantity> status_hard =
      Quantities(quota, "status", "hard");
  std::map<std::string, Quantity> used = Quantities(quota, "status", "used");
  std::string unknown;
  for (const auto& [name, q] : charge) {
    if (status_hard.count(name) == 0) {
      unknown += unknown.empty() ? name : StrCat(",", name);
    }
  }
  if (!unknown.empty()) {
    return AdmissionError(403, "Forbidden",
                          StrCat(forbidden, "status unknown for quota: ",
                                 quota_name, ", resources: ", unknown));
  }
  std::map<std::string, Quantity> failed_requested, failed_used, failed_hard;
  for (const auto& [name, q] : charge) {
    Quantity now = used.count(name) ? used.at(name) : Quantity();
    Quantity after = now;
    (void)after.Add(q);
    if (after.Compare(status_hard.at(name)) > 0) {
      failed_requested.emplace(name, q);
      failed_used.emplace(name, now);
      failed_hard.emplace(name, status_hard.at(name));
    }
  }
  if (!failed_requested.empty()) {
    return AdmissionError(403, "Forbidden",
                          StrCat(forbidden, "exceeded quota: ", quota_name,
                                 ", requested: ", Pretty(failed_requested),
                                 ", used: ", Pretty(failed_used),
                                 ", limited: ", Pretty(failed_hard)));
  }
  return absl::OkStatus();
}

// `quota`'s status.used with `charge` added (`sign` 1) or taken back (-1).
Json Charged(const Json& quota, const std::map<std::string, Quantity>& charge,
             int sign) {
  Json next = quota;
  std::map<std::string, Quantity> used = Quantities(quota, "status", "used");
  for (const auto& [name, q] : charge) {
    Quantity sum = used.count(name) ? used.at(name) : Quantity();
    (void)(sign > 0 ? sum.Add(q) : sum.Sub(q));
    next["status"]["used"][name] = sum.ToString();
  }
  return next;
}

}  // namespace

absl::Status ResourceQuotaAdmission::Admit(const AdmissionRequest& request,
                                           Json& object) {
  if (request.kind != "ResourceClaim" || request.group != "resource.k8s.io" ||
      !request.subresource.empty() ||
      request.operation != AdmissionRequest::Operation::kCreate ||
      registry_ == nullptr) {
    return absl::OkStatus();
  }
  const ResourceInfo* quotas = FindResource("", "resourcequotas");
  ListQuery query;
  query.namespace_ = request.namespace_;
  absl::StatusOr<ListResult> listed = registry_->List(*quotas, query);
  if (!listed.ok()) return listed.status();
  if (listed->items.empty()) return absl::OkStatus();

  Json typed_input = object;
  typed_input["apiVersion"] = "resource.k8s.io/v1";
  typed_input["kind"] = "ResourceClaim";
  absl::StatusOr<api::DecodeResult> decoded = api::DecodeObject(typed_input);
  if (!decoded.ok()) return absl::OkStatus();  // validation's business
  std::map<std::string, Quantity> requested;
  for (const auto& [name, n] : api::ClaimQuotaUsage(
           std::get<api::ResourceClaim>(decoded->object.value))) {
    requested.emplace(name, Quantity::FromInt64(n));
  }
  const std::string forbidden = StrCat("resourceclaims.resource.k8s.io \"",
                                       request.name, "\" is forbidden: ");

  // Check every quota first; charge them only when all admit.
  std::vector<std::pair<std::string, std::map<std::string, Quantity>>> charges;
  for (const Json& quota : listed->items) {
    const std::string quota_name =
        quota.value("metadata", Json::object()).value("name", "");
    std::map<std::string, Quantity> spec_hard =
        Quantities(quota, "spec", "hard");
    std::map<std::string, Quantity> charge;  // requested, masked by hard
    for (const auto& [name, hard] : spec_hard) {
      if (!api::IsClaimQuotaResource(name)) continue;
      auto r = requested.find(name);
      if (r != requested.end()) charge.emplace(name, r->second);
    }
    if (charge.empty()) continue;
    if (absl::Status ok = CheckCharge(quota, charge, forbidden); !ok.ok()) {
      return ok;
    }
    charges.emplace_back(quota_name, std::move(charge));
  }
  if (request.dry_run) return absl::OkStatus();
  // Charge each quota with a write conditioned on the version the check
  // read (Modify retries on a conflict, re-checking against the new used):
  // concurrent creates can never together pass spec.hard. When a later
  // quota refuses, the earlier charges are taken back.
  WriteOptions options;
  options.subresource = "status";
  for (size_t i = 0; i < charges.size(); ++i) {
    const std::map<std::string, Quantity>& charge = charges[i].second;
    absl::StatusOr<WriteResult> written = registry_->Modify(
        *quotas, request.namespace_, charges[i].first,
        [&charge, &forbidden](const Json& current) -> absl::StatusOr<Json> {
          if (absl::Status ok = CheckCharge(current, charge, forbidden);
              !ok.ok()) {
            return ok;
          }
          return Charged(current, charge, 1);
        },
        options);
    if (written.ok()) continue;
    for (size_t j = 0; j < i; ++j) {
      const std::map<std::string, Quantity>& back = charges[j].second;
      (void)registry_->Modify(
          *quotas, request.namespace_, charges[j].first,
          [&back](const Json& current) -> absl::StatusOr<Json> {
            return Charged(current, back, -1);
          },
          options);
    }
    return written.status();
  }
  return absl::OkStatus();
}

}  // namespace draplane::apiserver::internal

// POST of a new object, with a pod's inline claim templates (upstream's
// handlers/create.go), and of a pod's binding (BindingREST).
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "apiserver/internal/api_errors.h"
#include "apiserver/internal/handlers.h"
#include "apiserver/internal/inline_claims.h"
#include "apiserver/internal/negotiation.h"
#include "apiserver/internal/request_scope.h"
#include "common/str_cat.h"

namespace draplane::apiserver::internal {

absl::Status Handlers::Create(const http::HttpRequest& req, const Target& t,
                              Responder& w) {
  auto validation = ParseFieldValidation(req.Query("fieldValidation"));
  if (!validation.ok()) return validation.status();
  auto dry = ParseDryRun(req);
  if (!dry.ok()) return dry.status();
  auto body = ParseBody(req, w);
  if (!body.ok()) return body.status();
  std::vector<std::string> warnings;
  std::vector<internal::InlineClaimTemplate> inline_claims;
  if (t.resource->kind->kind == "Pod") {
    auto extracted = internal::ExtractInlineClaims(*body);
    if (!extracted.ok()) return extracted.status();
    inline_claims = *std::move(extracted);
  }
  // Templates for inline requests are checked before the pod is created
  // and created after it, owned by it.
  std::vector<std::pair<Target, Json>> templates;
  for (const internal::InlineClaimTemplate& inl : inline_claims) {
    Target tt;
    tt.resource =
        internal::FindResource("resource.k8s.io", "resourceclaimtemplates");
    tt.group = "resource.k8s.io";
    tt.version = std::string(
        api::SplitApiVersion(inl.object["apiVersion"].get<std::string>())
            .second);
    tt.namespace_ = t.namespace_;
    tt.user = t.user;
    auto stored =
        BodyToStorage(tt, inl.object, FieldValidation::kStrict, warnings);
    if (!stored.ok()) return stored.status();
    auto check = registry_.Create(*tt.resource, t.namespace_, *stored,
                                  OwnWrite(/*dry_run=*/true));
    if (!check.ok()) return check.status();
    templates.emplace_back(tt, *std::move(stored));
    warnings.push_back(inl.warning);
  }
  // A pod whose inline claims were cut out is no longer an encoding.
  auto storage =
      BodyToStorage(t, *std::move(body), *validation, warnings,
                    w.ParsedBodyIsEncodedObject() && inline_claims.empty());
  if (!storage.ok()) return storage.status();
  auto result = registry_.Create(*t.resource, t.namespace_, *std::move(storage),
                                 WriteOptionsOf(req, t, *dry));
  if (!result.ok()) return result.status();
  for (auto& [tt, object] : templates) {
    const Json& pod_meta = result->object->at("metadata");
    object["metadata"]["ownerReferences"] =
        Json::array({Json{{"apiVersion", "v1"},
                          {"kind", "Pod"},
                          {"name", pod_meta.value("name", "")},
                          {"uid", pod_meta.value("uid", "")},
                          {"controller", true},
                          {"blockOwnerDeletion", true}}});
    auto created = registry_.Create(*tt.resource, t.namespace_, object,
                                    WriteOptionsOf(req, tt, *dry));
    if (!created.ok()) {
      if (!*dry) {
        (void)registry_.Delete(*t.resource, t.namespace_,
                               internal::NameOf(*result->object), {});
      }
      return created.status();
    }
  }
  return SendWritten(req, t, *result, 201, warnings, w);
}

// POST pods/<name>/binding: assigns the pod to a node as upstream's
// BindingREST does: one write (spec.nodeName, the binding's annotations
// and the PodScheduled=True condition together) of an unassigned pod,
// with the binding's uid and resourceVersion as preconditions.
absl::Status Handlers::Bind(const http::HttpRequest& req, const Target& t,
                            Responder& w) {
  auto dry = ParseDryRun(req);
  if (!dry.ok()) return dry.status();
  auto body = ParseBody(req, w);
  if (!body.ok()) return body.status();
  const Json& meta_member = api::MemberOrNull(*body, "metadata");
  const Json& target_member = api::MemberOrNull(*body, "target");
  for (const Json* m : {&meta_member, &target_member}) {
    if (!m->is_null() && !m->is_object()) {
      return internal::BadRequest(
          "the Binding's metadata and target must be objects");
    }
  }
  const Json meta = meta_member.is_object() ? meta_member : Json::object();
  const Json target =
      target_member.is_object() ? target_member : Json::object();
  // Upstream decodes the Binding first: a mistyped field is a 400.
  for (const auto& [object, field, path] :
       {std::tuple(&meta, "name", "metadata.name"),
        std::tuple(&meta, "uid", "metadata.uid"),
        std::tuple(&meta, "resourceVersion", "metadata.resourceVersion"),
        std::tuple(&target, "kind", "target.kind"),
        std::tuple(&target, "name", "target.name")}) {
    const Json& v = api::MemberOrNull(*object, field);
    if (!v.is_null() && !v.is_string()) {
      return internal::BadRequest(
          StrCat("the Binding's ", path, " must be a string"));
    }
  }
  for (const char* field : {"annotations", "labels"}) {
    const Json& member = api::MemberOrNull(meta, field);
    bool ok = member.is_null() || member.is_object();
    if (ok && member.is_object()) {
      for (const auto& v : member) ok = ok && v.is_string();
    }
    if (!ok) {
      return internal::BadRequest(StrCat("the Binding's metadata.", field,
                                         " must map strings to strings"));
    }
  }
  if (meta.value("name", t.name) != t.name) {
    return internal::BadRequest(
        "name in URL does not match name in Binding object");
  }
  FieldErrorList errors;
  const std::string kind = target.value("kind", "");
  if (!kind.empty() && kind != "Node") {
    errors.push_back(draplane::NotSupported(
        FieldPath("target.kind"), BadValue(kind), {"Node", "<empty>"}));
  }
  const std::string node = target.value("name", "");
  if (node.empty()) {
    errors.push_back(draplane::Required(FieldPath("target.name"), ""));
  }
  if (!errors.empty()) {
    return internal::Invalid(*t.resource, t.name, errors);
  }
  const std::string uid = meta.value("uid", "");
  const std::string rv = meta.value("resourceVersion", "");
  const Json& annotations = api::MemberOrNull(meta, "annotations");
  const Json& labels = api::MemberOrNull(meta, "labels");
  // As upstream's BindingREST (setPodNodeAndMetadata, with its 1.37
  // defaults ClearingNominatedNodeNameAfterBinding and
  // PodTopologyLabelsAdmission on): a storage-level update of the pod,
  // with no pod admission, validation or managedFields of its own.
  auto result = registry_.GuaranteedUpdate(
      *t.resource, t.namespace_, t.name,
      [&](api::Object& object) -> absl::Status {
        auto* pod = std::get_if<api::Pod>(&object.value);
        if (pod == nullptr) {
          return internal::InternalServerError("the stored pod is no Pod");
        }
        const api::ObjectMeta& current_meta = pod->metadata;
        if (!uid.empty() && uid != current_meta.uid) {
          return internal::PreconditionFailed(*t.resource, t.name, "UID", uid,
                                              current_meta.uid);
        }
        if (!rv.empty() && rv != current_meta.resource_version) {
          return internal::PreconditionFailed(*t.resource, t.name,
                                              "ResourceVersion", rv,
                                              current_meta.resource_version);
        }
        auto refuse = [&](std::string_view why) {
          return internal::SubresourceConflict(*t.resource, "binding", t.name,
                                               why);
        };
        if (current_meta.deletion_timestamp.has_value()) {
          return refuse(StrCat("pod ", t.name,
                               " is being deleted, cannot be assigned to a "
                               "host"));
        }
        if (!pod->spec.node_name.empty()) {
          return refuse(StrCat("pod ", t.name,
                               " is already assigned to node \"",
                               pod->spec.node_name, "\""));
        }
        if (const Json& gates =
                api::MemberOrNull(pod->spec.unknown_fields, "schedulingGates");
            gates.is_array() && !gates.empty()) {
          return refuse(
              StrCat("pod ", t.name, " has non-empty .spec.schedulingGates"));
        }
        pod->spec.node_name = node;
        pod->status.nominated_node_name.clear();
        if (annotations.is_object()) {
          for (const auto& [key, value] : annotations.items()) {
            pod->metadata.annotations[key] = value.get<std::string>();
          }
        }
        // The bypassed strategy would have dropped them (upstream's
        // podutil.DropInitContainerAnnotations).
        for (const char* legacy :
             {"pod.beta.kubernetes.io/init-containers",
              "pod.alpha.kubernetes.io/init-containers",
              "pod.beta.kubernetes.io/init-container-statuses",
              "pod.alpha.kubernetes.io/init-container-statuses"}) {
          pod->metadata.annotations.erase(legacy);
        }
        if (labels.is_object()) {
          for (const auto& [key, value] : labels.items()) {
            pod->metadata.labels[key] = value.get<std::string>();
          }
        }
        SetPodScheduled(pod->status);
        return absl::OkStatus();
      },
      *dry);
  if (!result.ok()) return result.status();
  w.SendJson(201,
             Json{{"kind", "Status"},
                  {"apiVersion", "v1"},
                  {"metadata", Json::object()},
                  {"status", "Success"},
                  {"code", 201}},
             {});
  return absl::OkStatus();
}

// Upstream's podutil.UpdatePodCondition with {PodScheduled, True}: the
// condition replaces an existing one in place (its reason and message
// go; its lastTransitionTime, set or not, stays when the status was
// already True) or is appended.
void Handlers::SetPodScheduled(api::PodStatus& status) const {
  api::PodCondition condition;
  condition.type = "PodScheduled";
  condition.status = "True";
  condition.last_transition_time = internal::Timestamp(registry_.clock().Now());
  for (api::PodCondition& c : status.conditions) {
    if (c.type != "PodScheduled") continue;
    if (c.status == "True") {
      condition.last_transition_time = std::move(c.last_transition_time);
    }
    c = std::move(condition);
    return;
  }
  status.conditions.push_back(std::move(condition));
}

}  // namespace draplane::apiserver::internal

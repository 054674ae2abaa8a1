#include "apiserver/internal/node_restriction.h"

#include <set>
#include <string>

#include "absl/strings/str_join.h"
#include "apiserver/internal/api_errors.h"
#include "apiserver/internal/resources.h"
#include "common/str_cat.h"

namespace draplane::apiserver::internal {
namespace {

using Operation = AdmissionRequest::Operation;

const api::Json& At(const api::Json& json, const char* key) {
  static const api::Json* const kNull = new api::Json();
  if (!json.is_object()) return *kNull;
  auto it = json.find(key);
  return it == json.end() ? *kNull : *it;
}

std::string StringAt(const api::Json& json, const char* a,
                     const char* b = nullptr) {
  const api::Json& v = b == nullptr ? At(json, a) : At(At(json, a), b);
  return v.is_string() ? v.get<std::string>() : "";
}

// Missing, null and empty compare equal, as Go's nil and empty slices do
// under apiequality.Semantic.
bool SameList(const api::Json& a, const api::Json& b) {
  auto empty = [](const api::Json& v) {
    return v.is_null() || (v.is_array() && v.empty()) ||
           (v.is_object() && v.empty());
  };
  if (empty(a) || empty(b)) return empty(a) && empty(b);
  return a == b;
}

std::string LabelNamespace(std::string_view key) {
  size_t slash = key.find('/');
  return slash == std::string_view::npos ? ""
                                         : std::string(key.substr(0, slash));
}

bool InNamespace(const std::string& ns, std::string_view domain) {
  return ns == domain ||
         (ns.size() > domain.size() &&
          std::string_view(ns).substr(ns.size() - domain.size()) == domain &&
          ns[ns.size() - domain.size() - 1] == '.');
}

// kubeletapis.IsKubeletLabel.
bool IsKubeletLabel(const std::string& key) {
  static const std::set<std::string, std::less<>> kLabels = {
      "kubernetes.io/hostname",
      "topology.kubernetes.io/zone",
      "topology.kubernetes.io/region",
      "failure-domain.beta.kubernetes.io/zone",
      "failure-domain.beta.kubernetes.io/region",
      "beta.kubernetes.io/instance-type",
      "node.kubernetes.io/instance-type",
      "kubernetes.io/os",
      "kubernetes.io/arch",
      "beta.kubernetes.io/os",
      "beta.kubernetes.io/arch"};
  if (kLabels.count(key) != 0) return true;
  const std::string ns = LabelNamespace(key);
  return InNamespace(ns, "kubelet.kubernetes.io") ||
         InNamespace(ns, "node.kubernetes.io");
}

// The labels a node may not set (getForbiddenLabels) among those that
// differ between `now` and `before`, sorted.
std::set<std::string> ForbiddenLabels(const api::Json& now,
                                      const api::Json& before) {
  std::set<std::string> modified;
  auto diff = [&modified](const api::Json& a, const api::Json& b) {
    if (!a.is_object()) return;
    for (const auto& [k, v] : a.items()) {
      auto it = b.is_object() ? b.find(k) : b.end();
      if (!b.is_object() || it == b.end() || *it != v) modified.insert(k);
    }
  };
  diff(now, before);
  diff(before, now);
  std::set<std::string> forbidden;
  for (const std::string& label : modified) {
    const std::string ns = LabelNamespace(label);
    const bool kubernetes =
        InNamespace(ns, "kubernetes.io") || InNamespace(ns, "k8s.io");
    if (InNamespace(ns, "node-restriction.kubernetes.io") ||
        (kubernetes && !IsKubeletLabel(label))) {
      forbidden.insert(label);
    }
  }
  return forbidden;
}

}  // namespace

absl::Status NodeRestrictionAdmission::AdmitMirrorPod(
    const std::string& me, const ResourceInfo& r, const std::string& name,
    const api::Json& pod) const {
  auto forbidden = [&](std::string_view text) {
    return Forbidden(r, name, text);
  };
  const api::Json& meta = At(pod, "metadata");
  if (!At(meta, "annotations").is_object() ||
      !At(meta, "annotations").contains("kubernetes.io/config.mirror")) {
    return forbidden(StrCat(
        "pod does not have \"kubernetes.io/config.mirror\" annotation, node \"",
        me, "\" can only create mirror pods"));
  }
  if (StringAt(pod, "spec", "nodeName") != me) {
    return forbidden(StrCat("node \"", me,
                            "\" can only create pods with spec.nodeName set "
                            "to itself"));
  }
  const api::Json& owners = At(meta, "ownerReferences");
  const size_t count = owners.is_array() ? owners.size() : 0;
  if (count > 1) {
    return forbidden(StrCat("node \"", me,
                            "\" can only create pods with a single owner "
                            "reference set to itself"));
  }
  if (count == 0) {
    return forbidden(StrCat("node \"", me,
                            "\" can only create pods with an owner reference "
                            "set to itself"));
  }
  const api::Json& owner = owners[0];
  if (StringAt(owner, "apiVersion") != "v1" ||
      StringAt(owner, "kind") != "Node" || StringAt(owner, "name") != me) {
    return forbidden(StrCat("node \"", me,
                            "\" can only create pods with an owner reference "
                            "set to itself"));
  }
  if (At(owner, "controller") != api::Json(true)) {
    return forbidden(StrCat("node \"", me,
                            "\" can only create pods with a controller owner "
                            "reference set to itself"));
  }
  if (At(owner, "blockOwnerDeletion") == api::Json(true)) {
    return forbidden(StrCat("node \"", me,
                            "\" must not set blockOwnerDeletion on an owner "
                            "reference"));
  }
  if (registry_ == nullptr) {
    return forbidden(StrCat("error looking up node ", me, " to verify uid"));
  }
  auto stored = registry_->Get(*FindResource("", "nodes"), "", me);
  if (!stored.ok()) {
    if (stored.status().code() == absl::StatusCode::kNotFound) {
      return stored.status();
    }
    return forbidden(StrCat("error looking up node ", me,
                            " to verify uid: ", stored.status().message()));
  }
  const std::string uid = StringAt(*stored, "metadata", "uid");
  if (StringAt(owner, "uid") != uid) {
    return forbidden(StrCat("node ", me, " UID mismatch: expected ", uid,
                            " got ", StringAt(owner, "uid")));
  }
  // podutil.HasAPIObjectReference for the references draplane's pods can
  // hold (the first it finds, in upstream's order).
  const api::Json& spec = At(pod, "spec");
  const char* reference = nullptr;
  if (!StringAt(spec, "serviceAccountName").empty()) {
    reference = "serviceaccounts";
  } else if (At(spec, "resourceClaims").is_array() &&
             !At(spec, "resourceClaims").empty()) {
    reference = "resourceclaims";
  }
  if (reference != nullptr) {
    return forbidden(StrCat(
        "node \"", me, "\" can not create pods that reference ", reference));
  }
  return absl::OkStatus();
}

absl::Status NodeRestrictionAdmission::Admit(const AdmissionRequest& request,
                                             api::Json& object) {
  const auth::NodeIdentity node = auth::NodeIdentityOf(request.user);
  if (!node.is_node) return absl::OkStatus();
  const ResourceInfo* r = FindResource(request.group, request.resource);
  if (r == nullptr) return absl::OkStatus();
  const std::string name = request.name.empty()
                               ? StringAt(object, "metadata", "name")
                               : request.name;
  auto forbidden = [&](std::string_view text) {
    return Forbidden(*r, name, text);
  };
  if (node.name.empty()) {
    return forbidden(StrCat("could not determine node from user \"",
                            request.user.name, "\""));
  }
  const std::string& me = node.name;
  const api::Json old_object =
      request.old_object != nullptr ? *request.old_object : api::Json();
  if (request.group.empty() && request.resource == "pods") {
    if (request.subresource == "status") {
      if (request.operation != Operation::kUpdate) {
        return forbidden("unexpected operation \"UPDATE\"");
      }
      if (StringAt(old_object, "spec", "nodeName") != me) {
        return forbidden(StrCat("node \"", me,
                                "\" can only update pod status for pods with "
                                "spec.nodeName set to itself"));
      }
      if (!SameList(At(At(old_object, "metadata"), "labels"),
                    At(At(object, "metadata"), "labels"))) {
        return forbidden(StrCat("node \"", me,
                                "\" cannot update labels through pod status"));
      }
      if (!SameList(At(At(old_object, "status"), "resourceClaimStatuses"),
                    At(At(object, "status"), "resourceClaimStatuses"))) {
        return forbidden(
            StrCat("node \"", me, "\" cannot update resource claim statues"));
      }
      if (!SameList(At(At(old_object, "status"), "extendedResourceClaimStatus"),
                    At(At(object, "status"), "extendedResourceClaimStatus"))) {
        return forbidden(StrCat("node \"", me,
                                "\" cannot update extended resource claim "
                                "status"));
      }
      return absl::OkStatus();
    }
    if (!request.subresource.empty()) {
      return forbidden(StrCat("unexpected pod subresource \"",
                              request.subresource,
                              "\", only 'status' and 'eviction' are allowed"));
    }
    if (request.operation == Operation::kDelete) {
      if (StringAt(object, "spec", "nodeName") != me) {
        return forbidden(StrCat("node \"", me,
                                "\" can only delete pods with spec.nodeName "
                                "set to itself"));
      }
      return absl::OkStatus();
    }
    if (request.operation == Operation::kCreate) {
      return AdmitMirrorPod(me, *r, name, object);
    }
    return forbidden(StrCat("unexpected operation \"UPDATE\", node \"", me,
                            "\" can only create and delete mirror pods"));
  }
  if (request.group.empty() && request.resource == "nodes") {
    if (name != me) {
      return forbidden(StrCat(
          "node \"", me, "\" is not allowed to modify node \"", name, "\""));
    }
    const api::Json& labels = At(At(object, "metadata"), "labels");
    if (request.operation == Operation::kCreate) {
      if (!At(At(object, "spec"), "configSource").is_null()) {
        return forbidden(StrCat("node \"", me,
                                "\" is not allowed to create pods with a "
                                "non-nil configSource"));
      }
      auto bad = ForbiddenLabels(labels, api::Json());
      if (!bad.empty()) {
        return forbidden(StrCat("node \"", me,
                                "\" is not allowed to set the following "
                                "labels: ",
                                absl::StrJoin(bad, ", ")));
      }
    } else if (request.operation == Operation::kUpdate) {
      const api::Json& source = At(At(object, "spec"), "configSource");
      if (!source.is_null() &&
          source != At(At(old_object, "spec"), "configSource")) {
        return forbidden(StrCat("node \"", me,
                                "\" is not allowed to update configSource to "
                                "a new non-nil configSource"));
      }
      if (!SameList(At(At(object, "spec"), "taints"),
                    At(At(old_object, "spec"), "taints"))) {
        return forbidden(
            StrCat("node \"", me, "\" is not allowed to modify taints"));
      }
      if (!SameList(At(At(object, "metadata"), "ownerReferences"),
                    At(At(old_object, "metadata"), "ownerReferences"))) {
        return forbidden(StrCat("node \"", me,
                                "\" is not allowed to modify ownerReferences"));
      }
      auto bad =
          ForbiddenLabels(labels, At(At(old_object, "metadata"), "labels"));
      if (!bad.empty()) {
        return forbidden(StrCat("is not allowed to modify labels: ",
                                absl::StrJoin(bad, ", ")));
      }
    }
    return absl::OkStatus();
  }
  if (request.group == "coordination.k8s.io" && request.resource == "leases") {
    if (request.namespace_ != "kube-node-lease") {
      return forbidden(
          "can only access leases in the \"kube-node-lease\" system namespace");
    }
    if (name != me) {
      return forbidden(
          "can only access node lease with the same name as the requesting "
          "node");
    }
    return absl::OkStatus();
  }
  if (request.group == "resource.k8s.io" &&
      request.resource == "resourceslices") {
    const std::string slice_node = StringAt(object, "spec", "nodeName");
    if (request.operation == Operation::kCreate && slice_node != me) {
      return forbidden(
          "can only create ResourceSlice with the same NodeName as the "
          "requesting node");
    }
    if (request.operation == Operation::kDelete && slice_node != me) {
      return forbidden(
          "can only delete ResourceSlice with the same NodeName as the "
          "requesting node");
    }
  }
  return absl::OkStatus();
}

}  // namespace draplane::apiserver::internal

#include "apiserver/internal/resources.h"

#include <algorithm>
#include <cctype>

#include "common/str_cat.h"

namespace draplane::apiserver::internal {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(c));
  return out;
}

ResourceInfo Make(const api::KindInfo& kind) {
  ResourceInfo r;
  r.kind = &kind;
  r.singular = Lower(kind.kind);
  const std::string_view k = kind.kind;
  if (kind.group == "resource.k8s.io") {
    r.tracks_generation = true;
    if (k == "ResourceClaim" || k == "DeviceTaintRule") {
      r.subresources = {"status"};
      r.status_on_create = StatusOnCreate::kClear;
    }
  } else if (k == "Namespace") {
    r.short_names = {"ns"};
    r.subresources = {"status", "finalize"};
    r.status_on_create = StatusOnCreate::kNamespace;
  } else if (k == "Node") {
    r.short_names = {"no"};
    r.subresources = {"status"};
    r.status_on_create = StatusOnCreate::kKeep;
  } else if (k == "Pod") {
    r.short_names = {"po"};
    r.categories = {"all"};
    r.subresources = {"binding", "status"};
    r.status_on_create = StatusOnCreate::kPod;
    r.tracks_generation = true;
  } else if (k == "Event") {
    r.short_names = {"ev"};
    r.remember_decoded = false;
  } else if (k == "ResourceQuota") {
    r.short_names = {"quota"};
    r.subresources = {"status"};
    r.status_on_create = StatusOnCreate::kClear;
  } else if (k == "ServiceAccount") {
    r.short_names = {"sa"};
    r.subresources = {"token"};
  } else if (k == "Lease") {
    r.allow_unconditional_update = false;
    r.allow_create_on_update = true;
  } else if (k == "Deployment") {
    r.short_names = {"deploy"};
    r.categories = {"all"};
    r.subresources = {"scale", "status"};
    r.status_on_create = StatusOnCreate::kClear;
    r.tracks_generation = true;
  } else if (k == "Job") {
    r.categories = {"all"};
    r.subresources = {"status"};
    r.status_on_create = StatusOnCreate::kClear;
    r.tracks_generation = true;
  }
  return r;
}

}  // namespace

bool ResourceInfo::HasSubresource(std::string_view name) const {
  return std::find(subresources.begin(), subresources.end(), name) !=
         subresources.end();
}

std::string ResourceInfo::QualifiedResource() const {
  if (group().empty()) return std::string(resource());
  return StrCat(resource(), ".", group());
}

std::string ResourceInfo::ApiVersion(std::string_view version) const {
  if (group().empty()) return std::string(version);
  return StrCat(group(), "/", version);
}

bool ResourceInfo::ServesVersion(std::string_view version) const {
  return std::find(kind->versions.begin(), kind->versions.end(), version) !=
         kind->versions.end();
}

const std::vector<ResourceInfo>& Resources() {
  static const auto* resources = [] {
    auto* out = new std::vector<ResourceInfo>;
    for (const api::KindInfo& kind : api::ServedKinds()) {
      out->push_back(Make(kind));
    }
    return out;
  }();
  return *resources;
}

const ResourceInfo* FindResource(std::string_view group,
                                 std::string_view plural) {
  for (const ResourceInfo& r : Resources()) {
    if (r.group() == group && r.resource() == plural) return &r;
  }
  return nullptr;
}

const ResourceInfo* FindResourceByKind(std::string_view group,
                                       std::string_view kind) {
  for (const ResourceInfo& r : Resources()) {
    if (r.group() == group && r.kind->kind == kind) return &r;
  }
  return nullptr;
}

const std::vector<GroupVersions>& Groups() {
  static const auto* groups = [] {
    auto* out = new std::vector<GroupVersions>;
    for (const ResourceInfo& r : Resources()) {
      auto it = std::find_if(out->begin(), out->end(), [&](const auto& g) {
        return g.group == r.group();
      });
      if (it == out->end()) {
        out->push_back(GroupVersions{std::string(r.group()), {}});
        it = std::prev(out->end());
      }
      for (std::string_view v : r.kind->versions) {
        if (std::find(it->versions.begin(), it->versions.end(), v) ==
            it->versions.end()) {
          it->versions.emplace_back(v);
        }
      }
    }
    // Core first, then named groups in the order they were first served.
    std::stable_partition(out->begin(), out->end(),
                          [](const auto& g) { return g.group.empty(); });
    return out;
  }();
  return *groups;
}

}  // namespace draplane::apiserver::internal

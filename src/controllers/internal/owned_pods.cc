#include "controllers/internal/owned_pods.h"

#include "common/str_cat.h"

namespace draplane::controllers::internal {

std::vector<client::ObjectPtr> OwnedPods(const client::Informer& pods,
                                         const std::string& ns,
                                         const std::string& owner_uid) {
  std::vector<client::ObjectPtr> out;
  for (const client::ObjectPtr& o : pods.List()) {
    const api::ObjectMeta* m = o->metadata();
    if (m->namespace_ != ns) continue;
    for (const auto& ref : m->owner_references) {
      if (ref.controller.value_or(false) && ref.uid == owner_uid) {
        out.push_back(o);
        break;
      }
    }
  }
  return out;
}

std::string ControllerKey(const api::Pod& pod, std::string_view kind) {
  for (const auto& ref : pod.metadata.owner_references) {
    if (ref.controller.value_or(false) && ref.kind == kind) {
      return StrCat(pod.metadata.namespace_, "/", ref.name);
    }
  }
  return "";
}

namespace {

client::EventHandler OnEveryChange(
    std::function<void(const client::ObjectPtr&)> fn) {
  client::EventHandler h;
  h.on_add = fn;
  h.on_update = [fn](const client::ObjectPtr&, const client::ObjectPtr& o) {
    fn(o);
  };
  h.on_delete = fn;
  return h;
}

}  // namespace

client::EventHandler QueueKeys(std::function<void(const std::string&)> add) {
  return OnEveryChange([add](const client::ObjectPtr& o) {
    add(StrCat(o->metadata()->namespace_, "/", o->metadata()->name));
  });
}

client::EventHandler QueueOwnerKeys(
    std::string_view kind, std::function<void(const std::string&)> add) {
  return OnEveryChange(
      [kind = std::string(kind), add](const client::ObjectPtr& o) {
        std::string key = ControllerKey(std::get<api::Pod>(o->value), kind);
        if (!key.empty()) add(key);
      });
}

bool IsActivePod(const api::Pod& pod) {
  return !pod.metadata.deletion_timestamp.has_value() &&
         pod.status.phase != "Succeeded" && pod.status.phase != "Failed";
}

api::Object PodFromTemplate(
    const api::PodTemplateSpec& tmpl, const std::string& ns,
    const std::string& generate_name,
    const std::map<std::string, std::string>& extra_labels,
    api::OwnerReference owner) {
  api::Pod pod;
  pod.metadata.generate_name = generate_name;
  pod.metadata.namespace_ = ns;
  pod.metadata.labels = tmpl.metadata.labels;
  for (const auto& [k, v] : extra_labels) pod.metadata.labels[k] = v;
  pod.metadata.annotations = tmpl.metadata.annotations;
  owner.controller = true;
  owner.block_owner_deletion = true;
  pod.metadata.owner_references.push_back(std::move(owner));
  pod.spec = tmpl.spec;
  return api::Object{{"v1", "Pod"}, std::move(pod)};
}

}  // namespace draplane::controllers::internal

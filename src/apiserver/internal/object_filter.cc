#include "apiserver/internal/object_filter.h"

#include <map>
#include <memory>

#include "apiserver/internal/api_errors.h"
#include "selectors/selectors.h"

namespace draplane::apiserver::internal {

absl::StatusOr<ObjectFilter> BuildObjectFilter(const ResourceInfo& r,
                                               const std::string& labels,
                                               const std::string& fields) {
  if (labels.empty() && fields.empty()) return ObjectFilter();
  auto label_selector = selectors::ParseLabelSelector(labels);
  if (!label_selector.ok()) {
    return BadRequest(std::string(label_selector.status().message()));
  }
  auto field_selector = selectors::ParseFieldSelector(fields);
  if (!field_selector.ok()) {
    return BadRequest(std::string(field_selector.status().message()));
  }
  auto converted = selectors::ConvertFieldSelector(
      *field_selector, r.group(), r.kind->kind, r.StorageVersion());
  if (!converted.ok()) {
    return BadRequest(std::string(converted.status().message()));
  }
  auto l =
      std::make_shared<selectors::LabelSelector>(*std::move(label_selector));
  auto f = std::make_shared<selectors::FieldSelector>(*std::move(converted));
  const std::string group(r.group()), kind(r.kind->kind);
  return ObjectFilter([l, f, group, kind](const api::Json& object) {
    if (!l->Empty()) {
      std::map<std::string, std::string> map;
      auto meta = object.find("metadata");
      if (meta != object.end() && meta->is_object()) {
        auto it = meta->find("labels");
        if (it != meta->end() && it->is_object()) {
          for (auto kv = it->begin(); kv != it->end(); ++kv) {
            if (kv->is_string()) map[kv.key()] = kv->get<std::string>();
          }
        }
      }
      if (!l->Matches(map)) return false;
    }
    if (!f->Empty()) {
      if (!f->Matches(selectors::SelectableFields(object, group, kind))) {
        return false;
      }
    }
    return true;
  });
}

}  // namespace draplane::apiserver::internal

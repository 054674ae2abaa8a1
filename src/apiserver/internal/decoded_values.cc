#include "apiserver/internal/decoded_values.h"

#include <utility>

#include "api/object_codec.h"

namespace draplane::apiserver::internal {

void DropManagedFields(api::Object& object) {
  if (api::ObjectMeta* meta = object.mutable_metadata(); meta != nullptr) {
    meta->managed_fields.clear();
  } else if (auto* u = std::get_if<api::UnstructuredObject>(&object.value)) {
    if (auto m = u->json.find("metadata");
        m != u->json.end() && m->is_object()) {
      m->erase("managedFields");
    }
  }
}

void SetResourceVersion(api::Json& object, const std::string& rv) {
  api::Json& meta = object["metadata"];
  if (!meta.is_object()) meta = api::Json::object();
  api::Json out = api::Json::object();
  bool placed = false;
  static constexpr std::string_view kBefore[] = {
      "name", "generateName", "namespace", "selfLink", "uid"};
  for (auto it = meta.begin(); it != meta.end(); ++it) {
    if (it.key() == "resourceVersion") continue;
    bool before = false;
    for (auto b : kBefore) before = before || it.key() == b;
    if (!before && !placed) {
      out["resourceVersion"] = rv;
      placed = true;
    }
    out[it.key()] = std::move(it.value());
  }
  if (!placed) out["resourceVersion"] = rv;
  meta = std::move(out);
}

std::shared_ptr<const api::Json> DecodedValues::Get(const store::Value& value,
                                                    int64_t revision,
                                                    bool remember) {
  if (value == nullptr) {
    return std::make_shared<const api::Json>(
        api::Json{{"metadata", api::Json::object()}});
  }
  {
    std::lock_guard lock(mu_);
    auto it = entries_.find(value.get());
    if (it != entries_.end()) return it->second.object;
  }
  api::Json parsed =
      api::Json::parse(*value, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    parsed = api::Json::object();
  }
  auto meta = parsed.find("metadata");
  if (meta == parsed.end() || !meta->is_object()) {
    parsed["metadata"] = api::Json::object();
    meta = parsed.find("metadata");
  }
  if (revision != 0) SetResourceVersion(parsed, revision);
  auto object = std::make_shared<const api::Json>(std::move(parsed));
  if (!remember || revision == 0) return object;
  std::vector<Entry> evicted;
  std::lock_guard lock(mu_);
  auto it = entries_.find(value.get());
  if (it != entries_.end()) return it->second.object;
  PutLocked(value, object, evicted);
  return object;
}

std::shared_ptr<const api::Object> DecodedValues::Typed(
    const store::Value& value, int64_t revision) {
  if (value == nullptr) return nullptr;
  {
    std::lock_guard lock(mu_);
    auto it = entries_.find(value.get());
    if (it != entries_.end() && it->second.typed) return it->second.typed;
  }
  const std::shared_ptr<const api::Json> json = Get(value, revision);
  auto decoded = api::DecodeObject(*json);
  if (!decoded.ok()) return nullptr;
  DropManagedFields(decoded->object);
  auto typed = std::make_shared<const api::Object>(std::move(decoded->object));
  std::lock_guard lock(mu_);
  auto it = entries_.find(value.get());
  if (it == entries_.end()) return typed;  // not remembered
  if (!it->second.typed) it->second.typed = std::move(typed);
  return it->second.typed;
}

void DecodedValues::Put(const store::Value& value,
                        std::shared_ptr<const api::Json> object,
                        std::vector<Entry>* evicted) {
  if (value == nullptr || object == nullptr) return;
  std::vector<Entry> mine;  // destroyed after the lock is released
  std::lock_guard lock(mu_);
  PutLocked(value, std::move(object), evicted != nullptr ? *evicted : mine);
}

void DecodedValues::PutLocked(const store::Value& value,
                              std::shared_ptr<const api::Json> object,
                              std::vector<Entry>& evicted) {
  auto [it, inserted] =
      entries_.try_emplace(value.get(), Entry{value, std::move(object), {}});
  if (!inserted) return;
  order_.push_back(value.get());
  while (order_.size() > capacity_) {
    auto old = entries_.find(order_.front());
    evicted.push_back(std::move(old->second));
    entries_.erase(old);
    order_.pop_front();
  }
}

}  // namespace draplane::apiserver::internal

#include "apiserver/internal/decoded_values.h"

#include <cstdlib>
#include <utility>

#include "api/object_codec.h"
#include "logging/log.h"

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
    absl::MutexLock lock(&mu_);
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
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(value.get());
  if (it != entries_.end()) return it->second.object;
  PutLocked(value, object, nullptr, evicted);
  return object;
}

std::shared_ptr<const api::Object> DecodedValues::Typed(
    const store::Value& value, int64_t revision) {
  if (value == nullptr) return nullptr;
  {
    absl::MutexLock lock(&mu_);
    auto it = entries_.find(value.get());
    if (it != entries_.end() && it->second.typed) return it->second.typed;
  }
  const std::shared_ptr<const api::Json> json = Get(value, revision);
  auto decoded = api::DecodeObject(*json);
  if (!decoded.ok()) return nullptr;
  DropManagedFields(decoded->object);
  auto typed = std::make_shared<const api::Object>(std::move(decoded->object));
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(value.get());
  if (it == entries_.end()) return typed;  // not remembered
  if (!it->second.typed) it->second.typed = std::move(typed);
  return it->second.typed;
}

#ifndef NDEBUG
namespace {
// Debug builds (the tests under ASan): a writer's typed object must be
// what Typed() would have decoded from its JSON.
void CheckTypedMatches(const api::Json& object, const api::Object& typed) {
  auto decoded = api::DecodeObject(object);
  if (decoded.ok()) DropManagedFields(decoded->object);
  auto want = decoded.ok() ? api::EncodeObject(decoded->object)
                           : absl::StatusOr<api::Json>(decoded.status());
  auto got = api::EncodeObject(typed);
  if (!want.ok() || !got.ok() || *want != *got) {
    logging::Fatal(
        "DecodedValues::Put: the typed object differs from its JSON's "
        "decoding",
        {{"decoded", want.ok() ? api::DumpJson(*want) : "(fails)"},
         {"typed", got.ok() ? api::DumpJson(*got) : "(fails)"}});
  }
}
}  // namespace
#endif

void DecodedValues::Put(const store::Value& value, Written written,
                        std::vector<Entry>* evicted) {
  if (value == nullptr || written.object == nullptr) return;
#ifndef NDEBUG
  if (written.typed != nullptr) {
    CheckTypedMatches(*written.object, *written.typed);
  }
#endif
  std::vector<Entry> mine;  // destroyed after the lock is released
  std::vector<Entry>& out = evicted != nullptr ? *evicted : mine;
  absl::MutexLock lock(&mu_);
  if (written.superseded != nullptr) {
    RetireLocked(written.superseded.get(), out);
  }
  PutLocked(value, std::move(written.object), std::move(written.typed), out);
}

bool DecodedValues::Holds(const Slot& slot, bool retired) const {
  auto e = entries_.find(slot.key);
  return e != entries_.end() && e->second.sequence == slot.sequence &&
         e->second.retired == retired;
}

void DecodedValues::EvictLocked(const std::string* key,
                                std::vector<Entry>& evicted) {
  auto e = entries_.find(key);
  evicted.push_back(std::move(e->second));
  entries_.erase(e);
}

void DecodedValues::RetireLocked(const std::string* key,
                                 std::vector<Entry>& evicted) {
  auto e = entries_.find(key);
  if (e == entries_.end() || e->second.retired) return;
  e->second.retired = true;
  --live_;
  live_bytes_ -= e->second.bytes;
  retired_bytes_ += e->second.bytes;
  retired_.push_back({key, e->second.sequence});
  // Every retired entry has its one slot here, so the bytes reach 0 at
  // the latest when the queue is empty.
  while (retired_.size() > limits_.retired_entries ||
         retired_bytes_ > limits_.retired_bytes) {
    const Slot slot = retired_.front();
    retired_.pop_front();
    if (!Holds(slot, /*retired=*/true)) continue;
    retired_bytes_ -= entries_.find(slot.key)->second.bytes;
    EvictLocked(slot.key, evicted);
  }
}

void DecodedValues::PutLocked(const store::Value& value,
                              std::shared_ptr<const api::Json> object,
                              std::shared_ptr<const api::Object> typed,
                              std::vector<Entry>& evicted) {
  const uint64_t sequence = ++next_sequence_;
  const size_t bytes = value->size();
  auto [it, inserted] = entries_.try_emplace(
      value.get(), Entry{value, std::move(object), std::move(typed), sequence,
                         false, bytes});
  if (!inserted) return;
  ++live_;
  live_bytes_ += bytes;
  order_.push_back({value.get(), sequence});
  // Every live entry has exactly one slot here, so there is one to find,
  // and with two or more live the oldest is not the one just added.
  while (live_ > limits_.live_entries ||
         (live_bytes_ > limits_.live_bytes && live_ > 1)) {
    const Slot slot = order_.front();
    order_.pop_front();
    if (!Holds(slot, /*retired=*/false)) continue;
    live_bytes_ -= entries_.find(slot.key)->second.bytes;
    EvictLocked(slot.key, evicted);
    --live_;
  }
  // Slots of retired and forgotten entries: dropped before they outnumber
  // the live ones.
  if (order_.size() > 2 * live_ + 64) {
    std::deque<Slot> kept;
    for (const Slot& slot : order_) {
      if (Holds(slot, /*retired=*/false)) kept.push_back(slot);
    }
    order_.swap(kept);
  }
}

}  // namespace draplane::apiserver::internal

// Server-side apply with field managers over arbitrary configurations.
// The input: a byte choosing the kind, a byte of flags, then up to three
// documents separated by NUL bytes (YAML or JSON, as an apply body):
//   1. manager "a" applies the first to a missing object (creation);
//   2. manager "b" applies the second (force when flag bit 0), or, with
//      flag bit 1, updates with it as a merge patch (operation "Update");
//   3. manager "a" applies the third (the first when absent; force with
//      flag bit 2) to the result.
// Every step that is refused leaves the object as it was.
//
// Checked: nothing throws or crashes; every result is an object whose
// metadata.managedFields entries each name a manager and hold a fieldsV1
// object; and an applier's configuration applied again at once changes
// nothing (applying is idempotent for the manager who just applied).
// Objects are compared as stored: the API server decodes every result into
// its kind, where a null member is no value, so null members are left out
// of the comparison.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "apiserver/internal/patching.h"
#include "apiserver/internal/resources.h"
#include "apiserver/internal/server_side_apply.h"

namespace {

using draplane::api::Json;
using draplane::apiserver::internal::ApplyPatch;
using draplane::apiserver::internal::ApplyRequest;
using draplane::apiserver::internal::FindResourceByKind;
using draplane::apiserver::internal::PatchType;
using draplane::apiserver::internal::RecordUpdateManager;
using draplane::apiserver::internal::ResourceInfo;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "server_side_apply_fuzzer: %s\n", what.c_str());
  std::abort();
}

struct Kind {
  const char* group;
  const char* kind;
  const char* api_version;
};
constexpr Kind kKinds[] = {
    {"resource.k8s.io", "ResourceClaim", "resource.k8s.io/v1"},
    {"resource.k8s.io", "DeviceClass", "resource.k8s.io/v1"},
    {"resource.k8s.io", "ResourceSlice", "resource.k8s.io/v1beta1"},
    {"", "Pod", "v1"},
    {"", "Node", "v1"},
    {"", "ResourceQuota", "v1"},
};
constexpr size_t kKindCount = sizeof(kKinds) / sizeof(kKinds[0]);

void CheckManagedFields(const Json& object) {
  if (!object.is_object()) Fail("an apply result that is not an object");
  const auto metadata = object.find("metadata");
  if (metadata == object.end() || !metadata->is_object()) {
    Fail("an apply result without metadata");
  }
  const auto managed = metadata->find("managedFields");
  if (managed == metadata->end() || !managed->is_array()) {
    Fail("an apply result without managedFields");
  }
  for (const Json& entry : *managed) {
    if (!entry.is_object()) Fail("a managedFields entry is not an object");
    const auto manager = entry.find("manager");
    const auto fields = entry.find("fieldsV1");
    if (manager == entry.end() || !manager->is_string() ||
        fields == entry.end() || !fields->is_object()) {
      Fail("a managedFields entry without manager or fieldsV1: " +
           entry.dump());
    }
  }
}

// `value` without null object members, at any depth.
Json WithoutNulls(const Json& value) {
  if (value.is_object()) {
    Json out = Json::object();
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (!it.value().is_null()) out[it.key()] = WithoutNulls(it.value());
    }
    return out;
  }
  if (value.is_array()) {
    Json out = Json::array();
    for (const Json& element : value) out.push_back(WithoutNulls(element));
    return out;
  }
  return value;
}

ApplyRequest Request(const Kind& kind, std::string manager, bool force) {
  ApplyRequest request;
  request.manager = std::move(manager);
  request.force = force;
  request.api_version = kind.api_version;
  request.now = absl::FromUnixSeconds(1700000000);
  return request;
}

// Applies `body` as `request.manager`; on success checks the result and
// that applying it again changes nothing. Returns the new object, or
// `current` when the apply was refused.
Json ApplyStep(const ResourceInfo& r, const Json& current,
               const std::string& body, const ApplyRequest& request) {
  absl::StatusOr<Json> next =
      ApplyPatch(PatchType::kApply, r, current, body, request);
  if (!next.ok()) return current;
  CheckManagedFields(*next);
  ApplyRequest again = request;
  again.force = false;
  absl::StatusOr<Json> repeated =
      ApplyPatch(PatchType::kApply, r, *next, body, again);
  if (!repeated.ok()) {
    Fail("applying the same configuration again was refused: " +
         std::string(repeated.status().message()) +
         "\nobject: " + next->dump());
  }
  if (WithoutNulls(*repeated) != WithoutNulls(*next)) {
    Fail("applying the same configuration again changed the object:\n" +
         next->dump() + "\n" + repeated->dump());
  }
  return *std::move(next);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const Kind& kind = kKinds[data[0] % kKindCount];
  const uint8_t flags = data[1];
  const ResourceInfo* r = FindResourceByKind(kind.group, kind.kind);
  if (r == nullptr) Fail(std::string("no resource for ") + kind.kind);
  std::vector<std::string> docs;
  std::string_view rest(reinterpret_cast<const char*>(data + 2), size - 2);
  while (docs.size() < 2) {
    const size_t nul = rest.find('\0');
    if (nul == std::string_view::npos) break;
    docs.emplace_back(rest.substr(0, nul));
    rest.remove_prefix(nul + 1);
  }
  docs.emplace_back(rest);

  Json object = ApplyStep(*r, Json(), docs[0], Request(kind, "a", false));
  if (object.is_null() || docs.size() < 2) return 0;
  if ((flags & 2) == 0) {
    object =
        ApplyStep(*r, object, docs[1], Request(kind, "b", (flags & 1) != 0));
  } else {
    absl::StatusOr<Json> updated = ApplyPatch(
        PatchType::kMerge, *r, object, docs[1], Request(kind, "b", false));
    if (updated.ok() && updated->is_object() && updated->contains("metadata") &&
        (*updated)["metadata"].is_object()) {
      RecordUpdateManager(*r, object, *updated, "b", kind.api_version, "",
                          absl::FromUnixSeconds(1700000001));
      CheckManagedFields(*updated);
      object = *std::move(updated);
    }
  }
  ApplyStep(*r, object, docs.size() > 2 ? docs[2] : docs[0],
            Request(kind, "a", (flags & 4) != 0));
  return 0;
}

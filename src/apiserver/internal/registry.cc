#include "apiserver/internal/registry.h"

#include <random>
#include <utility>

#include "absl/strings/escaping.h"
#include "api/object_codec.h"
#include "api/validation/validation.h"
#include "apiserver/internal/admin_access.h"
#include "apiserver/internal/api_errors.h"
#include "apiserver/internal/server_side_apply.h"
#include "cel/cel.h"
#include "common/rfc3339.h"
#include "common/str_cat.h"
#include "common/uuid.h"

namespace draplane::apiserver::internal {
namespace {

using api::Json;

constexpr int kMaxConflictRetries = 16;
constexpr int kMaxGenerateNameRetries = 8;

std::string RandomString(std::string_view alphabet, int n) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1);
  std::string out;
  for (int i = 0; i < n; ++i) out.push_back(alphabet[pick(rng)]);
  return out;
}

// Upstream's names.SimpleNameGenerator: the prefix cut to 58 characters
// and 5 random characters from an alphabet without vowels.
std::string GenerateName(const std::string& prefix) {
  return prefix.substr(0, 58) + RandomString("bcdfghjklmnpqrstvwxz2456789", 5);
}

std::string MetaString(const Json& object, const char* field) {
  auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return "";
  auto f = m->find(field);
  return f != m->end() && f->is_string() ? f->get<std::string>() : "";
}

// `object` with metadata.resourceVersion set to `revision`, shared.
std::shared_ptr<const Json> Versioned(Json object, int64_t revision) {
  SetResourceVersion(object, std::to_string(revision));
  return std::make_shared<const Json>(std::move(object));
}

// a == b, not looking at metadata.resourceVersion.
bool EqualButResourceVersion(const Json& a, const Json& b) {
  if (!a.is_object() || !b.is_object() || a.size() != b.size()) return a == b;
  for (auto it = a.begin(); it != a.end(); ++it) {
    auto other = b.find(it.key());
    if (other == b.end()) return false;
    if (it.key() != "metadata" || !it->is_object() || !other->is_object()) {
      if (*it != *other) return false;
      continue;
    }
    size_t seen = 0;
    for (auto m = it->begin(); m != it->end(); ++m) {
      if (m.key() == "resourceVersion") continue;
      ++seen;
      auto o = other->find(m.key());
      if (o == other->end() || *m != *o) return false;
    }
    const size_t other_size =
        other->size() - (other->contains("resourceVersion") ? 1 : 0);
    if (seen != other_size) return false;
  }
  return true;
}

std::string Key(const ResourceInfo& r, std::string_view ns,
                std::string_view name) {
  return StrCat(Registry::Prefix(r, ns), name);
}

bool HasStatusSubresource(const ResourceInfo& r) {
  return r.HasSubresource("status");
}

// Pod QoS class (upstream qos.GetPodQOS, for cpu and memory).
std::string PodQosClass(const Json& pod) {
  bool any = false, guaranteed = true;
  auto visit = [&](const Json& containers) {
    if (!containers.is_array()) return;
    for (const Json& c : containers) {
      const Json res = c.value("resources", Json::object());
      const Json req = res.value("requests", Json::object());
      const Json lim = res.value("limits", Json::object());
      for (const char* name : {"cpu", "memory"}) {
        const bool has_req = req.contains(name), has_lim = lim.contains(name);
        any = any || has_req || has_lim;
        if (!has_lim || (has_req && req[name] != lim[name])) guaranteed = false;
      }
    }
  };
  const Json spec = pod.value("spec", Json::object());
  visit(spec.value("containers", Json::array()));
  visit(spec.value("initContainers", Json::array()));
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

api::ValidationOptions Validation() {
  api::ValidationOptions options;
  options.compile_cel = [](std::string_view expression) {
    return cel::Compiler::Default()
        .CompileSelector(expression, /*for_validation=*/true)
        .status();
  };
  return options;
}

// What built-in admission made of a candidate.
struct Admitted {
  Json json;           // the storage JSON
  api::Object object;  // the same, typed (json = EncodeObject(object))
};

// Defaulting and validation, the admin-access gate first as upstream's
// strategies run it. `old` is the stored object for an update (its
// managedFields may be left out: update validation does not read them),
// null for a create.
absl::StatusOr<Admitted> Admit(const ResourceInfo& r, const Json& candidate,
                               const api::Object* old,
                               std::string_view subresource,
                               const AdminNamespaceLookup& admin_namespace) {
  auto decoded = api::DecodeObject(candidate);
  if (!decoded.ok()) {
    return BadRequest(std::string(decoded.status().message()));
  }
  api::Object object = std::move(decoded->object);
  api::SetDefaults(object);
  FieldErrorList errors =
      AdminAccessErrors(object, old, subresource, admin_namespace);
  FieldErrorList validation;
  if (old == nullptr) {
    validation = api::ValidateObject(object, Validation());
  } else {
    validation =
        subresource == "status"
            ? api::ValidateObjectStatusUpdate(object, *old, Validation())
            : api::ValidateObjectUpdate(object, *old, Validation());
  }
  errors.insert(errors.end(), validation.begin(), validation.end());
  if (!errors.empty()) return Invalid(r, NameOf(candidate), errors);
  auto encoded = api::EncodeObject(object, r.ApiVersion(r.StorageVersion()));
  if (!encoded.ok()) {
    return InternalServerError(std::string(encoded.status().message()));
  }
  return Admitted{*std::move(encoded), std::move(object)};
}

// What DecodedValues::Typed would decode from `stored`, the JSON about to
// be written: `admitted` (its typed form before the registry's last
// edits) with those edits (generation, managedFields) applied; the
// resourceVersion is set when the write is applied. Nothing when
// admission plugins may have changed `stored` after built-in admission,
// or for an unstructured kind (whose JSON would have to be edited alike).
std::optional<api::Object> PublishedTyped(Admitted& admitted,
                                          bool plugins_may_have_changed) {
  api::ObjectMeta* meta = admitted.object.mutable_metadata();
  if (plugins_may_have_changed || meta == nullptr) return std::nullopt;
  const Json& generation = api::MemberOrNull(
      api::MemberOrNull(admitted.json, "metadata"), "generation");
  meta->generation =
      generation.is_number_integer() ? generation.get<int64_t>() : 0;
  meta->managed_fields.clear();
  return std::move(admitted.object);
}

// What the store holds of `object`: its JSON without resourceVersion.
std::string StoredForm(Json& object) {
  MutableMetadata(object).erase("resourceVersion");
  return api::DumpJson(object);
}

// StoredForm(object), leaving metadata.resourceVersion in Go's place with
// an empty value, for Registry::Published to fill in.
std::string StoredFormToPublish(Json& object) {
  std::string stored = StoredForm(object);
  SetResourceVersion(object, "");
  return stored;
}

struct ContinueToken {
  int64_t revision = 0;
  std::string start;  // the last key returned, relative to the prefix
};

std::string EncodeContinue(const ContinueToken& token) {
  Json j = Json::object();
  j["v"] = "meta.k8s.io/v1";
  j["rv"] = token.revision;
  j["start"] = token.start + std::string(1, '\0');
  std::string out;
  absl::WebSafeBase64Escape(api::DumpJson(j), &out);
  return out;
}

absl::StatusOr<ContinueToken> DecodeContinue(const std::string& text) {
  std::string raw;
  if (!absl::WebSafeBase64Unescape(text, &raw) &&
      !absl::Base64Unescape(text, &raw)) {
    return BadRequest(
        "continue key is not valid: illegal base64 data at input byte 0");
  }
  Json j = Json::parse(raw, nullptr, false);
  if (j.is_discarded() || !j.is_object() ||
      j.value("v", "") != "meta.k8s.io/v1" || !j.contains("rv") ||
      !j["rv"].is_number_integer() || !j.contains("start") ||
      !j["start"].is_string()) {
    return BadRequest(
        "continue key is not valid: incorrect encoded start "
        "resourceVersion (version meta.k8s.io/v1)");
  }
  ContinueToken t;
  t.revision = j["rv"].get<int64_t>();
  t.start = j["start"].get<std::string>();
  if (!t.start.empty() && t.start.back() == '\0') t.start.pop_back();
  // Upstream: path.Clean("/" + start) must not change it (no "..", ".",
  // empty segments or trailing slash that could range outside the prefix);
  // "namespace/name" keys of all-namespace lists are fine.
  bool clean = true;
  {
    std::string key =
        t.start.empty() || t.start[0] != '/' ? "/" + t.start : t.start;
    size_t pos = 1;
    while (clean && pos <= key.size()) {
      size_t next = key.find('/', pos);
      if (next == std::string::npos) next = key.size();
      std::string segment = key.substr(pos, next - pos);
      if (key.size() > 1 &&
          (segment.empty() || segment == "." || segment == "..")) {
        clean = false;
      }
      pos = next + 1;
    }
  }
  if (t.revision <= 0 || !clean) {
    return BadRequest("continue key is not valid: invalid start key");
  }
  return t;
}

absl::StatusOr<int64_t> ParseResourceVersion(const std::string& text) {
  int64_t v = 0;
  if (text.empty()) return 0;
  for (char c : text) {
    if (c < '0' || c > '9' || v > (INT64_MAX - 9) / 10) {
      return ApiError(400, "BadRequest",
                      StrCat("invalid resource version: ", text));
    }
    v = v * 10 + (c - '0');
  }
  return v;
}

}  // namespace

std::string NameOf(const Json& object) { return MetaString(object, "name"); }

Json& MutableMetadata(Json& object) {
  if (!object.contains("metadata") || !object["metadata"].is_object()) {
    object["metadata"] = Json::object();
  }
  return object["metadata"];
}
std::string NamespaceOf(const Json& object) {
  return MetaString(object, "namespace");
}

std::string Timestamp(absl::Time t) { return Rfc3339(t); }

Registry::Registry(store::Store* store,
                   std::vector<std::shared_ptr<AdmissionPlugin>> admission,
                   Clock* clock)
    : store_(store),
      admission_(std::move(admission)),
      clock_(clock != nullptr ? *clock : RealClock()),
      allocation_guard_(AllocationGuard::ForStore(store)) {}

absl::Status Registry::RunAdmission(AdmissionRequest::Operation operation,
                                    const ResourceInfo& r, std::string_view ns,
                                    std::string_view name,
                                    const std::string& subresource,
                                    bool dry_run, const auth::UserInfo& user,
                                    const Json* old, Json& object,
                                    bool* may_have_changed) const {
  if (may_have_changed != nullptr) *may_have_changed = false;
  if (admission_.empty()) return absl::OkStatus();
  AdmissionRequest request;
  request.operation = operation;
  request.group = std::string(r.group());
  request.kind = std::string(r.kind->kind);
  request.resource = std::string(r.resource());
  request.subresource = subresource;
  request.namespace_ = std::string(ns);
  request.name = std::string(name);
  request.dry_run = dry_run;
  request.user = user;
  request.old_object = old;
  for (const auto& plugin : admission_) {
    if (may_have_changed != nullptr && plugin->MayMutate(request)) {
      *may_have_changed = true;
    }
    if (auto s = plugin->Admit(request, object); !s.ok()) return s;
  }
  return absl::OkStatus();
}

std::string Registry::Prefix(const ResourceInfo& r, std::string_view ns) {
  std::string p = StrCat("/registry/", r.group().empty() ? "core" : r.group(),
                         "/", r.resource(), "/");
  if (r.namespaced() && !ns.empty()) StrAppend(&p, ns, "/");
  return p;
}

absl::StatusOr<Json> Registry::Get(const ResourceInfo& r, std::string_view ns,
                                   std::string_view name) const {
  auto rec = store_->Get(Key(r, ns, name));
  if (absl::IsNotFound(rec.status())) return NotFound(r, name);
  if (!rec.ok()) return rec.status();
  return Json(*Read(rec->value, rec->mod_revision));
}

absl::StatusOr<ListResult> Registry::List(const ResourceInfo& r,
                                          const ListQuery& query) const {
  const std::string prefix = Prefix(r, query.namespace_);
  store::ListOptions options;
  options.prefix = prefix;
  int64_t at = 0;
  if (!query.continue_token.empty()) {
    auto token = DecodeContinue(query.continue_token);
    if (!token.ok()) return token.status();
    at = token->revision;
    options.start_after = prefix + token->start;
    if (at < store_->CompactRevision()) {
      return Gone(
          "The provided continue parameter is too old to display a "
          "consistent list result. You can start a new list without the "
          "continue parameter, or use the continue token in this response "
          "to retrieve the remainder of the results. Continuing with the "
          "provided token results in an inconsistent list - objects that "
          "were created, modified, or deleted between the time the first "
          "chunk was returned and now may show up in the list.");
    }
  } else if (!query.resource_version.empty() && query.resource_version != "0") {
    auto rv = ParseResourceVersion(query.resource_version);
    if (!rv.ok()) return rv.status();
    const int64_t current = store_->Revision();
    if (query.resource_version_match == "Exact") {
      at = *rv;
    } else if (*rv > current) {
      return Timeout(
          StrCat("Too large resource version: ", *rv, ", current: ", current),
          1);
    }
  }
  ListResult result;
  const int64_t chunk =
      query.limit > 0 ? std::max<int64_t>(query.limit, 64) : 0;
  options.limit = chunk;
  options.revision = at;
  while (true) {
    auto page = store_->List(options);
    if (!page.ok()) {
      if (store::IsCompacted(page.status())) {
        return Gone(StrCat("too old resource version: ", at, " (",
                           store_->CompactRevision(), ")"));
      }
      if (store::IsFutureRevision(page.status())) {
        return Timeout(StrCat("Too large resource version: ", at,
                              ", current: ", store_->Revision()),
                       1);
      }
      return page.status();
    }
    result.revision = page->revision;
    options.revision = page->revision;
    size_t i = 0;
    for (; i < page->records.size(); ++i) {
      const store::Record& rec = page->records[i];
      std::shared_ptr<const Json> object = Read(rec.value, rec.mod_revision);
      if (query.filter && !query.filter(*object)) continue;
      result.items.push_back(*object);
      if (query.limit > 0 &&
          static_cast<int64_t>(result.items.size()) >= query.limit) {
        ++i;
        break;
      }
    }
    const bool more_in_page = i < page->records.size();
    if (query.limit > 0 &&
        static_cast<int64_t>(result.items.size()) >= query.limit) {
      if (more_in_page || page->remaining > 0) {
        const std::string& last = page->records[i - 1].key;
        result.continue_token =
            EncodeContinue({page->revision, last.substr(prefix.size())});
        if (!query.filter) {
          result.remaining =
              static_cast<int64_t>(page->records.size() - i) + page->remaining;
        }
      }
      break;
    }
    if (page->remaining == 0 || page->records.empty()) break;
    options.start_after = page->records.back().key;
  }
  return result;
}

AdminNamespaceLookup Registry::AdminNamespace() const {
  return [this](const std::string& ns) -> absl::StatusOr<bool> {
    const ResourceInfo* namespaces = FindResource("", "namespaces");
    auto rec = store_->Get(Key(*namespaces, "", ns));
    if (!rec.ok()) return rec.status();
    const Json& labels = api::MemberOrNull(
        api::MemberOrNull(*Read(rec->value, rec->mod_revision), "metadata"),
        "labels");
    const Json& value = api::MemberOrNull(labels, api::kLabelAdminAccess);
    return value.is_string() && value.get<std::string>() == "true";
  };
}

absl::Status Registry::CheckNamespace(const ResourceInfo& r,
                                      std::string_view ns,
                                      std::string_view name) const {
  if (!r.namespaced()) return absl::OkStatus();
  const ResourceInfo* namespaces = FindResource("", "namespaces");
  auto rec = store_->Get(Key(*namespaces, "", ns));
  if (absl::IsNotFound(rec.status())) return NotFound(*namespaces, ns);
  if (!rec.ok()) return rec.status();
  if (!MetaString(*Read(rec->value, rec->mod_revision), "deletionTimestamp")
           .empty()) {
    return Forbidden(r, name,
                     StrCat("unable to create new content in namespace ", ns,
                            " because it is being terminated"));
  }
  return absl::OkStatus();
}

absl::StatusOr<WriteResult> Registry::Create(const ResourceInfo& r,
                                             std::string_view ns, Json object,
                                             const WriteOptions& options) {
  if (!object.is_object()) return BadRequest("the body must be an object");
  Json& meta = MutableMetadata(object);
  const std::string body_ns = MetaString(object, "namespace");
  if (r.namespaced()) {
    if (!body_ns.empty() && body_ns != ns) {
      return BadRequest(
          "the namespace of the provided object does not match the "
          "namespace sent on the request");
    }
    meta["namespace"] = std::string(ns);
  } else {
    meta.erase("namespace");
  }
  if (!MetaString(object, "resourceVersion").empty()) {
    return BadRequest(
        "resourceVersion should not be set on objects to be created");
  }
  for (const char* field : {"uid", "creationTimestamp", "deletionTimestamp",
                            "deletionGracePeriodSeconds", "selfLink"}) {
    meta.erase(field);
  }
  const std::string generate = MetaString(object, "generateName");
  const bool generated =
      MetaString(object, "name").empty() && !generate.empty();
  meta["uid"] = NewRandomUuid();
  meta["creationTimestamp"] = Timestamp(clock_.Now());
  if (r.tracks_generation) meta["generation"] = 1;
  switch (r.status_on_create) {
    case StatusOnCreate::kNone:
    case StatusOnCreate::kKeep:
      break;
    case StatusOnCreate::kClear:
      object.erase("status");
      break;
    case StatusOnCreate::kPod:
      object["status"] =
          Json{{"phase", "Pending"}, {"qosClass", PodQosClass(object)}};
      break;
    case StatusOnCreate::kNamespace: {
      object["status"] = Json{{"phase", "Active"}};
      Json& spec = object["spec"];
      if (!spec.is_object()) spec = Json::object();
      if (!spec.contains("finalizers")) {
        spec["finalizers"] = Json::array({"kubernetes"});
      }
      break;
    }
  }
  for (int attempt = 0;; ++attempt) {
    if (generated) MutableMetadata(object)["name"] = GenerateName(generate);
    const std::string name = NameOf(object);
    auto admitted = Admit(r, object, nullptr, "", AdminNamespace());
    if (!admitted.ok()) return admitted.status();
    if (auto s = CheckNamespace(r, ns, name); !s.ok()) return s;
    RecordUpdateManager(r, Json(), admitted->json, options.manager,
                        options.manager_api_version, options.subresource,
                        clock_.Now());
    bool plugins_may_have_changed = false;
    if (auto s = RunAdmission(AdmissionRequest::Operation::kCreate, r, ns, name,
                              "", options.dry_run, options.user, nullptr,
                              admitted->json, &plugins_may_have_changed);
        !s.ok()) {
      return s;
    }
    WriteResult result;
    result.created = true;
    if (options.dry_run) {
      result.object = std::make_shared<const Json>(std::move(admitted->json));
      return result;
    }
    std::optional<api::Object> typed =
        PublishedTyped(*admitted, plugins_may_have_changed);
    std::vector<DecodedValues::Entry> evicted;
    auto rec =
        store_->Create(Key(r, ns, name), StoredFormToPublish(admitted->json),
                       [&](const store::Record& applied) {
                         Publish(r, std::move(admitted->json), std::move(typed),
                                 applied, nullptr, result, evicted);
                       });
    if (absl::IsAlreadyExists(rec.status())) {
      if (generated && attempt + 1 < kMaxGenerateNameRetries) continue;
      return AlreadyExists(r, name);
    }
    if (!rec.ok()) return rec.status();
    return result;
  }
}

absl::StatusOr<WriteResult> Registry::Update(const ResourceInfo& r,
                                             std::string_view ns,
                                             std::string_view name, Json object,
                                             const WriteOptions& options) {
  if (!object.is_object()) return BadRequest("the body must be an object");
  return Modify(
      r, ns, name, [&](const Json&) -> absl::StatusOr<Json> { return object; },
      options, r.allow_create_on_update&& options.subresource.empty());
}

absl::StatusOr<WriteResult> Registry::Modify(
    const ResourceInfo& r, std::string_view ns, std::string_view name,
    const Mutation& mutate, const WriteOptions& options, bool create) {
  for (int attempt = 0; attempt < kMaxConflictRetries; ++attempt) {
    auto rec = store_->Get(Key(r, ns, name));
    if (absl::IsNotFound(rec.status())) {
      if (!create) return NotFound(r, name);
      auto desired = mutate(Json());
      if (!desired.ok()) return desired.status();
      if (NameOf(*desired) != name) {
        return BadRequest(StrCat("the name of the object (", NameOf(*desired),
                                 ") does not match the name on the URL (", name,
                                 ")"));
      }
      MutableMetadata(*desired).erase("resourceVersion");
      auto created = Create(r, ns, *std::move(desired), options);
      if (absl::IsAlreadyExists(created.status())) {
        continue;  // raced with another create: modify it instead
      }
      return created;
    }
    if (!rec.ok()) return rec.status();
    const std::shared_ptr<const Json> current =
        Read(rec->value, rec->mod_revision);
    auto desired = mutate(*current);
    if (!desired.ok()) return desired.status();
    auto result = WriteUpdate(r, ns, name, rec->value, current,
                              rec->mod_revision, *std::move(desired), options);
    if (store::IsConflict(result.status())) continue;
    return result;
  }
  return Conflict(r, name, "too many concurrent changes; try again");
}

namespace {

// An update's preconditions: a JSON object whose resourceVersion (when
// given) is the current one, whose name and namespace match the URL.
absl::Status CheckUpdateTarget(const ResourceInfo& r, std::string_view ns,
                               std::string_view name, const Json& desired,
                               int64_t current_revision,
                               const WriteOptions& options) {
  if (!desired.is_object()) return BadRequest("the body must be an object");
  const std::string rv = MetaString(desired, "resourceVersion");
  if (!rv.empty() && rv != std::to_string(current_revision)) {
    return ObjectModified(r, name);
  }
  if (rv.empty() && !r.allow_unconditional_update &&
      options.subresource.empty()) {
    return Invalid(r, name,
                   {draplane::Invalid(FieldPath("metadata.resourceVersion"),
                                      BadValue::Json("0x0"),
                                      "must be specified for an update")});
  }
  const std::string body_name = NameOf(desired);
  if (!body_name.empty() && body_name != name) {
    return BadRequest(StrCat("the name of the object (", body_name,
                             ") does not match the name on the URL (", name,
                             ")"));
  }
  const std::string body_ns = NamespaceOf(desired);
  if (r.namespaced() && !body_ns.empty() && body_ns != ns) {
    return BadRequest(
        "the namespace of the provided object does not match the namespace "
        "sent on the request");
  }

  return absl::OkStatus();
}

// What an update would store before admission: for /status the current
// object with the new status (and managedFields); otherwise the new object
// with the fields a client cannot change kept from the current one.
absl::StatusOr<Json> UpdateCandidate(const ResourceInfo& r, std::string_view ns,
                                     std::string_view name, const Json& current,
                                     Json desired,
                                     const WriteOptions& options) {
  Json candidate;
  const Json& old_meta = current.at("metadata");
  if (options.subresource == "status") {
    candidate = current;
    if (auto status = desired.find("status"); status != desired.end()) {
      candidate["status"] = std::move(*status);
    } else {
      candidate.erase("status");
    }
    // managedFields are the one metadata field a status write changes
    // (server-side apply to /status records its manager there).
    if (auto meta = desired.find("metadata");
        meta != desired.end() && meta->is_object()) {
      if (auto mf = meta->find("managedFields"); mf != meta->end()) {
        MutableMetadata(candidate)["managedFields"] = std::move(*mf);
      }
      // Upstream's pod status strategy keeps the request's metadata but
      // ownerReferences and deletionTimestamp: the kubelet writes labels
      // and annotations with the status (NodeRestriction refuses a node's
      // label changes).
      if (r.kind->kind == "Pod") {
        for (const char* field : {"labels", "annotations"}) {
          if (auto v = meta->find(field); v != meta->end() && !v->is_null()) {
            MutableMetadata(candidate)[field] = std::move(*v);
          } else {
            MutableMetadata(candidate).erase(field);
          }
        }
      }
    }
  } else {
    candidate = std::move(desired);
    Json& meta = MutableMetadata(candidate);
    // Upstream's field manager keeps the live managedFields when an update
    // carries none (clients that trim them, like kube-scheduler's informers,
    // must not erase them); an explicit empty list resets them.
    if (auto mf = meta.find("managedFields");
        (mf == meta.end() || mf->is_null()) &&
        old_meta.contains("managedFields")) {
      meta["managedFields"] = old_meta["managedFields"];
    }
    meta["name"] = std::string(name);
    if (r.namespaced()) meta["namespace"] = std::string(ns);
    for (const char* field : {"uid", "creationTimestamp", "deletionTimestamp",
                              "deletionGracePeriodSeconds", "generation"}) {
      if (old_meta.contains(field)) {
        meta[field] = old_meta[field];
      } else {
        meta.erase(field);
      }
    }
    if (HasStatusSubresource(r)) {
      if (current.contains("status")) {
        candidate["status"] = current["status"];
      } else {
        candidate.erase("status");
      }
    }
    if (old_meta.contains("deletionTimestamp")) {
      const Json old_f = old_meta.value("finalizers", Json::array());
      const Json new_f = meta.value("finalizers", Json::array());
      for (const Json& f : new_f) {
        if (std::find(old_f.begin(), old_f.end(), f) == old_f.end()) {
          return Invalid(r, name,
                         {draplane::Forbidden(
                             FieldPath("metadata.finalizers"),
                             "no new finalizers can be added if the object is "
                             "being deleted")});
        }
      }
    }
  }
  return candidate;
}

}  // namespace

absl::StatusOr<WriteResult> Registry::WriteUpdate(
    const ResourceInfo& r, std::string_view ns, std::string_view name,
    const store::Value& current_value,
    const std::shared_ptr<const Json>& current_ptr, int64_t current_revision,
    Json desired, const WriteOptions& options) {
  const Json& current = *current_ptr;
  if (absl::Status s =
          CheckUpdateTarget(r, ns, name, desired, current_revision, options);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<Json> built =
      UpdateCandidate(r, ns, name, current, std::move(desired), options);
  if (!built.ok()) return built.status();
  Json& candidate = *built;
  const Json& old_meta = current.at("metadata");
  // Validation sees the stored resourceVersion (an unconditional update
  // takes the latest one, as upstream's registry does).
  SetResourceVersion(candidate, std::to_string(current_revision));
  // The old object typed, shared with watchers (decoded once per version).
  const std::shared_ptr<const api::Object> old_typed =
      decoded_.Typed(current_value, current_revision);
  if (old_typed == nullptr) {
    auto old_decoded = api::DecodeObject(current);
    return InternalServerError(
        StrCat("stored object cannot be decoded: ",
               old_decoded.ok() ? "" : old_decoded.status().message()));
  }
  auto admitted = Admit(r, candidate, old_typed.get(), options.subresource,
                        AdminNamespace());
  if (!admitted.ok()) return admitted.status();
  Json& next = admitted->json;
  MutableMetadata(next).erase("resourceVersion");
  if (r.tracks_generation) {
    const int64_t gen = old_meta.value("generation", int64_t{0});
    const bool spec_changed =
        api::MemberOrNull(next, "spec") != api::MemberOrNull(current, "spec");
    MutableMetadata(next)["generation"] = spec_changed ? gen + 1 : gen;
  }
  // As upstream's field manager (skipNonAppliedManager): an update whose
  // object has no managedFields (the request reset them with [], which
  // Admit's encoding drops, or they were never tracked) is not tracked.
  if (next["metadata"].contains("managedFields")) {
    RecordUpdateManager(r, current, next, options.manager,
                        options.manager_api_version, options.subresource,
                        clock_.Now());
  }
  bool plugins_may_have_changed = false;
  if (auto s = RunAdmission(AdmissionRequest::Operation::kUpdate, r, ns, name,
                            options.subresource, options.dry_run, options.user,
                            &current, next, &plugins_may_have_changed);
      !s.ok()) {
    return s;
  }
  WriteResult result;
  if (EqualButResourceVersion(next, current)) {  // no-op: nothing written
    result.object = current_ptr;
    result.value = current_value;
    result.revision = current_revision;
    return result;
  }
  const Json& next_meta = next.at("metadata");
  const bool finalized = next_meta.contains("deletionTimestamp") &&
                         next_meta.value("finalizers", Json::array()).empty() &&
                         next.value("spec", Json::object())
                             .value("finalizers", Json::array())
                             .empty();
  if (options.dry_run) {
    result.object = Versioned(std::move(next), current_revision);
    return result;
  }
  // A claim write holds its devices from the allocation check until the
  // store write ends (the reservation's destructor when it fails).
  const bool claim = r.kind->kind == "ResourceClaim";
  AllocationGuard::Reservation reservation;
  const std::string key = Key(r, ns, name);
  if (claim) {
    auto reserved =
        allocation_guard_->Reserve(key, finalized ? nullptr : &next);
    if (!reserved.ok()) {
      return Conflict(r, name, std::string(reserved.status().message()));
    }
    reservation = *std::move(reserved);
  }
  if (finalized) {
    auto del = store_->Delete(key, current_revision);
    if (!del.ok()) return del.status();
    if (claim) reservation.Committed(del->mod_revision, nullptr);
    result.object = Versioned(std::move(next), del->mod_revision);
    return result;
  }
  std::optional<api::Object> typed =
      PublishedTyped(*admitted, plugins_may_have_changed);
  std::vector<DecodedValues::Entry> evicted;
  auto rec = store_->Update(key, StoredFormToPublish(next), current_revision,
                            [&](const store::Record& applied) {
                              Publish(r, std::move(next), std::move(typed),
                                      applied, current_value, result, evicted);
                            });
  if (!rec.ok()) return rec.status();
  if (claim) reservation.Committed(rec->mod_revision, result.object.get());
  return result;
}

absl::StatusOr<WriteResult> Registry::GuaranteedUpdate(
    const ResourceInfo& r, std::string_view ns, std::string_view name,
    const TypedMutation& mutate, bool dry_run) {
  if (r.kind->kind == "ResourceClaim") {
    // Claim writes go through the allocation guard (WriteUpdate).
    return InternalServerError(
        "GuaranteedUpdate does not write ResourceClaims");
  }
  const std::string key = Key(r, ns, name);
  for (int attempt = 0; attempt < kMaxConflictRetries; ++attempt) {
    auto rec = store_->Get(key);
    if (absl::IsNotFound(rec.status())) return NotFound(r, name);
    if (!rec.ok()) return rec.status();
    const std::shared_ptr<const api::Object> current =
        decoded_.Typed(rec->value, rec->mod_revision);
    if (current == nullptr) {
      return InternalServerError(
          StrCat("stored object ", key, " cannot be decoded"));
    }
    api::Object next = *current;
    if (auto s = mutate(next); !s.ok()) return s;
    auto encoded = api::EncodeObject(next, r.ApiVersion(r.StorageVersion()));
    if (!encoded.ok()) {
      return InternalServerError(std::string(encoded.status().message()));
    }
    Json& json = *encoded;
    // The typed form leaves managedFields out; they are metadata's last
    // member in Go's order, so appending them keeps the stored order.
    const std::shared_ptr<const Json> stored =
        Read(rec->value, rec->mod_revision);
    const Json& stored_meta = api::MemberOrNull(*stored, "metadata");
    if (const Json& mf = api::MemberOrNull(stored_meta, "managedFields");
        !mf.is_null()) {
      MutableMetadata(json)["managedFields"] = mf;
    }
    WriteResult result;
    if (dry_run) {
      result.object = Versioned(std::move(json), rec->mod_revision);
      return result;
    }
    std::vector<DecodedValues::Entry> evicted;
    auto written =
        store_->Update(key, StoredFormToPublish(json), rec->mod_revision,
                       [&](const store::Record& applied) {
                         Publish(r, std::move(json), std::move(next), applied,
                                 rec->value, result, evicted);
                       });
    if (store::IsConflict(written.status())) continue;
    if (!written.ok()) return written.status();
    return result;
  }
  return Conflict(r, name, "too many concurrent changes; try again");
}

absl::StatusOr<Json> Registry::Delete(const ResourceInfo& r,
                                      std::string_view ns,
                                      std::string_view name,
                                      const DeleteOptions& options) {
  for (int attempt = 0; attempt < kMaxConflictRetries; ++attempt) {
    auto rec = store_->Get(Key(r, ns, name));
    if (absl::IsNotFound(rec.status())) return NotFound(r, name);
    if (!rec.ok()) return rec.status();
    Json current = *Read(rec->value, rec->mod_revision);
    const std::string uid = MetaString(current, "uid");
    if (options.precondition_uid && *options.precondition_uid != uid) {
      return PreconditionFailed(r, name, "UID", *options.precondition_uid, uid);
    }
    if (const std::string rv = std::to_string(rec->mod_revision);
        options.precondition_resource_version &&
        *options.precondition_resource_version != rv) {
      return PreconditionFailed(r, name, "ResourceVersion",
                                *options.precondition_resource_version, rv);
    }
    {
      Json deleting = current;
      if (auto s = RunAdmission(AdmissionRequest::Operation::kDelete, r, ns,
                                name, "", options.dry_run, options.user,
                                &current, deleting);
          !s.ok()) {
        return s;
      }
    }
    Json& meta = MutableMetadata(current);
    const char* policy_finalizer = options.propagation == "Foreground"
                                       ? "foregroundDeletion"
                                   : options.propagation == "Orphan" ? "orphan"
                                                                     : nullptr;
    bool added = false;
    if (policy_finalizer != nullptr) {
      Json finalizers = meta.value("finalizers", Json::array());
      if (std::find(finalizers.begin(), finalizers.end(), policy_finalizer) ==
          finalizers.end()) {
        finalizers.push_back(policy_finalizer);
        added = true;
      }
      meta["finalizers"] = std::move(finalizers);
    }
    const bool has_finalizers =
        !meta.value("finalizers", Json::array()).empty() ||
        (r.kind->kind == "Namespace" && !current.value("spec", Json::object())
                                             .value("finalizers", Json::array())
                                             .empty());
    if (!has_finalizers) {
      if (options.dry_run) return current;
      auto del = store_->Delete(Key(r, ns, name), rec->mod_revision);
      if (store::IsConflict(del.status())) continue;
      if (!del.ok()) return del.status();
      return current;
    }
    if (meta.contains("deletionTimestamp") && !added) return current;
    if (!meta.contains("deletionTimestamp")) {
      meta["deletionTimestamp"] = Timestamp(clock_.Now());
      meta["deletionGracePeriodSeconds"] = 0;
    }
    if (r.kind->kind == "Namespace") {
      current["status"] = Json{{"phase", "Terminating"}};
    }
    if (options.dry_run) return current;
    auto up = store_->Update(Key(r, ns, name), StoredForm(current),
                             rec->mod_revision);
    if (store::IsConflict(up.status())) continue;
    if (!up.ok()) return up.status();
    std::shared_ptr<const Json> updated =
        Versioned(std::move(current), up->mod_revision);
    if (r.remember_decoded) {
      DecodedValues::Written written;
      written.object = updated;
      written.superseded = rec->value;
      decoded_.Put(up->value, std::move(written));
    }
    return Json(*updated);
  }
  return Conflict(r, name, "too many concurrent changes; try again");
}

absl::StatusOr<std::unique_ptr<store::Watch>> Registry::Watch(
    const ResourceInfo& r, std::string_view ns, int64_t after_revision,
    store::WatchSink sink) {
  auto w = store_->WatchPrefix(Prefix(r, ns), after_revision, std::move(sink));
  if (store::IsCompacted(w.status())) {
    return Gone(StrCat("too old resource version: ", after_revision, " (",
                       store_->CompactRevision(), ")"));
  }
  return w;
}

void Registry::Publish(const ResourceInfo& r, Json object,
                       std::optional<api::Object> typed,
                       const store::Record& applied,
                       const store::Value& superseded, WriteResult& result,
                       std::vector<DecodedValues::Entry>& evicted) {
  std::string rv = std::to_string(applied.mod_revision);
  // Placed by StoredFormToPublish: only its value is set here.
  object["metadata"]["resourceVersion"] = rv;
  result.object = std::make_shared<const Json>(std::move(object));
  if (typed.has_value()) {
    typed->mutable_metadata()->resource_version = std::move(rv);
    result.typed = std::make_shared<const api::Object>(*std::move(typed));
  }
  result.value = applied.value;
  result.revision = applied.mod_revision;
  if (!r.remember_decoded) return;
  DecodedValues::Written written;
  written.object = result.object;
  written.typed = result.typed;
  written.superseded = superseded;
  decoded_.Put(applied.value, std::move(written), &evicted);
}

std::shared_ptr<const Json> Registry::Read(const store::Value& value,
                                           int64_t revision) const {
  std::shared_ptr<const Json> object = decoded_.Get(value, revision);
  const Json& meta = object->at("metadata");
  auto rv = meta.find("resourceVersion");
  if (rv != meta.end() && *rv == std::to_string(revision)) return object;
  return Versioned(*object, revision);  // a deleted object's final version
}

ObjectEvent Registry::ToObjectEvent(const store::Event& event) const {
  ObjectEvent out;
  out.revision = event.revision;
  out.object = Read(event.value, event.revision);
  switch (event.type) {
    case store::EventType::kCreated:
      out.type = ObjectEvent::kAdded;
      break;
    case store::EventType::kUpdated:
      out.type = ObjectEvent::kModified;
      break;
    case store::EventType::kDeleted:
      out.type = ObjectEvent::kDeleted;
      break;
  }
  if (event.prev_value) {
    out.previous_ = std::make_shared<ObjectEvent::Previous>();
    out.previous_->value = event.prev_value;
    out.previous_->decoded = &decoded_;
  }
  return out;
}

std::shared_ptr<const Json> ObjectEvent::PrevObject() const {
  if (previous_ == nullptr) return nullptr;
  Previous& p = *previous_;
  std::call_once(p.once, [&p] {
    p.object = p.decoded->Get(p.value, 0, /*remember=*/false);
  });
  return p.object;
}

}  // namespace draplane::apiserver::internal

#include "migrate/migrate.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "absl/strings/match.h"
#include "api/manifest.h"
#include "api/object_codec.h"
#include "api/validation/validation.h"
#include "common/quantity.h"
#include "common/str_cat.h"
#include "migrate/internal/yaml_text_edits.h"
#include "nlohmann/json.hpp"
#include "yaml-cpp/yaml.h"

namespace draplane::migrate {
namespace {

using api::Json;
using internal::LineEditor;

// Where the pod spec sits in each kind that has one.
const std::vector<std::string>* PodSpecPath(const std::string& kind) {
  static const std::vector<std::string> kPod = {"spec"};
  static const std::vector<std::string> kTemplate = {"spec", "template",
                                                     "spec"};
  static const std::vector<std::string> kPodTemplate = {"template", "spec"};
  static const std::vector<std::string> kCronJob = {"spec", "jobTemplate",
                                                    "spec", "template", "spec"};
  if (kind == "Pod") return &kPod;
  if (kind == "Deployment" || kind == "ReplicaSet" || kind == "StatefulSet" ||
      kind == "DaemonSet" || kind == "Job" || kind == "ReplicationController") {
    return &kTemplate;
  }
  if (kind == "PodTemplate") return &kPodTemplate;
  if (kind == "CronJob") return &kCronJob;
  return nullptr;
}

std::string JoinPath(const std::vector<std::string>& path) {
  std::string out;
  for (const std::string& p : path) StrAppend(&out, out.empty() ? "" : ".", p);
  return out;
}

// Extended resources that share a GPU among containers. DRA asks for whole
// devices (or MIG devices), so these need a person's decision.
std::optional<std::string> FractionalPluginReason(const std::string& name) {
  struct Known {
    std::string_view prefix;
    std::string_view reason;
  };
  static const Known kKnown[] = {
      {"nvidia.com/gpu.shared",
       "is a GPU shared by time-slicing in NVIDIA's device plugin "
       "(renameByDefault); in DRA, pods share one ResourceClaim whose "
       "GpuConfig sets sharing.strategy TimeSlicing: convert it by hand"},
      {"nvidia.com/gpumem",
       "is a fraction of a GPU from HAMi; DRA allocates whole devices (use a "
       "MIG profile, or MPS sharing on a shared claim): convert it by hand"},
      {"nvidia.com/gpucores",
       "is a fraction of a GPU from HAMi; DRA allocates whole devices (use a "
       "MIG profile, or MPS sharing on a shared claim): convert it by hand"},
      {"aliyun.com/gpu",
       "is a fraction of a GPU from Alibaba's cGPU / gpushare plugin; DRA "
       "allocates whole devices (use a MIG profile, or MPS sharing on a "
       "shared claim): convert it by hand"},
      {"volcano.sh/vgpu",
       "is a virtual GPU from Volcano's vGPU plugin; DRA allocates whole "
       "devices (use a MIG profile, or MPS sharing on a shared claim): "
       "convert it by hand"},
      {"tencent.com/vcuda",
       "is a virtual GPU from Tencent's gpu-manager; DRA allocates whole "
       "devices (use a MIG profile, or MPS sharing on a shared claim): "
       "convert it by hand"},
  };
  for (const Known& k : kKnown) {
    if (absl::StartsWith(name,
                         absl::string_view(k.prefix.data(), k.prefix.size()))) {
      return std::string(k.reason);
    }
  }
  return std::nullopt;
}

// Lower case, [a-z0-9.-] only, no leading/trailing '-' or '.'.
std::string SanitizeName(std::string_view in, bool allow_dot, size_t max_size) {
  std::string out;
  for (char c : in) {
    char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if ((l >= 'a' && l <= 'z') || (l >= '0' && l <= '9') ||
        (allow_dot && l == '.')) {
      out.push_back(l);
    } else if (!out.empty() && out.back() != '-') {
      out.push_back('-');
    }
  }
  if (out.size() > max_size) out.resize(max_size);
  while (!out.empty() && (out.back() == '-' || out.back() == '.')) {
    out.pop_back();
  }
  while (!out.empty() && (out.front() == '-' || out.front() == '.')) {
    out.erase(out.begin());
  }
  return out;
}

// One kind of device a container asks for.
struct Shape {
  std::string resource;      // the extended resource it replaces
  std::string device_class;  // DeviceClass
  std::string selector;      // CEL on top of the class ("" none)
  int64_t count = 0;

  // `nvidia.com/gpu` x2 -> "nvidia-gpu-2".
  std::string TemplateBase() const {
    std::string_view r = resource;
    size_t slash = r.find('/');
    std::string_view domain = r.substr(0, slash);
    std::string_view local = slash == std::string_view::npos
                                 ? std::string_view()
                                 : r.substr(slash + 1);
    std::string vendor(domain.substr(0, domain.find('.')));
    std::string base = SanitizeName(
        StrCat(vendor, "-", std::string(local), "-", count), true, 253);
    return base.empty() ? StrCat("gpu-", count) : base;
  }

  // The ResourceClaimTemplate's spec.
  Json TemplateSpec() const {
    Json exactly = Json::object();
    exactly["deviceClassName"] = device_class;
    if (!selector.empty()) {
      exactly["selectors"] =
          Json::array({Json{{"cel", Json{{"expression", selector}}}}});
    }
    exactly["count"] = count;
    Json request = Json::object();
    request["name"] = "gpu";
    request["exactly"] = std::move(exactly);
    return Json{
        {"spec", Json{{"devices", Json{{"requests",
                                        Json::array({std::move(request)})}}}}}};
  }
};

Json TemplateObject(const std::string& name, const std::string& ns, Json spec) {
  Json metadata = Json::object();
  metadata["name"] = name;
  if (!ns.empty()) metadata["namespace"] = ns;
  Json out = Json::object();
  out["apiVersion"] = "resource.k8s.io/v1";
  out["kind"] = "ResourceClaimTemplate";
  out["metadata"] = std::move(metadata);
  out["spec"] = std::move(spec);
  return out;
}

nlohmann::json Canonical(const Json& json) {
  return nlohmann::json::parse(json.dump());
}

std::string ScalarText(const Json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// "value" as YAML writes it in a block mapping (quoted when plain text
// would read back as something else).
std::string YamlScalar(const std::string& value) {
  std::string text = api::ToYaml(Json{{"k", value}});
  std::string out = text.substr(3);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

struct Removal {
  std::string section;  // "limits" | "requests"
  std::string resource;
};

struct ContainerEdit {
  std::string list;  // "containers" | "initContainers"
  size_t index = 0;
  std::vector<Removal> removals;
  std::vector<std::string> claims;  // names added to resources.claims
};

struct ClaimAdd {
  std::string name;
  std::string template_name;
};

// resourceClaims[index]: `source` (and any claim name fields) replaced by
// `field: value`.
struct InlineEdit {
  size_t index = 0;
  std::string field;
  std::string value;
};

struct PodPlan {
  std::vector<ContainerEdit> containers;
  std::vector<ClaimAdd> claims;
  std::vector<InlineEdit> inline_claims;
  std::vector<std::string> notes;
  bool empty() const {
    return containers.empty() && claims.empty() && inline_claims.empty();
  }
};

struct Refused {
  std::string field;
  std::string reason;
};

// ---- applying a plan to the object ----

void ApplyToJson(const PodPlan& plan, Json& spec) {
  for (const ContainerEdit& edit : plan.containers) {
    Json& container = spec[edit.list][edit.index];
    Json& resources = container["resources"];
    for (const Removal& r : edit.removals) {
      resources[r.section].erase(r.resource);
      if (resources[r.section].empty()) resources.erase(r.section);
    }
    if (!edit.claims.empty()) {
      Json added = Json::array();
      for (const std::string& name : edit.claims) {
        added.push_back(Json{{"name", name}});
      }
      if (resources.contains("claims") && resources["claims"].is_array()) {
        for (Json& old : resources["claims"]) added.push_back(std::move(old));
      }
      resources["claims"] = std::move(added);
    }
    if (resources.empty()) container.erase("resources");
  }
  if (!plan.claims.empty()) {
    Json added = Json::array();
    for (const ClaimAdd& c : plan.claims) {
      Json item = Json::object();
      item["name"] = c.name;
      item["resourceClaimTemplateName"] = c.template_name;
      added.push_back(std::move(item));
    }
    if (spec.contains("resourceClaims") && spec["resourceClaims"].is_array()) {
      for (Json& old : spec["resourceClaims"]) added.push_back(std::move(old));
    }
    spec["resourceClaims"] = std::move(added);
  }
  for (const InlineEdit& edit : plan.inline_claims) {
    // Index counts the claims as they were, before `plan.claims` went in
    // front of them.
    Json& item = spec["resourceClaims"][edit.index + plan.claims.size()];
    item.erase("source");
    item.erase("resourceClaimTemplateName");
    item.erase("resourceClaimName");
    item[edit.field] = edit.value;
  }
}

// ---- applying a plan to the text ----

std::optional<YAML::Node> MapKey(const YAML::Node& map,
                                 const std::string& key) {
  if (!map.IsMap()) return std::nullopt;
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) return it->first;
  }
  return std::nullopt;
}

// The line of the first key of a block mapping.
std::optional<std::pair<int, int>> FirstKey(const YAML::Node& map) {
  if (!map.IsMap() || map.Style() != YAML::EmitterStyle::Block ||
      map.size() == 0) {
    return std::nullopt;
  }
  YAML::Mark m = map.begin()->first.Mark();
  return std::make_pair(m.line, m.column);
}

bool DeleteEntry(LineEditor& ed, const YAML::Node& map,
                 const std::string& key) {
  std::optional<YAML::Node> k = MapKey(map, key);
  if (!k || map.Style() != YAML::EmitterStyle::Block) return false;
  auto range = ed.EntryRange(k->Mark().line, k->Mark().column);
  if (!range) return false;
  ed.Delete(range->first, range->second);
  return true;
}

struct SequenceStyle {
  int dash_offset = 0;  // dash column - key column
  int gap = 2;          // content column - dash column
};

// Writes `key:` with `items` (each item's "k: v" lines) in front of the
// mapping's first key, or in front of the existing sequence's first item.
bool InsertSequenceItems(LineEditor& ed, const YAML::Node& map,
                         const std::string& key,
                         const std::vector<std::vector<std::string>>& items,
                         SequenceStyle style) {
  auto first = FirstKey(map);
  if (!first || !ed.StartsLine(first->first, first->second)) return false;
  const int key_column = first->second;
  std::vector<std::string> lines;
  int line = 0;
  int dash = 0;
  if (std::optional<YAML::Node> existing = MapKey(map, key)) {
    const YAML::Node seq = map[key];
    if (!seq.IsSequence() || seq.Style() != YAML::EmitterStyle::Block ||
        seq.size() == 0) {
      return false;
    }
    YAML::Mark m = seq[0].Mark();
    std::optional<int> d = ed.DashColumn(m.line, m.column);
    if (!d) return false;
    dash = *d;
    style.gap = m.column - dash;
    line = ed.AboveComments(m.line);
  } else {
    line = ed.AboveComments(first->first);
    lines.push_back(StrCat(std::string(key_column, ' '), key, ":"));
    dash = key_column + style.dash_offset;
  }
  for (const auto& item : items) {
    for (size_t i = 0; i < item.size(); ++i) {
      lines.push_back(StrCat(
          std::string(i == 0 ? dash : dash + style.gap, ' '),
          i == 0 ? StrCat("-", std::string(style.gap - 1, ' ')) : "", item[i]));
    }
  }
  ed.Insert(line, std::move(lines));
  return true;
}

bool ApplyToText(const PodPlan& plan, const Json& original_spec,
                 const YAML::Node& spec, LineEditor& ed) {
  if (!spec.IsMap() || spec.Style() != YAML::EmitterStyle::Block) return false;
  SequenceStyle style;
  if (spec["containers"].IsSequence() && spec["containers"].size() > 0) {
    YAML::Node seq = spec["containers"];
    std::optional<YAML::Node> key = MapKey(spec, "containers");
    YAML::Mark item = seq[0].Mark();
    std::optional<int> dash = ed.DashColumn(item.line, item.column);
    if (key && dash) {
      style.dash_offset = std::max(0, *dash - key->Mark().column);
      style.gap = std::max(2, item.column - *dash);
    }
  }
  for (const ContainerEdit& edit : plan.containers) {
    YAML::Node container = spec[edit.list][edit.index];
    YAML::Node resources = container["resources"];
    if (!resources.IsMap() || resources.Style() != YAML::EmitterStyle::Block) {
      return false;
    }
    const Json& before = original_spec[edit.list][edit.index]["resources"];
    // What each section keeps.
    std::map<std::string, size_t> left;
    for (const char* section : {"limits", "requests"}) {
      if (before.contains(section) && before[section].is_object()) {
        left[section] = before[section].size();
      }
    }
    for (const Removal& r : edit.removals) --left[r.section];
    size_t resources_left = before.size();
    for (const auto& [section, n] : left) {
      if (n == 0) --resources_left;
    }
    if (resources_left == 0 && edit.claims.empty()) {
      if (!DeleteEntry(ed, container, "resources")) return false;
      continue;
    }
    for (const auto& [section, n] : left) {
      if (n == 0) {
        if (!DeleteEntry(ed, resources, section)) return false;
      }
    }
    for (const Removal& r : edit.removals) {
      if (left[r.section] == 0) continue;  // the section goes
      YAML::Node section = resources[r.section];
      if (!DeleteEntry(ed, section, r.resource)) return false;
    }
    if (!edit.claims.empty()) {
      std::vector<std::vector<std::string>> items;
      for (const std::string& name : edit.claims) {
        items.push_back({StrCat("name: ", YamlScalar(name))});
      }
      if (!InsertSequenceItems(ed, resources, "claims", items, style)) {
        return false;
      }
    }
  }
  if (!plan.claims.empty()) {
    std::vector<std::vector<std::string>> items;
    for (const ClaimAdd& c : plan.claims) {
      items.push_back(
          {StrCat("name: ", YamlScalar(c.name)),
           StrCat("resourceClaimTemplateName: ", YamlScalar(c.template_name))});
    }
    if (!InsertSequenceItems(ed, spec, "resourceClaims", items, style)) {
      return false;
    }
  }
  for (const InlineEdit& edit : plan.inline_claims) {
    YAML::Node item = spec["resourceClaims"][edit.index];
    std::optional<YAML::Node> source = MapKey(item, "source");
    if (!source || item.Style() != YAML::EmitterStyle::Block) return false;
    YAML::Mark at = source->Mark();
    if (!ed.StartsLine(at.line, at.column)) return false;
    for (const char* key :
         {"source", "resourceClaimTemplateName", "resourceClaimName"}) {
      if (MapKey(item, key) && !DeleteEntry(ed, item, key)) return false;
    }
    ed.Insert(at.line, {StrCat(std::string(at.column, ' '), edit.field, ": ",
                               YamlScalar(edit.value))});
  }
  return true;
}

}  // namespace

class Migrator::Impl {
 public:
  explicit Impl(MigrateOptions options) : options_(std::move(options)) {}

  absl::Status Index(std::string_view text, std::string_view source) {
    auto docs = api::ParseManifests(text, source);
    if (!docs.ok()) return docs.status();
    for (const api::ManifestDocument& doc : *docs) {
      const Json& j = doc.json;
      if (j.value("kind", Json()) != "ResourceClaimTemplate") continue;
      const Json& meta = j.contains("metadata") ? j["metadata"] : Json();
      if (!meta.is_object() || !meta.contains("name") ||
          !meta["name"].is_string()) {
        continue;
      }
      std::string ns =
          meta.contains("namespace") && meta["namespace"].is_string()
              ? meta["namespace"].get<std::string>()
              : "";
      templates_[{ns, meta["name"].get<std::string>()}] =
          Canonical(j.contains("spec") ? j["spec"] : Json());
    }
    return absl::OkStatus();
  }

  absl::StatusOr<FileResult> Migrate(std::string_view text,
                                     std::string_view source) {
    FileResult result;
    // The whole file must parse before anything is rewritten.
    auto all = api::ParseManifestsKeepingLists(text, source);
    if (!all.ok()) return all.status();
    source_ = std::string(source);
    size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos &&
        (text[first] == '{' || text[first] == '[')) {
      return MigrateJson(text, *all, result);
    }
    for (const internal::TextDocument& doc : internal::SplitDocuments(text)) {
      result.text += doc.marker;
      std::string body = doc.body;
      auto parsed = api::ParseManifestsKeepingLists(body, source);
      if (!parsed.ok() || parsed->size() != 1) {
        result.text += body;  // empty, comments only
        continue;
      }
      Converted converted;
      Json object = (*parsed)[0].json;
      const int line = doc.first_line + (*parsed)[0].line;
      if (!ConvertObject(object, line, result, converted)) {
        result.text += body;
        continue;
      }
      std::string new_body = body;
      std::string why;
      if (converted.plans.size() == 1 && converted.list_items == 0) {
        new_body = EditText(body, (*parsed)[0].json, converted, object, &why);
      } else {
        why = "a List is written out again";
        new_body.clear();
      }
      if (new_body.empty()) {
        new_body = api::ToYaml(object);
        result.notes.push_back(
            StrCat(source_, ":", line, ": ", converted.name,
                   ": written out again as YAML, its comments and formatting "
                   "are lost (",
                   why, ")"));
      }
      for (const Json& t : converted.templates) {
        result.text += api::ToYaml(t);
        result.text += "---\n";
        ++result.templates_added;
      }
      result.text += new_body;
    }
    return result;
  }

 private:
  struct Planned {
    std::vector<std::string> path;  // to the pod spec within the object
    PodPlan plan;
  };
  struct Converted {
    std::string name;  // "Deployment ml/trainer"
    std::vector<Planned> plans;
    int list_items = 0;
    std::vector<Json> templates;  // to emit
  };

  absl::StatusOr<FileResult> MigrateJson(
      std::string_view text, const std::vector<api::ManifestDocument>& docs,
      FileResult& result) {
    std::vector<Json> out;
    bool changed = false;
    for (const api::ManifestDocument& doc : docs) {
      Json object = doc.json;
      Converted converted;
      if (ConvertObject(object, doc.line, result, converted)) {
        changed = true;
        for (Json& t : converted.templates) {
          out.push_back(std::move(t));
          ++result.templates_added;
        }
      }
      out.push_back(std::move(object));
    }
    if (!changed) {
      result.text = std::string(text);
      return std::move(result);
    }
    result.notes.push_back(
        StrCat(source_, ": JSON input is written out as YAML"));
    result.text = api::ToYamlStream(out);
    return std::move(result);
  }

  // Converts `object` (a workload or a List of them) in place. False when
  // there was nothing to do or it was refused (then `object` is as it
  // was and the refusal is in `result`).
  bool ConvertObject(Json& object, int line, FileResult& result,
                     Converted& converted) {
    if (!object.is_object()) return false;
    std::string kind = ScalarText(object.value("kind", Json("")));
    const Json original = object;
    std::map<std::pair<std::string, std::string>, Json> pending;
    if (absl::EndsWith(kind, "List") && object.contains("items") &&
        object["items"].is_array()) {
      const size_t refusals = result.refusals.size();
      const size_t notes = result.notes.size();
      for (size_t i = 0; i < object["items"].size(); ++i) {
        if (ConvertWorkload(object["items"][i], line, StrCat("items[", i, "]."),
                            result, converted, pending)) {
          ++converted.list_items;
        }
      }
      if (result.refusals.size() != refusals) {
        object = original;  // a List is converted whole or not at all
        result.notes.resize(notes);
        return false;
      }
      if (converted.list_items == 0) return false;
      converted.name = StrCat(kind, " (", converted.list_items, " of ",
                              object["items"].size(), " items converted)");
    } else if (!ConvertWorkload(object, line, "", result, converted, pending)) {
      return false;
    }
    for (auto& [key, t] : pending) {
      templates_[key] = Canonical(t["spec"]);
      converted.templates.push_back(std::move(t));
    }
    ++result.converted;
    return true;
  }

  // One object with a pod spec. `prefix` goes in front of field paths.
  bool ConvertWorkload(
      Json& object, int line, const std::string& prefix, FileResult& result,
      Converted& converted,
      std::map<std::pair<std::string, std::string>, Json>& pending) {
    if (!object.is_object()) return false;
    std::string kind = ScalarText(object.value("kind", Json("")));
    const std::vector<std::string>* path = PodSpecPath(kind);
    if (path == nullptr) return false;
    Json* spec = &object;
    for (const std::string& p : *path) {
      if (!spec->is_object() || !spec->contains(p)) return false;
      spec = &(*spec)[p];
    }
    if (!spec->is_object()) return false;
    std::string ns, name;
    if (object.contains("metadata") && object["metadata"].is_object()) {
      const Json& meta = object["metadata"];
      if (meta.contains("namespace")) ns = ScalarText(meta["namespace"]);
      if (meta.contains("name")) name = ScalarText(meta["name"]);
    }
    std::string what =
        StrCat(kind, " ", ns.empty() ? "" : StrCat(ns, "/"), name);
    PodPlan plan;
    std::map<std::pair<std::string, std::string>, Json> local = pending;
    std::optional<Refused> refused =
        Plan(*spec, ns, name, StrCat(prefix, JoinPath(*path)), plan, local);
    if (refused) {
      result.refusals.push_back(
          {source_, line, what, refused->field, refused->reason});
      return false;
    }
    if (plan.empty()) return false;
    pending = std::move(local);
    for (const std::string& note : plan.notes) {
      result.notes.push_back(
          StrCat(source_, ":", line, ": ", what, ": ", note));
    }
    ApplyToJson(plan, *spec);
    if (converted.name.empty()) converted.name = what;
    converted.plans.push_back({*path, std::move(plan)});
    return true;
  }

  // The template name for `spec` in `ns`: `base`, or `base-2`, ... when a
  // template of that name with another spec exists. Records new ones in
  // `pending`.
  std::string TemplateFor(
      const std::string& ns, const std::string& base, const Json& spec,
      std::map<std::pair<std::string, std::string>, Json>& pending) {
    nlohmann::json canonical = Canonical(spec);
    for (int n = 1;; ++n) {
      std::string name = n == 1 ? base : StrCat(base, "-", n);
      auto known = templates_.find({ns, name});
      if (known != templates_.end()) {
        if (known->second == canonical) return name;
        continue;
      }
      auto p = pending.find({ns, name});
      if (p != pending.end()) {
        if (Canonical(p->second["spec"]) == canonical) return name;
        continue;
      }
      pending[{ns, name}] = TemplateObject(name, ns, spec);
      return name;
    }
  }

  // What a container asks for: resource -> count, or a refusal.
  struct Use {
    std::string list;
    size_t index = 0;
    std::string container;
    bool plain_init = false;
    Shape shape;
    std::string claim;
  };

  std::optional<Refused> Plan(
      const Json& spec, const std::string& ns, const std::string& owner,
      const std::string& field, PodPlan& plan,
      std::map<std::pair<std::string, std::string>, Json>& pending) {
    std::vector<Use> uses;
    if (std::optional<Refused> r = GatherUses(spec, field, plan, uses)) {
      return r;
    }
    NameClaims(spec, ns, uses, plan, pending);
    return ConvertInlineClaims(spec, ns, owner, field, plan, pending);
  }

  // The devices each container asks for with extended resources, and the
  // edits that remove them; a refusal for what cannot be converted.
  std::optional<Refused> GatherUses(const Json& spec, const std::string& field,
                                    PodPlan& plan, std::vector<Use>& uses) {
    for (const char* list : {"containers", "initContainers"}) {
      if (!spec.contains(list) || !spec[list].is_array()) continue;
      const Json& containers = spec[list];
      for (size_t i = 0; i < containers.size(); ++i) {
        const Json& c = containers[i];
        if (!c.is_object() || !c.contains("resources") ||
            !c["resources"].is_object()) {
          continue;
        }
        const Json& res = c["resources"];
        std::string cpath = StrCat(field, ".", list, "[", i, "].resources");
        ContainerEdit edit;
        edit.list = list;
        edit.index = i;
        // Resource names in order of first appearance.
        std::vector<std::string> names;
        for (const char* section : {"limits", "requests"}) {
          if (!res.contains(section) || !res[section].is_object()) continue;
          for (auto it = res[section].begin(); it != res[section].end(); ++it) {
            if (std::find(names.begin(), names.end(), it.key()) ==
                names.end()) {
              names.push_back(it.key());
            }
          }
        }
        for (const std::string& r : names) {
          std::optional<Shape> shape = ShapeOf(r);
          const bool in_limits = res.contains("limits") &&
                                 res["limits"].is_object() &&
                                 res["limits"].contains(r);
          const bool in_requests = res.contains("requests") &&
                                   res["requests"].is_object() &&
                                   res["requests"].contains(r);
          std::string rpath =
              StrCat(cpath, in_limits ? ".limits[" : ".requests[", r, "]");
          if (!shape) {
            if (std::optional<std::string> why = FractionalPluginReason(r)) {
              return Refused{rpath, StrCat(r, " ", *why)};
            }
            std::string lower = r;
            for (char& ch : lower) ch = static_cast<char>(std::tolower(ch));
            if (lower.find("gpu") != std::string::npos) {
              return Refused{rpath,
                             StrCat(r,
                                    " looks like a GPU but has no DeviceClass; "
                                    "add --class-map ",
                                    r, "=<DeviceClass> to convert it")};
            }
            continue;  // cpu, memory, other devices: untouched
          }
          std::optional<Quantity> limit, request;
          for (const char* section : {"limits", "requests"}) {
            bool present =
                std::string(section) == "limits" ? in_limits : in_requests;
            if (!present) continue;
            const Json& v = res[section][r];
            std::string text = ScalarText(v);
            absl::StatusOr<Quantity> q = Quantity::ParseTrimmed(text);
            std::string spath = StrCat(cpath, ".", section, "[", r, "]");
            if (!q.ok() || !(v.is_string() || v.is_number())) {
              return Refused{spath, StrCat("Invalid value: ", v.dump(),
                                           ": not a quantity")};
            }
            if (!q->IsInteger() || q->Sign() < 0) {
              return Refused{
                  spath,
                  StrCat("Invalid value: \"", text, "\": ", r,
                         " must be a whole number of devices; DRA allocates "
                         "whole devices (for part of a GPU use a MIG profile "
                         "or MPS sharing): convert it by hand")};
            }
            (std::string(section) == "limits" ? limit : request) = *q;
            edit.removals.push_back({section, r});
          }
          if (limit && request && *limit != *request) {
            return Refused{StrCat(cpath, ".requests[", r, "]"),
                           StrCat("Invalid value: \"", request->ToString(),
                                  "\": must be equal to ", r, " limit of ",
                                  limit->ToString(),
                                  " (the API server refuses this for extended "
                                  "resources)")};
          }
          std::optional<int64_t> count = (limit ? *limit : *request).AsInt64();
          if (!count || *count > 1024) {
            return Refused{rpath, StrCat("Invalid value: \"",
                                         (limit ? *limit : *request).ToString(),
                                         "\": more devices than a node holds")};
          }
          if (*count == 0) {  // removed, nothing to claim
            plan.notes.push_back(StrCat(
                list == std::string("containers") ? "container "
                                                  : "init container ",
                ScalarText(c.value("name", Json(""))), ": ", r, ": 0 removed"));
            continue;
          }
          Use use;
          use.list = list;
          use.index = i;
          use.container = ScalarText(c.value("name", Json("")));
          use.plain_init = std::string(list) == "initContainers" &&
                           c.value("restartPolicy", Json("")) != "Always";
          use.shape = std::move(*shape);
          use.shape.count = *count;
          uses.push_back(std::move(use));
        }
        if (!edit.removals.empty()) plan.containers.push_back(std::move(edit));
      }
    }
    return std::nullopt;
  }

  // One claim per container's use (init containers share a regular
  // container's claim when it has as many devices of the resource), named
  // "gpu" for a pod with one claim, else per container.
  void NameClaims(
      const Json& spec, const std::string& ns, std::vector<Use>& uses,
      PodPlan& plan,
      std::map<std::pair<std::string, std::string>, Json>& pending) {
    std::vector<std::string> taken;
    if (spec.contains("resourceClaims") && spec["resourceClaims"].is_array()) {
      for (const Json& c : spec["resourceClaims"]) {
        if (c.is_object() && c.contains("name")) {
          taken.push_back(ScalarText(c["name"]));
        }
      }
    }
    auto unique = [&](std::string name) {
      std::string base = name;
      for (int n = 2;
           std::find(taken.begin(), taken.end(), name) != taken.end(); ++n) {
        name = StrCat(base.substr(0, 60), "-", n);
      }
      taken.push_back(name);
      return name;
    };
    std::vector<Use*> own;
    for (Use& u : uses) {
      if (!u.plain_init) own.push_back(&u);
    }
    std::vector<Use*> init_own;
    for (Use& u : uses) {
      if (!u.plain_init) continue;
      const Use* host = nullptr;
      for (const Use* a : own) {
        if (a->list == "containers" && a->shape.resource == u.shape.resource &&
            a->shape.count >= u.shape.count) {
          host = a;
          break;
        }
      }
      if (host == nullptr) init_own.push_back(&u);
    }
    own.insert(own.end(), init_own.begin(), init_own.end());
    for (Use* u : own) {
      int per_container = 0;
      for (const Use* o : own) per_container += o->container == u->container;
      std::string name =
          own.size() == 1 ? "gpu"
                          : SanitizeName(per_container == 1
                                             ? StrCat(u->container, "-gpu")
                                             : StrCat(u->container, "-",
                                                      u->shape.TemplateBase()),
                                         false, 58);
      if (name.empty()) name = "gpu";
      u->claim = unique(name);
      std::string tmpl = TemplateFor(ns, u->shape.TemplateBase(),
                                     u->shape.TemplateSpec(), pending);
      plan.claims.push_back({u->claim, tmpl});
      plan.notes.push_back(
          StrCat(u->list == "containers" ? "container " : "init container ",
                 u->container, ": ", u->shape.resource, ": ", u->shape.count,
                 " -> claim ", u->claim, " (template ", tmpl, ")"));
    }
    for (Use& u : uses) {
      if (!u.claim.empty()) continue;
      for (const Use* a : own) {
        if (a->list == "containers" && a->shape.resource == u.shape.resource &&
            a->shape.count >= u.shape.count) {
          u.claim = a->claim;
          plan.notes.push_back(
              StrCat("init container ", u.container, ": ", u.shape.resource,
                     ": ", u.shape.count, " -> shares claim ", a->claim,
                     " of container ", a->container,
                     " (it runs before it, as the device plugin reuses an init "
                     "container's GPUs",
                     a->shape.count > u.shape.count
                         ? StrCat("; it sees all ", a->shape.count, " devices")
                         : "",
                     ")"));
          break;
        }
      }
    }
    for (ContainerEdit& edit : plan.containers) {
      for (const Use& u : uses) {
        if (u.list == edit.list && u.index == edit.index &&
            std::find(edit.claims.begin(), edit.claims.end(), u.claim) ==
                edit.claims.end()) {
          edit.claims.push_back(u.claim);
        }
      }
    }
  }

  // The guide's inline claims (`source:`) as claims or templates.
  std::optional<Refused> ConvertInlineClaims(
      const Json& spec, const std::string& ns, const std::string& owner,
      const std::string& field, PodPlan& plan,
      std::map<std::pair<std::string, std::string>, Json>& pending) {
    if (spec.contains("resourceClaims") && spec["resourceClaims"].is_array()) {
      const Json& claims = spec["resourceClaims"];
      for (size_t i = 0; i < claims.size(); ++i) {
        const Json& c = claims[i];
        if (!c.is_object() || !c.contains("source")) continue;
        std::string cpath = StrCat(field, ".resourceClaims[", i, "]");
        std::string claim_name = ScalarText(c.value("name", Json("")));
        const Json& src = c["source"];
        auto non_empty = [&](const char* key) {
          return c.contains(key) && c[key].is_string() &&
                 !c[key].get<std::string>().empty();
        };
        if (!src.is_object()) {
          return Refused{StrCat(cpath, ".source"),
                         "Invalid value: not an object"};
        }
        InlineEdit edit;
        edit.index = i;
        for (const char* key :
             {"resourceClaimName", "resourceClaimTemplateName"}) {
          if (src.contains(key) && src[key].is_string()) {
            edit.field = key;
            edit.value = src[key].get<std::string>();
          }
        }
        if (edit.field.empty()) {
          absl::StatusOr<Json> tspec =
              InlineTemplateSpec(src, ns, StrCat(cpath, ".source"));
          if (!tspec.ok()) {
            return Refused{StrCat(cpath, ".source"),
                           std::string(tspec.status().message())};
          }
          std::string base =
              SanitizeName(StrCat(owner, "-", claim_name), true, 253);
          edit.field = "resourceClaimTemplateName";
          edit.value = TemplateFor(ns, base, *tspec, pending);
        }
        for (const char* key :
             {"resourceClaimName", "resourceClaimTemplateName"}) {
          if (non_empty(key) &&
              (key != edit.field || c[key].get<std::string>() != edit.value)) {
            return Refused{StrCat(cpath, ".", key),
                           StrCat("Invalid value: both ", key,
                                  " and source are set; keep one")};
          }
        }
        plan.notes.push_back(StrCat("claim ", claim_name, ": inline source -> ",
                                    edit.field, " ", edit.value));
        plan.inline_claims.push_back(std::move(edit));
      }
    }
    return std::nullopt;
  }

  // The guide's inline `source:` (a claim spec, v1 or v1beta1 shaped) as a
  // validated v1 ResourceClaimTemplate spec.
  absl::StatusOr<Json> InlineTemplateSpec(const Json& source,
                                          const std::string& ns,
                                          const std::string& field) {
    Json claim_spec = source.contains("spec") ? source["spec"] : source;
    bool v1 = false;
    if (claim_spec.contains("devices") && claim_spec["devices"].is_object() &&
        claim_spec["devices"].contains("requests") &&
        claim_spec["devices"]["requests"].is_array()) {
      for (const Json& r : claim_spec["devices"]["requests"]) {
        v1 |= r.is_object() &&
              (r.contains("exactly") || r.contains("firstAvailable"));
      }
    }
    Json object = TemplateObject("inline", ns.empty() ? "default" : ns,
                                 Json{{"spec", claim_spec}});
    object["apiVersion"] =
        v1 ? "resource.k8s.io/v1" : "resource.k8s.io/v1beta1";
    absl::StatusOr<api::DecodeResult> decoded = api::DecodeObject(object);
    if (!decoded.ok()) {
      return absl::InvalidArgumentError(
          StrCat("not a claim spec: ", decoded.status().message()));
    }
    FieldErrorList errors = decoded->unknown_fields;
    api::Object defaulted = decoded->object;
    api::SetDefaults(defaulted);
    for (FieldError& e : api::ValidateObject(defaulted)) {
      errors.push_back(std::move(e));
    }
    if (!errors.empty()) {
      std::string text;
      for (const FieldError& e : errors) {
        StrAppend(&text, text.empty() ? "" : "; ", e.ToString());
      }
      return absl::InvalidArgumentError(
          StrCat("not a valid claim spec (read as ",
                 object["apiVersion"].get<std::string>(), " with ", field,
                 " as the template's spec): ", text));
    }
    absl::StatusOr<Json> v1_json =
        api::EncodeObject(decoded->object, "resource.k8s.io/v1");
    if (!v1_json.ok()) return v1_json.status();
    Json spec = (*v1_json)["spec"];
    if (spec.contains("metadata") && spec["metadata"].empty()) {
      spec.erase("metadata");  // Go writes the empty struct; a file needs none
    }
    return spec;
  }

  std::optional<Shape> ShapeOf(const std::string& resource) const {
    auto it = options_.class_map.find(resource);
    if (it != options_.class_map.end()) {
      Shape s;
      s.resource = resource;
      s.device_class = it->second;
      return s;
    }
    constexpr std::string_view kMig = "nvidia.com/mig-";
    if (absl::StartsWith(resource,
                         absl::string_view(kMig.data(), kMig.size())) &&
        resource.size() > kMig.size()) {
      std::string profile = resource.substr(kMig.size());
      for (char c : profile) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' &&
            c != '+') {
          return std::nullopt;
        }
      }
      Shape s;
      s.resource = resource;
      s.device_class = options_.mig_class;
      s.selector = StrCat("device.attributes['gpu.nvidia.com'].profile == '",
                          profile, "'");
      return s;
    }
    return std::nullopt;
  }

  // The edited text of one document, or "" (with `why`) when line edits
  // cannot produce `expected`.
  std::string EditText(const std::string& body, const Json& original,
                       const Converted& converted, const Json& expected,
                       std::string* why) {
    auto nodes = api::LoadYamlDocuments(body, source_);
    if (!nodes.ok() || nodes->size() != 1) {
      *why = "not one YAML document";
      return "";
    }
    try {
      const Planned& planned = converted.plans.front();
      YAML::Node spec = (*nodes)[0];
      const Json* original_spec = &original;
      for (const std::string& p : planned.path) {
        spec = spec[p];
        original_spec = &(*original_spec)[p];
      }
      LineEditor ed(body);
      if (!ApplyToText(planned.plan, *original_spec, spec, ed)) {
        *why = "flow style or layout that line edits cannot change";
        return "";
      }
      std::string edited = ed.Apply();
      auto back = api::ParseManifestsKeepingLists(edited, source_);
      if (!back.ok() || back->size() != 1 ||
          Canonical((*back)[0].json) != Canonical(expected)) {
        *why = "the edited text did not read back as intended";
        return "";
      }
      return edited;
    } catch (const std::exception& e) {
      *why = e.what();
      return "";
    }
  }

  MigrateOptions options_;
  std::string source_;
  // (namespace, name) -> spec of templates in the input or emitted.
  std::map<std::pair<std::string, std::string>, nlohmann::json> templates_;
};

Migrator::Migrator(MigrateOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}
Migrator::~Migrator() = default;

absl::Status Migrator::IndexTemplates(std::string_view text,
                                      std::string_view source) {
  return impl_->Index(text, source);
}

absl::StatusOr<FileResult> Migrator::Migrate(std::string_view text,
                                             std::string_view source) {
  return impl_->Migrate(text, source);
}

}  // namespace draplane::migrate

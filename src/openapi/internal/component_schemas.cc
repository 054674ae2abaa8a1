#include "openapi/internal/component_schemas.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "api/object.h"
#include "api/schema_reflection.h"
#include "openapi/internal/model_names.h"
#include "openapi/internal/upstream_docs.h"

namespace draplane::openapi::internal {

Schema RefSchema(std::string_view model) {
  return Schema{{"$ref", std::string(kSchemaRefPrefix) + std::string(model)}};
}

std::string KindModelName(std::string_view group, std::string_view version,
                          std::string_view kind) {
  std::string package = group.empty()
                            ? std::string("core")
                            : std::string(group.substr(0, group.find('.')));
  return "io.k8s.api." + package + "." + std::string(version) + "." +
         std::string(kind);
}

namespace {

using api::schema_reflection::ForEachMappedField;
using api::schema_reflection::KeepsUnknownFields;
using api::schema_reflection::Mapped;
constexpr unsigned kTimestamp = api::schema_reflection::kTimestampField;

constexpr char kMetaPrefix[] = "io.k8s.apimachinery.pkg.apis.meta.v1.";
const std::string kTime = std::string(kMetaPrefix) + "Time";
const std::string kMicroTime = std::string(kMetaPrefix) + "MicroTime";
const std::string kQuantity = "io.k8s.apimachinery.pkg.api.resource.Quantity";
const std::string kIntOrString =
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString";

template <class T>
struct OptionalOf {
  using type = void;
};
template <class T>
struct OptionalOf<std::optional<T>> {
  using type = T;
};
template <class T>
struct OptionalOf<api::OptionalBox<T>> {
  using type = T;
};
template <class T>
struct VectorOf {
  using type = void;
};
template <class T, class A>
struct VectorOf<std::vector<T, A>> {
  using type = T;
};
template <class T>
struct StringMapOf {
  using type = void;
};
template <class T, class C, class A>
struct StringMapOf<std::map<std::string, T, C, A>> {
  using type = T;
};
template <class T>
struct StringMapOf<api::FlatMap<std::string, T>> {
  using type = T;
};
// The type a member is described as: a Box<T> as T, a type with a wire
// form as its wire struct (json_mapping.h codes them so), else itself.
template <class T>
struct DescribedAs {
  using type = T;
};
template <class T>
struct DescribedAs<api::Box<T>> {
  using type = T;
};
template <class T>
requires api::schema_reflection::HasWireForm<T>
struct DescribedAs<T> {
  using type = api::schema_reflection::WireFormOf<T>;
};

// An object whose members the schema does not describe: any JSON object is
// valid (draplane's strict decoding, on the server, stays the authority).
Schema OpaqueObject() {
  return Schema{{"type", "object"},
                {"x-kubernetes-preserve-unknown-fields", true}};
}

// Models with a fixed, non-struct shape (upstream's OpenAPI v3 definitions
// of these types are hand-written in apimachinery too).
std::optional<Schema> FixedShape(std::string_view model) {
  if (model == kTime || model == kMicroTime) {
    return Schema{{"type", "string"}, {"format", "date-time"}};
  }
  if (model == kQuantity) {
    return Schema{{"oneOf", {{{"type", "string"}}, {{"type", "number"}}}}};
  }
  if (model == kIntOrString) {
    return Schema{{"format", "int-or-string"},
                  {"oneOf", {{{"type", "integer"}}, {{"type", "string"}}}}};
  }
  if (model == "io.k8s.apimachinery.pkg.runtime.RawExtension" ||
      model == std::string(kMetaPrefix) + "FieldsV1" ||
      model == std::string(kMetaPrefix) + "Patch") {
    return Schema{{"type", "object"}};
  }
  return std::nullopt;
}

// Kinds outside the served resources whose schemas operations use
// (subresources), with upstream's group-version-kind.
struct SupportKind {
  std::string_view model, group, version, kind;
};
constexpr SupportKind kSupportKinds[] = {
    {"io.k8s.api.autoscaling.v1.Scale", "autoscaling", "v1", "Scale"},
    {"io.k8s.api.core.v1.Binding", "", "v1", "Binding"},
    {"io.k8s.api.authentication.v1.TokenRequest", "authentication.k8s.io", "v1",
     "TokenRequest"},
};

Schema GroupVersionKind(std::string_view group, std::string_view version,
                        std::string_view kind) {
  return Schema::array(
      {Schema{{"group", group}, {"kind", kind}, {"version", version}}});
}

std::string_view StripPrefix(std::string_view shape, std::string_view prefix) {
  if (shape.substr(0, prefix.size()) != prefix) return "";
  return shape.substr(prefix.size());
}

bool GroupMatches(ModelPackage package, std::string_view group) {
  switch (package) {
    case ModelPackage::kCoreV1:
      return group.empty();
    case ModelPackage::kResource:
      return group == "resource.k8s.io";
    case ModelPackage::kCoordinationV1:
      return group == "coordination.k8s.io";
    case ModelPackage::kAppsV1:
      return group == "apps";
    case ModelPackage::kBatchV1:
      return group == "batch";
    case ModelPackage::kRbacV1:
      return group == "rbac.authorization.k8s.io";
    case ModelPackage::kMetaV1:
      return false;
  }
  return false;
}

class Builder {
 public:
  Builder(std::string_view group, std::string_view version)
      : group_(group),
        version_(version),
        resource_version_(group == "resource.k8s.io" ? version : "v1") {
    RegisterKinds(static_cast<api::TypedObject*>(nullptr));
  }

  // The schema that refers to `model`, building it first. A model that
  // cannot be described is referred to as an opaque object.
  Schema Ref(const std::string& model) {
    if (schemas_.count(model) == 0 && !Build(model)) return OpaqueObject();
    return RefSchema(model);
  }

  // Builds a kind served in this group-version; false when draplane has no
  // type for it.
  bool AddKind(std::string_view kind) {
    return AddKindOf(static_cast<api::TypedObject*>(nullptr), kind);
  }

  // Builds `<kind>List`.
  void AddList(std::string_view kind) {
    const std::string model =
        KindModelName(group_, version_, std::string(kind) + "List");
    if (!Build(model)) return;
    MakeKind(model, group_, version_, std::string(kind) + "List");
  }

  void AddSupportModel(const std::string& model) {
    if (schemas_.count(model) == 0 && !Build(model)) return;
    for (const SupportKind& k : kSupportKinds) {
      if (k.model == model) MakeKind(model, k.group, k.version, k.kind);
    }
  }

  SchemaMap& schemas() { return schemas_; }

 private:
  bool Build(const std::string& model) {
    if (schemas_.count(model) > 0) return true;
    if (auto it = cpp_builders_.find(model); it != cpp_builders_.end()) {
      it->second();
      return true;
    }
    if (auto fixed = FixedShape(model)) {
      schemas_[model] = *std::move(fixed);
      return true;
    }
    if (const UpstreamType* t = FindUpstreamType(model)) {
      BuildFromUpstream(*t);
      return true;
    }
    return false;
  }

  // Adds apiVersion/kind properties and the group-version-kind.
  void MakeKind(const std::string& model, std::string_view group,
                std::string_view version, std::string_view kind) {
    Schema& s = schemas_[model];
    Schema& props = s["properties"];
    if (!props.contains("apiVersion"))
      props["apiVersion"] = {{"type", "string"}};
    if (!props.contains("kind")) props["kind"] = {{"type", "string"}};
    s["x-kubernetes-group-version-kind"] =
        GroupVersionKind(group, version, kind);
  }

  template <class... Ts>
  void RegisterKinds(std::variant<Ts...>*) {
    (Register<Ts>(), ...);
  }

  template <class... Ts>
  bool AddKindOf(std::variant<Ts...>*, std::string_view kind) {
    bool found = false;
    (
        [&] {
          if constexpr (Mapped<Ts>) {
            if (!found && Model<Ts>::kName == kind &&
                GroupMatches(Model<Ts>::kPackage, group_)) {
              const std::string model = ModelName<Ts>(resource_version_);
              Build(model);
              MakeKind(model, group_, version_, kind);
              found = true;
            }
          }
        }(),
        ...);
    return found;
  }

  // Makes T (and the structs it contains) buildable by model name.
  template <class T>
  void Register() {
    if constexpr (!std::is_same_v<typename DescribedAs<T>::type, T>) {
      Register<typename DescribedAs<T>::type>();
    } else if constexpr (!std::is_void_v<typename OptionalOf<T>::type>) {
      Register<typename OptionalOf<T>::type>();
    } else if constexpr (!std::is_void_v<typename VectorOf<T>::type>) {
      Register<typename VectorOf<T>::type>();
    } else if constexpr (!std::is_void_v<typename StringMapOf<T>::type>) {
      Register<typename StringMapOf<T>::type>();
    } else if constexpr (Mapped<T>) {
      const std::string model = ModelName<T>(resource_version_);
      if (cpp_builders_.count(model) > 0) return;
      cpp_builders_[model] = [this] { BuildStruct<T>(); };
      ForEachMappedField<T>([&](std::string_view, unsigned, auto type) {
        Register<typename decltype(type)::type>();
      });
    }
  }

  template <class T>
  void BuildStruct() {
    const std::string model = ModelName<T>(resource_version_);
    schemas_[model] = Schema::object();  // placeholder: stops recursion
    const UpstreamType* upstream = FindUpstreamType(model);
    Schema props = Schema::object();
    ForEachMappedField<T>(
        [&](std::string_view name, unsigned flags, auto type) {
          const UpstreamField* f =
              upstream != nullptr ? upstream->FindField(name) : nullptr;
          props[std::string(name)] = Member<typename decltype(type)::type>(
              flags, f != nullptr ? f->shape : "");
        });
    Schema s = {{"type", "object"}};
    if constexpr (KeepsUnknownFields<T>()) {
      // Upstream's fields draplane keeps verbatim, so that explain lists
      // them and client-side apply finds their patch strategies.
      if (upstream != nullptr) {
        for (const UpstreamField& f : upstream->fields) {
          if (!props.contains(f.name))
            props[std::string(f.name)] = Shape(f.shape);
        }
      }
      s["x-kubernetes-preserve-unknown-fields"] = true;
    }
    s["properties"] = std::move(props);
    schemas_[model] = std::move(s);
  }

  template <class M>
  Schema Member(unsigned flags, std::string_view shape) {
    if constexpr (!std::is_same_v<typename DescribedAs<M>::type, M>) {
      return Member<typename DescribedAs<M>::type>(flags, shape);
    } else if constexpr (!std::is_void_v<typename OptionalOf<M>::type>) {
      return Member<typename OptionalOf<M>::type>(flags, shape);
    } else if constexpr (!std::is_void_v<typename VectorOf<M>::type>) {
      return Schema{{"type", "array"},
                    {"items", Member<typename VectorOf<M>::type>(
                                  flags, StripPrefix(shape, "[]"))}};
    } else if constexpr (!std::is_void_v<typename StringMapOf<M>::type>) {
      return Schema{
          {"type", "object"},
          {"additionalProperties", Member<typename StringMapOf<M>::type>(
                                       flags, StripPrefix(shape, "map[]"))}};
    } else if constexpr (Mapped<M>) {
      return Ref(ModelName<M>(resource_version_));
    } else if constexpr (std::is_same_v<M, std::string>) {
      if (shape == "MicroTime") return Ref(kMicroTime);
      if (shape == "Time" || (flags & kTimestamp) != 0) return Ref(kTime);
      return Schema{{"type", "string"}};
    } else if constexpr (std::is_same_v<M, bool>) {
      return Schema{{"type", "boolean"}};
    } else if constexpr (std::is_integral_v<M>) {
      return Schema{{"type", "integer"},
                    {"format", sizeof(M) <= 4 ? "int32" : "int64"}};
    } else if constexpr (std::is_same_v<M, Quantity>) {
      return Ref(kQuantity);
    } else {
      static_assert(std::is_same_v<M, api::Json>, "unsupported member type");
      return Shape(shape);
    }
  }

  // The schema of an upstream shape (see UpstreamField::shape).
  Schema Shape(std::string_view shape) {
    if (shape.substr(0, 2) == "[]") {
      return Schema{{"type", "array"}, {"items", Shape(shape.substr(2))}};
    }
    if (shape.substr(0, 5) == "map[]") {
      return Schema{{"type", "object"},
                    {"additionalProperties", Shape(shape.substr(5))}};
    }
    if (shape.substr(0, 4) == "ref:") return Ref(std::string(shape.substr(4)));
    if (shape == "string") return Schema{{"type", "string"}};
    if (shape == "int32" || shape == "int64") {
      return Schema{{"type", "integer"}, {"format", shape}};
    }
    if (shape == "bool") return Schema{{"type", "boolean"}};
    if (shape == "double")
      return Schema{{"type", "number"}, {"format", "double"}};
    if (shape == "bytes") return Schema{{"type", "string"}, {"format", "byte"}};
    if (shape == "Time") return Ref(kTime);
    if (shape == "MicroTime") return Ref(kMicroTime);
    if (shape == "Quantity") return Ref(kQuantity);
    if (shape == "IntOrString") return Ref(kIntOrString);
    return OpaqueObject();
  }

  void BuildFromUpstream(const UpstreamType& t) {
    const std::string model(t.model_name);
    schemas_[model] = Schema::object();  // placeholder: stops recursion
    Schema props = Schema::object();
    for (const UpstreamField& f : t.fields) {
      props[std::string(f.name)] = Shape(f.shape);
    }
    Schema s = {{"type", "object"}};
    if (!props.empty()) s["properties"] = std::move(props);
    schemas_[model] = std::move(s);
  }

  const std::string group_;
  const std::string version_;
  // The version resource.k8s.io models are named in ("v1" elsewhere).
  const std::string resource_version_;
  std::map<std::string, std::function<void()>> cpp_builders_;
  SchemaMap schemas_;
};

// resource.k8s.io/v1beta1 from the v1 shape, as object_codec.cc's
// ConvertV1ToV1beta1 rewrites objects: a DeviceRequest carries the fields
// of v1's ExactDeviceRequest itself (between `name` and `firstAvailable`),
// and a Device is {name, basic: BasicDevice}, BasicDevice holding every
// other field of v1's Device.
void RewriteToV1beta1(SchemaMap& schemas) {
  const std::string prefix = "io.k8s.api.resource.v1beta1.";
  auto request = schemas.find(prefix + "DeviceRequest");
  auto exact = schemas.find(prefix + "ExactDeviceRequest");
  if (request != schemas.end() && exact != schemas.end()) {
    Schema& props = request->second["properties"];
    props.erase("exactly");
    for (auto& [name, field] : exact->second["properties"].items()) {
      props[name] = field;
    }
    schemas.erase(exact);
  }
  auto device = schemas.find(prefix + "Device");
  if (device != schemas.end()) {
    Schema basic = device->second;
    Schema& basic_props = basic["properties"];
    Schema name = basic_props["name"];
    basic_props.erase("name");
    device->second["properties"] =
        Schema{{"name", std::move(name)},
               {"basic", RefSchema(prefix + "BasicDevice")}};
    schemas[prefix + "BasicDevice"] = std::move(basic);
  }
}

// A property that gets siblings next to a $ref must wrap it (OpenAPI 3.0
// ignores a $ref's siblings), as upstream does with allOf.
Schema& WithSiblings(Schema& property) {
  if (property.contains("$ref")) {
    Schema ref = std::move(property);
    property = Schema{{"allOf", Schema::array({std::move(ref)})}};
  }
  return property;
}

// Adds what upstream declares beside the structure: descriptions,
// `required`, list/map types and patch strategies.
void Decorate(const std::string& model, Schema& schema) {
  const UpstreamType* t = FindUpstreamType(model);
  if (t == nullptr) return;
  if (!t->description.empty()) schema["description"] = t->description;
  if (!t->map_type.empty()) schema["x-kubernetes-map-type"] = t->map_type;
  if (!schema.contains("properties")) return;
  Schema& props = schema["properties"];
  Schema required = Schema::array();
  for (const UpstreamField& f : t->fields) {
    const std::string name(f.name);
    if (!props.contains(name)) continue;
    Schema& p = props[name];
    if (!f.description.empty()) WithSiblings(p)["description"] = f.description;
    if (!f.list_type.empty()) p["x-kubernetes-list-type"] = f.list_type;
    if (!f.list_map_keys.empty()) {
      Schema keys = Schema::array();
      std::string_view rest = f.list_map_keys;
      while (!rest.empty()) {
        size_t comma = rest.find(',');
        keys.push_back(std::string(rest.substr(0, comma)));
        rest = comma == std::string_view::npos ? "" : rest.substr(comma + 1);
      }
      p["x-kubernetes-list-map-keys"] = std::move(keys);
    }
    if (!f.map_type.empty())
      WithSiblings(p)["x-kubernetes-map-type"] = f.map_type;
    if (!f.patch_strategy.empty()) {
      p["x-kubernetes-patch-strategy"] = f.patch_strategy;
    }
    if (!f.patch_merge_key.empty()) {
      p["x-kubernetes-patch-merge-key"] = f.patch_merge_key;
    }
    if (!f.optional) required.push_back(name);
  }
  if (!required.empty()) schema["required"] = std::move(required);
}

}  // namespace

SchemaMap BuildComponentSchemas(std::string_view group,
                                std::string_view version,
                                const std::set<std::string>& roots) {
  Builder builder(group, version);
  for (const api::KindInfo& kind : api::ServedKinds()) {
    if (kind.group != group) continue;
    bool served = false;
    for (std::string_view v : kind.versions) served = served || v == version;
    if (!served) continue;
    if (builder.AddKind(kind.kind)) builder.AddList(kind.kind);
  }
  for (const std::string& model : roots) builder.AddSupportModel(model);
  SchemaMap schemas = std::move(builder.schemas());
  if (group == "resource.k8s.io" && version == "v1beta1") {
    RewriteToV1beta1(schemas);
  }
  for (auto& [model, schema] : schemas) Decorate(model, schema);
  return schemas;
}

}  // namespace draplane::openapi::internal

#include "api/object_codec.h"

#include <algorithm>
#include <array>

#include "api/internal/json_mapping.h"
#include "api/internal/type_mappings.h"
#include "common/str_cat.h"

namespace draplane::api {
namespace {

using internal::DecodeContext;

// Fields of v1 ExactDeviceRequest that v1beta1 keeps flat on DeviceRequest.
constexpr std::array<std::string_view, 7> kExactRequestFields = {
    "deviceClassName", "selectors",   "allocationMode", "count",
    "adminAccess",     "tolerations", "capacity"};

bool IsResourceGroupKind(std::string_view kind) {
  return kind == "ResourceClaim" || kind == "ResourceClaimTemplate" ||
         kind == "ResourceSlice" || kind == "DeviceClass" ||
         kind == "DeviceTaintRule";
}

// Applies `fn` to spec.devices.requests (claims) or spec.spec.devices.requests
// (templates), if present and an array.
template <class Fn>
void ForEachRequest(std::string_view kind, Json& obj, Fn fn) {
  Json* spec = nullptr;
  if (!obj.is_object() || !obj.contains("spec") || !obj["spec"].is_object()) {
    return;
  }
  spec = &obj["spec"];
  if (kind == "ResourceClaimTemplate") {
    if (!spec->contains("spec") || !(*spec)["spec"].is_object()) return;
    spec = &(*spec)["spec"];
  }
  if (!spec->contains("devices") || !(*spec)["devices"].is_object()) return;
  Json& devices = (*spec)["devices"];
  if (!devices.contains("requests") || !devices["requests"].is_array()) return;
  for (Json& request : devices["requests"]) {
    if (request.is_object()) fn(request);
  }
}

template <class Fn>
void ForEachSliceDevice(Json& obj, Fn fn) {
  if (!obj.is_object() || !obj.contains("spec") || !obj["spec"].is_object()) {
    return;
  }
  Json& spec = obj["spec"];
  if (!spec.contains("devices") || !spec["devices"].is_array()) return;
  for (Json& device : spec["devices"]) {
    if (device.is_object()) fn(device);
  }
}

void ReplaceVersion(Json& obj, std::string_view version) {
  if (obj.is_object() && obj.contains("apiVersion")) {
    obj["apiVersion"] = StrCat("resource.k8s.io/", version);
  }
}

template <class T>
absl::StatusOr<DecodeResult> DecodeTyped(const Json& json,
                                         const TypeMeta& type) {
  DecodeContext ctx;
  T value{};
  internal::DecodeStruct(json, value, internal::DecodePath(), ctx,
                         /*top_level=*/true);
  if (!ctx.errors.empty()) {
    return absl::InvalidArgumentError(StrCat(
        type.kind, " in version \"", SplitApiVersion(type.api_version).second,
        "\" cannot be handled as a ", type.kind, ": ",
        AggregateMessage(ctx.errors)));
  }
  DecodeResult result{Object{type, std::move(value)}, std::move(ctx.unknown)};
  return result;
}

}  // namespace

Json ConvertV1beta1ToV1(std::string_view kind, const Json& json) {
  Json out = json;
  if (kind == "ResourceClaim" || kind == "ResourceClaimTemplate") {
    ForEachRequest(kind, out, [](Json& request) {
      Json exactly = Json::object();
      for (std::string_view field : kExactRequestFields) {
        std::string key(field);
        if (request.contains(key)) {
          exactly[key] = request[key];
          request.erase(key);
        }
      }
      if (!exactly.empty()) {
        // Keep "name" first and "exactly" before "firstAvailable", like v1.
        Json reordered = Json::object();
        if (request.contains("name")) reordered["name"] = request["name"];
        reordered["exactly"] = std::move(exactly);
        for (auto it = request.begin(); it != request.end(); ++it) {
          if (it.key() != "name") reordered[it.key()] = it.value();
        }
        request = std::move(reordered);
      }
    });
  } else if (kind == "ResourceSlice") {
    if (out.contains("spec") && out["spec"].is_object()) {
      Json& spec = out["spec"];
      // v1beta1 nodeName/allNodes are values; v1 uses pointers (unset when
      // empty/false), as upstream's conversion functions do.
      if (spec.contains("nodeName") && spec["nodeName"] == "") {
        spec.erase("nodeName");
      }
      if (spec.contains("allNodes") && spec["allNodes"] == false) {
        spec.erase("allNodes");
      }
    }
    ForEachSliceDevice(out, [](Json& device) {
      if (!device.contains("basic")) return;
      Json basic = device["basic"];
      device.erase("basic");
      if (basic.is_object()) {
        for (auto it = basic.begin(); it != basic.end(); ++it) {
          if (!device.contains(it.key())) device[it.key()] = it.value();
        }
      } else if (!basic.is_null()) {
        device["basic"] = basic;  // wrong type: left for the decoder to report
      }
    });
  }
  ReplaceVersion(out, "v1");
  return out;
}

Json ConvertV1ToV1beta1(std::string_view kind, const Json& json) {
  Json out = json;
  if (kind == "ResourceClaim" || kind == "ResourceClaimTemplate") {
    ForEachRequest(kind, out, [](Json& request) {
      if (!request.contains("exactly")) return;
      Json exactly = request["exactly"];
      Json flat = Json::object();
      if (request.contains("name")) flat["name"] = request["name"];
      if (exactly.is_object()) {
        for (auto it = exactly.begin(); it != exactly.end(); ++it) {
          flat[it.key()] = it.value();
        }
      }
      for (auto it = request.begin(); it != request.end(); ++it) {
        if (it.key() != "name" && it.key() != "exactly") {
          flat[it.key()] = it.value();
        }
      }
      request = std::move(flat);
    });
  } else if (kind == "ResourceSlice") {
    ForEachSliceDevice(out, [](Json& device) {
      Json wrapped = Json::object();
      Json basic = Json::object();
      for (auto it = device.begin(); it != device.end(); ++it) {
        if (it.key() == "name") {
          wrapped["name"] = it.value();
        } else {
          basic[it.key()] = it.value();
        }
      }
      wrapped["basic"] = std::move(basic);
      device = std::move(wrapped);
    });
  }
  ReplaceVersion(out, "v1beta1");
  return out;
}

absl::StatusOr<DecodeResult> DecodeObject(const Json& json) {
  if (!json.is_object()) {
    return absl::InvalidArgumentError(
        StrCat("expected a JSON object, got ", internal::JsonTypeName(json)));
  }
  TypeMeta type;
  auto read_string = [&](const char* key, std::string& out) -> absl::Status {
    if (!json.contains(key)) return absl::OkStatus();
    if (!json[key].is_string()) {
      return absl::InvalidArgumentError(StrCat(
          key, ": must be a string, got ", internal::JsonTypeName(json[key])));
    }
    out = json[key].get<std::string>();
    return absl::OkStatus();
  };
  if (auto s = read_string("apiVersion", type.api_version); !s.ok()) return s;
  if (auto s = read_string("kind", type.kind); !s.ok()) return s;
  if (type.kind.empty()) {
    return absl::InvalidArgumentError(StrCat(
        "Object 'Kind' is missing in '", DumpJson(json).substr(0, 200), "'"));
  }
  if (type.api_version.empty()) {
    return absl::InvalidArgumentError(
        StrCat("Object 'apiVersion' is missing in object of kind \"", type.kind,
               "\""));
  }
  auto [group, version] = SplitApiVersion(type.api_version);
  const KindInfo* info = FindKind(group, type.kind);
  if (info == nullptr) {
    return DecodeResult{Object{type, UnstructuredObject{json}}, {}};
  }
  if (std::find(info->versions.begin(), info->versions.end(), version) ==
      info->versions.end()) {
    return absl::InvalidArgumentError(StrCat("no kind \"", type.kind,
                                             "\" is registered for version \"",
                                             type.api_version, "\""));
  }
  const Json* body = &json;
  Json converted;
  if (group == "resource.k8s.io" && version == "v1beta1") {
    converted = ConvertV1beta1ToV1(type.kind, json);
    body = &converted;
  }
  const std::string& k = type.kind;
  if (k == "DeviceClass") return DecodeTyped<DeviceClass>(*body, type);
  if (k == "ResourceClaim") return DecodeTyped<ResourceClaim>(*body, type);
  if (k == "ResourceClaimTemplate") {
    return DecodeTyped<ResourceClaimTemplate>(*body, type);
  }
  if (k == "ResourceSlice") return DecodeTyped<ResourceSlice>(*body, type);
  if (k == "DeviceTaintRule") return DecodeTyped<DeviceTaintRule>(*body, type);
  if (k == "Namespace") return DecodeTyped<Namespace>(*body, type);
  if (k == "Node") return DecodeTyped<Node>(*body, type);
  if (k == "Pod") return DecodeTyped<Pod>(*body, type);
  if (k == "Event") return DecodeTyped<Event>(*body, type);
  if (k == "ResourceQuota") return DecodeTyped<ResourceQuota>(*body, type);
  if (k == "ServiceAccount") return DecodeTyped<ServiceAccount>(*body, type);
  if (k == "Lease") return DecodeTyped<Lease>(*body, type);
  if (k == "Deployment") return DecodeTyped<Deployment>(*body, type);
  if (k == "Job") return DecodeTyped<Job>(*body, type);
  if (k == "Role") return DecodeTyped<Role>(*body, type);
  if (k == "ClusterRole") return DecodeTyped<ClusterRole>(*body, type);
  if (k == "RoleBinding") return DecodeTyped<RoleBinding>(*body, type);
  if (k == "ClusterRoleBinding") {
    return DecodeTyped<ClusterRoleBinding>(*body, type);
  }
  return absl::InternalError(StrCat("kind ", k, " has no decoder"));
}

Json EncodeAllocationResult(const AllocationResult& allocation) {
  return internal::ToJson(allocation);
}

absl::StatusOr<Json> EncodeObject(const Object& object,
                                  std::string_view api_version) {
  std::string target(api_version.empty() ? object.type.api_version
                                         : api_version);
  if (const auto* u = std::get_if<UnstructuredObject>(&object.value)) {
    Json out = u->json;
    if (!api_version.empty()) out["apiVersion"] = target;
    return out;
  }
  auto [group, version] = SplitApiVersion(target);
  const KindInfo* info = FindKind(group, object.type.kind);
  if (info == nullptr || std::find(info->versions.begin(), info->versions.end(),
                                   version) == info->versions.end()) {
    return absl::InvalidArgumentError(StrCat("kind \"", object.type.kind,
                                             "\" is not served in version \"",
                                             target, "\""));
  }
  Json body = std::visit(
      [](const auto& v) -> Json {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>,
                                     UnstructuredObject>) {
          return v.json;
        } else {
          return internal::ToJson(v);
        }
      },
      object.value);
  // kind and apiVersion first, then the body's members, moved (its keys
  // are distinct, so only kind and apiVersion need a search).
  Json out = Json::object();
  // Room for every member first: one allocation instead of growing.
  out.get_ref<Json::object_t&>().reserve(body.size() + 2);
  out["kind"] = object.type.kind;
  out["apiVersion"] = target;
  for (auto it = body.begin(); it != body.end(); ++it) {
    if (it.key() == "kind" || it.key() == "apiVersion") {
      out[it.key()] = std::move(it.value());
    } else {
      internal::AppendMember(out, it.key(), std::move(it.value()));
    }
  }
  if (group == "resource.k8s.io" && version == "v1beta1" &&
      IsResourceGroupKind(object.type.kind)) {
    out = ConvertV1ToV1beta1(object.type.kind, out);
  }
  return out;
}

namespace internal {

std::string JsonTypeName(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::object:
      return "object";
    case Json::value_t::array:
      return "array";
    case Json::value_t::string:
      return "string";
    case Json::value_t::boolean:
      return "boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "integer";
    case Json::value_t::number_float:
      return "number";
    default:
      return "value";
  }
}

// RFC 3339 as Go's time.RFC3339 parser accepts it:
// YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM).
bool IsRfc3339(std::string_view s) {
  auto digits = [&](size_t pos, size_t n) {
    if (pos + n > s.size()) return false;
    for (size_t i = pos; i < pos + n; ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
    }
    return true;
  };
  if (!digits(0, 4) || s.size() < 20 || s[4] != '-' || !digits(5, 2) ||
      s[7] != '-' || !digits(8, 2) || (s[10] != 'T' && s[10] != 't') ||
      !digits(11, 2) || s[13] != ':' || !digits(14, 2) || s[16] != ':' ||
      !digits(17, 2)) {
    return false;
  }
  int month = (s[5] - '0') * 10 + (s[6] - '0');
  int day = (s[8] - '0') * 10 + (s[9] - '0');
  int hour = (s[11] - '0') * 10 + (s[12] - '0');
  int minute = (s[14] - '0') * 10 + (s[15] - '0');
  int second = (s[17] - '0') * 10 + (s[18] - '0');
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 ||
      minute > 59 || second > 59) {
    return false;
  }
  size_t pos = 19;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    size_t start = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') ++pos;
    if (pos == start) return false;
  }
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    return pos + 1 == s.size();
  }
  if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    return pos + 6 == s.size() && digits(pos + 1, 2) && s[pos + 3] == ':' &&
           digits(pos + 4, 2);
  }
  return false;
}

bool IsRfc3339Micro(std::string_view s) {
  // "2006-01-02T15:04:05" then ".dddddd" then the zone.
  if (s.size() < 27 || s[19] != '.') return false;
  for (size_t i = 20; i < 26; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  if (s[26] >= '0' && s[26] <= '9') return false;  // more than six digits
  return IsRfc3339(s);
}

}  // namespace internal
}  // namespace draplane::api

#include "cdi/cdi_spec.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "cdi/internal/strict_json.h"
#include "common/str_cat.h"
#include "nlohmann/json.hpp"

namespace draplane::cdi {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

bool IsLetter(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlnum(char c) { return IsLetter(c) || IsDigit(c); }

// ---------------------------------------------------------------------------
// Versions (specs-go/version.go).

struct Version {
  int major = 0, minor = 0, patch = 0;
  friend auto operator<=>(const Version&, const Version&) = default;
};

// Known versions, oldest first. vEarliest is 0.3.0 but ValidateVersion
// accepts every released version.
constexpr std::string_view kKnownVersions[] = {
    "0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0",
    "0.6.0", "0.7.0", "0.8.0", "1.0.0", "1.1.0"};

// Upstream's newVersion trims one leading "v".
std::string_view TrimV(std::string_view v) {
  if (!v.empty() && v.front() == 'v') v.remove_prefix(1);
  return v;
}

std::optional<Version> KnownVersion(std::string_view text) {
  text = TrimV(text);
  for (std::string_view known : kKnownVersions) {
    if (text == known) {
      return Version{known[0] - '0', known[2] - '0', known[4] - '0'};
    }
  }
  return std::nullopt;
}

template <typename F>
bool AnyEdits(const CdiSpec& spec, F f) {
  if (f(spec.container_edits)) return true;
  for (const Device& d : spec.devices) {
    if (f(d.container_edits)) return true;
  }
  return false;
}

bool RequiresV110(const CdiSpec& spec) {
  return AnyEdits(spec, [](const ContainerEdits& e) {
    if (!e.net_devices.empty()) return true;
    return e.intel_rdt.has_value() && (e.intel_rdt->schemata.has_value() ||
                                       e.intel_rdt->enable_monitoring);
  });
}

bool RequiresV070(const CdiSpec& spec) {
  return AnyEdits(spec, [](const ContainerEdits& e) {
    return e.intel_rdt.has_value() || !e.additional_gids.empty();
  });
}

bool RequiresV060(const CdiSpec& spec) {
  if (!spec.annotations.empty()) return true;
  for (const Device& d : spec.devices) {
    if (!d.annotations.empty()) return true;
  }
  size_t slash = spec.kind.find('/');
  if (slash == std::string::npos) return false;
  return spec.kind.find('.', slash + 1) != std::string::npos;
}

bool RequiresV050(const CdiSpec& spec) {
  for (const Device& d : spec.devices) {
    if (!d.name.empty() && IsDigit(d.name[0])) return true;
  }
  return AnyEdits(spec, [](const ContainerEdits& e) {
    for (const DeviceNode& n : e.device_nodes) {
      if (n.host_path.has_value() && !n.host_path->empty()) return true;
    }
    return false;
  });
}

bool RequiresV040(const CdiSpec& spec) {
  return AnyEdits(spec, [](const ContainerEdits& e) {
    for (const Mount& m : e.mounts) {
      if (m.type.has_value() && !m.type->empty()) return true;
    }
    return false;
  });
}

// ---------------------------------------------------------------------------
// Names.

// Kubernetes' IsDNS1123Subdomain / IsQualifiedName messages (apimachinery
// util/validation), used for annotation keys as CDI's k8s copy does.
constexpr std::string_view kQualifiedNameFmt =
    "must consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyName',  or "
    "'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
constexpr std::string_view kDns1123SubdomainMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

bool IsDns1123Label(std::string_view s) {
  if (s.empty()) return false;
  auto lower_alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || IsDigit(c);
  };
  if (!lower_alnum(s.front()) || !lower_alnum(s.back())) return false;
  for (char c : s) {
    if (!lower_alnum(c) && c != '-') return false;
  }
  return true;
}

std::vector<std::string> IsDns1123Subdomain(std::string_view s) {
  std::vector<std::string> errs;
  if (s.size() > 253) errs.push_back("must be no more than 253 characters");
  bool ok = !s.empty();
  size_t start = 0;
  while (ok) {
    size_t dot = s.find('.', start);
    std::string_view label =
        s.substr(start, dot == std::string_view::npos ? std::string_view::npos
                                                      : dot - start);
    ok = IsDns1123Label(label);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (!ok) errs.emplace_back(kDns1123SubdomainMsg);
  return errs;
}

bool IsQualifiedNamePart(std::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

std::vector<std::string> IsQualifiedName(std::string_view value) {
  std::vector<std::string> errs;
  std::string_view name = value;
  size_t slash = value.find('/');
  if (slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) {
      errs.push_back(StrCat("a qualified name ", kQualifiedNameFmt,
                            " with an optional DNS subdomain prefix and '/' "
                            "(e.g. 'example.com/MyName')"));
      return errs;
    }
    std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.push_back("prefix part must be non-empty");
    } else {
      for (const std::string& m : IsDns1123Subdomain(prefix)) {
        errs.push_back(StrCat("prefix part ", m));
      }
    }
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > 63) {
    errs.push_back("name part must be no more than 63 characters");
  }
  if (!name.empty() && !IsQualifiedNamePart(name)) {
    errs.push_back(StrCat("name part ", kQualifiedNameFmt));
  }
  return errs;
}

// CDI vendor: DNS-like (letters, digits, '-', '.'), a leading letter as
// the CDI parser requires, a trailing letter or digit.
std::string VendorProblem(std::string_view vendor) {
  if (vendor.size() > 253) return "must be no more than 253 characters";
  if (!IsLetter(vendor.front())) return "must start with a letter";
  if (!IsAlnum(vendor.back())) return "must end with a letter or digit";
  for (char c : vendor) {
    if (!IsAlnum(c) && c != '-' && c != '.') {
      return "may only contain letters, digits, '-' and '.'";
    }
  }
  return "";
}

std::string ClassProblem(std::string_view cls) {
  if (cls.size() > 63) return "must be no more than 63 characters";
  if (!IsLetter(cls.front())) return "must start with a letter";
  if (!IsAlnum(cls.back())) return "must end with a letter or digit";
  for (char c : cls) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') {
      return "may only contain letters, digits, '-', '_' and '.'";
    }
  }
  return "";
}

bool IsValidDeviceName(std::string_view name) {
  if (name.empty() || !IsAlnum(name.front()) || !IsAlnum(name.back())) {
    return false;
  }
  for (char c : name) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.' && c != ':') {
      return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------
// Validation.

constexpr int64_t kTotalAnnotationSizeLimit = 256 * 1024;

void ValidateAnnotations(const std::map<std::string, std::string>& annotations,
                         const FieldPath& path, FieldErrorList& errs) {
  int64_t total = 0;
  for (const auto& [key, value] : annotations) {
    for (const std::string& m : IsQualifiedName(absl::AsciiStrToLower(key))) {
      errs.push_back(Invalid(path, key, m));
    }
    total += static_cast<int64_t>(key.size() + value.size());
  }
  if (total > kTotalAnnotationSizeLimit) {
    errs.push_back(TooLong(path, kTotalAnnotationSizeLimit));
  }
}

void ValidateEnv(const std::vector<std::string>& env, const FieldPath& path,
                 FieldErrorList& errs) {
  for (size_t i = 0; i < env.size(); ++i) {
    size_t eq = env[i].find('=');
    if (eq == std::string::npos || eq == 0) {
      errs.push_back(Invalid(path.Index(static_cast<int64_t>(i)), env[i],
                             "must be of the form KEY=VALUE"));
    }
  }
}

void RequireAbsolute(const std::string& value, const FieldPath& path,
                     FieldErrorList& errs) {
  if (value.empty()) {
    errs.push_back(Required(path));
  } else if (value.front() != '/') {
    errs.push_back(Invalid(path, value, "must be an absolute path"));
  }
}

const std::vector<std::string>& HookNames() {
  static const auto* names = new std::vector<std::string>{
      "prestart",       "createRuntime", "createContainer",
      "startContainer", "poststart",     "poststop"};
  return *names;
}

void ValidateEdits(const ContainerEdits& e, const FieldPath& path,
                   const std::optional<Version>& version,
                   FieldErrorList& errs) {
  ValidateEnv(e.env, path.Child("env"), errs);
  for (size_t i = 0; i < e.device_nodes.size(); ++i) {
    const DeviceNode& n = e.device_nodes[i];
    FieldPath p = path.Child("deviceNodes").Index(static_cast<int64_t>(i));
    RequireAbsolute(n.path, p.Child("path"), errs);
    if (n.type.has_value() && !n.type->empty() && *n.type != "b" &&
        *n.type != "c" && *n.type != "u" && *n.type != "p") {
      errs.push_back(
          NotSupported(p.Child("type"), *n.type, {"b", "c", "u", "p"}));
    }
    if (n.permissions.has_value() &&
        n.permissions->find_first_not_of("rwm") != std::string::npos) {
      errs.push_back(Invalid(p.Child("permissions"), *n.permissions,
                             "must be a combination of 'r', 'w' and 'm'"));
    }
  }
  for (size_t i = 0; i < e.net_devices.size(); ++i) {
    FieldPath p = path.Child("netDevices").Index(static_cast<int64_t>(i));
    if (e.net_devices[i].host_interface_name.empty()) {
      errs.push_back(Required(p.Child("hostInterfaceName")));
    }
    if (e.net_devices[i].name.empty())
      errs.push_back(Required(p.Child("name")));
  }
  for (size_t i = 0; i < e.hooks.size(); ++i) {
    const Hook& h = e.hooks[i];
    FieldPath p = path.Child("hooks").Index(static_cast<int64_t>(i));
    if (h.hook_name.empty()) {
      errs.push_back(Required(p.Child("hookName")));
    } else {
      bool known = false;
      for (const std::string& n : HookNames())
        known = known || n == h.hook_name;
      if (!known) {
        errs.push_back(
            NotSupported(p.Child("hookName"), h.hook_name, HookNames()));
      }
    }
    RequireAbsolute(h.path, p.Child("path"), errs);
    ValidateEnv(h.env, p.Child("env"), errs);
    if (h.timeout.has_value() && *h.timeout <= 0) {
      errs.push_back(
          Invalid(p.Child("timeout"), *h.timeout, "must be greater than zero"));
    }
  }
  for (size_t i = 0; i < e.mounts.size(); ++i) {
    const Mount& m = e.mounts[i];
    FieldPath p = path.Child("mounts").Index(static_cast<int64_t>(i));
    if (m.host_path.empty()) errs.push_back(Required(p.Child("hostPath")));
    RequireAbsolute(m.container_path, p.Child("containerPath"), errs);
  }
  if (e.intel_rdt.has_value()) {
    const IntelRdt& rdt = *e.intel_rdt;
    FieldPath p = path.Child("intelRdt");
    if (rdt.clos_id.has_value()) {
      const std::string& id = *rdt.clos_id;
      if (id.size() >= 4096 || id == "." || id == ".." ||
          id.find_first_of("/\n") != std::string::npos) {
        errs.push_back(
            Invalid(p.Child("closID"), id, "must be a valid file name"));
      }
    }
    // specs-go validateVersionedIntelRdt: the 1.1.0 schema dropped them.
    if (version.has_value() && *version >= Version{1, 1, 0}) {
      if (rdt.enable_cmt) {
        errs.push_back(Forbidden(p.Child("enableCMT"),
                                 "not valid for CDI spec version 1.1.0 "
                                 "and later"));
      }
      if (rdt.enable_mbm) {
        errs.push_back(Forbidden(p.Child("enableMBM"),
                                 "not valid for CDI spec version 1.1.0 "
                                 "and later"));
      }
    }
  }
}

// ---------------------------------------------------------------------------
// JSON encoding, in specs-go field order.

OrderedJson StringsJson(const std::vector<std::string>& v) {
  OrderedJson out = OrderedJson::array();
  for (const std::string& s : v) out.push_back(s);
  return out;
}

OrderedJson MapJson(const std::map<std::string, std::string>& m) {
  OrderedJson out = OrderedJson::object();
  for (const auto& [k, v] : m) out[k] = v;
  return out;
}

OrderedJson EditsJson(const ContainerEdits& e) {
  OrderedJson out = OrderedJson::object();
  if (!e.env.empty()) out["env"] = StringsJson(e.env);
  if (!e.device_nodes.empty()) {
    OrderedJson nodes = OrderedJson::array();
    for (const DeviceNode& n : e.device_nodes) {
      OrderedJson j = OrderedJson::object();
      j["path"] = n.path;
      if (n.host_path) j["hostPath"] = *n.host_path;
      if (n.type) j["type"] = *n.type;
      if (n.major) j["major"] = *n.major;
      if (n.minor) j["minor"] = *n.minor;
      if (n.file_mode) j["fileMode"] = *n.file_mode;
      if (n.permissions) j["permissions"] = *n.permissions;
      if (n.uid) j["uid"] = *n.uid;
      if (n.gid) j["gid"] = *n.gid;
      nodes.push_back(std::move(j));
    }
    out["deviceNodes"] = std::move(nodes);
  }
  if (!e.net_devices.empty()) {
    OrderedJson devs = OrderedJson::array();
    for (const NetDevice& d : e.net_devices) {
      OrderedJson j = OrderedJson::object();
      j["hostInterfaceName"] = d.host_interface_name;
      j["name"] = d.name;
      devs.push_back(std::move(j));
    }
    out["netDevices"] = std::move(devs);
  }
  if (!e.hooks.empty()) {
    OrderedJson hooks = OrderedJson::array();
    for (const Hook& h : e.hooks) {
      OrderedJson j = OrderedJson::object();
      j["hookName"] = h.hook_name;
      j["path"] = h.path;
      if (!h.args.empty()) j["args"] = StringsJson(h.args);
      if (!h.env.empty()) j["env"] = StringsJson(h.env);
      if (h.timeout) j["timeout"] = *h.timeout;
      hooks.push_back(std::move(j));
    }
    out["hooks"] = std::move(hooks);
  }
  if (!e.mounts.empty()) {
    OrderedJson mounts = OrderedJson::array();
    for (const Mount& m : e.mounts) {
      OrderedJson j = OrderedJson::object();
      j["hostPath"] = m.host_path;
      j["containerPath"] = m.container_path;
      if (!m.options.empty()) j["options"] = StringsJson(m.options);
      if (m.type) j["type"] = *m.type;
      mounts.push_back(std::move(j));
    }
    out["mounts"] = std::move(mounts);
  }
  if (e.intel_rdt) {
    const IntelRdt& r = *e.intel_rdt;
    OrderedJson j = OrderedJson::object();
    if (r.clos_id) j["closID"] = *r.clos_id;
    if (r.l3_cache_schema) j["l3CacheSchema"] = *r.l3_cache_schema;
    if (r.mem_bw_schema) j["memBwSchema"] = *r.mem_bw_schema;
    if (r.schemata) j["schemata"] = StringsJson(*r.schemata);
    if (r.enable_monitoring) j["enableMonitoring"] = true;
    if (r.enable_cmt) j["enableCMT"] = true;
    if (r.enable_mbm) j["enableMBM"] = true;
    out["intelRdt"] = std::move(j);
  }
  if (!e.additional_gids.empty()) {
    OrderedJson gids = OrderedJson::array();
    for (uint32_t g : e.additional_gids) gids.push_back(g);
    out["additionalGids"] = std::move(gids);
  }
  return out;
}

// ---------------------------------------------------------------------------
// Strict decoding.

using internal::StrictDecoder;

void DecodeStrings(StrictDecoder& d, const Json& obj, std::string_view key,
                   const FieldPath& path, std::vector<std::string>& out) {
  if (const Json* v = StrictDecoder::Field(obj, key)) {
    d.StringList(*v, path.Child(key), out);
  }
}

void DecodeOptionalString(StrictDecoder& d, const Json& obj,
                          std::string_view key, const FieldPath& path,
                          std::optional<std::string>& out) {
  if (const Json* v = StrictDecoder::Field(obj, key)) {
    std::string s;
    if (d.String(*v, path.Child(key), s)) out = std::move(s);
  }
}

void DecodeString(StrictDecoder& d, const Json& obj, std::string_view key,
                  const FieldPath& path, std::string& out) {
  if (const Json* v = StrictDecoder::Field(obj, key)) {
    d.String(*v, path.Child(key), out);
  }
}

void DecodeOptionalUint32(StrictDecoder& d, const Json& obj,
                          std::string_view key, const FieldPath& path,
                          std::optional<uint32_t>& out) {
  if (const Json* v = StrictDecoder::Field(obj, key)) {
    uint32_t n = 0;
    if (d.Uint32(*v, path.Child(key), n)) out = n;
  }
}

void DecodeOptionalInt64(StrictDecoder& d, const Json& obj,
                         std::string_view key, const FieldPath& path,
                         std::optional<int64_t>& out) {
  if (const Json* v = StrictDecoder::Field(obj, key)) {
    int64_t n = 0;
    if (d.Int64(*v, path.Child(key), n)) out = n;
  }
}

void DecodeBool(StrictDecoder& d, const Json& obj, std::string_view key,
                const FieldPath& path, bool& out) {
  if (const Json* v = StrictDecoder::Field(obj, key)) {
    d.Bool(*v, path.Child(key), out);
  }
}

template <typename T, typename F>
void DecodeList(StrictDecoder& d, const Json& obj, std::string_view key,
                const FieldPath& path, std::vector<T>& out, F decode_item) {
  const Json* v = StrictDecoder::Field(obj, key);
  if (v == nullptr || !d.Array(*v, path.Child(key))) return;
  for (size_t i = 0; i < v->size(); ++i) {
    T item;
    decode_item((*v)[i], path.Child(key).Index(static_cast<int64_t>(i)), item);
    out.push_back(std::move(item));
  }
}

void DecodeEdits(StrictDecoder& d, const Json& v, const FieldPath& path,
                 ContainerEdits& e) {
  if (!d.Object(v, path,
                {"env", "deviceNodes", "netDevices", "hooks", "mounts",
                 "intelRdt", "additionalGids"})) {
    return;
  }
  DecodeStrings(d, v, "env", path, e.env);
  DecodeList(d, v, "deviceNodes", path, e.device_nodes,
             [&d](const Json& j, const FieldPath& p, DeviceNode& n) {
               if (!d.Object(j, p,
                             {"path", "hostPath", "type", "major", "minor",
                              "fileMode", "permissions", "uid", "gid"})) {
                 return;
               }
               DecodeString(d, j, "path", p, n.path);
               DecodeOptionalString(d, j, "hostPath", p, n.host_path);
               DecodeOptionalString(d, j, "type", p, n.type);
               DecodeOptionalInt64(d, j, "major", p, n.major);
               DecodeOptionalInt64(d, j, "minor", p, n.minor);
               DecodeOptionalUint32(d, j, "fileMode", p, n.file_mode);
               DecodeOptionalString(d, j, "permissions", p, n.permissions);
               DecodeOptionalUint32(d, j, "uid", p, n.uid);
               DecodeOptionalUint32(d, j, "gid", p, n.gid);
             });
  DecodeList(d, v, "netDevices", path, e.net_devices,
             [&d](const Json& j, const FieldPath& p, NetDevice& n) {
               if (!d.Object(j, p, {"hostInterfaceName", "name"})) return;
               DecodeString(d, j, "hostInterfaceName", p,
                            n.host_interface_name);
               DecodeString(d, j, "name", p, n.name);
             });
  DecodeList(
      d, v, "hooks", path, e.hooks,
      [&d](const Json& j, const FieldPath& p, Hook& h) {
        if (!d.Object(j, p, {"hookName", "path", "args", "env", "timeout"})) {
          return;
        }
        DecodeString(d, j, "hookName", p, h.hook_name);
        DecodeString(d, j, "path", p, h.path);
        DecodeStrings(d, j, "args", p, h.args);
        DecodeStrings(d, j, "env", p, h.env);
        DecodeOptionalInt64(d, j, "timeout", p, h.timeout);
      });
  DecodeList(
      d, v, "mounts", path, e.mounts,
      [&d](const Json& j, const FieldPath& p, Mount& m) {
        if (!d.Object(j, p, {"hostPath", "containerPath", "options", "type"})) {
          return;
        }
        DecodeString(d, j, "hostPath", p, m.host_path);
        DecodeString(d, j, "containerPath", p, m.container_path);
        DecodeStrings(d, j, "options", p, m.options);
        DecodeOptionalString(d, j, "type", p, m.type);
      });
  if (const Json* r = StrictDecoder::Field(v, "intelRdt")) {
    FieldPath p = path.Child("intelRdt");
    if (d.Object(*r, p,
                 {"closID", "l3CacheSchema", "memBwSchema", "schemata",
                  "enableMonitoring", "enableCMT", "enableMBM"})) {
      IntelRdt rdt;
      DecodeOptionalString(d, *r, "closID", p, rdt.clos_id);
      DecodeOptionalString(d, *r, "l3CacheSchema", p, rdt.l3_cache_schema);
      DecodeOptionalString(d, *r, "memBwSchema", p, rdt.mem_bw_schema);
      if (const Json* s = StrictDecoder::Field(*r, "schemata")) {
        std::vector<std::string> schemata;
        if (d.StringList(*s, p.Child("schemata"), schemata)) {
          rdt.schemata = std::move(schemata);
        }
      }
      DecodeBool(d, *r, "enableMonitoring", p, rdt.enable_monitoring);
      DecodeBool(d, *r, "enableCMT", p, rdt.enable_cmt);
      DecodeBool(d, *r, "enableMBM", p, rdt.enable_mbm);
      e.intel_rdt = std::move(rdt);
    }
  }
  DecodeList(d, v, "additionalGids", path, e.additional_gids,
             [&d](const Json& j, const FieldPath& p, uint32_t& gid) {
               d.Uint32(j, p, gid);
             });
}

void DecodeAnnotations(StrictDecoder& d, const Json& obj, const FieldPath& path,
                       std::map<std::string, std::string>& out) {
  if (const Json* v = StrictDecoder::Field(obj, "annotations")) {
    d.StringMap(*v, path.Child("annotations"), out);
  }
}

CdiSpec DecodeSpec(StrictDecoder& d, const Json& v) {
  CdiSpec spec;
  const FieldPath root;
  if (!d.Object(
          v, root,
          {"cdiVersion", "kind", "annotations", "devices", "containerEdits"})) {
    return spec;
  }
  DecodeString(d, v, "cdiVersion", root, spec.cdi_version);
  DecodeString(d, v, "kind", root, spec.kind);
  DecodeAnnotations(d, v, root, spec.annotations);
  DecodeList(d, v, "devices", root, spec.devices,
             [&d](const Json& j, const FieldPath& p, Device& dev) {
               if (!d.Object(j, p, {"name", "annotations", "containerEdits"})) {
                 return;
               }
               DecodeString(d, j, "name", p, dev.name);
               DecodeAnnotations(d, j, p, dev.annotations);
               if (const Json* e = StrictDecoder::Field(j, "containerEdits")) {
                 DecodeEdits(d, *e, p.Child("containerEdits"),
                             dev.container_edits);
               }
             });
  if (const Json* e = StrictDecoder::Field(v, "containerEdits")) {
    DecodeEdits(d, *e, root.Child("containerEdits"), spec.container_edits);
  }
  return spec;
}

// ---------------------------------------------------------------------------
// Files.

absl::Status CheckFileName(const std::string& file_name) {
  if (file_name.empty() || file_name == "." || file_name == ".." ||
      file_name.find('/') != std::string::npos) {
    return absl::InvalidArgumentError(
        StrCat("invalid CDI spec file name \"", file_name,
               "\": must be a non-empty base name"));
  }
  return absl::OkStatus();
}

absl::Status ErrnoStatus(int err, std::string_view what,
                         const std::string& path) {
  return absl::ErrnoToStatus(err, StrCat(what, " ", path));
}

// mkdir -p with mode 0755.
absl::Status MakeDirs(const std::string& dir) {
  if (dir.empty()) return absl::InvalidArgumentError("empty CDI spec dir");
  for (size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos != dir.size() && dir[pos] != '/') continue;
    std::string prefix = dir.substr(0, pos);
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      return ErrnoStatus(errno, "mkdir", prefix);
    }
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) return ErrnoStatus(errno, "stat", dir);
  if (!S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(
        StrCat("CDI spec dir ", dir, " is not a directory"));
  }
  return absl::OkStatus();
}

absl::Status SyncDir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "open", dir);
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return ErrnoStatus(err, "fsync", dir);
  return absl::OkStatus();
}

absl::Status WriteAll(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "write", path);
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

}  // namespace

bool ContainerEdits::empty() const {
  return env.empty() && device_nodes.empty() && net_devices.empty() &&
         hooks.empty() && mounts.empty() && !intel_rdt.has_value() &&
         additional_gids.empty();
}

std::string MinimumCdiVersion(const CdiSpec& spec) {
  // specs-go requiredVersion: the newest version whose features are used.
  if (RequiresV110(spec)) return "1.1.0";
  if (RequiresV070(spec)) return "0.7.0";
  if (RequiresV060(spec)) return "0.6.0";
  if (RequiresV050(spec)) return "0.5.0";
  if (RequiresV040(spec)) return "0.4.0";
  return std::string(kEarliestCdiVersion);
}

FieldErrorList ValidateCdiSpecFields(const CdiSpec& spec) {
  FieldErrorList errs;
  const FieldPath root;

  // cdiVersion (specs-go ValidateVersion).
  std::optional<Version> version;
  FieldPath version_path = root.Child("cdiVersion");
  if (spec.cdi_version.empty()) {
    errs.push_back(Required(version_path));
  } else if (version = KnownVersion(spec.cdi_version); !version) {
    errs.push_back(
        NotSupported(version_path, spec.cdi_version,
                     std::vector<std::string>(std::begin(kKnownVersions),
                                              std::end(kKnownVersions))));
  } else {
    std::string min = MinimumCdiVersion(spec);
    if (*KnownVersion(min) > *version) {
      errs.push_back(Invalid(version_path, spec.cdi_version,
                             StrCat("the spec version must be at least v", min,
                                    " for the features used")));
    }
  }

  // kind = <vendor>/<class> (parser.ParseQualifier, ValidateVendorName,
  // ValidateClassName).
  FieldPath kind_path = root.Child("kind");
  if (spec.kind.empty()) {
    errs.push_back(Required(kind_path));
  } else {
    size_t slash = spec.kind.find('/');
    if (slash == std::string::npos || slash == 0 ||
        slash + 1 == spec.kind.size() ||
        spec.kind.find('/', slash + 1) != std::string::npos) {
      errs.push_back(
          Invalid(kind_path, spec.kind,
                  "must be <vendor>/<class>, e.g. vendor.com/device"));
    } else {
      std::string_view kind = spec.kind;
      std::string_view vendor = kind.substr(0, slash);
      std::string_view cls = kind.substr(slash + 1);
      if (std::string p = VendorProblem(vendor); !p.empty()) {
        errs.push_back(Invalid(kind_path, spec.kind,
                               StrCat("vendor \"", vendor, "\" ", p)));
      }
      if (std::string p = ClassProblem(cls); !p.empty()) {
        errs.push_back(
            Invalid(kind_path, spec.kind, StrCat("class \"", cls, "\" ", p)));
      }
    }
  }

  ValidateAnnotations(spec.annotations, root.Child("annotations"), errs);
  ValidateEdits(spec.container_edits, root.Child("containerEdits"), version,
                errs);

  FieldPath devices_path = root.Child("devices");
  if (spec.devices.empty()) {
    errs.push_back(
        Required(devices_path, "a spec must have at least one device"));
  }
  std::set<std::string_view> seen;
  for (size_t i = 0; i < spec.devices.size(); ++i) {
    const Device& d = spec.devices[i];
    FieldPath p = devices_path.Index(static_cast<int64_t>(i));
    if (d.name.empty()) {
      errs.push_back(Required(p.Child("name")));
    } else if (!IsValidDeviceName(d.name)) {
      errs.push_back(Invalid(
          p.Child("name"), d.name,
          "must consist of letters, digits, '-', '_', '.' or ':', and must "
          "start and end with a letter or digit"));
    } else if (!seen.insert(d.name).second) {
      errs.push_back(Duplicate(p.Child("name"), d.name));
    }
    ValidateAnnotations(d.annotations, p.Child("annotations"), errs);
    if (d.container_edits.empty()) {
      errs.push_back(Required(p.Child("containerEdits"),
                              "a device must have at least one container "
                              "edit"));
    }
    ValidateEdits(d.container_edits, p.Child("containerEdits"), version, errs);
  }
  return errs;
}

absl::Status ValidateCdiSpec(const CdiSpec& spec) {
  FieldErrorList errs = ValidateCdiSpecFields(spec);
  if (errs.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(AggregateMessage(errs));
}

std::string CdiSpecToJson(const CdiSpec& spec) {
  OrderedJson out = OrderedJson::object();
  out["cdiVersion"] = spec.cdi_version;
  out["kind"] = spec.kind;
  if (!spec.annotations.empty()) out["annotations"] = MapJson(spec.annotations);
  OrderedJson devices = OrderedJson::array();
  for (const Device& d : spec.devices) {
    OrderedJson j = OrderedJson::object();
    j["name"] = d.name;
    if (!d.annotations.empty()) j["annotations"] = MapJson(d.annotations);
    j["containerEdits"] = EditsJson(d.container_edits);
    devices.push_back(std::move(j));
  }
  out["devices"] = std::move(devices);
  if (!spec.container_edits.empty()) {
    out["containerEdits"] = EditsJson(spec.container_edits);
  }
  return out.dump(2);
}

absl::StatusOr<CdiSpec> CdiSpecFromText(std::string_view json_or_yaml) {
  absl::StatusOr<internal::ParsedText> parsed =
      internal::ParseJsonOrYaml(json_or_yaml);
  if (!parsed.ok()) return parsed.status();
  StrictDecoder decoder(/*yaml_scalars_as_strings=*/parsed->from_yaml);
  CdiSpec spec = DecodeSpec(decoder, parsed->json);
  if (absl::Status s = decoder.Finish(); !s.ok()) {
    return absl::InvalidArgumentError(
        StrCat("invalid CDI spec: ", StatusMessage(s)));
  }
  return spec;
}

std::string QualifiedDeviceName(std::string_view vendor, std::string_view cls,
                                std::string_view name) {
  return StrCat(vendor, "/", cls, "=", name);
}

std::string TransientSpecFileName(std::string_view vendor, std::string_view cls,
                                  std::string_view transient_id) {
  std::string id(transient_id);
  for (char& c : id) {
    if (c == '/') c = '_';
  }
  return StrCat(vendor, "-", cls, "_", id, ".json");
}

absl::Status WriteSpecFile(const std::string& dir, const std::string& file_name,
                           const CdiSpec& spec) {
  if (absl::Status s = CheckFileName(file_name); !s.ok()) return s;
  if (absl::Status s = ValidateCdiSpec(spec); !s.ok()) return s;
  if (absl::Status s = MakeDirs(dir); !s.ok()) return s;

  const std::string target = StrCat(dir, "/", file_name);
  // A dot file without the .json/.yaml extension: runtimes scanning `dir`
  // never pick it up, even if the process dies before the cleanup below.
  std::string tmp = StrCat(dir, "/.", file_name, ".tmp.XXXXXX");
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) return ErrnoStatus(errno, "create temporary file in", dir);

  auto fail = [&](absl::Status s) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    return s;
  };
  std::string text = CdiSpecToJson(spec);
  text.push_back('\n');
  if (absl::Status s = WriteAll(fd, text, tmp); !s.ok()) return fail(s);
  if (::fsync(fd) != 0) return fail(ErrnoStatus(errno, "fsync", tmp));
  if (::fchmod(fd, 0644) != 0) return fail(ErrnoStatus(errno, "chmod", tmp));
  int rc = ::close(fd);
  fd = -1;
  if (rc != 0) return fail(ErrnoStatus(errno, "close", tmp));
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    return fail(ErrnoStatus(errno, "rename to", target));
  }
  return SyncDir(dir);
}

absl::Status RemoveSpecFile(const std::string& dir,
                            const std::string& file_name) {
  if (absl::Status s = CheckFileName(file_name); !s.ok()) return s;
  const std::string target = StrCat(dir, "/", file_name);
  if (::unlink(target.c_str()) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return absl::OkStatus();
    return ErrnoStatus(errno, "remove", target);
  }
  return SyncDir(dir);
}

}  // namespace draplane::cdi

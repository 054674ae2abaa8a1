#include "sim/cluster_model.h"

#include <map>
#include <tuple>

#include "api/object_codec.h"
#include "api/validation/validation.h"
#include "common/field_errors.h"
#include "common/str_cat.h"

namespace draplane::sim {

namespace {

using api::Json;

absl::StatusOr<api::Object> DecodeValid(const Json& json,
                                        const std::string& what) {
  absl::StatusOr<api::DecodeResult> decoded = api::DecodeObject(json);
  if (!decoded.ok()) {
    return absl::InvalidArgumentError(
        StrCat(what, ": ", std::string(decoded.status().message())));
  }
  api::SetDefaults(decoded->object);
  FieldErrorList errors = api::ValidateObject(decoded->object);
  if (!errors.empty()) {
    return absl::InvalidArgumentError(
        StrCat(what, ": ", AggregateMessage(errors)));
  }
  return std::move(decoded->object);
}

// A CEL string literal.
std::string Quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

absl::StatusOr<ClusterModel> BuildCluster(const std::vector<TraceNode>& nodes) {
  ClusterModel model;
  Json device_class = {
      {"apiVersion", "resource.k8s.io/v1"},
      {"kind", "DeviceClass"},
      {"metadata", {{"name", kGpuClass}}},
      {"spec",
       {{"selectors",
         Json::array({{{"cel",
                        {{"expression", StrCat("device.driver == \"",
                                               kGpuDriver, "\"")}}}}})}}}};
  absl::StatusOr<api::Object> decoded =
      DecodeValid(device_class, "device class");
  if (!decoded.ok()) return decoded.status();
  model.device_class = std::make_shared<const api::Object>(*std::move(decoded));
  for (const TraceNode& n : nodes) {
    const std::string what = StrCat("node ", n.name);
    Json labels = Json::object();
    if (!n.model.empty()) labels[kModelLabel] = n.model;
    Json resources = {{"cpu", StrCat(n.cpu_milli, "m")},
                      {"memory", StrCat(n.memory_mib, "Mi")},
                      {"pods", "1000"}};
    Json node = {{"apiVersion", "v1"},
                 {"kind", "Node"},
                 {"metadata", {{"name", n.name}, {"labels", labels}}},
                 {"status",
                  {{"capacity", resources},
                   {"allocatable", resources},
                   {"conditions",
                    Json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
    decoded = DecodeValid(node, what);
    if (!decoded.ok()) return decoded.status();
    model.nodes.push_back(std::make_shared<const api::Object>(*decoded));
    if (n.gpus == 0) continue;
    Json devices = Json::array();
    for (int i = 0; i < n.gpus; ++i) {
      devices.push_back(
          {{"name", StrCat("gpu-", i)},
           {"attributes",
            {{"productName", {{"string", n.model}}}, {"index", {{"int", i}}}}},
           {"capacity", {{kShareCapacity, {{"value", "1"}}}}},
           {"allowMultipleAllocations", true}});
      ++model.gpus;
    }
    Json slice = {
        {"apiVersion", "resource.k8s.io/v1"},
        {"kind", "ResourceSlice"},
        {"metadata", {{"name", StrCat(n.name, "-gpus")}}},
        {"spec",
         {{"driver", kGpuDriver},
          {"nodeName", n.name},
          {"pool",
           {{"name", n.name}, {"generation", 1}, {"resourceSliceCount", 1}}},
          {"devices", devices}}}};
    decoded = DecodeValid(slice, what);
    if (!decoded.ok()) return decoded.status();
    model.slices.push_back(std::make_shared<const api::Object>(*decoded));
  }
  return model;
}

ClusterModel RenameNodes(const ClusterModel& model,
                         const std::vector<std::string>& new_names) {
  ClusterModel out;
  out.device_class = model.device_class;
  out.gpus = model.gpus;
  std::map<std::string, std::string, std::less<>> renamed;
  for (size_t i = 0; i < model.nodes.size() && i < new_names.size(); ++i) {
    api::Object node = *model.nodes[i];
    auto& meta = std::get<api::Node>(node.value).metadata;
    renamed[meta.name] = new_names[i];
    meta.name = new_names[i];
    out.nodes.push_back(std::make_shared<const api::Object>(std::move(node)));
  }
  for (const ObjectPtr& s : model.slices) {
    api::Object slice = *s;
    auto& rs = std::get<api::ResourceSlice>(slice.value);
    auto it = renamed.find(rs.spec.node_name.value_or(""));
    if (it != renamed.end()) {
      rs.spec.node_name = it->second;
      rs.spec.pool.name = it->second;
      rs.metadata.name = StrCat(it->second, "-gpus");
    }
    out.slices.push_back(std::make_shared<const api::Object>(std::move(slice)));
  }
  return out;
}

absl::StatusOr<PodObjects> BuildPod(const TracePod& p,
                                    const std::string& name) {
  const std::string what = StrCat("pod ", p.name);
  const std::string claim_name = StrCat(name, "-gpu");
  Json container = {{"name", "main"},
                    {"image", "sim"},
                    {"resources",
                     {{"requests",
                       {{"cpu", StrCat(p.cpu_milli, "m")},
                        {"memory", StrCat(p.memory_mib, "Mi")}}}}}};
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata",
               {{"name", name},
                {"namespace", kSimNamespace},
                {"uid", StrCat("uid-", name)}}},
              {"spec", {{"schedulerName", "draplane"}}}};
  PodObjects out;
  if (p.num_gpu > 0) {
    container["resources"]["claims"] = Json::array({{{"name", "gpu"}}});
    pod["spec"]["resourceClaims"] =
        Json::array({{{"name", "gpu"}, {"resourceClaimName", claim_name}}});
    Json exactly = {{"deviceClassName", kGpuClass}, {"count", p.num_gpu}};
    if (p.gpu_milli < 1000) {
      exactly["capacity"] = {
          {"requests", {{kShareCapacity, StrCat(p.gpu_milli, "m")}}}};
    }
    if (!p.gpu_spec.empty()) {
      std::string models;
      for (const std::string& m : p.gpu_spec) {
        StrAppend(&models, models.empty() ? "" : ", ", Quoted(m));
      }
      exactly["selectors"] = Json::array(
          {{{"cel",
             {{"expression", StrCat("device.attributes[\"", kGpuDriver,
                                    "\"].productName in [", models, "]")}}}}});
    }
    Json claim = {
        {"apiVersion", "resource.k8s.io/v1"},
        {"kind", "ResourceClaim"},
        {"metadata",
         {{"name", claim_name},
          {"namespace", kSimNamespace},
          {"resourceVersion", "1"}}},
        {"spec",
         {{"devices",
           {{"requests",
             Json::array({{{"name", "gpu"}, {"exactly", exactly}}})}}}}}};
    absl::StatusOr<api::Object> decoded = DecodeValid(claim, what);
    if (!decoded.ok()) return decoded.status();
    out.claim = std::make_shared<const api::Object>(*std::move(decoded));
  }
  pod["spec"]["containers"] = Json::array({container});
  absl::StatusOr<api::Object> decoded = DecodeValid(pod, what);
  if (!decoded.ok()) return decoded.status();
  out.pod = std::get<api::Pod>(decoded->value);
  return out;
}

absl::StatusOr<PodFactory> PodFactory::Create(
    const std::vector<TracePod>& pods) {
  PodFactory factory;
  std::map<std::tuple<int64_t, int64_t, int, int64_t, std::vector<std::string>>,
           std::shared_ptr<const PodObjects>>
      by_shape;
  for (const TracePod& p : pods) {
    auto key = std::make_tuple(p.cpu_milli, p.memory_mib, p.num_gpu,
                               p.gpu_milli, p.gpu_spec);
    auto it = by_shape.find(key);
    if (it == by_shape.end()) {
      absl::StatusOr<PodObjects> built = BuildPod(p, "template");
      if (!built.ok()) return built.status();
      it = by_shape
               .emplace(key,
                        std::make_shared<const PodObjects>(*std::move(built)))
               .first;
    }
    factory.templates_.push_back(it->second);
  }
  return factory;
}

PodObjects PodFactory::Instantiate(size_t index,
                                   const std::string& name) const {
  const PodObjects& t = *templates_.at(index);
  PodObjects out;
  out.pod = t.pod;
  out.pod.metadata.name = name;
  out.pod.metadata.uid = StrCat("uid-", name);
  if (t.claim != nullptr) {
    const std::string claim_name = StrCat(name, "-gpu");
    api::Object claim = *t.claim;
    std::get<api::ResourceClaim>(claim.value).metadata.name = claim_name;
    out.claim = std::make_shared<const api::Object>(std::move(claim));
    out.pod.spec.resource_claims.at(0).resource_claim_name = claim_name;
  }
  return out;
}

}  // namespace draplane::sim

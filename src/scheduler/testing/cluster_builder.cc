#include "scheduler/testing/cluster_builder.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "api/manifest.h"
#include "api/object_codec.h"
#include "api/validation/validation.h"
#include "common/str_cat.h"
#include "logging/log.h"
#include "testing/shared_test_data.h"

namespace draplane::scheduler::testing {

using api::Json;

api::Object Decode(const Json& json) {
  absl::StatusOr<api::DecodeResult> decoded = api::DecodeObject(json);
  if (!decoded.ok()) {
    logging::Fatal("cluster_builder: a test object does not decode",
                   {{"err", decoded.status()}});
  }
  // As the API server holds it: defaulted.
  api::SetDefaults(decoded->object);
  return std::move(decoded->object);
}

std::vector<api::Object> DecodeStream(std::string_view text) {
  absl::StatusOr<std::vector<api::ManifestDocument>> docs =
      api::ParseManifests(text);
  if (!docs.ok()) {
    logging::Fatal("cluster_builder: a test manifest does not parse",
                   {{"err", docs.status()}});
  }
  std::vector<api::Object> out;
  for (const auto& d : *docs) out.push_back(Decode(d.json));
  return out;
}

api::Object DecodeText(std::string_view text) {
  std::vector<api::Object> objects = DecodeStream(text);
  if (objects.size() != 1) std::abort();
  return std::move(objects.front());
}

std::string SeedManifestsDir() {
  return (draplane::testing::SharedDataDir() / "seed" / "manifests").string();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

Json NodeJson(std::string_view name,
              const std::map<std::string, std::string>& labels) {
  Json l = Json::object();
  l["kubernetes.io/hostname"] = name;
  for (const auto& [k, v] : labels) l[k] = v;
  return Json{
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata", {{"name", name}, {"labels", l}}},
      {"status",
       {{"allocatable", {{"cpu", "64"}, {"memory", "512Gi"}, {"pods", "110"}}},
        {"capacity", {{"cpu", "64"}, {"memory", "512Gi"}, {"pods", "110"}}},
        {"conditions", Json::array({{{"type", "Ready"},
                                     {"status", "True"},
                                     {"reason", "KubeletReady"}}})}}}};
}

Json SliceJson(std::string_view node, std::string_view driver,
               const std::vector<GpuDevice>& devices) {
  Json list = Json::array();
  for (const GpuDevice& d : devices) {
    list.push_back({{"name", d.name},
                    {"attributes", d.attributes},
                    {"capacity", {{"memory", {{"value", "80Gi"}}}}}});
  }
  return Json{
      {"apiVersion", "resource.k8s.io/v1"},
      {"kind", "ResourceSlice"},
      {"metadata", {{"name", StrCat(node, "-", driver)}}},
      {"spec",
       {{"driver", driver},
        {"nodeName", node},
        {"pool",
         {{"name", node}, {"generation", 1}, {"resourceSliceCount", 1}}},
        {"devices", list}}}};
}

std::vector<GpuDevice> NvidiaGpus(
    int count, std::string_view product,
    const std::function<std::string(int)>& nvlink) {
  std::vector<GpuDevice> out;
  for (int i = 0; i < count; ++i) {
    GpuDevice d;
    d.name = StrCat("gpu-", i);
    d.attributes["productName"] = {{"string", product}};
    d.attributes["index"] = {{"int", i}};
    if (nvlink) {
      std::string v = nvlink(i);
      if (!v.empty()) {
        d.attributes["nvlinkInterconnect"] = {{"string", v}};
      }
    }
    out.push_back(std::move(d));
  }
  return out;
}

Json PerfSliceJson(std::string_view node, int devices) {
  std::vector<GpuDevice> list;
  for (int i = 0; i < devices; ++i) {
    GpuDevice d;
    d.name = StrCat("instance-", i);
    d.attributes["model"] = {{"string", "A100"}};
    d.attributes["family"] = {{"string", "GPU"}};
    d.attributes["driverVersion"] = {{"version", "1.2.3"}};
    d.attributes["dra.example.com/numa"] = {{"int", i}};
    list.push_back(std::move(d));
  }
  Json slice = SliceJson(node, "test-driver.cdi.k8s.io", list);
  for (auto& d : slice["spec"]["devices"]) {
    d["capacity"] = {{"memory", {{"value", "1Gi"}}}};
  }
  return slice;
}

Json PerfClassJson() {
  return Json{
      {"apiVersion", "resource.k8s.io/v1"},
      {"kind", "DeviceClass"},
      {"metadata", {{"name", "test-class"}}},
      {"spec",
       {{"selectors",
         Json::array(
             {{{"cel",
                {{"expression",
                  "device.driver == \"test-driver.cdi.k8s.io\""}}}}})}}}};
}

Json PerfTemplateJson(std::string_view ns) {
  return Json{
      {"apiVersion", "resource.k8s.io/v1"},
      {"kind", "ResourceClaimTemplate"},
      {"metadata", {{"name", "test-claim-template"}, {"namespace", ns}}},
      {"spec",
       {{"spec",
         {{"devices",
           {{"requests", Json::array({{{"name", "req-0"},
                                       {"exactly",
                                        {{"deviceClassName", "test-class"},
                                         {"allocationMode", "ExactCount"},
                                         {"count", 1}}}}})}}}}}}}};
}

namespace {
Json PodJson(std::string_view ns, std::string_view name,
             std::string_view scheduler_name, const Json& resource_claim) {
  return Json{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}, {"namespace", ns}}},
      {"spec",
       {{"schedulerName", scheduler_name},
        {"containers",
         Json::array(
             {{{"name", "main"},
               {"image", "registry.k8s.io/pause:3.10"},
               {"resources",
                {{"claims", Json::array({{{"name", "resource"}}})}}}}})},
        {"resourceClaims", Json::array({resource_claim})}}}};
}
}  // namespace

Json TemplatePodJson(std::string_view ns, std::string_view name,
                     std::string_view template_name,
                     std::string_view scheduler_name) {
  return PodJson(
      ns, name, scheduler_name,
      {{"name", "resource"}, {"resourceClaimTemplateName", template_name}});
}

Json ClaimPodJson(std::string_view ns, std::string_view name,
                  std::string_view claim_name,
                  std::string_view scheduler_name) {
  return PodJson(ns, name, scheduler_name,
                 {{"name", "resource"}, {"resourceClaimName", claim_name}});
}

Json GpuClassJson() {
  return Json{
      {"apiVersion", "resource.k8s.io/v1"},
      {"kind", "DeviceClass"},
      {"metadata", {{"name", "gpu"}}},
      {"spec",
       {{"selectors",
         Json::array(
             {{{"cel",
                {{"expression", "device.driver == \"gpu.nvidia.com\""}}}}})}}}};
}

Json ClaimJson(std::string_view ns, std::string_view name,
               std::string_view device_class, int count) {
  return Json{
      {"apiVersion", "resource.k8s.io/v1"},
      {"kind", "ResourceClaim"},
      {"metadata", {{"name", name}, {"namespace", ns}}},
      {"spec",
       {{"devices",
         {{"requests", Json::array({{{"name", "gpu"},
                                     {"exactly",
                                      {{"deviceClassName", device_class},
                                       {"allocationMode", "ExactCount"},
                                       {"count", count}}}}})}}}}}};
}

}  // namespace draplane::scheduler::testing

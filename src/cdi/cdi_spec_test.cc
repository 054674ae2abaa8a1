#include "cdi/cdi_spec.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace draplane::cdi {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Builders (designated initializers would trip -Wmissing-field-initializers).
DeviceNode Node(std::string path) {
  DeviceNode n;
  n.path = std::move(path);
  return n;
}

Mount TypedMount(std::string host, std::string container,
                 std::optional<std::string> type) {
  Mount m;
  m.host_path = std::move(host);
  m.container_path = std::move(container);
  m.type = std::move(type);
  return m;
}

Hook MakeHook(std::string name, std::string path) {
  Hook h;
  h.hook_name = std::move(name);
  h.path = std::move(path);
  return h;
}

NetDevice Net(std::string host, std::string name) {
  NetDevice d;
  d.host_interface_name = std::move(host);
  d.name = std::move(name);
  return d;
}

// A valid 0.3.0 spec with one device.
CdiSpec MinimalSpec() {
  CdiSpec spec;
  spec.cdi_version = "0.3.0";
  spec.kind = "vendor.com/gpu";
  Device d;
  d.name = "gpu0";
  d.container_edits.device_nodes.push_back(Node("/dev/gpu0"));
  spec.devices.push_back(d);
  return spec;
}

std::vector<std::string> ErrorStrings(const CdiSpec& spec) {
  std::vector<std::string> out;
  for (const FieldError& e : ValidateCdiSpecFields(spec)) {
    out.push_back(e.ToString());
  }
  return out;
}

// ---------------------------------------------------------------------------
// MinimumCdiVersion: one test per rule of specs-go/version.go.

TEST(MinimumCdiVersionTest, BaseIs030) {
  EXPECT_EQ(MinimumCdiVersion(MinimalSpec()), "0.3.0");
}

TEST(MinimumCdiVersionTest, MountTypeNeeds040) {
  CdiSpec spec = MinimalSpec();
  spec.container_edits.mounts.push_back(TypedMount("/a", "/b", "bind"));
  EXPECT_EQ(MinimumCdiVersion(spec), "0.4.0");
  spec.container_edits.mounts[0].type = "";  // empty = omitted in Go
  EXPECT_EQ(MinimumCdiVersion(spec), "0.3.0");
  spec.container_edits.mounts.clear();
  spec.devices[0].container_edits.mounts.push_back(
      TypedMount("/a", "/b", "bind"));
  EXPECT_EQ(MinimumCdiVersion(spec), "0.4.0");
}

TEST(MinimumCdiVersionTest, DeviceNodeHostPathNeeds050) {
  CdiSpec spec = MinimalSpec();
  spec.devices[0].container_edits.device_nodes[0].host_path = "/dev/x";
  EXPECT_EQ(MinimumCdiVersion(spec), "0.5.0");
  spec.devices[0].container_edits.device_nodes[0].host_path = "";
  EXPECT_EQ(MinimumCdiVersion(spec), "0.3.0");
}

TEST(MinimumCdiVersionTest, DeviceNameStartingWithDigitNeeds050) {
  CdiSpec spec = MinimalSpec();
  spec.devices[0].name = "0";
  EXPECT_EQ(MinimumCdiVersion(spec), "0.5.0");
  spec.devices[0].name = "a0";
  EXPECT_EQ(MinimumCdiVersion(spec), "0.3.0");
}

TEST(MinimumCdiVersionTest, AnnotationsNeed060) {
  CdiSpec spec = MinimalSpec();
  spec.annotations["a"] = "b";
  EXPECT_EQ(MinimumCdiVersion(spec), "0.6.0");
  spec.annotations.clear();
  spec.devices[0].annotations["a"] = "b";
  EXPECT_EQ(MinimumCdiVersion(spec), "0.6.0");
}

TEST(MinimumCdiVersionTest, DotInClassNeeds060ButNotInVendor) {
  CdiSpec spec = MinimalSpec();
  spec.kind = "vendor.com/gpu.a100";
  EXPECT_EQ(MinimumCdiVersion(spec), "0.6.0");
  spec.kind = "k8s.gpu.nvidia.com/claim";
  EXPECT_EQ(MinimumCdiVersion(spec), "0.3.0");
}

TEST(MinimumCdiVersionTest, AdditionalGidsAndIntelRdtNeed070) {
  CdiSpec spec = MinimalSpec();
  spec.devices[0].container_edits.additional_gids = {44};
  EXPECT_EQ(MinimumCdiVersion(spec), "0.7.0");
  spec = MinimalSpec();
  spec.container_edits.intel_rdt.emplace().clos_id = "c1";
  EXPECT_EQ(MinimumCdiVersion(spec), "0.7.0");
}

TEST(MinimumCdiVersionTest, NetDevicesAndNewIntelRdtFieldsNeed110) {
  CdiSpec spec = MinimalSpec();
  spec.devices[0].container_edits.net_devices.push_back(Net("eth1", "net1"));
  EXPECT_EQ(MinimumCdiVersion(spec), "1.1.0");
  spec = MinimalSpec();
  spec.container_edits.intel_rdt.emplace().schemata =
      std::vector<std::string>{"L3:0=f"};
  EXPECT_EQ(MinimumCdiVersion(spec), "1.1.0");
  spec.container_edits.intel_rdt.emplace().enable_monitoring = true;
  EXPECT_EQ(MinimumCdiVersion(spec), "1.1.0");
}

TEST(MinimumCdiVersionTest, HighestRuleWins) {
  CdiSpec spec = MinimalSpec();
  spec.devices[0].name = "0";                  // 0.5.0
  spec.annotations["x"] = "y";                 // 0.6.0
  spec.container_edits.additional_gids = {1};  // 0.7.0
  spec.container_edits.mounts.push_back(
      TypedMount("/a", "/b", "bind"));  // 0.4.0
  EXPECT_EQ(MinimumCdiVersion(spec), "0.7.0");
}

// ---------------------------------------------------------------------------
// Validation.

TEST(ValidateCdiSpecTest, MinimalSpecIsValid) {
  EXPECT_TRUE(ValidateCdiSpec(MinimalSpec()).ok());
}

TEST(ValidateCdiSpecTest, RelativeDeviceNodePathNamesItsPath) {
  CdiSpec spec = MinimalSpec();
  spec.devices[0].container_edits.device_nodes.push_back(Node("dev/x"));
  absl::Status s = ValidateCdiSpec(spec);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "devices[0].containerEdits.deviceNodes[1].path: Invalid value: "
            "\"dev/x\": must be an absolute path");
}

TEST(ValidateCdiSpecTest, EditRules) {
  CdiSpec spec = MinimalSpec();
  ContainerEdits& e = spec.container_edits;
  e.env = {"A=1", "NOEQUALS", "=v"};
  e.device_nodes.push_back(Node(""));
  e.device_nodes[0].type = "x";
  e.device_nodes[0].permissions = "rwx";
  e.mounts.push_back(TypedMount("", "rel", std::nullopt));
  e.hooks.push_back(MakeHook("preStart", "hook"));
  e.hooks[0].env = {"K"};
  e.hooks[0].timeout = 0;
  e.net_devices.push_back({});
  EXPECT_THAT(
      ErrorStrings(spec),
      ElementsAre(
          // netDevices make the minimum 1.1.0.
          "cdiVersion: Invalid value: \"0.3.0\": the spec version must be at "
          "least v1.1.0 for the features used",
          "containerEdits.env[1]: Invalid value: \"NOEQUALS\": must be of the "
          "form KEY=VALUE",
          "containerEdits.env[2]: Invalid value: \"=v\": must be of the form "
          "KEY=VALUE",
          "containerEdits.deviceNodes[0].path: Required value",
          "containerEdits.deviceNodes[0].type: Unsupported value: \"x\": "
          "supported values: \"b\", \"c\", \"u\", \"p\"",
          "containerEdits.deviceNodes[0].permissions: Invalid value: "
          "\"rwx\": must be a combination of 'r', 'w' and 'm'",
          "containerEdits.netDevices[0].hostInterfaceName: Required value",
          "containerEdits.netDevices[0].name: Required value",
          "containerEdits.hooks[0].hookName: Unsupported value: "
          "\"preStart\": supported values: \"prestart\", \"createRuntime\", "
          "\"createContainer\", \"startContainer\", \"poststart\", "
          "\"poststop\"",
          "containerEdits.hooks[0].path: Invalid value: \"hook\": must be an "
          "absolute path",
          "containerEdits.hooks[0].env[0]: Invalid value: \"K\": must be of "
          "the form KEY=VALUE",
          "containerEdits.hooks[0].timeout: Invalid value: 0: must be greater "
          "than zero",
          "containerEdits.mounts[0].hostPath: Required value",
          "containerEdits.mounts[0].containerPath: Invalid value: \"rel\": "
          "must be an absolute path"));
}

TEST(ValidateCdiSpecTest, EveryHookNameAndDeviceTypeIsAccepted) {
  CdiSpec spec = MinimalSpec();
  for (const char* name : {"prestart", "createRuntime", "createContainer",
                           "startContainer", "poststart", "poststop"}) {
    spec.container_edits.hooks.push_back(MakeHook(name, "/bin/hook"));
    spec.container_edits.hooks.back().timeout = 5;
  }
  for (const char* type : {"", "b", "c", "u", "p"}) {
    DeviceNode n = Node("/dev/x");
    n.type = type;
    n.permissions = "rw";
    spec.container_edits.device_nodes.push_back(n);
  }
  EXPECT_THAT(ErrorStrings(spec), IsEmpty());
}

TEST(ValidateCdiSpecTest, KindRules) {
  CdiSpec spec = MinimalSpec();
  spec.kind = "";
  EXPECT_THAT(ErrorStrings(spec), ElementsAre("kind: Required value"));
  for (const char* kind : {"vendor.com", "vendor.com/", "/gpu", "a/b/c"}) {
    spec.kind = kind;
    EXPECT_THAT(ErrorStrings(spec),
                ElementsAre(std::string("kind: Invalid value: \"") + kind +
                            "\": must be <vendor>/<class>, e.g. "
                            "vendor.com/device"))
        << kind;
  }
  spec.kind = "3com.com/gpu";
  EXPECT_THAT(ErrorStrings(spec),
              ElementsAre("kind: Invalid value: \"3com.com/gpu\": vendor "
                          "\"3com.com\" must start with a letter"));
  spec.kind = "vendor_x.com/gpu";
  EXPECT_THAT(ErrorStrings(spec),
              ElementsAre("kind: Invalid value: \"vendor_x.com/gpu\": vendor "
                          "\"vendor_x.com\" may only contain letters, digits, "
                          "'-' and '.'"));
  spec.kind = "vendor.com/gpu-";
  EXPECT_THAT(ErrorStrings(spec),
              ElementsAre("kind: Invalid value: \"vendor.com/gpu-\": class "
                          "\"gpu-\" must end with a letter or digit"));
  spec.kind = "vendor.com/" + std::string(64, 'a');
  EXPECT_THAT(ErrorStrings(spec),
              ElementsAre(HasSubstr("must be no more than 63 characters")));
  spec.kind = "vendor.com/g_p-u";
  spec.cdi_version = "0.3.0";
  EXPECT_THAT(ErrorStrings(spec), IsEmpty());
}

TEST(ValidateCdiSpecTest, DeviceRules) {
  CdiSpec spec = MinimalSpec();
  spec.devices.clear();
  EXPECT_THAT(ErrorStrings(spec),
              ElementsAre("devices: Required value: a spec must have at "
                          "least one device"));

  spec = MinimalSpec();
  spec.devices.push_back(spec.devices[0]);  // duplicate name
  Device bad;
  bad.name = "-bad";
  spec.devices.push_back(bad);  // bad name, no edits
  Device colon;
  colon.name = "a:b.c_d-e";
  colon.container_edits.env = {"A=B"};
  spec.devices.push_back(colon);
  EXPECT_THAT(
      ErrorStrings(spec),
      ElementsAre("devices[1].name: Duplicate value: \"gpu0\"",
                  "devices[2].name: Invalid value: \"-bad\": must consist of "
                  "letters, digits, '-', '_', '.' or ':', and must start and "
                  "end with a letter or digit",
                  "devices[2].containerEdits: Required value: a device must "
                  "have at least one container edit"));
}

TEST(ValidateCdiSpecTest, VersionRules) {
  CdiSpec spec = MinimalSpec();
  spec.cdi_version = "";
  EXPECT_THAT(ErrorStrings(spec), ElementsAre("cdiVersion: Required value"));
  spec.cdi_version = "0.9.0";
  EXPECT_THAT(ErrorStrings(spec),
              ElementsAre(HasSubstr("cdiVersion: Unsupported value: "
                                    "\"0.9.0\": supported values: \"0.1.0\"")));
  spec.cdi_version = "v1.1.0";  // upstream trims one leading "v"
  EXPECT_THAT(ErrorStrings(spec), IsEmpty());
  spec.devices[0].name = "0gpu";  // needs 0.5.0
  spec.cdi_version = "0.4.0";
  EXPECT_THAT(ErrorStrings(spec),
              ElementsAre("cdiVersion: Invalid value: \"0.4.0\": the spec "
                          "version must be at least v0.5.0 for the features "
                          "used"));
  spec.cdi_version = "0.5.0";
  EXPECT_THAT(ErrorStrings(spec), IsEmpty());
}

TEST(ValidateCdiSpecTest, IntelRdtRules) {
  CdiSpec spec = MinimalSpec();
  spec.cdi_version = "0.7.0";
  spec.container_edits.intel_rdt.emplace().clos_id = "a/b";
  spec.container_edits.intel_rdt->enable_cmt = true;
  EXPECT_THAT(ErrorStrings(spec),
              ElementsAre("containerEdits.intelRdt.closID: Invalid value: "
                          "\"a/b\": must be a valid file name"));
  spec.container_edits.intel_rdt->clos_id = "cos1";
  spec.cdi_version = "1.1.0";
  EXPECT_THAT(ErrorStrings(spec),
              ElementsAre("containerEdits.intelRdt.enableCMT: Forbidden: not "
                          "valid for CDI spec version 1.1.0 and later"));
}

TEST(ValidateCdiSpecTest, AnnotationKeys) {
  CdiSpec spec = MinimalSpec();
  spec.cdi_version = "0.6.0";
  spec.annotations["vendor.com/ok"] = "1";
  spec.devices[0].annotations["bad key"] = "1";
  EXPECT_THAT(ErrorStrings(spec),
              ElementsAre(HasSubstr("devices[0].annotations: Invalid value: "
                                    "\"bad key\": name part must consist of "
                                    "alphanumeric characters")));
}

TEST(ValidateCdiSpecTest, SeveralErrorsAreAggregated) {
  CdiSpec spec = MinimalSpec();
  spec.kind = "";
  spec.devices[0].container_edits.device_nodes[0].path = "x";
  EXPECT_EQ(ValidateCdiSpec(spec).message(),
            "[kind: Required value, devices[0].containerEdits.deviceNodes[0]."
            "path: Invalid value: \"x\": must be an absolute path]");
}

// ---------------------------------------------------------------------------
// JSON and YAML.

CdiSpec FullSpec() {
  CdiSpec spec;
  spec.cdi_version = "1.1.0";
  spec.kind = "k8s.gpu.nvidia.com/claim";
  spec.annotations["example.com/a"] = "b";
  Device d;
  d.name = "5f0c1a2e-gpu-0";
  d.annotations["x"] = "y";
  DeviceNode gpu = Node("/dev/nvidia0");
  gpu.host_path = "/dev/nvidia0";
  gpu.type = "c";
  gpu.major = 195;
  gpu.minor = 0;
  gpu.file_mode = 0666;
  gpu.permissions = "rw";
  gpu.uid = 0;
  gpu.gid = 44;
  d.container_edits.device_nodes.push_back(gpu);
  d.container_edits.env = {"NVIDIA_VISIBLE_DEVICES=void"};
  spec.devices.push_back(d);
  ContainerEdits& e = spec.container_edits;
  e.env = {"A=1", "B="};
  e.device_nodes.push_back(Node("/dev/nvidiactl"));
  e.net_devices.push_back(Net("eth1", "net1"));
  Hook hook = MakeHook("createContainer", "/usr/bin/nvidia-cdi-hook");
  hook.args = {"nvidia-cdi-hook", "update-ldcache"};
  hook.env = {"NVIDIA_CTK_DEBUG=false"};
  hook.timeout = 10;
  e.hooks.push_back(hook);
  Mount mount =
      TypedMount("/usr/lib/libcuda.so.1", "/usr/lib/libcuda.so.1", "bind");
  mount.options = {"ro", "nosuid", "nodev", "rbind"};
  e.mounts.push_back(mount);
  IntelRdt& rdt = e.intel_rdt.emplace();
  rdt.clos_id = "c1";
  rdt.l3_cache_schema = "L3:0=f";
  rdt.mem_bw_schema = "MB:0=50";
  rdt.schemata = std::vector<std::string>{"L3:0=f"};
  rdt.enable_monitoring = true;
  e.additional_gids = {44, 107};
  return spec;
}

TEST(CdiSpecJsonTest, RoundTrip) {
  CdiSpec spec = FullSpec();
  ASSERT_TRUE(ValidateCdiSpec(spec).ok()) << ValidateCdiSpec(spec);
  absl::StatusOr<CdiSpec> back = CdiSpecFromText(CdiSpecToJson(spec));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, spec);
}

TEST(CdiSpecJsonTest, FieldOrderAndOmittedFields) {
  CdiSpec spec = MinimalSpec();
  spec.devices[0].container_edits.device_nodes[0].type = "c";
  EXPECT_EQ(CdiSpecToJson(spec), R"({
  "cdiVersion": "0.3.0",
  "kind": "vendor.com/gpu",
  "devices": [
    {
      "name": "gpu0",
      "containerEdits": {
        "deviceNodes": [
          {
            "path": "/dev/gpu0",
            "type": "c"
          }
        ]
      }
    }
  ]
})");
}

TEST(CdiSpecJsonTest, ParsesYamlLikeTheReferenceClaimSpec) {
  absl::StatusOr<CdiSpec> spec = CdiSpecFromText(R"(---
cdiVersion: 0.5.0
kind: k8s.gpu.nvidia.com/claim
containerEdits:
  env: [NVIDIA_CTK_LIBCUDA_DIR=/usr/lib/x86_64-linux-gnu, NVIDIA_VISIBLE_DEVICES=void]
  deviceNodes: [{path: /dev/nvidiactl}, {path: /dev/nvidia-uvm}]
  hooks:
  - {hookName: createContainer, path: /var/lib/kubelet/plugins/gpu.nvidia.com/nvidia-cdi-hook,
     args: [nvidia-cdi-hook, update-ldcache, --folder, /usr/lib/x86_64-linux-gnu]}
  mounts:
  - {hostPath: /usr/lib/x86_64-linux-gnu/libcuda.so.580.95.05,
     containerPath: /usr/lib/x86_64-linux-gnu/libcuda.so.580.95.05, options: [ro, nosuid, nodev, rbind, rprivate]}
devices:
- name: 5f0c1a2e-gpu-1-mig-1g10gb-19-3
  containerEdits:
    deviceNodes:
    - {path: /dev/nvidia1}
    - {path: /dev/nvidia-caps/nvidia-cap129, type: c, major: 235, minor: 129, fileMode: 292}
- name: 0
  containerEdits:
    env: ["A=1"]
    deviceNodes: [{path: /dev/x, fileMode: 0644, uid: 0x10}]
    intelRdt: {closID: "0644", enableMonitoring: true}
)");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->cdi_version, "0.5.0");
  ASSERT_EQ(spec->devices.size(), 2u);
  EXPECT_EQ(spec->devices[1].name, "0");  // a plain scalar read as text
  const DeviceNode& cap = spec->devices[0].container_edits.device_nodes[1];
  EXPECT_EQ(cap.type, "c");
  EXPECT_EQ(cap.major, 235);
  EXPECT_EQ(cap.minor, 129);
  EXPECT_EQ(cap.file_mode, 292u);
  EXPECT_EQ(spec->container_edits.mounts[0].options.size(), 5u);
  // YAML 1.1 ints as the CDI loaders (go-yaml v2) read them.
  const DeviceNode& x = spec->devices[1].container_edits.device_nodes[0];
  EXPECT_EQ(x.file_mode, 0644u);
  EXPECT_EQ(x.uid, 16u);
  // A quoted scalar stays text; a plain bool is a bool.
  EXPECT_EQ(spec->devices[1].container_edits.intel_rdt->clos_id, "0644");
  EXPECT_TRUE(spec->devices[1].container_edits.intel_rdt->enable_monitoring);
  EXPECT_EQ(MinimumCdiVersion(*spec), "1.1.0");
  spec->cdi_version = "1.1.0";
  EXPECT_TRUE(ValidateCdiSpec(*spec).ok()) << ValidateCdiSpec(*spec);
}

TEST(CdiSpecJsonTest, UnknownFieldsAreRejectedWithTheirPaths) {
  absl::StatusOr<CdiSpec> spec = CdiSpecFromText(R"({
    "cdiVersion": "0.3.0", "kind": "v.com/c", "extra": 1,
    "devices": [{"name": "a", "containerEdits": {
      "deviceNodes": [{"path": "/dev/a", "mode": 1}]}}]})");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(spec.status().message(),
            "invalid CDI spec: unknown field \"extra\", unknown field "
            "\"devices[0].containerEdits.deviceNodes[0].mode\"");
}

TEST(CdiSpecJsonTest, WrongTypesAreRejected) {
  absl::StatusOr<CdiSpec> spec = CdiSpecFromText(R"({
    "cdiVersion": "0.3.0", "kind": "v.com/c",
    "devices": [{"name": "a", "containerEdits": {
      "deviceNodes": [{"path": "/dev/a", "major": "235"}]}}]})");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().message(),
            "invalid CDI spec: cannot decode "
            "\"devices[0].containerEdits.deviceNodes[0].major\": expected a "
            "64-bit integer, got string");

  spec = CdiSpecFromText(R"({"cdiVersion": "0.3.0", "devices": {}})");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(),
              HasSubstr("\"devices\": expected a list, got object"));

  spec = CdiSpecFromText(
      R"({"cdiVersion": "0.3.0", "containerEdits": {"additionalGids": [-1]}})");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(),
              HasSubstr("\"containerEdits.additionalGids[0]\": expected an "
                        "unsigned 32-bit integer, got number"));

  spec = CdiSpecFromText(R"({"containerEdits": {"deviceNodes": [
      {"path": "/dev/a", "major": 18446744073709551615}]}})");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), HasSubstr("expected a 64-bit integer"));
  spec = CdiSpecFromText(R"({"containerEdits": {"deviceNodes": [
      {"path": "/dev/a", "uid": 4294967296}]}})");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(),
              HasSubstr("expected an unsigned 32-bit integer"));

  // In JSON (unlike YAML) a number is not a string.
  spec = CdiSpecFromText(R"({"cdiVersion": 1})");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), HasSubstr("expected a string"));

  // Like Go, 1.0 is not an integer.
  spec =
      CdiSpecFromText(R"({"containerEdits": {"hooks": [{"timeout": 1.0}]}})");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), HasSubstr("expected a 64-bit integer"));
}

TEST(CdiSpecJsonTest, NullCountsAsAbsent) {
  absl::StatusOr<CdiSpec> spec = CdiSpecFromText(
      R"({"cdiVersion": "0.3.0", "kind": "v.com/c", "annotations": null,
          "devices": [{"name": "a", "containerEdits": {"env": ["A=1"],
          "hooks": null}}]})");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->annotations.empty());
  EXPECT_TRUE(spec->devices[0].container_edits.hooks.empty());
}

TEST(CdiSpecJsonTest, SyntaxErrors) {
  EXPECT_FALSE(CdiSpecFromText("{\"cdiVersion\": ").ok());
  absl::StatusOr<CdiSpec> spec = CdiSpecFromText("a: [1, 2\n");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), HasSubstr("yaml"));
  spec = CdiSpecFromText("cdiVersion: 0.3.0\n---\ncdiVersion: 0.4.0\n");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), HasSubstr("one YAML document"));
  spec = CdiSpecFromText("kind: a\nkind: b\n");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), HasSubstr("already defined"));
  spec = CdiSpecFromText("- a\n- b\n");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(),
              HasSubstr("expected an object, got array"));
}

// ---------------------------------------------------------------------------
// Names.

TEST(CdiNamesTest, QualifiedDeviceName) {
  EXPECT_EQ(QualifiedDeviceName("k8s.gpu.nvidia.com", "claim", "uid-gpu-0"),
            "k8s.gpu.nvidia.com/claim=uid-gpu-0");
}

TEST(CdiNamesTest, TransientSpecFileName) {
  EXPECT_EQ(
      TransientSpecFileName("k8s.gpu.nvidia.com", "claim", "dab5ab50-d59a"),
      "k8s.gpu.nvidia.com-claim_dab5ab50-d59a.json");
  EXPECT_EQ(TransientSpecFileName("vendor.com", "gpu", "ns/name/x"),
            "vendor.com-gpu_ns_name_x.json");
}

// ---------------------------------------------------------------------------
// Files.

class SpecFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "/cdi_spec_test.XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    for (const std::string& f : ListDir(dir_ + "/specs")) {
      ::unlink((dir_ + "/specs/" + f).c_str());
    }
    ::rmdir((dir_ + "/specs").c_str());
    ::rmdir(dir_.c_str());
  }

  static std::vector<std::string> ListDir(const std::string& dir) {
    std::vector<std::string> out;
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return out;
    while (struct dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name != "." && name != "..") out.push_back(name);
    }
    ::closedir(d);
    return out;
  }

  static std::string ReadFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  std::string dir_;
};

TEST_F(SpecFileTest, WriteCreatesTheDirAndACompleteFileWithMode0644) {
  const std::string specs = dir_ + "/specs";  // does not exist yet
  const std::string name = TransientSpecFileName("vendor.com", "gpu", "u1");
  CdiSpec spec = FullSpec();
  ASSERT_TRUE(WriteSpecFile(specs, name, spec).ok());

  EXPECT_THAT(ListDir(specs), ElementsAre(name));  // no temp file left
  struct stat st;
  ASSERT_EQ(::stat((specs + "/" + name).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  std::string text = ReadFile(specs + "/" + name);
  EXPECT_EQ(text, CdiSpecToJson(spec) + "\n");
  absl::StatusOr<CdiSpec> back = CdiSpecFromText(text);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, spec);

  // Overwriting replaces the file as a whole.
  CdiSpec small = MinimalSpec();
  ASSERT_TRUE(WriteSpecFile(specs, name, small).ok());
  EXPECT_EQ(ReadFile(specs + "/" + name), CdiSpecToJson(small) + "\n");
  EXPECT_THAT(ListDir(specs), ElementsAre(name));
}

TEST_F(SpecFileTest, InvalidSpecOrFileNameWritesNothing) {
  const std::string specs = dir_ + "/specs";
  CdiSpec bad = MinimalSpec();
  bad.kind = "nokind";
  absl::Status s = WriteSpecFile(specs, "a.json", bad);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("kind: Invalid value"));
  for (const char* name : {"", ".", "..", "a/b.json"}) {
    EXPECT_EQ(WriteSpecFile(specs, name, MinimalSpec()).code(),
              absl::StatusCode::kInvalidArgument)
        << name;
  }
  EXPECT_THAT(ListDir(specs), IsEmpty());
}

TEST_F(SpecFileTest, RemoveIsIdempotent) {
  const std::string specs = dir_ + "/specs";
  // Neither the dir nor the file exists.
  EXPECT_TRUE(RemoveSpecFile(specs, "a.json").ok());
  ASSERT_TRUE(WriteSpecFile(specs, "a.json", MinimalSpec()).ok());
  ASSERT_TRUE(WriteSpecFile(specs, "b.json", MinimalSpec()).ok());
  EXPECT_TRUE(RemoveSpecFile(specs, "a.json").ok());
  EXPECT_TRUE(RemoveSpecFile(specs, "a.json").ok());
  EXPECT_THAT(ListDir(specs), ElementsAre("b.json"));
  EXPECT_EQ(RemoveSpecFile(specs, "../b.json").code(),
            absl::StatusCode::kInvalidArgument);
}

// ---------------------------------------------------------------------------
// A claim spec as the NVIDIA plugin writes it (reference section 10.2).

TEST(ClaimSpecTest, ClaimUidPrefixedDeviceNeeds050) {
  // Claim UIDs are hex: this one, like many, starts with a digit.
  const std::string uid = "5f0c1a2e-d59a-42a6-af16-cfd4628c0f7a";
  CdiSpec spec;
  spec.kind = "k8s.gpu.nvidia.com/claim";
  spec.container_edits.env = {"NVIDIA_VISIBLE_DEVICES=void"};
  spec.container_edits.device_nodes.push_back(Node("/dev/nvidiactl"));
  Device d;
  d.name = uid + "-gpu-0";
  d.container_edits.device_nodes.push_back(Node("/dev/nvidia0"));
  spec.devices.push_back(d);

  spec.cdi_version = MinimumCdiVersion(spec);
  EXPECT_EQ(spec.cdi_version, "0.5.0");
  EXPECT_TRUE(ValidateCdiSpec(spec).ok()) << ValidateCdiSpec(spec);
  EXPECT_EQ(QualifiedDeviceName("k8s.gpu.nvidia.com", "claim", d.name),
            "k8s.gpu.nvidia.com/claim=" + uid + "-gpu-0");
  EXPECT_EQ(TransientSpecFileName("k8s.gpu.nvidia.com", "claim", uid),
            "k8s.gpu.nvidia.com-claim_" + uid + ".json");

  spec.cdi_version = "0.3.0";  // too low for a digit-leading device name
  EXPECT_THAT(ValidateCdiSpec(spec).message(),
              HasSubstr("the spec version must be at least v0.5.0"));
}

}  // namespace
}  // namespace draplane::cdi

namespace draplane::cdi {
namespace {

// Found by cdi_spec_fuzzer: YAML with invalid UTF-8 parsed into a spec
// that CdiSpecToJson could not serialise (nlohmann threw), and inputs on
// which Debian's yaml-cpp 0.7 loads documents forever.
TEST(CdiSpecRegressionTest, InvalidUtf8AndYamlCppLoopsAreErrors) {
  auto utf8 = CdiSpecFromText(
      "cdiVersion: 1.1.0\nkind: k8s.gpu.nvidia.com/claim\ndevices:\n"
      "- name: gpu-0\n  containerEdits:\n    env: [\"A=\xa6\"]\n");
  ASSERT_FALSE(utf8.ok());
  EXPECT_NE(utf8.status().message().find("invalid UTF-8"), std::string::npos)
      << utf8.status();
  auto stuck = CdiSpecFromText(",paiVersision: reso resou");
  EXPECT_FALSE(stuck.ok());
}

}  // namespace
}  // namespace draplane::cdi

// The nvml backend against the fake libnvidia-ml.so.1
// (testing/fake_libnvidia_ml.cc), and the fake against NVML's documented
// behaviour.
#include "devices/nvml/nvml_backend.h"

#include <dlfcn.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "devices/gpu_models.h"
#include "devices/nvml/gpu_facts_json.h"
#include "devices/nvml/internal/nvml_api.h"
#include "gtest/gtest.h"
#include "testing/eventually.h"

namespace draplane::devices {
namespace {

namespace fs = std::filesystem;

constexpr char kFakeNvml[] = FAKE_NVML_PATH;
constexpr char kGpu0[] = "GPU-7277883e-ce1e-3b6e-6cc1-6d52e80cdb86";
constexpr char kGpu1[] = "GPU-0c1b2a39-8f4e-4c8e-9d71-5a3f2e6b7c01";

// Two GPUs of `model` as NVML reports them, with the PCIe roots the test's
// sysfs gives their bus IDs.
NodeGpuFacts TwoGpus(std::string_view model) {
  NodeGpuFacts facts;
  facts.driver_version = "580.95.05";
  facts.cuda_driver_version = 13000;
  const GpuModel& m = *FindGpuModel(model);
  facts.gpus.push_back(MakeGpuFacts(m, 0, kGpu0, "00000000:3B:00.0"));
  facts.gpus.push_back(MakeGpuFacts(m, 1, kGpu1, "00000000:86:00.0"));
  facts.gpus[0].pcie_root = "pci0000:3a";
  facts.gpus[1].pcie_root = "pci0000:85";
  return facts;
}

using draplane::testing::Eventually;

class NvmlBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::path(::testing::TempDir()) / "nvmlXXXXXX");
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    sysfs_ = dir_ / "sys";
    const fs::path devices = sysfs_ / "bus/pci/devices";
    fs::create_directories(devices);
    fs::create_symlink("../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0",
                       devices / "0000:3b:00.0");
    fs::create_symlink("../../../devices/pci0000:85/0000:85:01.0/0000:86:00.0",
                       devices / "0000:86:00.0");
  }
  void TearDown() override {
    // The fake NVML reads the environment; the tests run one at a time.
    unsetenv("DRAPLANE_FAKE_NVML_FACTS");  // NOLINT(concurrency-mt-unsafe)
    fs::remove_all(dir_);
  }

  // Scripts the fake with `facts`; the next nvmlInit_v2 reads them.
  void Script(const NodeGpuFacts& facts) {
    const fs::path file = dir_ / "facts.json";
    std::ofstream(file) << GpuFactsToJson(facts).dump(2);
    // NOLINTNEXTLINE(concurrency-mt-unsafe): one test at a time
    setenv("DRAPLANE_FAKE_NVML_FACTS", file.c_str(), 1);
  }

  absl::StatusOr<std::unique_ptr<DeviceBackend>> Open() {
    return OpenNvmlBackend(
        {.library_path = kFakeNvml, .sysfs_root = sysfs_.string()});
  }

  // Opens the backend over `facts`; fails the test when it cannot.
  std::unique_ptr<DeviceBackend> OpenOver(const NodeGpuFacts& facts) {
    Script(facts);
    absl::StatusOr<std::unique_ptr<DeviceBackend>> backend = Open();
    EXPECT_TRUE(backend.ok()) << backend.status();
    return backend.ok() ? std::move(*backend) : nullptr;
  }

  NodeGpuFacts MustDiscover(DeviceBackend& backend) {
    absl::StatusOr<NodeGpuFacts> facts = backend.Discover();
    EXPECT_TRUE(facts.ok()) << facts.status();
    return facts.ok() ? *facts : NodeGpuFacts{};
  }

  fs::path dir_;
  fs::path sysfs_;
};

TEST_F(NvmlBackendTest, DiscoversEveryModelExactly) {
  for (const GpuModel& model : GpuModels()) {
    SCOPED_TRACE(std::string(model.product_name));
    const NodeGpuFacts facts = TwoGpus(model.names.front());
    std::unique_ptr<DeviceBackend> backend = OpenOver(facts);
    ASSERT_NE(backend, nullptr);
    EXPECT_EQ(MustDiscover(*backend), facts);
  }
}

TEST_F(NvmlBackendTest, DiscoversOptionalFactsAndUnknownPcieRoot) {
  NodeGpuFacts facts = TwoGpus("L4");
  facts.gpus[0].memory_bytes.reset();  // NOT_SUPPORTED
  facts.gpus[0].addressing_mode = "ATS";
  facts.gpus[1].addressing_mode = "None";
  facts.gpus[1].vgpu_guest = true;
  facts.gpus[1].brand = 2;                        // Tesla
  facts.gpus[1].pci_bus_id = "00000001:AF:00.0";  // no sysfs entry
  facts.gpus[1].pcie_root = "";
  std::unique_ptr<DeviceBackend> backend = OpenOver(facts);
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(MustDiscover(*backend), facts);
}

TEST_F(NvmlBackendTest, CreatesMigDeviceOnHopperEnablingMigMode) {
  const NodeGpuFacts facts = TwoGpus("H100");
  std::unique_ptr<DeviceBackend> backend = OpenOver(facts);
  ASSERT_NE(backend, nullptr);

  absl::StatusOr<MigDeviceFacts> created =
      backend->CreateMigDevice(kGpu1, /*1g.10gb*/ 19, 3);
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_TRUE(absl::StartsWith(created->uuid, "MIG-")) << created->uuid;
  EXPECT_EQ(created->profile_id, 19u);
  EXPECT_EQ(created->placement, (MigPlacement{3, 1}));
  EXPECT_EQ(created->gpu_instance_id, 10u);  // NVML's ID of slice 3
  EXPECT_EQ(created->compute_instance_id, 0u);

  NodeGpuFacts want = facts;
  want.gpus[1].mig_enabled = true;
  want.gpus[1].mig_devices = {*created};
  EXPECT_EQ(MustDiscover(*backend), want);
}

TEST_F(NvmlBackendTest, RefusesOccupiedPlacement) {
  std::unique_ptr<DeviceBackend> backend = OpenOver(TwoGpus("H200"));
  ASSERT_NE(backend, nullptr);
  ASSERT_TRUE(backend->CreateMigDevice(kGpu0, /*3g*/ 9, 0).ok());

  absl::StatusOr<MigDeviceFacts> overlap =
      backend->CreateMigDevice(kGpu0, /*1g*/ 19, 2);
  EXPECT_EQ(overlap.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(overlap.status().message(), "occupied"))
      << overlap.status();
  EXPECT_EQ(backend->CreateMigDevice(kGpu0, /*7g*/ 0, 0).status().code(),
            absl::StatusCode::kFailedPrecondition);

  absl::StatusOr<MigDeviceFacts> other = backend->CreateMigDevice(kGpu0, 9, 4);
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(other->gpu_instance_id, 2u);
  EXPECT_EQ(MustDiscover(*backend).gpus[0].mig_devices.size(), 2u);
}

TEST_F(NvmlBackendTest, DestroyingTheLastMigDeviceDisablesMigOnHopper) {
  std::unique_ptr<DeviceBackend> backend = OpenOver(TwoGpus("H100"));
  ASSERT_NE(backend, nullptr);
  absl::StatusOr<MigDeviceFacts> a = backend->CreateMigDevice(kGpu0, 14, 0);
  absl::StatusOr<MigDeviceFacts> b = backend->CreateMigDevice(kGpu0, 14, 2);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->uuid, b->uuid);

  ASSERT_TRUE(
      backend
          ->DestroyMigDevice(kGpu0, a->gpu_instance_id, a->compute_instance_id)
          .ok());
  NodeGpuFacts now = MustDiscover(*backend);
  EXPECT_TRUE(now.gpus[0].mig_enabled);
  EXPECT_EQ(now.gpus[0].mig_devices, std::vector<MigDeviceFacts>{*b});

  ASSERT_TRUE(
      backend
          ->DestroyMigDevice(kGpu0, b->gpu_instance_id, b->compute_instance_id)
          .ok());
  EXPECT_EQ(MustDiscover(*backend), TwoGpus("H100"));
  // Already gone (MIG off now): success.
  EXPECT_TRUE(
      backend
          ->DestroyMigDevice(kGpu0, b->gpu_instance_id, b->compute_instance_id)
          .ok());
}

TEST_F(NvmlBackendTest, AmpereWithMigOffCannotCreate) {
  const NodeGpuFacts facts = TwoGpus("A100-80GB-PCIE");
  std::unique_ptr<DeviceBackend> backend = OpenOver(facts);
  ASSERT_NE(backend, nullptr);
  absl::StatusOr<MigDeviceFacts> created =
      backend->CreateMigDevice(kGpu0, 19, 0);
  EXPECT_EQ(created.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(MustDiscover(*backend), facts);  // MIG mode untouched
}

TEST_F(NvmlBackendTest, AmpereWithMigOnDiscoversExistingDevicesExactly) {
  NodeGpuFacts facts = TwoGpus("A100");
  GpuFacts& gpu = facts.gpus[1];
  gpu.mig_enabled = true;
  gpu.mig_devices = {
      {"MIG-4a1c2a6e-0a43-5b4f-9a52-8d3bcb0b2f10", 1, 0, 9, {0, 4}},
      {"MIG-4a1c2a6e-0a43-5b4f-9a52-8d3bcb0b2f11", 5, 0, 14, {4, 2}},
      {"MIG-4a1c2a6e-0a43-5b4f-9a52-8d3bcb0b2f12", 13, 0, 19, {6, 1}},
  };
  std::unique_ptr<DeviceBackend> backend = OpenOver(facts);
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(MustDiscover(*backend), facts);

  // Full: the 2g placements left would overlap.
  EXPECT_EQ(backend->CreateMigDevice(kGpu1, 14, 0).status().code(),
            absl::StatusCode::kFailedPrecondition);
  // Destroying one keeps MIG mode on an Ampere GPU.
  ASSERT_TRUE(backend->DestroyMigDevice(kGpu1, 5, 0).ok());
  gpu.mig_devices.erase(gpu.mig_devices.begin() + 1);
  EXPECT_EQ(MustDiscover(*backend), facts);
  // And MIG mode on, creating works there too.
  absl::StatusOr<MigDeviceFacts> created =
      backend->CreateMigDevice(kGpu1, 19, 4);
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(created->gpu_instance_id, 11u);
}

TEST_F(NvmlBackendTest, CreateErrors) {
  std::unique_ptr<DeviceBackend> h100 = OpenOver(TwoGpus("H100"));
  ASSERT_NE(h100, nullptr);
  EXPECT_EQ(h100->CreateMigDevice("GPU-nope", 19, 0).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(h100->CreateMigDevice(kGpu0, 42, 0).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(h100->CreateMigDevice(kGpu0, /*2g*/ 14, 1).status().code(),
            absl::StatusCode::kInvalidArgument);
  // A failed create on a GPU whose MIG mode it enabled turns it off again.
  EXPECT_FALSE(MustDiscover(*h100).gpus[0].mig_enabled);
  h100.reset();

  std::unique_ptr<DeviceBackend> l4 = OpenOver(TwoGpus("L4"));
  ASSERT_NE(l4, nullptr);
  EXPECT_EQ(l4->CreateMigDevice(kGpu0, 19, 0).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(l4->DestroyMigDevice(kGpu0, 7, 0).ok());  // no MIG: nothing
}

TEST_F(NvmlBackendTest, ReportsXidEventsOnce) {
  NodeGpuFacts facts = TwoGpus("H200");
  facts.gpus[1].xids = {79, 48};
  std::unique_ptr<DeviceBackend> backend = OpenOver(facts);
  ASSERT_NE(backend, nullptr);
  ASSERT_TRUE(Eventually(
      [&] { return MustDiscover(*backend).gpus[1].xids.size() >= 2; }));
  EXPECT_EQ(MustDiscover(*backend), facts);
}

TEST_F(NvmlBackendTest, GpuLostMarksEveryGpu) {
  NodeGpuFacts facts = TwoGpus("H100");
  facts.gpus[0].lost = true;
  std::unique_ptr<DeviceBackend> backend = OpenOver(facts);
  ASSERT_NE(backend, nullptr);
  ASSERT_TRUE(Eventually([&] {
    NodeGpuFacts now = MustDiscover(*backend);
    return now.gpus[0].lost && now.gpus[1].lost;
  }));
}

TEST_F(NvmlBackendTest, FindsTheLibraryUnderTheDriverRoot) {
  const fs::path lib_dir = dir_ / "driver/usr/lib/x86_64-linux-gnu";
  fs::create_directories(lib_dir);
  fs::create_symlink(kFakeNvml, lib_dir / "libnvidia-ml.so.1");
  Script(TwoGpus("L4"));
  NvmlBackendOptions options;
  options.driver_root = (dir_ / "driver").string();
  options.sysfs_root = sysfs_.string();
  absl::StatusOr<std::unique_ptr<DeviceBackend>> backend =
      OpenNvmlBackend(options);
  ASSERT_TRUE(backend.ok()) << backend.status();
  EXPECT_EQ(MustDiscover(**backend), TwoGpus("L4"));
}

// Time-slicing goes through nvidia-smi from the driver root, with the
// backend's libnvidia-ml.so.1 preloaded (NVIDIA's driver does the same).
TEST_F(NvmlBackendTest, SetsTimeSlicesWithNvidiaSmi) {
  const fs::path bin = dir_ / "driver/usr/bin";
  fs::create_directories(bin);
  const fs::path log = dir_ / "calls.log";
  const fs::path smi = bin / "nvidia-smi";
  std::ofstream(smi) << "#!/bin/sh\necho \"$LD_PRELOAD $*\" >> " << log.string()
                     << "\ncase \"$*\" in *--set-timeslice=2*) echo "
                        "'Insufficient Permissions'; exit 4;; esac\n";
  fs::permissions(smi, fs::perms::owner_all);
  Script(TwoGpus("H100"));
  NvmlBackendOptions options;
  options.library_path = kFakeNvml;
  options.driver_root = (dir_ / "driver").string();
  options.sysfs_root = sysfs_.string();
  absl::StatusOr<std::unique_ptr<DeviceBackend>> backend =
      OpenNvmlBackend(options);
  ASSERT_TRUE(backend.ok()) << backend.status();
  const std::string uuid = TwoGpus("H100").gpus[1].uuid;
  ASSERT_TRUE((*backend)->SetTimeSlice(uuid, TimeSliceInterval::kLong).ok());
  std::ifstream in(log);
  std::string first, second;
  std::getline(in, first);
  std::getline(in, second);
  EXPECT_EQ(first, std::string(kFakeNvml) + " -i " + uuid + " -c DEFAULT");
  EXPECT_EQ(second, std::string(kFakeNvml) + " compute-policy -i " + uuid +
                        " --set-timeslice=3");
  absl::Status failed =
      (*backend)->SetTimeSlice(uuid, TimeSliceInterval::kMedium);
  EXPECT_EQ(failed.code(), absl::StatusCode::kInternal);
  EXPECT_NE(failed.message().find("Insufficient Permissions"),
            std::string::npos)
      << failed;
  EXPECT_EQ(
      (*backend)->SetTimeSlice("GPU-nope", TimeSliceInterval::kLong).code(),
      absl::StatusCode::kNotFound);
  fs::remove(smi);
  EXPECT_EQ((*backend)->SetTimeSlice(uuid, TimeSliceInterval::kLong).code(),
            absl::StatusCode::kNotFound);
}

// MPS: the control daemon from the driver root, started with the group's
// environment, then its defaults sent on its standard input; quit at stop.
TEST_F(NvmlBackendTest, StartsAndStopsMpsControlDaemons) {
  const fs::path bin = dir_ / "driver/usr/bin";
  fs::create_directories(bin);
  const fs::path log = dir_ / "calls.log";
  for (const char* name : {"nvidia-smi", "nvidia-cuda-mps-control"}) {
    std::ofstream(bin / name)
        << "#!/bin/sh\nin=$(cat)\necho \"" << name
        << " $* pipe=$CUDA_MPS_PIPE_DIRECTORY visible=$CUDA_VISIBLE_DEVICES "
           "in=$in\" | tr '\\n' ' ' >> "
        << log.string() << "\necho >> " << log.string() << "\n";
    fs::permissions(bin / name, fs::perms::owner_all);
  }
  Script(TwoGpus("H100"));
  NvmlBackendOptions options;
  options.library_path = kFakeNvml;
  options.driver_root = (dir_ / "driver").string();
  options.sysfs_root = sysfs_.string();
  auto backend = OpenNvmlBackend(options);
  ASSERT_TRUE(backend.ok()) << backend.status();
  const NodeGpuFacts facts = TwoGpus("H100");
  MpsDaemonSpec spec;
  spec.pipe_dir = (dir_ / "mps/pipe").string();
  spec.log_dir = (dir_ / "mps/log").string();
  spec.device_uuids = {facts.gpus[0].uuid, facts.gpus[1].uuid};
  spec.whole_gpu_uuids = {facts.gpus[0].uuid};
  spec.active_thread_percentage = 50;
  spec.default_pinned_memory_limit = "10240M";
  spec.pinned_memory_limits = {{facts.gpus[1].uuid, "1024M"}};
  ASSERT_TRUE((*backend)->StartMpsDaemon(spec).ok());
  fs::create_directories(spec.pipe_dir);
  {
    std::ofstream pipe(spec.pipe_dir +
                       "/control");  // the daemon's control pipe
  }
  ASSERT_TRUE((*backend)->StopMpsDaemon(spec).ok());
  std::ifstream in(log);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  const std::string env = " pipe=" + spec.pipe_dir +
                          " visible=" + facts.gpus[0].uuid + "," +
                          facts.gpus[1].uuid;
  ASSERT_EQ(lines.size(), 5u) << ::testing::PrintToString(lines);
  EXPECT_EQ(
      lines[0].rfind(
          "nvidia-smi -i " + facts.gpus[0].uuid + " -c EXCLUSIVE_PROCESS", 0),
      0u);
  EXPECT_EQ(lines[1].rfind("nvidia-cuda-mps-control -d" + env, 0), 0u)
      << lines[1];
  EXPECT_EQ(lines[2], "nvidia-cuda-mps-control " + env +
                          " in=set_default_active_thread_percentage 50 "
                          "set_default_device_pinned_mem_limit " +
                          facts.gpus[0].uuid +
                          " 10240M set_default_device_pinned_mem_limit " +
                          facts.gpus[1].uuid + " 1024M ");
  EXPECT_EQ(lines[3], "nvidia-cuda-mps-control " + env + " in=quit ");
  EXPECT_EQ(
      lines[4].rfind("nvidia-smi -i " + facts.gpus[0].uuid + " -c DEFAULT", 0),
      0u);
}

TEST_F(NvmlBackendTest, MissingLibraryIsUnavailable) {
  const fs::path empty_root = dir_ / "empty";
  fs::create_directories(empty_root);
  NvmlBackendOptions options;
  options.driver_root = empty_root.string();
  absl::StatusOr<std::unique_ptr<DeviceBackend>> backend =
      OpenNvmlBackend(options);
  EXPECT_EQ(backend.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(absl::StrContains(backend.status().message(),
                                "libnvidia-ml.so.1 not found under " +
                                    empty_root.string() +
                                    " (is the NVIDIA driver installed?)"))
      << backend.status();

  backend = OpenNvmlBackend({.library_path = (dir_ / "libnvidia-ml.so.1")});
  EXPECT_EQ(backend.status().code(), absl::StatusCode::kUnavailable);
}

TEST_F(NvmlBackendTest, LibraryWithoutNvmlIsFailedPrecondition) {
  absl::StatusOr<std::unique_ptr<DeviceBackend>> backend =
      OpenNvmlBackend({.library_path = "libc.so.6"});
  EXPECT_EQ(backend.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(backend.status().message(), "nvmlInit_v2"))
      << backend.status();
}

TEST_F(NvmlBackendTest, DriverNotLoadedIsUnavailable) {
  // The fake's "no driver".
  unsetenv("DRAPLANE_FAKE_NVML_FACTS");  // NOLINT(concurrency-mt-unsafe)
  absl::StatusOr<std::unique_ptr<DeviceBackend>> backend = Open();
  EXPECT_EQ(backend.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(absl::StrContains(
      backend.status().message(),
      "nvmlInit_v2: NVML_ERROR_DRIVER_NOT_LOADED (nvml error 9)"))
      << backend.status();
}

// The fake on its own, where the backend does not exercise NVML's rules.
class FakeNvmlTest : public NvmlBackendTest {
 protected:
  void SetUp() override {
    NvmlBackendTest::SetUp();
    handle_ = dlopen(kFakeNvml, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle_, nullptr) << dlerror();
  }
  void TearDown() override {
    if (handle_ != nullptr) dlclose(handle_);
    NvmlBackendTest::TearDown();
  }
  template <typename F>
  F* Fn(const char* name) {
    return reinterpret_cast<F*>(dlsym(handle_, name));
  }
#define FAKE_FN(name) Fn<decltype(::name)>(#name)

  // Initialises NVML over `facts`; returns the handle of GPU `index`.
  nvmlDevice_t InitAndGet(const NodeGpuFacts& facts, unsigned int index) {
    Script(facts);
    EXPECT_EQ(FAKE_FN(nvmlInit_v2)(), NVML_SUCCESS);
    nvmlDevice_t dev = nullptr;
    EXPECT_EQ(FAKE_FN(nvmlDeviceGetHandleByIndex_v2)(index, &dev),
              NVML_SUCCESS);
    return dev;
  }
  void Shutdown() { EXPECT_EQ(FAKE_FN(nvmlShutdown)(), NVML_SUCCESS); }

  void* handle_ = nullptr;
};

TEST_F(FakeNvmlTest, FailsBeforeInit) {
  unsigned int count = 0;
  EXPECT_EQ(FAKE_FN(nvmlDeviceGetCount_v2)(&count), NVML_ERROR_UNINITIALIZED);
}

TEST_F(FakeNvmlTest, ProfilesAndPlacements) {
  nvmlDevice_t dev = InitAndGet(TwoGpus("H100"), 0);
  nvmlGpuInstanceProfileInfo_t info{};
  auto profile_info = FAKE_FN(nvmlDeviceGetGpuInstanceProfileInfo);
  EXPECT_EQ(profile_info(dev, 0x11, &info), NVML_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(profile_info(dev, /*8_SLICE*/ 0x5, &info),
            NVML_ERROR_NOT_SUPPORTED);
  ASSERT_EQ(profile_info(dev, 0x0, &info), NVML_SUCCESS);
  EXPECT_EQ(info.id, 19u);
  EXPECT_EQ(info.memorySizeMB, 9984u);

  auto placements = FAKE_FN(nvmlDeviceGetGpuInstancePossiblePlacements_v2);
  unsigned int count = 0;
  ASSERT_EQ(placements(dev, 19, nullptr, &count), NVML_SUCCESS);
  EXPECT_EQ(count, 7u);
  nvmlGpuInstancePlacement_t buf[7] = {};
  count = 3;
  EXPECT_EQ(placements(dev, 19, buf, &count), NVML_ERROR_INSUFFICIENT_SIZE);
  count = 7;
  ASSERT_EQ(placements(dev, 19, buf, &count), NVML_SUCCESS);
  EXPECT_EQ(buf[6].start, 6u);
  EXPECT_EQ(buf[6].size, 1u);

  nvmlDeviceAddressingMode_t mode{};
  EXPECT_EQ(FAKE_FN(nvmlDeviceGetAddressingMode)(dev, &mode),
            NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
  mode.version = nvmlDeviceAddressingMode_v1;
  EXPECT_EQ(FAKE_FN(nvmlDeviceGetAddressingMode)(dev, &mode),
            NVML_ERROR_NOT_SUPPORTED);
  Shutdown();

  dev = InitAndGet(TwoGpus("L4"), 0);
  unsigned int current = 0, pending = 0;
  EXPECT_EQ(FAKE_FN(nvmlDeviceGetMigMode)(dev, &current, &pending),
            NVML_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(profile_info(dev, 0x0, &info), NVML_ERROR_NOT_SUPPORTED);
  Shutdown();
}

TEST_F(FakeNvmlTest, AmpereMigModeChangeIsPending) {
  nvmlDevice_t dev = InitAndGet(TwoGpus("A100"), 0);
  nvmlReturn_t activation = NVML_SUCCESS;
  ASSERT_EQ(
      FAKE_FN(nvmlDeviceSetMigMode)(dev, NVML_DEVICE_MIG_ENABLE, &activation),
      NVML_SUCCESS);
  EXPECT_EQ(activation, NVML_ERROR_RESET_REQUIRED);
  unsigned int current = 9, pending = 9;
  ASSERT_EQ(FAKE_FN(nvmlDeviceGetMigMode)(dev, &current, &pending),
            NVML_SUCCESS);
  EXPECT_EQ(current, 0u);
  EXPECT_EQ(pending, 1u);
  nvmlGpuInstancePlacement_t placement{0, 1};
  nvmlGpuInstance_t gi = nullptr;
  EXPECT_EQ(FAKE_FN(nvmlDeviceCreateGpuInstanceWithPlacement)(dev, 19,
                                                              &placement, &gi),
            NVML_ERROR_NOT_SUPPORTED);
  Shutdown();
}

TEST_F(FakeNvmlTest, HopperInstancesFollowNvmlRules) {
  nvmlDevice_t dev = InitAndGet(TwoGpus("H100"), 1);
  nvmlReturn_t activation = NVML_ERROR_UNKNOWN;
  ASSERT_EQ(
      FAKE_FN(nvmlDeviceSetMigMode)(dev, NVML_DEVICE_MIG_ENABLE, &activation),
      NVML_SUCCESS);
  EXPECT_EQ(activation, NVML_SUCCESS);

  auto create_gi = FAKE_FN(nvmlDeviceCreateGpuInstanceWithPlacement);
  nvmlGpuInstance_t gi = nullptr, other = nullptr;
  nvmlGpuInstancePlacement_t slot0{0, 1}, slot1{1, 1}, bad{0, 2};
  EXPECT_EQ(create_gi(dev, 19, &bad, &gi), NVML_ERROR_INVALID_ARGUMENT);
  // 1g.10gb+me (ID 20): one instance at most.
  ASSERT_EQ(create_gi(dev, 20, &slot0, &gi), NVML_SUCCESS);
  EXPECT_EQ(create_gi(dev, 20, &slot1, &other),
            NVML_ERROR_INSUFFICIENT_RESOURCES);
  EXPECT_EQ(create_gi(dev, 19, &slot0, &other),
            NVML_ERROR_INSUFFICIENT_RESOURCES);
  nvmlGpuInstanceInfo_t gi_info{};
  ASSERT_EQ(FAKE_FN(nvmlGpuInstanceGetInfo)(gi, &gi_info), NVML_SUCCESS);
  EXPECT_EQ(gi_info.id, 7u);
  EXPECT_EQ(gi_info.profileId, 20u);
  EXPECT_EQ(gi_info.device, dev);

  // 1_SLICE_REV1 is offered on a +me GI, beside 1_SLICE; no 2-slice CI.
  auto ci_profile = FAKE_FN(nvmlGpuInstanceGetComputeInstanceProfileInfo);
  nvmlComputeInstanceProfileInfo_t cp{};
  EXPECT_EQ(ci_profile(gi, 0x7, 0, &cp), NVML_SUCCESS);
  EXPECT_EQ(ci_profile(gi, 0x1, 0, &cp), NVML_ERROR_NOT_SUPPORTED);
  ASSERT_EQ(ci_profile(gi, 0x0, 0, &cp), NVML_SUCCESS);
  EXPECT_EQ(cp.sliceCount, 1u);

  nvmlComputeInstance_t ci = nullptr;
  ASSERT_EQ(FAKE_FN(nvmlGpuInstanceCreateComputeInstance)(gi, cp.id, &ci),
            NVML_SUCCESS);
  nvmlComputeInstanceInfo_t ci_info{};
  ASSERT_EQ(FAKE_FN(nvmlComputeInstanceGetInfo_v2)(ci, &ci_info), NVML_SUCCESS);
  EXPECT_EQ(ci_info.id, 0u);
  EXPECT_EQ(ci_info.gpuInstance, gi);
  nvmlDevice_t mig = nullptr;
  ASSERT_EQ(FAKE_FN(nvmlDeviceGetMigDeviceHandleByIndex)(dev, 0, &mig),
            NVML_SUCCESS);
  EXPECT_EQ(mig, ci_info.device);
  EXPECT_EQ(FAKE_FN(nvmlDeviceGetMigDeviceHandleByIndex)(dev, 1, &mig),
            NVML_ERROR_NOT_FOUND);
  EXPECT_EQ(FAKE_FN(nvmlDeviceGetMigDeviceHandleByIndex)(dev, 7, &mig),
            NVML_ERROR_INVALID_ARGUMENT);

  // CI before GI; MIG mode cannot be disabled while a GI exists.
  EXPECT_EQ(FAKE_FN(nvmlGpuInstanceDestroy)(gi), NVML_ERROR_IN_USE);
  ASSERT_EQ(
      FAKE_FN(nvmlDeviceSetMigMode)(dev, NVML_DEVICE_MIG_DISABLE, &activation),
      NVML_SUCCESS);
  EXPECT_EQ(activation, NVML_ERROR_IN_USE);
  EXPECT_EQ(FAKE_FN(nvmlComputeInstanceDestroy)(ci), NVML_SUCCESS);
  EXPECT_EQ(FAKE_FN(nvmlGpuInstanceDestroy)(gi), NVML_SUCCESS);
  EXPECT_EQ(FAKE_FN(nvmlGpuInstanceDestroy)(gi), NVML_ERROR_INVALID_ARGUMENT);
  nvmlGpuInstance_t found = nullptr;
  EXPECT_EQ(FAKE_FN(nvmlDeviceGetGpuInstanceById)(dev, 7, &found),
            NVML_ERROR_NOT_FOUND);
  Shutdown();
}

TEST_F(FakeNvmlTest, EventsDeliverScriptedXidsOnceThenTimeOut) {
  NodeGpuFacts facts = TwoGpus("H100");
  facts.gpus[0].xids = {31};
  nvmlDevice_t dev = InitAndGet(facts, 0);
  nvmlEventSet_t set = nullptr;
  ASSERT_EQ(FAKE_FN(nvmlEventSetCreate)(&set), NVML_SUCCESS);
  ASSERT_EQ(FAKE_FN(nvmlDeviceRegisterEvents)(
                dev, nvmlEventTypeXidCriticalError, set),
            NVML_SUCCESS);
  nvmlEventData_t data{};
  ASSERT_EQ(FAKE_FN(nvmlEventSetWait_v2)(set, &data, 1000), NVML_SUCCESS);
  EXPECT_EQ(data.device, dev);
  EXPECT_EQ(data.eventType,
            static_cast<unsigned long long>(nvmlEventTypeXidCriticalError));
  EXPECT_EQ(data.eventData, 31u);
  EXPECT_EQ(data.gpuInstanceId, 0xFFFFFFFFu);
  EXPECT_EQ(FAKE_FN(nvmlEventSetWait_v2)(set, &data, 1), NVML_ERROR_TIMEOUT);
  EXPECT_EQ(FAKE_FN(nvmlEventSetFree)(set), NVML_SUCCESS);
  Shutdown();
}

#undef FAKE_FN

}  // namespace
}  // namespace draplane::devices

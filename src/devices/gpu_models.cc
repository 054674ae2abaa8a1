#include "devices/gpu_models.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"

namespace draplane::devices {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

// Engine counts of one GI profile: SMs, copy engines, decoders, encoders,
// JPEG decoders, optical-flow accelerators, and its memory in MiB.
struct Engines {
  uint32_t sm, ce, dec, enc, jpeg, ofa;
  uint64_t memory_mib;
};

std::vector<MigPlacement> Starts(std::initializer_list<uint32_t> starts,
                                 uint32_t size) {
  std::vector<MigPlacement> out;
  for (uint32_t s : starts) out.push_back({s, size});
  return out;
}

MigProfileFacts Profile(uint32_t index, uint32_t id, uint32_t slices,
                        uint32_t instances, Engines e,
                        std::vector<MigPlacement> placements) {
  MigProfileFacts p;
  p.index = index;
  p.id = id;
  p.slice_count = slices;
  p.instance_count = instances;
  p.multiprocessor_count = e.sm;
  p.copy_engine_count = e.ce;
  p.decoder_count = e.dec;
  p.encoder_count = e.enc;
  p.jpeg_count = e.jpeg;
  p.ofa_count = e.ofa;
  p.memory_size_mib = e.memory_mib;
  p.placements = std::move(placements);
  return p;
}

// The seven GI profiles A100, H100 and H200 share (NVML profile index,
// GI profile ID, compute slices, instance limit, placements), with each
// model's engines and memory, in NVML index order: 1_SLICE, 2_SLICE,
// 3_SLICE, 4_SLICE, 7_SLICE, 1_SLICE_REV1 (+me), 1_SLICE_REV2 (1g with
// two memory slices).
struct ProfileTable {
  Engines g1, g2, g3, g4, g7, g1_me, g1_double;
};

std::vector<MigProfileFacts> MigProfiles(const ProfileTable& t) {
  return {
      Profile(0x0, 19, 1, 7, t.g1, Starts({0, 1, 2, 3, 4, 5, 6}, 1)),
      Profile(0x1, 14, 2, 3, t.g2, Starts({0, 2, 4}, 2)),
      Profile(0x2, 9, 3, 2, t.g3, Starts({0, 4}, 4)),
      Profile(0x3, 5, 4, 1, t.g4, Starts({0}, 4)),
      Profile(0x4, 0, 7, 1, t.g7, Starts({0}, 8)),
      Profile(0x7, 20, 1, 1, t.g1_me, Starts({0, 1, 2, 3, 4, 5, 6}, 1)),
      Profile(0x9, 15, 1, 4, t.g1_double, Starts({0, 2, 4, 6}, 2)),
  };
}

std::vector<GpuModel> BuildModels() {
  // A100 40GB: 98 of 108 SMs usable in MIG.
  const ProfileTable a100_40{
      .g1 = {14, 1, 0, 0, 0, 0, 4864},
      .g2 = {28, 2, 1, 0, 0, 0, 9984},
      .g3 = {42, 3, 2, 0, 0, 0, 20096},
      .g4 = {56, 4, 2, 0, 0, 0, 20096},
      .g7 = {98, 7, 5, 0, 1, 1, 40448},
      .g1_me = {14, 1, 1, 0, 1, 1, 4864},
      .g1_double = {14, 1, 1, 0, 0, 0, 9856},
  };
  // A100 80GB: the same engines, twice the memory per slice.
  ProfileTable a100_80 = a100_40;
  a100_80.g1.memory_mib = 9728;
  a100_80.g2.memory_mib = 19968;
  a100_80.g3.memory_mib = 40192;
  a100_80.g4.memory_mib = 40192;
  a100_80.g7.memory_mib = 81152;
  a100_80.g1_me.memory_mib = 9728;
  a100_80.g1_double.memory_mib = 19968;
  const ProfileTable h100{
      .g1 = {16, 1, 1, 0, 1, 0, 9984},
      .g2 = {32, 2, 2, 0, 2, 0, 20096},
      .g3 = {60, 3, 3, 0, 3, 0, 40448},
      .g4 = {64, 4, 4, 0, 4, 0, 40448},
      .g7 = {132, 8, 7, 0, 7, 1, 81152},
      .g1_me = {16, 1, 1, 0, 1, 1, 9984},
      .g1_double = {26, 1, 1, 0, 1, 0, 20096},
  };
  ProfileTable h200 = h100;
  h200.g1.memory_mib = 16384;
  h200.g2.memory_mib = 33024;
  h200.g3.memory_mib = 71168;
  h200.g4.memory_mib = 71168;
  h200.g7.memory_mib = 143104;
  h200.g1_me.memory_mib = 16384;
  h200.g1_double.memory_mib = 33024;

  std::vector<GpuModel> models;
  models.push_back({.names = {"A100-40GB", "A100-SXM4-40GB", "A100"},
                    .product_name = "NVIDIA A100-SXM4-40GB",
                    .architecture = kArchAmpere,
                    .cuda_compute_major = 8,
                    .cuda_compute_minor = 0,
                    .memory_bytes = 40960 * kMiB,
                    .pci_device_id = 0x20B010DE,
                    .mig_capable = true,
                    .mig_profiles = MigProfiles(a100_40)});
  models.push_back({.names = {"A100-80GB-PCIE", "A100-PCIE-80GB"},
                    .product_name = "NVIDIA A100 80GB PCIe",
                    .architecture = kArchAmpere,
                    .cuda_compute_major = 8,
                    .cuda_compute_minor = 0,
                    .memory_bytes = 81920 * kMiB,
                    .pci_device_id = 0x20B510DE,
                    .mig_capable = true,
                    .mig_profiles = MigProfiles(a100_80)});
  models.push_back({.names = {"A100-80GB-SXM", "A100-SXM4-80GB"},
                    .product_name = "NVIDIA A100-SXM4-80GB",
                    .architecture = kArchAmpere,
                    .cuda_compute_major = 8,
                    .cuda_compute_minor = 0,
                    .memory_bytes = 81920 * kMiB,
                    .pci_device_id = 0x20B210DE,
                    .mig_capable = true,
                    .mig_profiles = MigProfiles(a100_80)});
  models.push_back({.names = {"H100", "H100-80GB-HBM3", "H100-SXM5-80GB"},
                    .product_name = "NVIDIA H100 80GB HBM3",
                    .architecture = kArchHopper,
                    .cuda_compute_major = 9,
                    .cuda_compute_minor = 0,
                    .memory_bytes = 81559 * kMiB,
                    .pci_device_id = 0x233010DE,
                    .mig_capable = true,
                    .mig_profiles = MigProfiles(h100)});
  models.push_back({.names = {"H200", "H200-141GB", "H200-SXM-141GB"},
                    .product_name = "NVIDIA H200",
                    .architecture = kArchHopper,
                    .cuda_compute_major = 9,
                    .cuda_compute_minor = 0,
                    .memory_bytes = 143771 * kMiB,
                    .pci_device_id = 0x233510DE,
                    .mig_capable = true,
                    .mig_profiles = MigProfiles(h200)});
  // A GPU without MIG: whole-GPU devices only, no counters.
  models.push_back({.names = {"L4"},
                    .product_name = "NVIDIA L4",
                    .architecture = kArchAda,
                    .cuda_compute_major = 8,
                    .cuda_compute_minor = 9,
                    .memory_bytes = 23034 * kMiB,
                    .pci_device_id = 0x27B810DE,
                    .mig_capable = false,
                    .mig_profiles = {}});
  return models;
}

absl::string_view Absl(std::string_view s) { return {s.data(), s.size()}; }

}  // namespace

const std::vector<GpuModel>& GpuModels() {
  static const std::vector<GpuModel>* models =
      new std::vector<GpuModel>(BuildModels());
  return *models;
}

const GpuModel* FindGpuModel(std::string_view name) {
  for (const GpuModel& m : GpuModels()) {
    if (absl::EqualsIgnoreCase(Absl(m.product_name), Absl(name))) return &m;
    for (std::string_view n : m.names) {
      if (absl::EqualsIgnoreCase(Absl(n), Absl(name))) return &m;
    }
  }
  return nullptr;
}

GpuFacts MakeGpuFacts(const GpuModel& model, uint32_t index, std::string uuid,
                      std::string pci_bus_id) {
  GpuFacts g;
  g.index = index;
  g.minor = index;
  g.uuid = std::move(uuid);
  g.product_name = std::string(model.product_name);
  g.architecture = model.architecture;
  g.brand = kBrandNvidia;
  g.cuda_compute_major = model.cuda_compute_major;
  g.cuda_compute_minor = model.cuda_compute_minor;
  g.memory_bytes = model.memory_bytes;
  g.pci_bus_id = std::move(pci_bus_id);
  g.pci_device_id = model.pci_device_id;
  g.mig_capable = model.mig_capable;
  g.mig_profiles = model.mig_profiles;
  return g;
}

}  // namespace draplane::devices

#include "devices/mig_profiles.h"

#include <cmath>

#include "common/str_cat.h"

namespace draplane::devices {
namespace {

// Compute slices of a GI profile index (go-nvlib's table).
uint32_t GpuSlices(uint32_t index) {
  switch (index) {
    case 0x0:  // 1_SLICE
    case 0x7:  // 1_SLICE_REV1
    case 0x9:  // 1_SLICE_REV2
    case 0xA:  // 1_SLICE_GFX
    case 0xD:  // 1_SLICE_NO_ME
    case 0xF:  // 1_SLICE_ALL_ME
      return 1;
    case 0x1:   // 2_SLICE
    case 0x8:   // 2_SLICE_REV1
    case 0xB:   // 2_SLICE_GFX
    case 0xE:   // 2_SLICE_NO_ME
    case 0x10:  // 2_SLICE_ALL_ME
      return 2;
    case 0x2:
      return 3;
    case 0x3:  // 4_SLICE
    case 0xC:  // 4_SLICE_GFX
      return 4;
    case 0x4:
      return 7;
    case 0x5:
      return 8;
    case 0x6:
      return 6;
  }
  return 0;
}

std::string_view Suffix(uint32_t index) {
  switch (index) {
    case 0x7:
    case 0x8:
      return "+me";
    case 0xF:
    case 0x10:
      return "+me.all";
    case 0xA:
    case 0xB:
    case 0xC:
      return "+gfx";
    case 0xD:
    case 0xE:
      return "-me";
  }
  return "";
}

}  // namespace

std::string MigProfileName(const MigProfileFacts& profile,
                           uint64_t gpu_memory_bytes) {
  uint32_t g = GpuSlices(profile.index);
  if (g == 0) g = profile.slice_count;
  const double total = static_cast<double>(gpu_memory_bytes);
  const double frac =
      static_cast<double>(profile.memory_size_mib) * 1048576.0 / total;
  const double frac_eighths = std::ceil(frac * 8.0) / 8.0;
  const double total_gb = std::ceil(total / 1073741824.0);
  const long gb = std::lround(frac_eighths * total_gb);
  return StrCat(g, "g.", gb, "gb", Suffix(profile.index));
}

std::string MigDeviceName(uint32_t parent_minor, std::string_view profile_name,
                          uint32_t gi_profile_id, uint32_t placement_start) {
  std::string profile;
  for (char c : profile_name) {
    if (c == '.') continue;
    profile.push_back(c == '+' ? '-' : c);
  }
  return StrCat("gpu-", parent_minor, "-mig-", profile, "-", gi_profile_id, "-",
                placement_start);
}

std::optional<MigProfileFacts> FindMigProfile(const GpuFacts& gpu,
                                              std::string_view name) {
  if (!gpu.memory_bytes) return std::nullopt;
  for (const MigProfileFacts& p : gpu.mig_profiles) {
    if (MigProfileName(p, *gpu.memory_bytes) == name) return p;
  }
  return std::nullopt;
}

}  // namespace draplane::devices

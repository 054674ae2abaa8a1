// Names of MIG profiles and MIG devices as NVIDIA's DRA driver derives
// them (go-nvlib's profile naming; the driver's device names), so that
// selectors written for NVIDIA's driver match draplane's devices.
#ifndef DRAPLANE_DEVICES_MIG_PROFILES_H_
#define DRAPLANE_DEVICES_MIG_PROFILES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "devices/gpu_facts.h"

namespace draplane::devices {

// "<G>g.<GB>gb" plus the attribute suffix of the GI profile index ("+me",
// "+me.all", "+gfx", "-me"). G comes from the profile index; GB is not
// the rounded memory: the profile's share of the GPU's memory is rounded
// up to a multiple of 1/8 and multiplied by the GPU's memory in whole GiB
// (rounded up), then rounded (so an H200's 16 GiB 1-slice profile is
// "1g.18gb"). `gpu_memory_bytes` is nvmlMemory_t.total.
std::string MigProfileName(const MigProfileFacts& profile,
                           uint64_t gpu_memory_bytes);

// The device name NVIDIA's driver publishes for a MIG device:
// "gpu-<parent minor>-mig-<profile without dots, '+' as '-'>-<GI profile
// ID>-<placement start>", e.g. "gpu-0-mig-1g10gb-me-20-6".
std::string MigDeviceName(uint32_t parent_minor, std::string_view profile_name,
                          uint32_t gi_profile_id, uint32_t placement_start);

// The profile of `gpu` called `name` (e.g. "3g.40gb"); nullopt if none.
std::optional<MigProfileFacts> FindMigProfile(const GpuFacts& gpu,
                                              std::string_view name);

}  // namespace draplane::devices

#endif  // DRAPLANE_DEVICES_MIG_PROFILES_H_

// The JSON form of NodeGpuFacts (devices/gpu_facts.h): the format in which
// raw NVML facts of real GPUs are saved (tests/data) and in which the fake
// libnvidia-ml.so.1 is scripted (DRAPLANE_FAKE_NVML_FACTS).
//
// Keys are the camelCase names of the struct members:
//   {"driverVersion": "580.95.05", "cudaDriverVersion": 13000,
//    "gpus": [{"index", "minor", "uuid", "productName", "architecture",
//              "brand", "cudaComputeMajor", "cudaComputeMinor",
//              "memoryBytes", "pciBusID", "pciDeviceID", "pcieRoot",
//              "addressingMode", "migCapable", "migEnabled", "vgpuGuest",
//              "migProfiles": [{"index", "id", "sliceCount", "instanceCount",
//                               "multiprocessorCount", "copyEngineCount",
//                               "decoderCount", "encoderCount", "jpegCount",
//                               "ofaCount", "memorySizeMiB",
//                               "placements": [{"start", "size"}]}],
//              "migDevices": [{"uuid", "gpuInstanceID", "computeInstanceID",
//                              "profileID", "placement": {"start", "size"}}],
//              "xids": [..], "lost"}]}
// Optional members ("memoryBytes", "addressingMode") are absent when unset.
#ifndef DRAPLANE_DEVICES_NVML_GPU_FACTS_JSON_H_
#define DRAPLANE_DEVICES_NVML_GPU_FACTS_JSON_H_

#include "absl/status/statusor.h"
#include "devices/gpu_facts.h"
#include "nlohmann/json.hpp"

namespace draplane::devices {

// Every member, optional ones only when set. GpuFactsFromJson of the result
// equals `facts`.
nlohmann::json GpuFactsToJson(const NodeGpuFacts& facts);

// Decodes the form above. Absent members keep the struct's defaults; unknown
// members, mistyped values and numbers out of range are InvalidArgument
// naming the JSON path ("gpus[1].migProfiles[0].placements[2].start: ...").
// Never throws.
absl::StatusOr<NodeGpuFacts> GpuFactsFromJson(const nlohmann::json& json);

}  // namespace draplane::devices

#endif  // DRAPLANE_DEVICES_NVML_GPU_FACTS_JSON_H_

// Arbitrary bytes as the GPU driver's checkpoint file, as a driver reads it
// at start (a torn, edited or foreign file). Reading must fail cleanly or
// give a checkpoint that writes and reads back equal. Any crash, sanitizer
// report, hang, escaped exception or round-trip mismatch is a bug.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gpu_driver/checkpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace draplane::gpu_driver;
  // Never destroyed, so that the exit handler that removes the folder
  // can still read its name.
  static const std::string& dir = *[] {
    char tmpl[] = "/tmp/draplane-checkpoint-fuzz-XXXXXX";
    const char* made = mkdtemp(tmpl);
    if (made == nullptr) std::abort();
    auto* name = new std::string(made);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    });
    return name;
  }();
  const std::string path = dir + "/checkpoint.json";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data),
              static_cast<std::streamsize>(size));
  }
  absl::StatusOr<Checkpoint> read = CheckpointFile(path).Read();
  if (!read.ok()) return 0;
  CheckpointFile copy(dir + "/copy.json");
  if (!copy.Write(*read).ok()) std::abort();
  absl::StatusOr<Checkpoint> again = copy.Read();
  if (!again.ok() || !(*again == *read)) {
    std::fprintf(stderr, "a checkpoint does not read back as written\n");
    std::abort();
  }
  return 0;
}

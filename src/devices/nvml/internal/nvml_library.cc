#include "devices/nvml/internal/nvml_library.h"

#include <dlfcn.h>
#include <unistd.h>

#include <array>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "common/str_cat.h"

namespace draplane::devices::nvml_internal {
namespace {

constexpr char kLibraryName[] = "libnvidia-ml.so.1";
constexpr char kReturnPayload[] = "type.draplane.dev/nvml.return";

// Where NVIDIA's installers and the distributions put the library (the
// directories NVIDIA's DRA driver searches under its driver root).
constexpr std::array<const char*, 6> kLibraryDirs = {
    "/usr/lib64", "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
    "/lib64",     "/lib/x86_64-linux-gnu",     "/lib/aarch64-linux-gnu",
};

// Stand-in for a missing optional function.
template <typename F>
struct NotSupported;
template <typename... Args>
struct NotSupported<nvmlReturn_t (*)(Args...)> {
  static nvmlReturn_t Call(Args...) { return NVML_ERROR_NOT_SUPPORTED; }
};

std::string JoinRoot(const std::string& root, std::string_view dir) {
  std::string r = root;
  while (!r.empty() && r.back() == '/') r.pop_back();
  return StrCat(r, dir, "/", kLibraryName);
}

absl::StatusCode CodeOf(nvmlReturn_t ret) {
  switch (ret) {
    case NVML_ERROR_INVALID_ARGUMENT:
    case NVML_ERROR_ARGUMENT_VERSION_MISMATCH:
      return absl::StatusCode::kInvalidArgument;
    case NVML_ERROR_NOT_FOUND:
    case NVML_ERROR_GPU_NOT_FOUND:
      return absl::StatusCode::kNotFound;
    case NVML_ERROR_NO_PERMISSION:
      return absl::StatusCode::kPermissionDenied;
    case NVML_ERROR_UNINITIALIZED:
    case NVML_ERROR_NOT_SUPPORTED:
    case NVML_ERROR_IN_USE:
    case NVML_ERROR_RESET_REQUIRED:
    case NVML_ERROR_INVALID_STATE:
    case NVML_ERROR_ALREADY_INITIALIZED:
      return absl::StatusCode::kFailedPrecondition;
    case NVML_ERROR_INSUFFICIENT_RESOURCES:
    case NVML_ERROR_MEMORY:
    case NVML_ERROR_INSUFFICIENT_POWER:
      return absl::StatusCode::kResourceExhausted;
    case NVML_ERROR_TIMEOUT:
      return absl::StatusCode::kDeadlineExceeded;
    case NVML_ERROR_GPU_IS_LOST:
    case NVML_ERROR_DRIVER_NOT_LOADED:
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
    case NVML_ERROR_LIBRARY_NOT_FOUND:
    case NVML_ERROR_NOT_READY:
    case NVML_ERROR_OPERATING_SYSTEM:
      return absl::StatusCode::kUnavailable;
    case NVML_ERROR_FUNCTION_NOT_FOUND:
    case NVML_ERROR_DEPRECATED:
      return absl::StatusCode::kUnimplemented;
    default:
      return absl::StatusCode::kInternal;
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<NvmlLibrary>> NvmlLibrary::Load(
    const std::string& library_path, const std::string& driver_root) {
  constexpr int kFlags = RTLD_NOW | RTLD_LOCAL;
  void* handle = nullptr;
  std::string path;
  if (!library_path.empty()) {
    path = library_path;
    handle = dlopen(path.c_str(), kFlags);
    if (handle == nullptr) {
      const char* err = dlerror();
      return absl::UnavailableError(
          StrCat("nvml: cannot load ", path, ": ",
                 err != nullptr ? err : "unknown dlopen error"));
    }
  } else {
    const std::string root = driver_root.empty() ? "/" : driver_root;
    std::string errors;
    for (const char* dir : kLibraryDirs) {
      std::string candidate = JoinRoot(root, dir);
      if (access(candidate.c_str(), F_OK) != 0) continue;
      handle = dlopen(candidate.c_str(), kFlags);
      if (handle != nullptr) {
        path = std::move(candidate);
        break;
      }
      const char* err = dlerror();
      StrAppend(&errors, "; ", err != nullptr ? err : candidate);
    }
    if (handle == nullptr && root == "/") {
      handle = dlopen(kLibraryName, kFlags);
      if (handle != nullptr) path = kLibraryName;
    }
    if (handle == nullptr) {
      return absl::UnavailableError(
          StrCat("nvml: ", kLibraryName, " not found under ", root,
                 " (is the NVIDIA driver installed?)", errors));
    }
  }

  std::unique_ptr<NvmlLibrary> lib(new NvmlLibrary(handle, path));
  absl::Status missing;
#define DRAPLANE_NVML_REQUIRED(name)                                         \
  lib->name = reinterpret_cast<decltype(&::name)>(dlsym(handle, #name));     \
  if (lib->name == nullptr && missing.ok()) {                                \
    missing = absl::FailedPreconditionError(                                 \
        StrCat("nvml: ", path,                                               \
               " lacks the required function " #name " (driver too old?)")); \
  }
#define DRAPLANE_NVML_OPTIONAL(name)                                     \
  lib->name = reinterpret_cast<decltype(&::name)>(dlsym(handle, #name)); \
  if (lib->name == nullptr) lib->name = &NotSupported<decltype(&::name)>::Call;
  DRAPLANE_NVML_FUNCTIONS(DRAPLANE_NVML_REQUIRED, DRAPLANE_NVML_OPTIONAL)
#undef DRAPLANE_NVML_REQUIRED
#undef DRAPLANE_NVML_OPTIONAL
  if (!missing.ok()) return missing;
  return lib;
}

NvmlLibrary::~NvmlLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

std::string NvmlReturnName(nvmlReturn_t ret) {
  switch (ret) {
#define DRAPLANE_NVML_RETURN_NAME(name) \
  case name:                            \
    return #name;
    DRAPLANE_NVML_RETURN_NAME(NVML_SUCCESS)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_UNINITIALIZED)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_INVALID_ARGUMENT)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_NOT_SUPPORTED)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_NO_PERMISSION)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_ALREADY_INITIALIZED)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_NOT_FOUND)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_INSUFFICIENT_SIZE)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_INSUFFICIENT_POWER)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_DRIVER_NOT_LOADED)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_TIMEOUT)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_IRQ_ISSUE)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_LIBRARY_NOT_FOUND)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_FUNCTION_NOT_FOUND)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_CORRUPTED_INFOROM)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_GPU_IS_LOST)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_RESET_REQUIRED)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_OPERATING_SYSTEM)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_LIB_RM_VERSION_MISMATCH)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_IN_USE)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_MEMORY)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_NO_DATA)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_VGPU_ECC_NOT_SUPPORTED)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_INSUFFICIENT_RESOURCES)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_FREQ_NOT_SUPPORTED)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_ARGUMENT_VERSION_MISMATCH)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_DEPRECATED)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_NOT_READY)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_GPU_NOT_FOUND)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_INVALID_STATE)
    DRAPLANE_NVML_RETURN_NAME(NVML_ERROR_UNKNOWN)
#undef DRAPLANE_NVML_RETURN_NAME
  }
  return StrCat("NVML_ERROR_", static_cast<int>(ret));
}

absl::Status NvmlError(std::string_view function, nvmlReturn_t ret,
                       std::string_view context) {
  absl::Status status(
      CodeOf(ret),
      StrCat(context, context.empty() ? "" : ": ", function, ": ",
             NvmlReturnName(ret), " (nvml error ", static_cast<int>(ret), ")"));
  status.SetPayload(kReturnPayload, absl::Cord(StrCat(static_cast<int>(ret))));
  return status;
}

std::optional<nvmlReturn_t> NvmlReturnOf(const absl::Status& status) {
  const auto payload = status.GetPayload(kReturnPayload);
  int value = 0;
  if (!payload.has_value() ||
      !absl::SimpleAtoi(std::string(*payload), &value)) {
    return std::nullopt;
  }
  return static_cast<nvmlReturn_t>(value);
}

}  // namespace draplane::devices::nvml_internal

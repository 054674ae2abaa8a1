// Container Device Interface (CDI) specs: the model, the rules, the JSON/YAML
// text and the spec files a DRA kubelet plugin writes for container
// runtimes (containerd >= 1.7, CRI-O).
//
// The model and its rules follow cncf-tags/container-device-interface
// (CDI spec 1.1.0): specs-go/config.go for the fields, specs-go/version.go for
// the minimum version a spec needs, pkg/parser/parser.go for kind and device
// names, pkg/cdi/producer/validator/validator-default.go for the edits, and
// SPEC.md where it is stricter than the Go library (absolute hook paths,
// positive hook timeouts). Design notes: shared/design/reference/
// nvidia-dra-driver.md section 10.
//
// Everything here is a pure function of its inputs except WriteSpecFile and
// RemoveSpecFile, which touch the file system. All functions are
// thread-compatible; none keeps state.
#ifndef DRAPLANE_CDI_CDI_SPEC_H_
#define DRAPLANE_CDI_CDI_SPEC_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/field_errors.h"

namespace draplane::cdi {

// The newest CDI spec version this model knows (specs-go CurrentVersion).
inline constexpr std::string_view kCurrentCdiVersion = "1.1.0";
// The version every spec needs at least (specs-go vEarliest).
inline constexpr std::string_view kEarliestCdiVersion = "0.3.0";

// A device node to create in the container. Absent optionals are omitted
// from the JSON, like Go's omitempty.
struct DeviceNode {
  std::string path;                      // required, absolute
  std::optional<std::string> host_path;  // 0.5.0
  std::optional<std::string> type;       // "c", "b", "u", "p" or empty
  std::optional<int64_t> major;
  std::optional<int64_t> minor;
  std::optional<uint32_t> file_mode;       // os.FileMode bits, e.g. 0644
  std::optional<std::string> permissions;  // subset of "rwm"
  std::optional<uint32_t> uid;
  std::optional<uint32_t> gid;

  friend bool operator==(const DeviceNode&, const DeviceNode&) = default;
};

struct Mount {
  std::string host_path;       // required
  std::string container_path;  // required, absolute
  std::vector<std::string> options;
  std::optional<std::string> type;  // 0.4.0

  friend bool operator==(const Mount&, const Mount&) = default;
};

struct Hook {
  std::string hook_name;  // an OCI hook name, e.g. "createContainer"
  std::string path;       // required, absolute
  std::vector<std::string> args;
  std::vector<std::string> env;    // "KEY=VALUE"
  std::optional<int64_t> timeout;  // seconds, > 0 when set

  friend bool operator==(const Hook&, const Hook&) = default;
};

// Linux Intel RDT settings (0.7.0; schemata and enableMonitoring 1.1.0;
// enableCMT and enableMBM only before 1.1.0).
struct IntelRdt {
  std::optional<std::string> clos_id;
  std::optional<std::string> l3_cache_schema;
  std::optional<std::string> mem_bw_schema;
  std::optional<std::vector<std::string>> schemata;
  bool enable_monitoring = false;
  bool enable_cmt = false;
  bool enable_mbm = false;

  friend bool operator==(const IntelRdt&, const IntelRdt&) = default;
};

// A host network interface moved into the container (1.1.0).
struct NetDevice {
  std::string host_interface_name;
  std::string name;

  friend bool operator==(const NetDevice&, const NetDevice&) = default;
};

struct ContainerEdits {
  std::vector<std::string> env;  // "KEY=VALUE"
  std::vector<DeviceNode> device_nodes;
  std::vector<NetDevice> net_devices;  // 1.1.0
  std::vector<Hook> hooks;
  std::vector<Mount> mounts;
  std::optional<IntelRdt> intel_rdt;      // 0.7.0
  std::vector<uint32_t> additional_gids;  // 0.7.0

  // True iff no edit of any kind is present.
  bool empty() const;

  friend bool operator==(const ContainerEdits&,
                         const ContainerEdits&) = default;
};

struct Device {
  std::string name;  // unqualified, e.g. "<claimUID>-gpu-0"
  std::map<std::string, std::string> annotations;  // 0.6.0
  ContainerEdits container_edits;                  // must not be empty

  friend bool operator==(const Device&, const Device&) = default;
};

// A whole spec file. Empty maps and lists are omitted from the JSON.
struct CdiSpec {
  std::string cdi_version;  // e.g. "0.5.0"; see MinimumCdiVersion
  std::string kind;  // "<vendor>/<class>", e.g. "k8s.gpu.nvidia.com/claim"
  std::map<std::string, std::string> annotations;  // 0.6.0
  std::vector<Device> devices;                     // at least one
  ContainerEdits container_edits;  // applied when any device is injected

  friend bool operator==(const CdiSpec&, const CdiSpec&) = default;
};

// The lowest CDI spec version that has every feature `spec` uses (upstream
// MinimumRequiredVersion): "0.3.0" at least; "0.4.0" for a mount type;
// "0.5.0" for a device node hostPath or a device name starting with a digit;
// "0.6.0" for annotations (spec or device) or a '.' in the class part of
// the kind; "0.7.0" for additionalGids or intelRdt; "1.1.0" for netDevices
// or intelRdt schemata/enableMonitoring. Runtimes refuse a spec whose
// cdiVersion is lower, so writers set cdi_version to this.
std::string MinimumCdiVersion(const CdiSpec& spec);

// Every rule a CDI runtime applies when it loads `spec`, as Kubernetes-style
// field errors in document order (empty when valid):
//  - cdiVersion: a known version (0.1.0 ... 0.8.0, 1.0.0, 1.1.0, with or
//    without a leading "v"), not lower than MinimumCdiVersion(spec);
//  - kind: "<vendor>/<class>"; vendor: letters, digits, '-' and '.', at
//    most 253 bytes, starting with a letter and ending with a letter or
//    digit; class: at most 63 bytes, letters, digits, '-', '_' and '.',
//    starting with a letter and ending with a letter or digit (the CDI
//    parser requires a leading letter for both, stricter than SPEC.md's
//    DNS-subdomain wording);
//  - annotations: Kubernetes annotation rules (qualified-name keys, 256 KiB
//    in total);
//  - devices: at least one; names unique, letters, digits, '-', '_', '.',
//    ':', starting and ending with a letter or digit; edits not empty;
//  - edits: env "KEY=VALUE" (non-empty key); deviceNodes: absolute path,
//    type "", "b", "c", "u" or "p", permissions a subset of "rwm"; mounts:
//    hostPath required, absolute containerPath; hooks: an OCI hook name
//    (prestart, createRuntime, createContainer, startContainer, poststart,
//    poststop), absolute path, env "KEY=VALUE", timeout > 0; netDevices: both
//    names set; intelRdt: closID a valid file name, enableCMT/enableMBM only
//    before 1.1.0.
FieldErrorList ValidateCdiSpecFields(const CdiSpec& spec);

// ValidateCdiSpecFields as a status: OK, or InvalidArgument whose message is
// the Kubernetes aggregate of the errors, e.g.
//   devices[0].containerEdits.deviceNodes[1].path: Invalid value: "dev/x":
//   must be an absolute path
absl::Status ValidateCdiSpec(const CdiSpec& spec);

// The spec as JSON (two-space indented, fields in specs-go order). Never
// fails; does not validate.
std::string CdiSpecToJson(const CdiSpec& spec);

// Parses a spec from JSON or YAML (one document; YAML may start with "---").
// Strict like the CDI loaders: an unknown field is an error naming its path
// (`unknown field "devices[0].containerEdits.foo"`), as is a value of the
// wrong type. In YAML, a plain scalar where a string is expected is read as
// text (`name: 0` is the name "0"), as sigs.k8s.io/yaml does. Does not
// validate: call ValidateCdiSpec. Errors are InvalidArgument.
absl::StatusOr<CdiSpec> CdiSpecFromText(std::string_view json_or_yaml);

// "vendor/class=name" (upstream parser.QualifiedName); no validation.
std::string QualifiedDeviceName(std::string_view vendor, std::string_view cls,
                                std::string_view name);

// The file name of a transient spec: "<vendor>-<class>_<id>.json" with every
// '/' in `transient_id` replaced by '_' (upstream GenerateTransientSpecName).
std::string TransientSpecFileName(std::string_view vendor, std::string_view cls,
                                  std::string_view transient_id);

// Validates `spec`, then writes it as JSON to `dir`/`file_name` atomically:
// a temporary file in `dir` is written, fsync'ed, set to mode 0644 and
// renamed over the target, then `dir` itself is fsync'ed, so a runtime
// scanning `dir` sees the old file or the complete new one, never a partial
// one. `dir` is created (with parents, mode 0755) if missing. On failure no
// temporary file is left behind.
// Errors: InvalidArgument for an invalid spec or a file name that is empty,
// "." or "..", or contains '/'; otherwise the errno-derived status of the
// failing system call, with the path in the message.
absl::Status WriteSpecFile(const std::string& dir, const std::string& file_name,
                           const CdiSpec& spec);

// Removes `dir`/`file_name`. A missing file (or directory) is success, so
// the call is idempotent. Same file name rules as WriteSpecFile.
absl::Status RemoveSpecFile(const std::string& dir,
                            const std::string& file_name);

}  // namespace draplane::cdi

#endif  // DRAPLANE_CDI_CDI_SPEC_H_

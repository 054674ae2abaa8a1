// Expands the `-f FILE|DIR|-` arguments of a command into manifest texts.
#ifndef DRAPLANE_CMD_MANIFEST_INPUTS_H_
#define DRAPLANE_CMD_MANIFEST_INPUTS_H_

#include <iosfwd>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace draplane::cmd {

struct ManifestInput {
  std::string source;  // path as given, or "<stdin>"
  std::string text;
  // The path below the directory argument it came from (the file name
  // for a file argument, "stdin.yaml" for standard input).
  std::string relative;
};

// Reads each argument: "-" is standard input (read from `in`), a directory
// contributes its *.yaml, *.yml and *.json files in name order (descending
// into subdirectories when `recursive`), anything else is read as a file.
// Fails with NotFound / PermissionDenied ... naming the path that could not
// be read, or InvalidArgument when a directory holds no manifest.
absl::StatusOr<std::vector<ManifestInput>> ReadManifestInputs(
    const std::vector<std::string>& args, bool recursive, std::istream& in);

}  // namespace draplane::cmd

#endif  // DRAPLANE_CMD_MANIFEST_INPUTS_H_

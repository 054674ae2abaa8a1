// Test helpers for the draplane commands: run the command tree in process
// and capture its output. Test-only.
#ifndef DRAPLANE_CMD_COMMAND_TEST_UTIL_H_
#define DRAPLANE_CMD_COMMAND_TEST_UTIL_H_

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cmd/commands.h"
#include "testing/shared_test_data.h"

namespace draplane::cmd::testing_util {

// The shared test data (testing/shared_test_data.h).
inline std::filesystem::path SharedDir() {
  return draplane::testing::SharedDataDir();
}

inline std::filesystem::path SourceDir() {
  return std::filesystem::path(DRAPLANE_SOURCE_DIR);
}

struct Result {
  int code;
  std::string out;
  std::string err;
};

// Runs `draplane args...` in process.
inline Result RunDraplane(std::vector<std::string> args) {
  args.insert(args.begin(), "draplane");
  std::vector<const char*> argv;
  argv.reserve(args.size());
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  int code = RunMain(static_cast<int>(argv.size()), argv.data(), {out, err});
  return {code, out.str(), err.str()};
}

// Writes `text` to a file `name` in a per-test-binary temporary directory.
inline std::filesystem::path WriteTemp(const std::string& name,
                                       const std::string& text) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "draplane_cmd_test";
  std::filesystem::create_directories(dir);
  std::filesystem::path p = dir / name;
  std::ofstream(p) << text;
  return p;
}

}  // namespace draplane::cmd::testing_util

#endif  // DRAPLANE_CMD_COMMAND_TEST_UTIL_H_

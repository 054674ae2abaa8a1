// Where the tests find the shared test data (upstream API fixtures, the
// cel-spec conformance suite, the guide's manifests, GPU traces), and what
// a test does when it is missing: it skips, saying where it looked, except
// under CI (CI=true, as CI runs .ci/run), where missing data fails the
// test. The data is used in place and never copied into the tree.
#ifndef DRAPLANE_TESTING_SHARED_TEST_DATA_H_
#define DRAPLANE_TESTING_SHARED_TEST_DATA_H_

#include <cstdlib>
#include <filesystem>
#include <string_view>

namespace draplane::testing {

// $DRAPLANE_SHARED_DIR, else the `shared` folder beside the source tree.
// Test binaries are compiled with DRAPLANE_SOURCE_DIR.
inline std::filesystem::path SharedDataDir() {
  if (const char* env = std::getenv("DRAPLANE_SHARED_DIR"); env && *env) {
    return env;
  }
  return std::filesystem::path(DRAPLANE_SOURCE_DIR) / ".." / "shared";
}

// True under CI (CI=true): missing shared data is then a failure.
inline bool SharedDataRequired() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string_view(ci) == "true";
}

}  // namespace draplane::testing

// In a TEST body: when `where` (a file or folder) does not exist, skips the
// test (fails it under CI) with a message naming the path and
// DRAPLANE_SHARED_DIR.
#define DRAPLANE_REQUIRE_SHARED_DATA(where)                                    \
  do {                                                                         \
    const std::filesystem::path& draplane_required_ = (where);                 \
    if (!std::filesystem::exists(draplane_required_)) {                        \
      if (::draplane::testing::SharedDataRequired()) {                         \
        GTEST_FAIL() << "shared test data not found at " << draplane_required_ \
                     << " (CI=true: the shared data must be present; set "     \
                        "DRAPLANE_SHARED_DIR)";                                \
      }                                                                        \
      GTEST_SKIP() << "shared test data not found at " << draplane_required_   \
                   << " (set DRAPLANE_SHARED_DIR to the shared/ folder)";      \
    }                                                                          \
  } while (false)

#endif  // DRAPLANE_TESTING_SHARED_TEST_DATA_H_

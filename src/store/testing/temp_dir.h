// A fresh directory per test, removed afterwards (for the store's tests).
#ifndef DRAPLANE_STORE_TESTING_TEMP_DIR_H_
#define DRAPLANE_STORE_TESTING_TEMP_DIR_H_

#include <unistd.h>

#include <filesystem>
#include <string>

namespace draplane::store::testing {

class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("draplane-store-test-" + std::to_string(::getpid()) + "-" +
             std::to_string(counter_++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string File(const std::string& name) const { return path_ / name; }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

}  // namespace draplane::store::testing

#endif  // DRAPLANE_STORE_TESTING_TEMP_DIR_H_

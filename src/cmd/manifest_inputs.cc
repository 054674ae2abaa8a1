#include "cmd/manifest_inputs.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "common/str_cat.h"

namespace draplane::cmd {
namespace {

namespace fs = std::filesystem;

bool IsManifestFile(const fs::path& p) {
  std::string ext = p.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

absl::StatusOr<std::string> ReadWholeFile(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    std::string reason = std::strerror(errno);
    return errno == ENOENT
               ? absl::NotFoundError(
                     StrCat("the path \"", path.string(), "\" does not exist"))
               : absl::PermissionDeniedError(
                     StrCat("cannot read \"", path.string(), "\": ", reason));
  }
  std::stringstream buffer;
  buffer << file.rdbuf();
  if (file.bad()) {
    return absl::DataLossError(StrCat("error reading \"", path.string(), "\""));
  }
  return buffer.str();
}

}  // namespace

absl::StatusOr<std::vector<ManifestInput>> ReadManifestInputs(
    const std::vector<std::string>& args, bool recursive, std::istream& in) {
  std::vector<ManifestInput> inputs;
  for (const std::string& arg : args) {
    if (arg == "-") {
      std::stringstream buffer;
      buffer << in.rdbuf();
      inputs.push_back({"<stdin>", buffer.str(), "stdin.yaml"});
      continue;
    }
    std::error_code ec;
    fs::path path(arg);
    if (fs::is_directory(path, ec)) {
      std::vector<fs::path> files;
      if (recursive) {
        for (const auto& e : fs::recursive_directory_iterator(path, ec)) {
          if (e.is_regular_file() && IsManifestFile(e.path())) {
            files.push_back(e.path());
          }
        }
      } else {
        for (const auto& e : fs::directory_iterator(path, ec)) {
          if (e.is_regular_file() && IsManifestFile(e.path())) {
            files.push_back(e.path());
          }
        }
      }
      if (ec) {
        return absl::PermissionDeniedError(
            StrCat("cannot list \"", arg, "\": ", ec.message()));
      }
      if (files.empty()) {
        return absl::InvalidArgumentError(
            StrCat("error reading \"", arg,
                   "\": recognized file extensions are [.json .yaml .yml]"));
      }
      std::sort(files.begin(), files.end());
      for (const fs::path& f : files) {
        auto text = ReadWholeFile(f);
        if (!text.ok()) return text.status();
        inputs.push_back(
            {f.string(), *std::move(text), fs::relative(f, path, ec).string()});
      }
      continue;
    }
    auto text = ReadWholeFile(path);
    if (!text.ok()) return text.status();
    inputs.push_back({arg, *std::move(text), path.filename().string()});
  }
  return inputs;
}

}  // namespace draplane::cmd

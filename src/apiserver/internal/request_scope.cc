
#include "apiserver/internal/request_scope.h"

#include <string>
#include <vector>

#include "apiserver/internal/api_errors.h"
#include "common/str_cat.h"

namespace draplane::apiserver::internal {

std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start < path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start) out.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// Parses /api/v1/... and /apis/<g>/<v>/... resource paths; nullopt when
// the path is not a resource path (discovery, unknown).
absl::StatusOr<Target> ParseResourcePath(
    const std::vector<std::string_view>& s) {
  Target t;
  size_t i;
  if (s.size() >= 3 && s[0] == "api" && s[1] == "v1") {
    t.version = "v1";
    i = 2;
  } else if (s.size() >= 4 && s[0] == "apis") {
    t.group = std::string(s[1]);
    t.version = std::string(s[2]);
    i = 3;
  } else {
    return internal::PathNotFound();
  }
  std::vector<std::string_view> rest(s.begin() + i, s.end());
  auto find = [&](std::string_view plural) -> const ResourceInfo* {
    const ResourceInfo* r = internal::FindResource(t.group, plural);
    return r != nullptr && r->ServesVersion(t.version) ? r : nullptr;
  };
  // namespaces/<ns>/<resource>[/<name>[/<sub>]]
  if (rest.size() >= 3 && rest[0] == "namespaces" && t.group.empty() &&
      internal::FindResource("", rest[2]) != nullptr &&
      internal::FindResource("", rest[2])->namespaced()) {
    t.namespace_ = std::string(rest[1]);
    rest.erase(rest.begin(), rest.begin() + 2);
  } else if (rest.size() >= 3 && rest[0] == "namespaces" && !t.group.empty()) {
    t.namespace_ = std::string(rest[1]);
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.empty() || rest.size() > 3) return internal::PathNotFound();
  t.resource = find(rest[0]);
  if (t.resource == nullptr) return internal::PathNotFound();
  if (!t.namespace_.empty() && !t.resource->namespaced()) {
    return internal::PathNotFound();
  }
  if (rest.size() >= 2) t.name = std::string(rest[1]);
  if (rest.size() == 3) {
    t.subresource = std::string(rest[2]);
    if (!t.resource->HasSubresource(t.subresource)) {
      return internal::PathNotFound();
    }
  }
  if (t.resource->namespaced() && t.namespace_.empty() && !t.name.empty()) {
    return internal::PathNotFound();
  }
  return t;
}

absl::StatusOr<FieldValidation> ParseFieldValidation(const std::string& v) {
  if (v.empty() || v == "Warn") return FieldValidation::kWarn;
  if (v == "Strict") return FieldValidation::kStrict;
  if (v == "Ignore") return FieldValidation::kIgnore;
  return internal::BadRequest(
      StrCat("fieldValidation parameter unsupported: ", v,
             " (supported values: \"Ignore\", \"Strict\", \"Warn\")"));
}

absl::StatusOr<bool> ParseDryRun(const http::HttpRequest& req) {
  bool dry = false;
  auto range = req.query.equal_range("dryRun");
  for (auto it = range.first; it != range.second; ++it) {
    if (it->second != "All") {
      return internal::BadRequest(StrCat(
          "Invalid dry run value: unsupported dry run option: ", it->second,
          " (supported values: \"All\")"));
    }
    dry = true;
  }
  return dry;
}

// The field manager of a write: fieldManager, else the User-Agent's
// product (what upstream derives), else "unknown".
std::string ManagerOf(const http::HttpRequest& req) {
  std::string manager = req.Query("fieldManager");
  if (manager.empty()) {
    manager = req.Header("user-agent");
    manager = manager.substr(0, manager.find('/'));
  }
  return manager.empty() ? "unknown" : manager;
}

// The options of a write the server makes on its own behalf (scale,
// the dry-run check of a pod's inline claim templates): main
// resource, no field manager.
WriteOptions OwnWrite(bool dry_run) {
  internal::WriteOptions options;
  options.dry_run = dry_run;
  return options;
}

}  // namespace draplane::apiserver::internal

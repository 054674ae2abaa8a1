#include "scheduler/node_filters/internal/resource_names.h"

#include <string>

#include "common/name_validation.h"

namespace draplane::scheduler::node_filters::internal {
namespace {

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

bool IsQualifiedName(std::string_view value) {
  return name_validation::IsQualifiedName(value).empty();
}

bool IsPrefixedNativeResource(std::string_view name) {
  return name.find("kubernetes.io/") != std::string_view::npos;
}

bool IsNativeResource(std::string_view name) {
  return name.find('/') == std::string_view::npos ||
         IsPrefixedNativeResource(name);
}

bool IsExtendedResourceName(std::string_view name) {
  if (IsNativeResource(name) || StartsWith(name, "requests.")) return false;
  return IsQualifiedName(std::string("requests.") + std::string(name));
}

bool IsScalarResourceName(std::string_view name) {
  return IsExtendedResourceName(name) || StartsWith(name, kHugePagesPrefix) ||
         IsPrefixedNativeResource(name) ||
         StartsWith(name, kAttachableVolumesPrefix);
}

}  // namespace draplane::scheduler::node_filters::internal

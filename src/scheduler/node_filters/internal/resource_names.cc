#include "scheduler/node_filters/internal/resource_names.h"

#include <string>

namespace draplane::scheduler::node_filters::internal {
namespace {

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9');
}

bool IsLowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

// qualifiedNameFmt: ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], <= 63.
bool IsQualifiedNamePart(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  if (!IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

// IsDNS1123Subdomain: <= 253, dot-separated labels of [a-z0-9-] that start
// and end with [a-z0-9].
bool IsDns1123Subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    std::string_view label =
        s.substr(start, dot == std::string_view::npos ? std::string_view::npos
                                                      : dot - start);
    if (label.empty() || !IsLowerAlnum(label.front()) ||
        !IsLowerAlnum(label.back())) {
      return false;
    }
    for (char c : label) {
      if (!IsLowerAlnum(c) && c != '-') return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

}  // namespace

bool IsQualifiedName(std::string_view value) {
  size_t slash = value.find('/');
  if (slash == std::string_view::npos) return IsQualifiedNamePart(value);
  if (value.find('/', slash + 1) != std::string_view::npos) return false;
  std::string_view prefix = value.substr(0, slash);
  std::string_view name = value.substr(slash + 1);
  return IsDns1123Subdomain(prefix) && IsQualifiedNamePart(name);
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

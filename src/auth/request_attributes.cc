#include "auth/request_attributes.h"

#include <cctype>
#include <vector>

#include "common/str_cat.h"
#include "common/str_split.h"
#include "selectors/selectors.h"

namespace draplane::auth {
namespace {

std::vector<std::string> SplitPath(std::string_view path) {
  std::vector<std::string> parts;
  for (std::string_view p : StrSplit(path, '/')) {
    if (!p.empty()) parts.emplace_back(p);
  }
  return parts;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(c));
  return out;
}

// Go's strconv.ParseBool's true values.
bool GoTrue(std::string_view v) {
  return v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" ||
         v == "True";
}

// The value a fieldSelector requires of metadata.name ("" when none):
// fields.Selector.RequiresExactMatch on an AND of `key=value` terms.
std::string NameFromFieldSelector(std::string_view selector) {
  std::string found;
  for (std::string_view term : StrSplit(selector, ',')) {
    size_t eq = term.find('=');
    if (eq == std::string_view::npos || (eq > 0 && term[eq - 1] == '!')) {
      continue;
    }
    std::string_view key = term.substr(0, eq);
    std::string_view value = term.substr(eq + 1);
    if (!value.empty() && value[0] == '=') value.remove_prefix(1);
    if (key == "metadata.name") found = std::string(value);
  }
  return found;
}

// path.IsValidPathSegmentName: not "." or "..", no "/" or "%".
bool ValidPathSegmentName(std::string_view name) {
  return name != "." && name != ".." &&
         name.find_first_of("/%") == std::string_view::npos;
}

}  // namespace

RequestAttributes ResolveRequest(
    std::string_view method, std::string_view path,
    const std::multimap<std::string, std::string>& query) {
  RequestAttributes a;
  a.path = std::string(path);
  a.verb = Lower(method);
  std::vector<std::string> parts = SplitPath(path);
  if (parts.size() < 3 || (parts[0] != "api" && parts[0] != "apis")) {
    return a;
  }
  size_t i = 1;
  if (parts[0] == "apis") {
    if (parts.size() - i < 3) return a;  // group, version and resource
    a.api_group = parts[i++];
  }
  a.resource_request = true;
  a.api_version = parts[i++];
  if (parts[i] == "proxy" || parts[i] == "watch") {
    if (parts.size() - i < 2) {
      // Upstream answers "unable to determine kind and namespace from url"
      // and the request is not authorized as a resource request.
      a.resource_request = false;
      a.api_group.clear();
      a.api_version.clear();
      return a;
    }
    a.verb = parts[i++];
  } else if (method == "POST") {
    a.verb = "create";
  } else if (method == "GET" || method == "HEAD") {
    a.verb = "get";
  } else if (method == "PUT") {
    a.verb = "update";
  } else if (method == "PATCH") {
    a.verb = "patch";
  } else if (method == "DELETE") {
    a.verb = "delete";
  } else {
    a.verb = "";
  }
  if (parts[i] == "namespaces") {
    if (parts.size() - i > 1) {
      a.namespace_ = parts[i + 1];
      if (parts.size() - i > 2 && parts[i + 2] != "status" &&
          parts[i + 2] != "finalize") {
        i += 2;
      }
    }
  }
  const size_t n = parts.size() - i;
  if (n >= 3 && a.verb != "proxy") a.subresource = parts[i + 2];
  if (n >= 2) a.name = parts[i + 1];
  if (n >= 1) a.resource = parts[i];
  if (a.name.empty() && a.verb == "get") {
    auto watch = query.find("watch");
    a.verb = watch != query.end() && GoTrue(watch->second) ? "watch" : "list";
    auto fs = query.find("fieldSelector");
    if (fs != query.end()) {
      std::string name = NameFromFieldSelector(fs->second);
      if (!name.empty() && ValidPathSegmentName(name)) a.name = name;
    }
  }
  if (a.name.empty() && a.verb == "delete") a.verb = "deletecollection";
  if (a.verb == "list" || a.verb == "watch" || a.verb == "deletecollection") {
    auto fs = query.find("fieldSelector");
    if (fs != query.end()) {
      auto selector = selectors::ParseFieldSelector(fs->second);
      if (selector.ok()) {
        a.field_selector = selector->Requirements();
      } else {
        a.field_selector_error = true;
      }
    }
  }
  return a;
}

std::string ForbiddenText(const RequestAttributes& a, std::string_view reason) {
  std::string text;
  if (!a.resource_request) {
    text = StrCat("User \"", a.user.name, "\" cannot ", a.verb, " path \"",
                  a.path, "\"");
  } else {
    std::string resource = a.resource;
    if (!a.subresource.empty()) StrAppend(&resource, "/", a.subresource);
    text = StrCat("User \"", a.user.name, "\" cannot ", a.verb, " resource \"",
                  resource, "\" in API group \"", a.api_group, "\"");
    if (!a.namespace_.empty()) {
      StrAppend(&text, " in the namespace \"", a.namespace_, "\"");
    } else {
      StrAppend(&text, " at the cluster scope");
    }
  }
  if (!reason.empty()) StrAppend(&text, ": ", reason);
  return text;
}

std::string ForbiddenMessage(const RequestAttributes& a,
                             std::string_view reason) {
  const std::string text = ForbiddenText(a, reason);
  if (!a.resource_request || a.resource.empty()) {
    return StrCat("forbidden: ", text);
  }
  std::string qualified = a.resource;
  if (!a.api_group.empty()) StrAppend(&qualified, ".", a.api_group);
  if (a.name.empty()) return StrCat(qualified, " is forbidden: ", text);
  return StrCat(qualified, " \"", a.name, "\" is forbidden: ", text);
}

}  // namespace draplane::auth

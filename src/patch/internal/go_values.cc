#include "patch/internal/go_values.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "common/str_cat.h"
#include "patch/patch.h"

namespace draplane::patch::internal {
namespace {

// fmt's %v of a float64: strconv.FormatFloat(f, 'g', -1, 64), i.e. the
// shortest digits that round-trip, in %e form when the decimal exponent is
// below -4 or at least 6 (Go uses precision 6 for that decision when the
// precision is "shortest").
std::string FormatGoFloat(double f) {
  char buf[64];
  auto [end, ec] =
      std::to_chars(buf, buf + sizeof(buf), f, std::chars_format::scientific);
  if (ec != std::errc()) return "NaN";
  std::string_view sci(buf, end - buf);  // "-1.2345e+06"
  bool negative = !sci.empty() && sci[0] == '-';
  if (negative) sci.remove_prefix(1);
  size_t e_pos = sci.find('e');
  if (e_pos == std::string_view::npos) return std::string(buf, end);
  std::string digits;
  for (char c : sci.substr(0, e_pos)) {
    if (c != '.') digits.push_back(c);
  }
  int exp = std::atoi(std::string(sci.substr(e_pos + 1)).c_str());
  std::string out = negative ? "-" : "";
  if (exp < -4 || exp >= 6) {
    out.push_back(digits[0]);
    if (digits.size() > 1) {
      out.push_back('.');
      out.append(digits, 1, std::string::npos);
    }
    out.push_back('e');
    out.push_back(exp < 0 ? '-' : '+');
    int abs_exp = exp < 0 ? -exp : exp;
    if (abs_exp < 10) out.push_back('0');
    out += std::to_string(abs_exp);
    return out;
  }
  if (exp < 0) {
    out += "0.";
    out.append(static_cast<size_t>(-exp - 1), '0');
    out += digits;
    return out;
  }
  size_t int_digits = static_cast<size_t>(exp) + 1;
  if (digits.size() <= int_digits) {
    out += digits;
    out.append(int_digits - digits.size(), '0');
  } else {
    out.append(digits, 0, int_digits);
    out.push_back('.');
    out.append(digits, int_digits, std::string::npos);
  }
  return out;
}

void AppendGoString(const Json& value, std::string* out) {
  switch (KindOf(value)) {
    case GoKind::kNull:
      out->append("<nil>");
      return;
    case GoKind::kBool:
      out->append(value.get<bool>() ? "true" : "false");
      return;
    case GoKind::kString:
      out->append(value.get_ref<const std::string&>());
      return;
    case GoKind::kInt:
      if (value.is_number_unsigned()) {
        out->append(std::to_string(value.get<uint64_t>()));
      } else {
        out->append(std::to_string(value.get<int64_t>()));
      }
      return;
    case GoKind::kFloat:
      out->append(FormatGoFloat(value.get<double>()));
      return;
    case GoKind::kArray: {
      out->push_back('[');
      bool first = true;
      for (const Json& element : value) {
        if (!first) out->push_back(' ');
        first = false;
        AppendGoString(element, out);
      }
      out->push_back(']');
      return;
    }
    case GoKind::kObject: {
      std::vector<std::pair<std::string_view, const Json*>> members;
      for (auto it = value.begin(); it != value.end(); ++it) {
        members.emplace_back(it.key(), &it.value());
      }
      std::sort(members.begin(), members.end());
      out->append("map[");
      bool first = true;
      for (const auto& [key, member] : members) {
        if (!first) out->push_back(' ');
        first = false;
        StrAppend(out, key, ":");
        AppendGoString(*member, out);
      }
      out->push_back(']');
      return;
    }
  }
}

}  // namespace

GoKind KindOf(const Json& value) {
  switch (value.type()) {
    case Json::value_t::boolean:
      return GoKind::kBool;
    case Json::value_t::string:
      return GoKind::kString;
    case Json::value_t::number_integer:
      return GoKind::kInt;
    case Json::value_t::number_unsigned:
      return value.get<uint64_t>() <=
                     static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                 ? GoKind::kInt
                 : GoKind::kFloat;
    case Json::value_t::number_float:
      return GoKind::kFloat;
    case Json::value_t::object:
      return GoKind::kObject;
    case Json::value_t::array:
      return GoKind::kArray;
    default:
      return GoKind::kNull;
  }
}

bool GoEqual(const Json& a, const Json& b) {
  GoKind kind = KindOf(a);
  if (kind != KindOf(b)) return false;
  switch (kind) {
    case GoKind::kNull:
      return true;
    case GoKind::kBool:
      return a.get<bool>() == b.get<bool>();
    case GoKind::kString:
      return a.get_ref<const std::string&>() == b.get_ref<const std::string&>();
    case GoKind::kInt:
    case GoKind::kFloat:
      return a == b;  // nlohmann compares numbers by value
    case GoKind::kArray: {
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i) {
        if (!GoEqual(a[i], b[i])) return false;
      }
      return true;
    }
    case GoKind::kObject: {
      if (a.size() != b.size()) return false;
      for (auto it = a.begin(); it != a.end(); ++it) {
        auto other = b.find(it.key());
        if (other == b.end() || !GoEqual(it.value(), *other)) return false;
      }
      return true;
    }
  }
  return false;
}

std::string GoString(const Json& value) {
  std::string out;
  AppendGoString(value, &out);
  return out;
}

std::string GoTypeName(const Json& value) {
  switch (KindOf(value)) {
    case GoKind::kNull:
      return "%!s(<nil>)";
    case GoKind::kBool:
      return "bool";
    case GoKind::kString:
      return "string";
    case GoKind::kInt:
      return "int64";
    case GoKind::kFloat:
      return "float64";
    case GoKind::kObject:
      return "map[string]interface {}";
    case GoKind::kArray:
      return "[]interface {}";
  }
  return "";
}

int Depth(const Json& value) {
  int max_depth = 0;
  std::vector<std::pair<const Json*, int>> stack = {{&value, 0}};
  while (!stack.empty()) {
    auto [node, depth] = stack.back();
    stack.pop_back();
    if (!node->is_structured()) continue;
    ++depth;
    if (depth > max_depth) max_depth = depth;
    for (const Json& child : *node) {
      if (child.is_structured()) stack.emplace_back(&child, depth);
    }
  }
  return max_depth;
}

absl::Status CheckDepth(const Json& original, const Json& patch) {
  for (auto [value, what] :
       {std::pair<const Json*, std::string_view>{&original, "document"},
        {&patch, "patch"}}) {
    if (Depth(*value) > kMaxJsonDepth) {
      return absl::InvalidArgumentError(StrCat(
          "the ", what, " nests deeper than ", kMaxJsonDepth, " levels"));
    }
  }
  return absl::OkStatus();
}

}  // namespace draplane::patch::internal

#include "cel/internal/dra_device.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cel/internal/kubernetes_library.h"
#include "common/semver.h"
#include "common/str_cat.h"

namespace draplane::cel::internal {
namespace {

// Splits "domain/id"; a bare "id" belongs to `driver`
// (dynamic-resource-allocation/cel parseQualifiedName).
std::pair<std::string_view, std::string_view> SplitQualifiedName(
    std::string_view name, std::string_view driver) {
  size_t slash = name.find('/');
  if (slash == std::string_view::npos) return {driver, name};
  return {name.substr(0, slash), name.substr(slash + 1)};
}

absl::StatusOr<Value> ParseVersion(std::string_view text) {
  absl::StatusOr<Semver> v = Semver::Parse(text);
  if (!v.ok()) {
    return absl::InvalidArgumentError(
        StrCat("parse semantic version: ", std::string(v.status().message())));
  }
  return SemverValue(*std::move(v));
}

// The CEL value of one attribute, in upstream's order of precedence
// (getAttributeValue: list forms first, then scalars).
absl::StatusOr<Value> AttributeValue(const api::DeviceAttribute& a) {
  if (!a.ints().empty()) {
    std::vector<Value> out;
    for (int64_t i : a.ints()) out.push_back(Value::Int(i));
    return Value::List(std::move(out));
  }
  if (!a.bools().empty()) {
    std::vector<Value> out;
    for (bool b : a.bools()) out.push_back(Value::Bool(b));
    return Value::List(std::move(out));
  }
  if (!a.strings().empty()) {
    std::vector<Value> out;
    for (const std::string& s : a.strings()) out.push_back(Value::String(s));
    return Value::List(std::move(out));
  }
  if (!a.versions().empty()) {
    std::vector<Value> out;
    for (const std::string& s : a.versions()) {
      absl::StatusOr<Value> v = ParseVersion(s);
      if (!v.ok()) return v.status();
      out.push_back(*std::move(v));
    }
    return Value::List(std::move(out));
  }
  if (a.int_value()) return Value::Int(*a.int_value());
  if (a.bool_value()) return Value::Bool(*a.bool_value());
  if (a.string_value()) return Value::String(std::string(*a.string_value()));
  if (a.version_value()) return ParseVersion(*a.version_value());
  return absl::InvalidArgumentError("unsupported attribute value");
}

// Groups (domain, id, value) triples into the outer map with the
// empty-map lookup default; an error value when a domain holds one id
// twice.
Value DomainMaps(
    std::map<std::string, std::vector<std::pair<Value, Value>>, std::less<>>
        domains) {
  std::vector<std::pair<Value, Value>> outer;
  outer.reserve(domains.size());
  for (auto& [domain, entries] : domains) {
    Value inner = Value::Map(std::move(entries));
    if (inner.is_error()) {
      return Value::Error(
          StrCat("domain ", domain, ": ", inner.error_message()));
    }
    outer.emplace_back(Value::String(domain), std::move(inner));
  }
  return Value::MapWithLookupDefault(std::move(outer), Value::Map({}));
}

}  // namespace

absl::StatusOr<Value> MakeDeviceValue(std::string_view driver,
                                      const api::Device& device) {
  std::map<std::string, std::vector<std::pair<Value, Value>>, std::less<>>
      attributes;
  for (const auto& [name, attribute] : device.attributes) {
    absl::StatusOr<Value> value = AttributeValue(attribute);
    if (!value.ok()) {
      return absl::InvalidArgumentError(StrCat(
          "attribute ", name, ": ", std::string(value.status().message())));
    }
    auto [domain, id] = SplitQualifiedName(name, driver);
    attributes[std::string(domain)].emplace_back(Value::String(std::string(id)),
                                                 *std::move(value));
  }
  std::map<std::string, std::vector<std::pair<Value, Value>>, std::less<>>
      capacity;
  for (const auto& [name, cap] : device.capacity) {
    auto [domain, id] = SplitQualifiedName(name, driver);
    capacity[std::string(domain)].emplace_back(Value::String(std::string(id)),
                                               QuantityValue(cap.value));
  }
  // A qualified and a bare name can land on the same key ("x" and
  // "<driver>/x"); upstream's Go map silently keeps one of them, draplane
  // reports it.
  Value attrs = DomainMaps(std::move(attributes));
  if (attrs.is_error()) {
    return absl::InvalidArgumentError(
        StrCat("device attributes: ", attrs.error_message()));
  }
  Value caps = DomainMaps(std::move(capacity));
  if (caps.is_error()) {
    return absl::InvalidArgumentError(
        StrCat("device capacity: ", caps.error_message()));
  }
  std::vector<std::pair<Value, Value>> fields;
  fields.emplace_back(Value::String("driver"),
                      Value::String(std::string(driver)));
  fields.emplace_back(
      Value::String("allowMultipleAllocations"),
      Value::Bool(device.rare->allow_multiple_allocations.value_or(false)));
  fields.emplace_back(Value::String("attributes"), std::move(attrs));
  fields.emplace_back(Value::String("capacity"), std::move(caps));
  return Value::Map(std::move(fields));
}

}  // namespace draplane::cel::internal

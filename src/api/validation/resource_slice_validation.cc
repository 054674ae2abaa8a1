// ResourceSlice (pkg/apis/resource/validation).

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <ctime>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/object_codec.h"
#include "api/validation/internal/validation_rules.h"
#include "common/go_strconv.h"
#include "common/name_validation.h"
#include "common/str_cat.h"

namespace draplane::api::validation_internal {

namespace {

// ------------------------------------------------ ResourceSlice

bool HaveDeviceTaints(const ResourceSliceSpec& spec) {
  for (const auto& d : spec.devices) {
    if (!d.rare->taints.empty()) return true;
  }
  return false;
}
bool HaveConsumesCounters(const ResourceSliceSpec& spec) {
  for (const auto& d : spec.devices) {
    if (!d.rare->consumes_counters.empty()) return true;
  }
  return false;
}
bool HaveListAttributes(const ResourceSliceSpec& spec) {
  for (const auto& d : spec.devices) {
    for (const auto& [name, a] : d.attributes) {
      if (!a.bools().empty() || !a.ints().empty() || !a.strings().empty() ||
          !a.versions().empty()) {
        return true;
      }
    }
  }
  return false;
}

const Device* LookupDevice(const ResourceSliceSpec* spec,
                           const std::string& name) {
  if (spec == nullptr) return nullptr;
  for (const Device& d : spec->devices) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

int64_t NumAttributeValues(const Device& device) {
  int64_t n = 0;
  for (const auto& [name, a] : device.attributes) {
    size_t list = a.bools().size() + a.ints().size() + a.strings().size() +
                  a.versions().size();
    n += list == 0 ? 1 : static_cast<int64_t>(list);
  }
  return n;
}

Errs ValidateAttributeStringValue(const std::string& v, const FieldPath& path) {
  if (v.size() > static_cast<size_t>(kDeviceAttributeMaxValueLength)) {
    return {TooLong(path, kDeviceAttributeMaxValueLength)};
  }
  return {};
}

Errs ValidateAttributeVersionValue(const std::string& v,
                                   const FieldPath& path) {
  Errs errs;
  if (!nv::IsSemver(v)) {
    errs.push_back(Invalid(
        path, v, "must be a string compatible with semver.org spec 2.0.0"));
  }
  Extend(errs, ValidateAttributeStringValue(v, path));
  return errs;
}

Errs ValidateDeviceAttribute(const DeviceAttribute& attribute,
                             const FieldPath& path) {
  const DeviceAttributeFields a = attribute.ToFields();
  Errs errs;
  int fields = 0;
  if (a.bool_value.has_value()) ++fields;
  if (a.int_value.has_value()) ++fields;
  if (a.string_value.has_value()) {
    ++fields;
    Extend(errs,
           ValidateAttributeStringValue(*a.string_value, path.Child("string")));
  }
  if (a.version_value.has_value()) {
    ++fields;
    Extend(errs, ValidateAttributeVersionValue(*a.version_value,
                                               path.Child("version")));
  }
  // An empty list is not distinguishable from an unset one here; both count
  // as unset.
  if (!a.bools.empty()) ++fields;
  if (!a.ints.empty()) ++fields;
  if (!a.strings.empty()) {
    ++fields;
    for (size_t i = 0; i < a.strings.size(); ++i) {
      Extend(errs, ValidateAttributeStringValue(
                       a.strings[i],
                       path.Child("strings").Index(static_cast<int64_t>(i))));
    }
  }
  if (!a.versions.empty()) {
    ++fields;
    for (size_t i = 0; i < a.versions.size(); ++i) {
      Extend(errs, ValidateAttributeVersionValue(
                       a.versions[i],
                       path.Child("versions").Index(static_cast<int64_t>(i))));
    }
  }
  if (fields == 0) {
    errs.push_back(Invalid(path, "", "exactly one value must be specified"));
  } else if (fields > 1) {
    errs.push_back(Invalid(path, BadValue::Json(GoDeviceAttribute(a)),
                           "exactly one value must be specified"));
  }
  return errs;
}

// Renders a quantity the way inf.Dec prints it (plain decimal) where that is
// cheap to derive; used for duplicate validValues.
std::string DecimalString(const Quantity& q) {
  if (auto i = q.AsInt64()) return std::to_string(*i);
  int64_t milli = q.MilliValue();
  if (Quantity::FromMilli(milli).Compare(q) == 0) {
    bool neg = milli < 0;
    uint64_t m =
        neg ? 0 - static_cast<uint64_t>(milli) : static_cast<uint64_t>(milli);
    std::string frac = std::to_string(m % 1000);
    frac.insert(0, 3 - frac.size(), '0');
    while (!frac.empty() && frac.back() == '0') frac.pop_back();
    return StrCat(neg ? "-" : "", m / 1000, frac.empty() ? "" : ".", frac);
  }
  return q.ToString();
}

Errs ValidateRequestPolicyValidValues(const Quantity& def, const Quantity& cap,
                                      const std::vector<Quantity>& values,
                                      const FieldPath& path) {
  Errs errs;
  for (size_t i = 0; i + 1 < values.size(); ++i) {
    if (values[i].Compare(values[i + 1]) > 0) {
      errs.push_back(Invalid(path.Index(static_cast<int64_t>(i + 1)),
                             values[i + 1].ToString(),
                             "values must be sorted in ascending order"));
    }
  }
  bool found_default = false;
  // DRAFractionalCapacityRange (on by default in 1.37): options are
  // compared as exact decimals.
  std::vector<const Quantity*> seen;
  Extend(errs,
         ValidateSet(
             values, kCapacityPolicyValidValuesMaxLength,
             [&](const Quantity& option, const FieldPath& p) {
               Errs e;
               if (option.Compare(cap) > 0) {
                 e.push_back(Invalid(p, option.ToString(),
                                     StrCat("option is larger than capacity "
                                            "value: ",
                                            cap.ToString())));
               }
               if (option.Compare(def) == 0) found_default = true;
               return e;
             },
             [&](const Quantity& q) {
               // Equal values share the id of their first spelling.
               for (const Quantity* s : seen) {
                 if (s->Compare(q) == 0) {
                   return SetKey{DecimalString(*s), BadValue(DecimalString(q))};
                 }
               }
               seen.push_back(&q);
               return SetKey{DecimalString(q), BadValue(DecimalString(q))};
             },
             path));
  if (!found_default) {
    errs.push_back(Invalid(path, def.ToString(),
                           "default value is not valid according to the "
                           "requestPolicy"));
  }
  return errs;
}

Errs ValidateRequestPolicyRangeStep(const Quantity& value, const Quantity& min,
                                    const Quantity& step, bool use_milli,
                                    const FieldPath& path) {
  int64_t step_val = use_milli ? step.MilliValue() : step.Value();
  int64_t min_val = use_milli ? min.MilliValue() : min.Value();
  int64_t val = use_milli ? value.MilliValue() : value.Value();
  if (step_val == 0) return {};
  if ((val - min_val) % step_val != 0) {
    return {Invalid(path, value.ToString(),
                    StrCat("value is not a multiple of a given step (",
                           step.ToString(), ") from (", min.ToString(), ")"))};
  }
  return {};
}

Errs ValidateRequestPolicyRange(const Quantity& def, const Quantity& cap,
                                const CapacityRequestPolicyRange& range,
                                const FieldPath& path) {
  Errs errs;
  const Quantity& min = range.min;
  if (min.Compare(cap) > 0) {
    errs.push_back(
        Invalid(path.Child("min"), min.ToString(),
                StrCat("min is larger than capacity value: ", cap.ToString())));
  }
  if (def.Compare(min) < 0) {
    errs.push_back(
        Invalid(path.Child("default"), def.ToString(),
                StrCat("default is less than min: ", min.ToString())));
  }
  if (range.max.has_value()) {
    const Quantity& max = *range.max;
    if (min.Compare(max) > 0) {
      errs.push_back(
          Invalid(path.Child("max"), min.ToString(),
                  StrCat("min is larger than max: ", max.ToString())));
    }
    if (max.Compare(cap) > 0) {
      errs.push_back(Invalid(
          path.Child("max"), max.ToString(),
          StrCat("max is larger than capacity value: ", cap.ToString())));
    }
    if (def.Compare(max) > 0) {
      errs.push_back(
          Invalid(path.Child("default"), def.ToString(),
                  StrCat("default is more than max: ", max.ToString())));
    }
  }
  struct Named {
    const Quantity* q;
    const char* name;
  };
  std::vector<Named> bounds = {{&def, "default"},
                               {&min, "min"},
                               {range.max ? &*range.max : nullptr, "max"},
                               {range.step ? &*range.step : nullptr, "step"}};
  // DRAFractionalCapacityRange (on by default in 1.37): milli-unit
  // arithmetic when any bound or the default is fractional.
  bool use_milli = !def.IsInteger();
  for (const Named& b : bounds) {
    if (b.q != nullptr && !b.q->IsInteger()) use_milli = true;
  }
  if (use_milli) {
    bool unsafe = false;
    for (const Named& b : bounds) {
      if (b.q == nullptr) continue;
      if (Quantity::FromMilli(b.q->MilliValue()).Compare(*b.q) != 0) {
        errs.push_back(Invalid(path.Child(b.name), b.q->ToString(),
                               "value cannot be represented as a milli value"));
        unsafe = true;
      }
    }
    if (unsafe) return errs;
  }
  if (range.step.has_value()) {
    const Quantity& step = *range.step;
    if (step.Sign() <= 0) {
      errs.push_back(Invalid(path.Child("step"), step.ToString(),
                             "must be greater than zero"));
    } else {
      Quantity added = min;
      if (added.Add(step).ok() && added.Compare(cap) > 0) {
        errs.push_back(Invalid(
            path.Child("step"), step.ToString(),
            StrCat("one step ", added.ToString(),
                   " is larger than capacity value: ", cap.ToString())));
      }
      bool unsafe = false;
      if (!use_milli) {
        for (const Named& b : bounds) {
          if (b.q == nullptr) continue;
          if (b.q->Sign() < 0) {
            errs.push_back(
                Invalid(path.Child(b.name), b.q->ToString(), kIsNegative));
            unsafe = true;
          } else if (b.q->CompareInt64(std::numeric_limits<int64_t>::max()) >
                     0) {
            errs.push_back(
                Invalid(path.Child(b.name), b.q->ToString(),
                        "must not be larger than 9223372036854775807"));
            unsafe = true;
          }
        }
      }
      if (!unsafe) {
        Extend(errs, ValidateRequestPolicyRangeStep(def, min, step, use_milli,
                                                    path.Child("step")));
        if (range.max.has_value()) {
          Extend(errs,
                 ValidateRequestPolicyRangeStep(*range.max, min, step,
                                                use_milli, path.Child("step")));
        }
      }
    }
  }
  return errs;
}

Errs ValidateRequestPolicy(const Quantity& cap,
                           const CapacityRequestPolicy& policy,
                           const FieldPath& path) {
  if (!policy.valid_values.empty() && policy.valid_range.has_value()) {
    return {Forbidden(path,
                      "exactly one policy can be specified, cannot specify "
                      "\"validValues\" and \"validRange\" at the same time")};
  }
  if (!policy.valid_values.empty()) {
    if (!policy.default_.has_value()) {
      return {Required(path.Child("default"),
                       "required when validValues is defined")};
    }
    return ValidateRequestPolicyValidValues(
        *policy.default_, cap, policy.valid_values, path.Child("validValues"));
  }
  if (policy.valid_range.has_value()) {
    if (!policy.default_.has_value()) {
      return {Required(path.Child("default"),
                       "required when validRange is defined")};
    }
    return ValidateRequestPolicyRange(
        *policy.default_, cap, *policy.valid_range, path.Child("validRange"));
  }
  return {};
}

Errs ValidateCounterName(const std::string& name, const FieldPath& path) {
  return ValidateDNS1123Label(name, path);
}

Errs NoCounterChecks(const Counter&, const FieldPath&) { return {}; }

Errs ValidateCounters(const std::map<std::string, Counter>& counters, int max,
                      const FieldPath& path) {
  return ValidateMap(counters, max, nv::kDNS1123LabelMaxLength,
                     ValidateCounterName, NoCounterChecks, path);
}

Errs ValidateCounterSet(const CounterSet& set, const FieldPath& path) {
  Errs errs;
  if (set.name.empty()) {
    errs.push_back(Required(path.Child("name")));
  } else {
    Extend(errs, ValidateCounterName(set.name, path.Child("name")));
  }
  if (set.counters.empty()) {
    errs.push_back(Required(path.Child("counters")));
  } else {
    Extend(errs, ValidateCounters(set.counters,
                                  kResourceSliceMaxCountersPerCounterSet,
                                  path.Child("counters")));
  }
  return errs;
}

Errs ValidateDeviceCounterConsumption(const DeviceCounterConsumption& c,
                                      const FieldPath& path) {
  Errs errs;
  if (c.counter_set.empty()) {
    errs.push_back(Required(path.Child("counterSet")));
  } else {
    Extend(errs, ValidateCounterName(c.counter_set, path.Child("counterSet")));
  }
  if (c.counters.empty()) {
    errs.push_back(Required(path.Child("counters")));
  } else {
    Extend(errs,
           ValidateCounters(
               c.counters, kResourceSliceMaxCountersPerDeviceCounterConsumption,
               path.Child("counters")));
  }
  return errs;
}

Errs ValidateDevice(const Device& d, const Device* old_device,
                    const FieldPath& path, bool per_device_node_selection) {
  // The members most devices leave unset are read as if they were Device's
  // own (as upstream declares them).
  const DeviceRareFields& device = *d.rare;
  const DeviceRareFields* old = old_device ? &*old_device->rare : nullptr;
  bool allow_multiple = device.allow_multiple_allocations.value_or(false);
  Errs errs = ValidateDNS1123Label(d.name, path.Child("name"));
  int64_t attrs_and_caps =
      static_cast<int64_t>(d.attributes.size() + d.capacity.size());
  if (attrs_and_caps > kResourceSliceMaxAttributesAndCapacitiesPerDevice) {
    errs.push_back(Invalid(
        path, attrs_and_caps,
        StrCat("the total number of attributes and capacities must not exceed ",
               kResourceSliceMaxAttributesAndCapacitiesPerDevice)));
  }
  int64_t values = NumAttributeValues(d);
  if (values > kResourceSliceMaxAttributeValuesPerDevice) {
    errs.push_back(
        Invalid(path, values,
                StrCat("the total number of attribute values must not exceed ",
                       kResourceSliceMaxAttributeValuesPerDevice)));
  }
  Extend(errs, ValidateMap(d.attributes, -1, kAttributeAndCapacityMaxKeyLength,
                           ValidateQualifiedName, ValidateDeviceAttribute,
                           path.Child("attributes")));
  if (old_device == nullptr || !Eq(old_device->capacity, d.capacity)) {
    Extend(errs,
           ValidateMap(
               d.capacity, -1, kAttributeAndCapacityMaxKeyLength,
               ValidateQualifiedName,
               [&](const DeviceCapacity& c, const FieldPath& p) -> Errs {
                 if (!c.request_policy.has_value()) return {};
                 if (!allow_multiple) {
                   return {Forbidden(p.Child("requestPolicy"),
                                     "allowMultipleAllocations must be true")};
                 }
                 return ValidateRequestPolicy(c.value, *c.request_policy,
                                              p.Child("requestPolicy"));
               },
               path.Child("capacity")));
  }
  if (old == nullptr || !Eq(old->taints, device.taints)) {
    Extend(errs, ValidateSlice(
                     device.taints, kDeviceMaxTaints,
                     [](const DeviceTaint& t, const FieldPath& p) {
                       return ValidateDeviceTaint(t, nullptr, p);
                     },
                     path.Child("taints")));
  }
  Extend(errs, ValidateSet(
                   device.consumes_counters,
                   kResourceSliceMaxDeviceCounterConsumptions,
                   ValidateDeviceCounterConsumption,
                   [](const DeviceCounterConsumption& c) {
                     return StringKey(c.counter_set);
                   },
                   path.Child("consumesCounters")));
  const std::string kPerDeviceMessage =
      "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required "
      "when `perDeviceNodeSelection` is set to true in the ResourceSlice spec";
  if (per_device_node_selection) {
    std::vector<std::string> set_fields;
    if (device.node_name.has_value()) {
      if (!device.node_name->empty()) {
        set_fields.push_back("`nodeName`");
        Extend(errs,
               ValidateNodeName(*device.node_name, path.Child("nodeName")));
      } else {
        errs.push_back(
            Invalid(path.Child("nodeName"), "", "must not be empty"));
      }
    }
    if (device.node_selector.has_value()) {
      set_fields.push_back("`nodeSelector`");
      Extend(errs, ValidateNodeSelector(*device.node_selector,
                                        path.Child("nodeSelector")));
    }
    if (device.all_nodes.has_value()) {
      if (*device.all_nodes) {
        set_fields.push_back("`allNodes`");
      } else {
        errs.push_back(Invalid(path.Child("allNodes"), false,
                               "must be either unset or set to true"));
      }
    }
    if (set_fields.empty()) {
      errs.push_back(Required(path, kPerDeviceMessage));
    } else if (set_fields.size() > 1) {
      errs.push_back(Invalid(path, StrCat("{", Join(set_fields, ", "), "}"),
                             kPerDeviceMessage));
    }
  } else if (device.node_name.has_value() || device.node_selector.has_value() ||
             device.all_nodes.has_value()) {
    errs.push_back(
        Invalid(path, BadValue::Json("null"),
                "`nodeName`, `nodeSelector` and `allNodes` can only "
                "be set if `perDeviceNodeSelection` is set to true in "
                "the ResourceSlice spec"));
  }
  Extend(errs, ValidateDeviceBindingParameters(
                   device.binding_conditions, device.binding_failure_conditions,
                   path));
  return errs;
}

BadValue OptionalString(const std::optional<std::string>& v) {
  return v ? BadValue(*v) : BadValue::Json("null");
}

}  // namespace

Errs ValidateResourceSliceSpec(const ResourceSliceSpec& spec,
                               const ResourceSliceSpec* old,
                               const FieldPath& path) {
  Errs errs = ValidateDriverName(spec.driver, path.Child("driver"));
  FieldPath pool_path = path.Child("pool");
  Extend(errs, ValidatePoolName(spec.pool.name, pool_path.Child("name")));
  if (spec.pool.resource_slice_count <= 0) {
    errs.push_back(Invalid(pool_path.Child("resourceSliceCount"),
                           spec.pool.resource_slice_count,
                           "must be greater than zero"));
  }
  if (spec.pool.generation < 0) {
    errs.push_back(Invalid(pool_path.Child("generation"), spec.pool.generation,
                           "must be greater than or equal to zero"));
  }
  if (old != nullptr) {
    if (spec.pool.name != old->pool.name) {
      errs.push_back(
          Invalid(pool_path.Child("name"), spec.pool.name, kFieldImmutable));
    }
    if (spec.driver != old->driver) {
      errs.push_back(
          Invalid(path.Child("driver"), spec.driver, kFieldImmutable));
    }
    if (spec.node_name != old->node_name) {
      errs.push_back(Invalid(path.Child("nodeName"),
                             OptionalString(spec.node_name), kFieldImmutable));
    }
  }

  std::vector<std::string> set_fields;
  if (spec.node_name.has_value()) {
    if (!spec.node_name->empty()) {
      set_fields.push_back("`nodeName`");
      Extend(errs, ValidateNodeName(*spec.node_name, path.Child("nodeName")));
    } else {
      errs.push_back(
          Invalid(path.Child("nodeName"), "",
                  "must be either unset or set to a non-empty string"));
    }
  }
  if (spec.node_selector.has_value()) {
    set_fields.push_back("`nodeSelector`");
    Extend(errs, ValidateNodeSelector(*spec.node_selector,
                                      path.Child("nodeSelector")));
    if (spec.node_selector->node_selector_terms.size() != 1) {
      errs.push_back(Invalid(
          path.Child("nodeSelector").Child("nodeSelectorTerms"),
          BadValue::Json(
              GoNodeSelectorTerms(spec.node_selector->node_selector_terms)),
          "must have exactly one node selector term"));
    }
  }
  if (spec.all_nodes.has_value()) {
    if (*spec.all_nodes) {
      set_fields.push_back("`allNodes`");
    } else {
      errs.push_back(Invalid(path.Child("allNodes"), false,
                             "must be either unset or set to true"));
    }
  }
  if (spec.per_device_node_selection.has_value()) {
    if (*spec.per_device_node_selection) {
      set_fields.push_back("`perDeviceNodeSelection`");
    } else {
      errs.push_back(Invalid(path.Child("perDeviceNodeSelection"), false,
                             "must be either unset or set to true"));
    }
  }
  const std::string kOneOf =
      "exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
      "`perDeviceNodeSelection` is required";
  if (set_fields.empty()) {
    errs.push_back(Required(path, kOneOf));
  } else if (set_fields.size() > 1) {
    errs.push_back(Invalid(path, StrCat("{", Join(set_fields, ", "), "}"),
                           StrCat(kOneOf, ", but multiple fields are set")));
  }

  if (!spec.shared_counters.empty() && !spec.devices.empty()) {
    errs.push_back(Invalid(
        path, "", "only one of `sharedCounters` or `devices` is allowed"));
  }

  int max_devices = kResourceSliceMaxDevices;
  if (HaveDeviceTaints(spec) || HaveConsumesCounters(spec) ||
      HaveListAttributes(spec)) {
    max_devices = kResourceSliceMaxDevicesWithTaintsOrConsumesCounters;
  }
  bool per_device = spec.per_device_node_selection.value_or(false);
  Extend(errs, ValidateSet(
                   spec.devices, max_devices,
                   [&](const Device& d, const FieldPath& p) {
                     return ValidateDevice(d, LookupDevice(old, d.name), p,
                                           per_device);
                   },
                   [](const Device& d) { return StringKey(d.name); },
                   path.Child("devices")));
  Extend(errs, ValidateSet(
                   spec.shared_counters, kResourceSliceMaxCounterSets,
                   ValidateCounterSet,
                   [](const CounterSet& c) { return StringKey(c.name); },
                   path.Child("sharedCounters")));
  return errs;
}

}  // namespace draplane::api::validation_internal

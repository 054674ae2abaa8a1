// DeviceClass (pkg/apis/resource/validation).

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

// ------------------------------------------------ DeviceClass

}  // namespace

Errs ValidateDeviceClassSpec(const DeviceClassSpec& spec,
                             const DeviceClassSpec* old, const FieldPath& path,
                             const ValidationOptions& options) {
  // Unchanged selectors and config count as stored: their CEL expressions
  // and parameter sizes are not checked again.
  Context selectors_ctx{options,
                        old != nullptr && Eq(spec.selectors, old->selectors)};
  Errs errs = ValidateSlice(
      spec.selectors, kDeviceSelectorsMaxSize,
      [&](const DeviceSelector& s, const FieldPath& p) {
        return ValidateSelector(s, p, selectors_ctx);
      },
      path.Child("selectors"));
  bool config_stored = old != nullptr && Eq(spec.config, old->config);
  Extend(errs, ValidateSlice(
                   spec.config, kDeviceConfigMaxSize,
                   [&](const DeviceClassConfiguration& c, const FieldPath& p) {
                     return ValidateDeviceConfiguration(c.opaque, p,
                                                        config_stored);
                   },
                   path.Child("config")));
  if (spec.extended_resource_name.has_value() &&
      !IsExtendedResourceName(*spec.extended_resource_name)) {
    errs.push_back(Invalid(path.Child("extendedResourceName"),
                           *spec.extended_resource_name,
                           "must be a valid extended resource name"));
  }
  return errs;
}

}  // namespace draplane::api::validation_internal

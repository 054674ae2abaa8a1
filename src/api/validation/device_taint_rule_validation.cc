// DeviceTaintRule (pkg/apis/resource/validation).

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

// ------------------------------------------------ DeviceTaintRule

}  // namespace

Errs ValidateDeviceTaintRuleSpec(const DeviceTaintRuleSpec& spec,
                                 const DeviceTaintRuleSpec* old,
                                 const FieldPath& path) {
  Errs errs;
  if (spec.device_selector.has_value()) {
    const DeviceTaintSelector& s = *spec.device_selector;
    FieldPath sp = path.Child("deviceSelector");
    if (s.driver)
      Extend(errs, ValidateDriverName(*s.driver, sp.Child("driver")));
    if (s.pool) Extend(errs, ValidatePoolName(*s.pool, sp.Child("pool")));
    if (s.device)
      Extend(errs, ValidateDNS1123Label(*s.device, sp.Child("device")));
  }
  Extend(errs, ValidateDeviceTaint(spec.taint, old ? &old->taint : nullptr,
                                   path.Child("taint")));
  return errs;
}

}  // namespace draplane::api::validation_internal

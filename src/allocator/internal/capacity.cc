#include "allocator/internal/capacity.h"

#include <cstdint>
#include <limits>
#include <optional>

#include "common/str_cat.h"

namespace draplane::allocator::internal {
namespace {

constexpr char kNotRepresentable[] =
    "capacity request cannot be represented in the device's range arithmetic";
constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();

// Upstream safeMilliValue: the milli value when exact.
std::optional<int64_t> SafeMilli(const Quantity& q) {
  const int64_t milli = q.MilliValue();
  if (q.Compare(Quantity::FromMilli(milli, q.format())) != 0) {
    return std::nullopt;
  }
  return milli;
}

bool UseMilli(const api::CapacityRequestPolicyRange& range, bool fractional) {
  if (!fractional) return false;
  if (!SafeMilli(range.min)) return false;
  if (range.max && !SafeMilli(*range.max)) return false;
  if (range.step) {
    auto step = SafeMilli(*range.step);
    if (!step || *step < 1) return false;
  }
  return true;
}

absl::StatusOr<Quantity> RoundUpRange(const Quantity& requested,
                                      const api::CapacityRequestPolicyRange& r,
                                      bool fractional) {
  if (requested.Compare(r.min) < 0) return r.min;
  if (!r.step) return requested;
  const Quantity::Format format = r.step->format();
  if (UseMilli(r, fractional)) {
    auto requested_milli = SafeMilli(requested);
    if (!requested_milli) {
      return absl::InvalidArgumentError(
          StrCat(kNotRepresentable, ": request ", requested.ToString(),
                 " is not a representable milli value"));
    }
    const int64_t step = r.step->MilliValue();
    const int64_t min = r.min.MilliValue();
    const int64_t added = *requested_milli - min;
    int64_t n = added / step;
    if (added % step != 0) ++n;
    if (n > (kMaxInt64 - min) / step) {
      return absl::InvalidArgumentError(
          StrCat(kNotRepresentable, ": rounding request ", requested.ToString(),
                 " up to the next step passes the milli-value range"));
    }
    const int64_t value = min + step * n;
    if (value % 1000 == 0) return Quantity::FromInt64(value / 1000, format);
    return Quantity::FromMilli(value, format);
  }
  if (requested.CompareInt64(kMaxInt64) > 0) {
    return absl::InvalidArgumentError(StrCat(kNotRepresentable, ": request ",
                                             requested.ToString(),
                                             " exceeds MaxInt64"));
  }
  const int64_t req = requested.Value();
  const int64_t step = r.step->Value();
  const int64_t min = r.min.Value();
  const int64_t added = req - min;
  int64_t n = added / step;
  if (added % step != 0) ++n;
  if (min >= 0 && n > (kMaxInt64 - min) / step) {
    return absl::InvalidArgumentError(
        StrCat(kNotRepresentable, ": rounding request ", requested.ToString(),
               " up to the next step passes MaxInt64"));
  }
  return Quantity::FromInt64(min + step * n, format);
}

absl::StatusOr<Quantity> Consumed(const Quantity* requested,
                                  const api::DeviceCapacity& cap,
                                  bool fractional) {
  if (requested == nullptr) {
    if (cap.request_policy && cap.request_policy->default_) {
      return *cap.request_policy->default_;
    }
    return cap.value;
  }
  if (!cap.request_policy) return *requested;
  const api::CapacityRequestPolicy& policy = *cap.request_policy;
  if (policy.valid_range) {
    return RoundUpRange(*requested, *policy.valid_range, fractional);
  }
  if (!policy.valid_values.empty()) {
    for (const Quantity& v : policy.valid_values) {
      if (requested->Compare(v) <= 0) return v;
    }
  }
  return *requested;
}

bool ViolatesPolicy(const Quantity& requested,
                    const api::OptionalBox<api::CapacityRequestPolicy>& policy,
                    bool fractional) {
  if (!policy) return false;
  // Upstream compares the Quantity structs; for valid policies that is the
  // numeric comparison (the default is a valid value).
  if (policy->default_ && requested.Compare(*policy->default_) == 0 &&
      requested.format() == policy->default_->format()) {
    return false;
  }
  if (policy->valid_range) {
    const api::CapacityRequestPolicyRange& r = *policy->valid_range;
    if (r.max && requested.Compare(*r.max) > 0) return true;
    if (r.step) {
      int64_t req, step, min;
      if (UseMilli(r, fractional)) {
        auto m = SafeMilli(requested);
        if (!m) return true;
        req = *m;
        step = r.step->MilliValue();
        min = r.min.MilliValue();
      } else {
        req = requested.Value();
        step = r.step->Value();
        min = r.min.Value();
      }
      if (step == 0) return true;  // Go would panic; validation forbids it.
      if ((req - min) % step != 0) return true;
    }
    return false;
  }
  if (!policy->valid_values.empty()) {
    for (const Quantity& v : policy->valid_values) {
      if (requested.Compare(v) == 0) return false;
    }
    return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<CapacityMap> ConsumedCapacity(
    const api::CapacityRequirements* request,
    const api::DeviceCapacities& capacity, bool fractional_range) {
  CapacityMap out;
  for (const auto& [name, cap] : capacity) {
    const Quantity* requested = nullptr;
    if (request != nullptr) {
      auto it = request->requests.find(name);
      if (it != request->requests.end()) requested = &it->second;
    }
    auto consumed = Consumed(requested, cap, fractional_range);
    if (!consumed.ok()) {
      return absl::InvalidArgumentError(
          StrCat("capacity \"", name,
                 "\": ", std::string(consumed.status().message())));
    }
    out.emplace(name, *std::move(consumed));
  }
  return out;
}

CapacityPlan PlanCapacity(const api::CapacityRequirements* request,
                          const api::DeviceCapacities& capacity,
                          bool fractional_range) {
  CapacityPlan plan;
  if (request != nullptr) {
    for (const auto& [name, q] : request->requests) {
      if (!capacity.contains(name)) {
        plan.names_missing = true;
        return plan;
      }
    }
  }
  auto consumed = ConsumedCapacity(request, capacity, fractional_range);
  if (!consumed.ok()) {
    plan.error = consumed.status();
    return plan;
  }
  for (const auto& [name, q] : *consumed) {
    if (q.Sign() < 0) {
      plan.error = absl::InvalidArgumentError(
          StrCat("capacity \"", name, "\": capacity value is negative"));
      return plan;
    }
  }
  plan.consumed = *std::move(consumed);
  plan.fits_alone = true;
  for (const auto& [name, cap] : capacity) {
    const Quantity& c = plan.consumed.at(name);
    if (ViolatesPolicy(c, cap.request_policy, fractional_range)) {
      plan.policy_violated = true;
      plan.fits_alone = false;
      return plan;
    }
    if (c.Compare(cap.value) > 0) plan.fits_alone = false;
  }
  return plan;
}

absl::StatusOr<bool> PlanFits(const CapacityPlan& plan,
                              const CapacityMap* allocated,
                              const api::DeviceCapacities& capacity,
                              const CapacityMap* allocating) {
  if (plan.names_missing) return false;
  if (!plan.error.ok()) return plan.error;
  if (plan.policy_violated) return false;
  if (allocated == nullptr && allocating == nullptr) return plan.fits_alone;
  for (const auto& [name, cap] : capacity) {
    const Quantity& c = plan.consumed.at(name);
    Quantity sum = c;
    if (allocated != nullptr) {
      auto it = allocated->find(name);
      if (it != allocated->end()) {
        sum = it->second;
        (void)sum.Add(c);
      }
    }
    if (allocating != nullptr) {
      auto it = allocating->find(name);
      if (it != allocating->end()) (void)sum.Add(it->second);
    }
    if (sum.Compare(cap.value) > 0) return false;
  }
  return true;
}

absl::StatusOr<bool> RequestFits(const CapacityMap* allocated,
                                 const api::CapacityRequirements* request,
                                 const api::DeviceCapacities& capacity,
                                 const CapacityMap* allocating,
                                 bool fractional_range) {
  return PlanFits(PlanCapacity(request, capacity, fractional_range), allocated,
                  capacity, allocating);
}

}  // namespace draplane::allocator::internal

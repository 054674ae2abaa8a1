// Fixtures and table runners of the validation tests: upstream's messages,
// a valid object of each kind, and RunCases/RunUpdateCases, which check that
// the valid object has no errors and then compare each case's errors, in
// order, with FieldError::ToString() (upstream's field.Error.Error()).
#ifndef DRAPLANE_API_VALIDATION_VALIDATION_TEST_UTIL_H_
#define DRAPLANE_API_VALIDATION_VALIDATION_TEST_UTIL_H_

#include <functional>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/validation/validation.h"
#include "common/name_validation.h"
#include "common/str_cat.h"
#include "gtest/gtest.h"

namespace draplane::api::validation_test {

// ------------------------------------------------------------ messages

inline const std::string kBadName = "!@#$%^";
inline const std::string kBadNameQ = "\"!@#$%^\"";

inline const std::string kSubdomainMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
inline const std::string kLabelMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric "
    "characters or '-', and must start and end with an alphanumeric "
    "character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
inline const std::string kCIdentifierMsg =
    "a valid C identifier must start with alphabetic character or '_', "
    "followed by a string of alphanumeric characters or '_' (e.g. 'my_name', "
    " or 'MY_NAME',  or 'MyName', regex used for validation is "
    "'[A-Za-z_][A-Za-z0-9_]*')";
inline const std::string kLabelValueMsg =
    "a valid label must be an empty string or consist of alphanumeric "
    "characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
    "regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
inline const std::string kNamePartMsg =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and "
    "must start and end with an alphanumeric character (e.g. 'MyName',  or "
    "'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
inline const std::string kRequestRefMsg =
    "must be the name of a request in the claim or the name of a request and "
    "a subrequest separated by '/'";
inline const std::string kFQNMsg =
    "a fully qualified name must be a domain and a name separated by a slash";
inline const std::string kEffects =
    "supported values: \"NoExecute\", \"NoSchedule\", \"None\"";
inline const std::string kSliceOneOf =
    "exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
    "`perDeviceNodeSelection` is required";
inline const std::string kPerDeviceOneOf =
    "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
    "`perDeviceNodeSelection` is set to true in the ResourceSlice spec";
inline const std::string kCIDRMsg =
    "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or "
    "2001:db8::1/64)";

// ------------------------------------------------------------ helpers

inline Quantity Q(std::string_view s) {
  absl::StatusOr<Quantity> q = Quantity::Parse(s);
  EXPECT_TRUE(q.ok()) << s;
  return q.ok() ? *q : Quantity();
}

inline std::string Repeat(char c, size_t n) { return std::string(n, c); }

inline Object Obj(std::string kind, TypedObject value,
                  std::string api_version = "resource.k8s.io/v1") {
  Object o;
  o.type.kind = std::move(kind);
  o.type.api_version = std::move(api_version);
  o.value = std::move(value);
  return o;
}

inline std::vector<std::string> Strings(const FieldErrorList& errs) {
  std::vector<std::string> out;
  for (const FieldError& e : errs) out.push_back(e.ToString());
  return out;
}

inline std::vector<std::string> Errors(const Object& o,
                                       const ValidationOptions& options = {}) {
  return Strings(ValidateObject(o, options));
}

using Want = std::vector<std::string>;

template <class T>
struct Case {
  std::string name;
  std::function<void(T&)> mutate;
  Want want;
  ValidationOptions options = {};
};

// Validates `valid` (must be clean), then every case applied to a copy.
template <class T>
void RunCases(const std::string& kind, const std::string& api_version,
              const T& valid, const std::vector<Case<T>>& cases) {
  ASSERT_EQ(Errors(Obj(kind, valid, api_version)), Want{});
  for (const Case<T>& c : cases) {
    SCOPED_TRACE(c.name);
    T v = valid;
    c.mutate(v);
    EXPECT_EQ(Errors(Obj(kind, v, api_version), c.options), c.want);
  }
}

// Update cases: start from `old` (valid), mutate a copy, validate the update.
template <class T>
struct UpdateCase {
  std::string name;
  std::function<void(T&)> mutate_old;  // applied to both before mutate
  std::function<void(T&)> mutate;
  Want want;
};

template <class T>
void RunUpdateCases(const std::string& kind, const T& base, bool status,
                    const std::vector<UpdateCase<T>>& cases,
                    const ValidationOptions& options = {}) {
  for (const UpdateCase<T>& c : cases) {
    SCOPED_TRACE(c.name);
    T old = base;
    if (c.mutate_old) c.mutate_old(old);
    T updated = old;
    c.mutate(updated);
    Object o = Obj(kind, old);
    Object u = Obj(kind, updated);
    FieldErrorList errs = status ? ValidateObjectStatusUpdate(u, o, options)
                                 : ValidateObjectUpdate(u, o, options);
    EXPECT_EQ(Strings(errs), c.want);
  }
}

// ------------------------------------------------------------ fixtures

inline DeviceSelector Cel(std::string expression) {
  DeviceSelector s;
  s.cel = CELDeviceSelector{std::move(expression)};
  return s;
}

inline OpaqueDeviceConfiguration Opaque(
    std::string driver = "dra.example.com") {
  OpaqueDeviceConfiguration o;
  o.driver = std::move(driver);
  o.parameters =
      Json::parse(R"({"kind": "foo", "apiVersion": "dra.example.com/v1"})");
  return o;
}

inline DeviceRequest ExactRequest(std::string name,
                                  std::string class_name = "foo") {
  DeviceRequest r;
  r.name = std::move(name);
  r.exactly.emplace();
  r.exactly->device_class_name = std::move(class_name);
  r.exactly->allocation_mode = "ExactCount";
  r.exactly->count = 1;
  return r;
}

inline DeviceSubRequest SubRequest(std::string name) {
  DeviceSubRequest s;
  s.name = std::move(name);
  s.device_class_name = "foo";
  s.allocation_mode = "ExactCount";
  s.count = 1;
  return s;
}

// upstream validClaimSpec: one request "foo" of class "foo".
inline ResourceClaimSpec ValidClaimSpec() {
  ResourceClaimSpec spec;
  spec.devices.requests.push_back(ExactRequest("foo"));
  return spec;
}

// upstream validClaimSpecWithFirstAvailable: request "foo" with
// subrequests "foo" and "bar".
inline ResourceClaimSpec ValidClaimSpecWithFirstAvailable() {
  ResourceClaimSpec spec;
  DeviceRequest r;
  r.name = "foo";
  r.first_available = {SubRequest("foo"), SubRequest("bar")};
  spec.devices.requests.push_back(r);
  return spec;
}

inline ResourceClaim ValidClaim() {
  ResourceClaim c;
  c.metadata.name = "foo";
  c.metadata.namespace_ = "ns";
  c.spec = ValidClaimSpec();
  return c;
}

inline ResourceClaim ValidFirstAvailableClaim() {
  ResourceClaim c = ValidClaim();
  c.spec = ValidClaimSpecWithFirstAvailable();
  return c;
}

inline DeviceToleration Toleration(std::string key, std::string op = "Exists") {
  DeviceToleration t;
  t.key = std::move(key);
  t.operator_ = std::move(op);
  return t;
}

inline DeviceConstraint Match(std::string attribute,
                              std::vector<std::string> requests = {}) {
  DeviceConstraint c;
  c.requests = std::move(requests);
  c.match_attribute = std::move(attribute);
  return c;
}

inline DeviceClaimConfiguration ClaimConfig(
    std::vector<std::string> requests = {}) {
  DeviceClaimConfiguration c;
  c.requests = std::move(requests);
  c.opaque = Opaque();
  return c;
}

// upstream testResourceSlice: device-<i> with four attributes and one
// capacity, pool named like the node, one slice in the pool.
// An attribute with any members set (lists, several members): `set`
// fills upstream's struct.
template <class Fn>
DeviceAttribute Attribute(Fn set) {
  DeviceAttributeFields fields;
  set(fields);
  return DeviceAttribute::FromFields(std::move(fields));
}

inline Device TestDevice(int i) {
  Device d;
  d.name = StrCat("device-", i);
  d.attributes["int"] = DeviceAttribute::Int(42);
  d.attributes["string"] = DeviceAttribute::String("hello world");
  d.attributes["version"] = DeviceAttribute::Version("1.2.3");
  d.attributes["bool"] = DeviceAttribute::Bool(true);
  d.capacity["memory"].value = Q("1Gi");
  return d;
}

inline ResourceSlice ValidSlice(int num_devices = 1) {
  ResourceSlice s;
  s.metadata.name = "foo";
  s.spec.node_name = "foo";
  s.spec.driver = "test.example.com";
  s.spec.pool.name = "foo";
  s.spec.pool.resource_slice_count = 1;
  for (int i = 0; i < num_devices; ++i) s.spec.devices.push_back(TestDevice(i));
  return s;
}

inline std::map<std::string, Counter> TestCounters(int n = 1) {
  std::map<std::string, Counter> m;
  if (n == 1) {
    m["memory"].value = Q("1Gi");
    return m;
  }
  for (int i = 0; i < n; ++i) m[StrCat("memory-", i)].value = Q("1Gi");
  return m;
}

inline std::vector<CounterSet> SharedCounters(int n) {
  std::vector<CounterSet> sets;
  sets.reserve(n);
  for (int i = 0; i < n; ++i) {
    sets.push_back(CounterSet{StrCat("counterset-", i), TestCounters()});
  }
  return sets;
}

inline std::vector<DeviceCounterConsumption> ConsumesCounters(int n) {
  std::vector<DeviceCounterConsumption> c;
  c.reserve(n);
  for (int i = 0; i < n; ++i) {
    c.push_back(
        DeviceCounterConsumption{StrCat("counterset-", i), TestCounters()});
  }
  return c;
}

inline ResourceSlice ValidCounterSlice(int num_sets = 1) {
  ResourceSlice s = ValidSlice(0);
  s.spec.shared_counters = SharedCounters(num_sets);
  return s;
}

inline DeviceTaint Taint(std::string key = "example.com/taint",
                         std::string effect = "NoExecute") {
  DeviceTaint t;
  t.key = std::move(key);
  t.effect = std::move(effect);
  return t;
}

// upstream testResourceSliceWithConsumableCapacity: one shared device with
// capacity "a" = 100, default 10, validValues {5, 10, 100}.
inline ResourceSlice ValidConsumableSlice() {
  ResourceSlice s = ValidSlice(0);
  Device d;
  d.name = "device-0";
  d.rare.Mutable().allow_multiple_allocations = true;
  DeviceCapacity cap;
  cap.value = Q("100");
  cap.request_policy.emplace();
  cap.request_policy->default_ = Q("10");
  cap.request_policy->valid_values = {Q("5"), Q("10"), Q("100")};
  d.capacity["a"] = cap;
  s.spec.devices.push_back(d);
  return s;
}

inline CapacityRequestPolicy& Policy(ResourceSlice& s) {
  return *s.spec.devices[0].capacity["a"].request_policy;
}

inline CapacityRequestPolicyRange Range(
    const std::string& min, std::optional<std::string> max = std::nullopt,
    std::optional<std::string> step = std::nullopt) {
  CapacityRequestPolicyRange r;
  r.min = Q(min);
  if (max) r.max = Q(*max);
  if (step) r.step = Q(*step);
  return r;
}

inline DeviceClass ValidClass() {
  DeviceClass c;
  c.metadata.name = "foo";
  c.spec.selectors.push_back(Cel(R"(device.driver == "dra.example.com")"));
  DeviceClassConfiguration config;
  config.opaque = Opaque();
  c.spec.config.push_back(config);
  return c;
}

inline ResourceClaimTemplate ValidTemplate() {
  ResourceClaimTemplate t;
  t.metadata.name = "foo";
  t.metadata.namespace_ = "ns";
  t.spec.Mutable().spec = ValidClaimSpec();
  return t;
}

inline DeviceTaintRule ValidTaintRule() {
  DeviceTaintRule r;
  r.metadata.name = "foo";
  r.spec.device_selector.emplace();
  r.spec.device_selector->driver = "dra.example.com";
  r.spec.taint = Taint();
  return r;
}

inline Pod ValidPod() {
  Pod p;
  p.metadata.name = "pod";
  p.metadata.namespace_ = "ns";
  PodResourceClaim c1;
  c1.name = "my-claim";
  c1.resource_claim_name = "claim";
  PodResourceClaim c2;
  c2.name = "tmpl";
  c2.resource_claim_template_name = "template";
  p.spec.resource_claims = {c1, c2};
  Container ctr;
  ctr.name = "ctr";
  ctr.image = "image";
  ctr.resources.claims = {{"my-claim", ""}, {"tmpl", "req"}};
  p.spec.containers.push_back(ctr);
  return p;
}

// Quantity-free helper for long strings used as CEL expressions: a valid
// expression `device.driver == "xxx…"` of exactly `length` bytes.
inline std::string CelOfLength(size_t length) {
  const std::string prefix = "device.driver == \"";
  return prefix + Repeat('x', length - prefix.size() - 1) + "\"";
}

inline DeviceRequestAllocationResult Result(std::string request = "foo",
                                            std::string device = "foo") {
  DeviceRequestAllocationResult r;
  r.request = std::move(request);
  r.driver = "foo";
  r.pool = "foo";
  r.device = std::move(device);
  r.admin_access = false;
  return r;
}

inline ResourceClaimConsumerReference Consumer(int i) {
  return ResourceClaimConsumerReference{"", "pods", StrCat("foo-", i),
                                        StrCat(i)};
}

inline Condition ReadyCondition(std::string type = "Ready") {
  Condition c;
  c.type = std::move(type);
  c.status = "True";
  c.last_transition_time = "2024-01-01T00:00:00Z";
  c.reason = "Ready";
  return c;
}

}  // namespace draplane::api::validation_test

#endif  // DRAPLANE_API_VALIDATION_VALIDATION_TEST_UTIL_H_

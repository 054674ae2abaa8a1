// Tests of api/validation.h against upstream Kubernetes 1.37 behaviour
// (pkg/apis/resource/validation/validation.go, the DRA parts of
// pkg/apis/core/validation, apimachinery name/label validation).
//
// Every table case starts from a valid object (checked to produce no
// errors), breaks one thing and compares the exact rendered errors
// (FieldError::ToString(), i.e. upstream's field.Error.Error()) in order.
// Many cases are ports of upstream's validation_*_test.go scenarios.
#include "api/validation.h"

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "common/name_validation.h"
#include "common/str_cat.h"
#include "gtest/gtest.h"

namespace draplane::api {
namespace {

// ------------------------------------------------------------ messages

const std::string kBadName = "!@#$%^";
const std::string kBadNameQ = "\"!@#$%^\"";

const std::string kSubdomainMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const std::string kLabelMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric "
    "characters or '-', and must start and end with an alphanumeric "
    "character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const std::string kCIdentifierMsg =
    "a valid C identifier must start with alphabetic character or '_', "
    "followed by a string of alphanumeric characters or '_' (e.g. 'my_name', "
    " or 'MY_NAME',  or 'MyName', regex used for validation is "
    "'[A-Za-z_][A-Za-z0-9_]*')";
const std::string kLabelValueMsg =
    "a valid label must be an empty string or consist of alphanumeric "
    "characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
    "regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const std::string kNamePartMsg =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and "
    "must start and end with an alphanumeric character (e.g. 'MyName',  or "
    "'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const std::string kRequestRefMsg =
    "must be the name of a request in the claim or the name of a request and "
    "a subrequest separated by '/'";
const std::string kFQNMsg =
    "a fully qualified name must be a domain and a name separated by a slash";
const std::string kEffects =
    "supported values: \"NoExecute\", \"NoSchedule\", \"None\"";
const std::string kSliceOneOf =
    "exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
    "`perDeviceNodeSelection` is required";
const std::string kPerDeviceOneOf =
    "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
    "`perDeviceNodeSelection` is set to true in the ResourceSlice spec";
const std::string kCIDRMsg =
    "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or "
    "2001:db8::1/64)";

// ------------------------------------------------------------ helpers

Quantity Q(std::string_view s) {
  absl::StatusOr<Quantity> q = Quantity::Parse(s);
  EXPECT_TRUE(q.ok()) << s;
  return q.ok() ? *q : Quantity();
}

std::string Repeat(char c, size_t n) { return std::string(n, c); }

Object Obj(std::string kind, TypedObject value,
           std::string api_version = "resource.k8s.io/v1") {
  Object o;
  o.type.kind = std::move(kind);
  o.type.api_version = std::move(api_version);
  o.value = std::move(value);
  return o;
}

std::vector<std::string> Strings(const FieldErrorList& errs) {
  std::vector<std::string> out;
  for (const FieldError& e : errs) out.push_back(e.ToString());
  return out;
}

std::vector<std::string> Errors(const Object& o,
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

DeviceSelector Cel(std::string expression) {
  DeviceSelector s;
  s.cel = CELDeviceSelector{std::move(expression)};
  return s;
}

OpaqueDeviceConfiguration Opaque(std::string driver = "dra.example.com") {
  OpaqueDeviceConfiguration o;
  o.driver = std::move(driver);
  o.parameters =
      Json::parse(R"({"kind": "foo", "apiVersion": "dra.example.com/v1"})");
  return o;
}

DeviceRequest ExactRequest(std::string name, std::string class_name = "foo") {
  DeviceRequest r;
  r.name = std::move(name);
  r.exactly.emplace();
  r.exactly->device_class_name = std::move(class_name);
  r.exactly->allocation_mode = "ExactCount";
  r.exactly->count = 1;
  return r;
}

DeviceSubRequest SubRequest(std::string name) {
  DeviceSubRequest s;
  s.name = std::move(name);
  s.device_class_name = "foo";
  s.allocation_mode = "ExactCount";
  s.count = 1;
  return s;
}

// upstream validClaimSpec: one request "foo" of class "foo".
ResourceClaimSpec ValidClaimSpec() {
  ResourceClaimSpec spec;
  spec.devices.requests.push_back(ExactRequest("foo"));
  return spec;
}

// upstream validClaimSpecWithFirstAvailable: request "foo" with
// subrequests "foo" and "bar".
ResourceClaimSpec ValidClaimSpecWithFirstAvailable() {
  ResourceClaimSpec spec;
  DeviceRequest r;
  r.name = "foo";
  r.first_available = {SubRequest("foo"), SubRequest("bar")};
  spec.devices.requests.push_back(r);
  return spec;
}

ResourceClaim ValidClaim() {
  ResourceClaim c;
  c.metadata.name = "foo";
  c.metadata.namespace_ = "ns";
  c.spec = ValidClaimSpec();
  return c;
}

ResourceClaim ValidFirstAvailableClaim() {
  ResourceClaim c = ValidClaim();
  c.spec = ValidClaimSpecWithFirstAvailable();
  return c;
}

DeviceToleration Toleration(std::string key, std::string op = "Exists") {
  DeviceToleration t;
  t.key = std::move(key);
  t.operator_ = std::move(op);
  return t;
}

DeviceConstraint Match(std::string attribute,
                       std::vector<std::string> requests = {}) {
  DeviceConstraint c;
  c.requests = std::move(requests);
  c.match_attribute = std::move(attribute);
  return c;
}

DeviceClaimConfiguration ClaimConfig(std::vector<std::string> requests = {}) {
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

Device TestDevice(int i) {
  Device d;
  d.name = StrCat("device-", i);
  d.attributes["int"] = DeviceAttribute::Int(42);
  d.attributes["string"] = DeviceAttribute::String("hello world");
  d.attributes["version"] = DeviceAttribute::Version("1.2.3");
  d.attributes["bool"] = DeviceAttribute::Bool(true);
  d.capacity["memory"].value = Q("1Gi");
  return d;
}

ResourceSlice ValidSlice(int num_devices = 1) {
  ResourceSlice s;
  s.metadata.name = "foo";
  s.spec.node_name = "foo";
  s.spec.driver = "test.example.com";
  s.spec.pool.name = "foo";
  s.spec.pool.resource_slice_count = 1;
  for (int i = 0; i < num_devices; ++i) s.spec.devices.push_back(TestDevice(i));
  return s;
}

std::map<std::string, Counter> TestCounters(int n = 1) {
  std::map<std::string, Counter> m;
  if (n == 1) {
    m["memory"].value = Q("1Gi");
    return m;
  }
  for (int i = 0; i < n; ++i) m[StrCat("memory-", i)].value = Q("1Gi");
  return m;
}

std::vector<CounterSet> SharedCounters(int n) {
  std::vector<CounterSet> sets;
  for (int i = 0; i < n; ++i) {
    sets.push_back(CounterSet{StrCat("counterset-", i), TestCounters()});
  }
  return sets;
}

std::vector<DeviceCounterConsumption> ConsumesCounters(int n) {
  std::vector<DeviceCounterConsumption> c;
  for (int i = 0; i < n; ++i) {
    c.push_back(
        DeviceCounterConsumption{StrCat("counterset-", i), TestCounters()});
  }
  return c;
}

ResourceSlice ValidCounterSlice(int num_sets = 1) {
  ResourceSlice s = ValidSlice(0);
  s.spec.shared_counters = SharedCounters(num_sets);
  return s;
}

DeviceTaint Taint(std::string key = "example.com/taint",
                  std::string effect = "NoExecute") {
  DeviceTaint t;
  t.key = std::move(key);
  t.effect = std::move(effect);
  return t;
}

// upstream testResourceSliceWithConsumableCapacity: one shared device with
// capacity "a" = 100, default 10, validValues {5, 10, 100}.
ResourceSlice ValidConsumableSlice() {
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

CapacityRequestPolicy& Policy(ResourceSlice& s) {
  return *s.spec.devices[0].capacity["a"].request_policy;
}

CapacityRequestPolicyRange Range(
    std::string min, std::optional<std::string> max = std::nullopt,
    std::optional<std::string> step = std::nullopt) {
  CapacityRequestPolicyRange r;
  r.min = Q(min);
  if (max) r.max = Q(*max);
  if (step) r.step = Q(*step);
  return r;
}

DeviceClass ValidClass() {
  DeviceClass c;
  c.metadata.name = "foo";
  c.spec.selectors.push_back(Cel(R"(device.driver == "dra.example.com")"));
  DeviceClassConfiguration config;
  config.opaque = Opaque();
  c.spec.config.push_back(config);
  return c;
}

ResourceClaimTemplate ValidTemplate() {
  ResourceClaimTemplate t;
  t.metadata.name = "foo";
  t.metadata.namespace_ = "ns";
  t.spec.Mutable().spec = ValidClaimSpec();
  return t;
}

DeviceTaintRule ValidTaintRule() {
  DeviceTaintRule r;
  r.metadata.name = "foo";
  r.spec.device_selector.emplace();
  r.spec.device_selector->driver = "dra.example.com";
  r.spec.taint = Taint();
  return r;
}

Pod ValidPod() {
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
std::string CelOfLength(size_t length) {
  const std::string prefix = "device.driver == \"";
  return prefix + Repeat('x', length - prefix.size() - 1) + "\"";
}

// ===================================================== ResourceClaim

TEST(ValidateResourceClaimTest, Create) {
  const std::string req0 = "spec.devices.requests[0]";
  const std::string ex0 = req0 + ".exactly";
  const std::string fa0 = req0 + ".firstAvailable";
  ValidationOptions no_consumable;
  no_consumable.features.consumable_capacity = false;

  std::vector<Case<ResourceClaim>> cases = {
      // --- metadata (namespaced kind)
      {"missing-name",
       [](ResourceClaim& c) { c.metadata.name = ""; },
       {"metadata.name: Required value: name or generateName is required"}},
      {"bad-name",
       [](ResourceClaim& c) { c.metadata.name = kBadName; },
       {"metadata.name: Invalid value: " + kBadNameQ + ": " + kSubdomainMsg}},
      {"name-253",
       [](ResourceClaim& c) { c.metadata.name = Repeat('a', 253); },
       {}},
      {"name-254",
       [](ResourceClaim& c) { c.metadata.name = Repeat('a', 254); },
       {"metadata.name: Invalid value: \"" + Repeat('a', 254) +
        "\": must be no more than 253 bytes"}},
      {"missing-namespace",
       [](ResourceClaim& c) { c.metadata.namespace_ = ""; },
       {"metadata.namespace: Required value"}},
      {"bad-namespace",
       [](ResourceClaim& c) { c.metadata.namespace_ = "a.b"; },
       {"metadata.namespace: Invalid value: \"a.b\": must not contain dots"}},
      {"generate-name",
       [](ResourceClaim& c) { c.metadata.generate_name = "pvc-"; },
       {}},
      {"uid-resource-version-generation",
       [](ResourceClaim& c) {
         c.metadata.uid = "ac051fac-2ead-46d9-b8b4-4e0fbeb7455d";
         c.metadata.resource_version = "1";
         c.metadata.generation = 100;
         c.metadata.finalizers = {"example.com/foo"};
         c.metadata.labels = {{"apps.kubernetes.io/name", "test"}};
         c.metadata.annotations = {{"foo", "bar"}};
       },
       {}},
      {"negative-generation",
       [](ResourceClaim& c) { c.metadata.generation = -1; },
       {"metadata.generation: Invalid value: -1: must be greater than or equal "
        "to 0"}},
      {"bad-labels",
       [](ResourceClaim& c) {
         c.metadata.labels = {{"hello-world", "spaces not allowed"}};
       },
       {"metadata.labels: Invalid value: \"spaces not allowed\": " +
        kLabelValueMsg}},
      {"bad-annotations",
       [](ResourceClaim& c) {
         c.metadata.annotations = {{kBadName, "hello world"}};
       },
       {"metadata.annotations: Invalid value: " + kBadNameQ + ": " +
        kNamePartMsg}},
      {"bad-finalizer",
       [](ResourceClaim& c) { c.metadata.finalizers = {"foo"}; },
       {"metadata.finalizers[0]: Invalid value: \"foo\": name is neither a "
        "standard finalizer name nor is it fully qualified"}},

      // --- request names and one-of
      {"bad-request-name",
       [](ResourceClaim& c) { c.spec.devices.requests[0].name = kBadName; },
       {req0 + ".name: Invalid value: " + kBadNameQ + ": " + kLabelMsg}},
      {"request-name-with-dots",
       [](ResourceClaim& c) { c.spec.devices.requests[0].name = "a.b"; },
       {req0 + ".name: Invalid value: \"a.b\": must not contain dots"}},
      {"request-name-63",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].name = Repeat('x', 63);
       },
       {}},
      {"request-name-64",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].name = Repeat('x', 64);
       },
       {req0 + ".name: Invalid value: \"" + Repeat('x', 64) +
        "\": must be no more than 63 bytes"}},
      {"request-name-empty",
       [](ResourceClaim& c) { c.spec.devices.requests[0].name = ""; },
       {req0 + ".name: Invalid value: \"\": " + kLabelMsg}},
      {"neither-exactly-nor-first-available",
       [](ResourceClaim& c) { c.spec.devices.requests[0].exactly.reset(); },
       {req0 + ": Required value: exactly one of `exactly` or `firstAvailable` "
               "is required"}},
      {"both-exactly-and-first-available",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].first_available = {SubRequest("sub")};
       },
       {req0 + ": Invalid value: null: exactly one of `exactly` or "
               "`firstAvailable` is required, but multiple fields are set"}},
      {"duplicate-request-name",
       [](ResourceClaim& c) {
         c.spec.devices.requests.push_back(ExactRequest("foo"));
       },
       {"spec.devices.requests[1]: Duplicate value: \"foo\""}},
      {"max-requests",
       [](ResourceClaim& c) {
         for (int i = 1; i < 32; ++i) {
           c.spec.devices.requests.push_back(ExactRequest(StrCat("foo", i)));
         }
       },
       {}},
      {"too-many-requests",
       [](ResourceClaim& c) {
         for (int i = 1; i < 33; ++i) {
           c.spec.devices.requests.push_back(ExactRequest(StrCat("foo", i)));
         }
         // Items are not validated any more once the list is too long.
         c.spec.devices.requests[5].name = kBadName;
       },
       {"spec.devices.requests: Too many: 33: must have at most 32 items"}},

      // --- exactly
      {"bad-classname",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->device_class_name = kBadName;
       },
       {ex0 + ".deviceClassName: Invalid value: " + kBadNameQ + ": " +
        kSubdomainMsg}},
      {"missing-classname",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->device_class_name = "";
       },
       {ex0 + ".deviceClassName: Required value"}},
      {"count-zero",
       [](ResourceClaim& c) { c.spec.devices.requests[0].exactly->count = 0; },
       {ex0 + ".count: Invalid value: 0: must be greater than zero"}},
      {"count-negative",
       [](ResourceClaim& c) { c.spec.devices.requests[0].exactly->count = -1; },
       {ex0 + ".count: Invalid value: -1: must be greater than zero"}},
      {"count-large",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->count =
             std::numeric_limits<int64_t>::max();
       },
       {}},
      {"allocation-mode-unsupported",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->allocation_mode = "other";
       },
       {ex0 +
        ".allocationMode: Unsupported value: \"other\": supported values: "
        "\"All\", \"ExactCount\""}},
      {"allocation-mode-empty-not-defaulted",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->allocation_mode = "";
       },
       {ex0 + ".allocationMode: Unsupported value: \"\": supported values: "
              "\"All\", \"ExactCount\""}},
      {"all-with-count",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->allocation_mode = "All";
         c.spec.devices.requests[0].exactly->count = 2;
       },
       {ex0 + ".count: Invalid value: 2: must not be specified when "
              "allocationMode is 'All'"}},
      {"all-without-count",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->allocation_mode = "All";
         c.spec.devices.requests[0].exactly->count = 0;
       },
       {}},
      // adminAccess is not restricted by validation (the namespace label is
      // checked at admission).
      {"admin-access",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->admin_access = true;
       },
       {}},
      {"capacity-requests",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->capacity.emplace();
         c.spec.devices.requests[0].exactly->capacity->requests["memory"] =
             Q("1Gi");
       },
       {}},
      {"max-selectors",
       [](ResourceClaim& c) {
         for (int i = 0; i < 32; ++i) {
           c.spec.devices.requests[0].exactly->selectors.push_back(
               Cel(R"(device.driver == "dra.example.com")"));
         }
       },
       {}},
      {"too-many-selectors",
       [](ResourceClaim& c) {
         for (int i = 0; i < 33; ++i) {
           c.spec.devices.requests[0].exactly->selectors.push_back(
               Cel(R"(device.driver == "dra.example.com")"));
         }
       },
       {ex0 + ".selectors: Too many: 33: must have at most 32 items"}},
      {"selector-without-cel",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->selectors.push_back(
             DeviceSelector{});
       },
       {ex0 + ".selectors[0].cel: Required value"}},
      {"cel-max-length",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->selectors.push_back(
             Cel(CelOfLength(10 * 1024)));
       },
       {}},
      {"cel-too-long",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->selectors.push_back(
             Cel(R"(device.driver == "dra.example.com")"));
         c.spec.devices.requests[0].exactly->selectors.push_back(
             Cel(CelOfLength(10 * 1024 + 1)));
       },
       {ex0 + ".selectors[1].cel.expression: Too long: may not be more than "
              "10240 bytes"}},

      // --- tolerations
      {"tolerations-valid",
       [](ResourceClaim& c) {
         auto& t = c.spec.devices.requests[0].exactly->tolerations;
         t.push_back(Toleration("example.com/taint"));
         t.push_back(Toleration("", "Exists"));
         DeviceToleration eq = Toleration("key", "Equal");
         eq.value = "value";
         eq.effect = "NoSchedule";
         eq.toleration_seconds = 10;
         t.push_back(eq);
       },
       {}},
      {"max-tolerations",
       [](ResourceClaim& c) {
         for (int i = 0; i < 16; ++i) {
           c.spec.devices.requests[0].exactly->tolerations.push_back(
               Toleration(StrCat("key-", i)));
         }
       },
       {}},
      // Upstream documents "at most 16" (DeviceTolerationsMaxLength) but
      // neither the hand-written nor the declarative validation enforces
      // it (no +k8s:maxItems on the field), so 17 are accepted.
      {"tolerations-above-documented-limit",
       [](ResourceClaim& c) {
         for (int i = 0; i < 17; ++i) {
           c.spec.devices.requests[0].exactly->tolerations.push_back(
               Toleration(StrCat("key-", i)));
         }
       },
       {}},
      {"toleration-bad-key-value-effect",
       [](ResourceClaim& c) {
         DeviceToleration t = Toleration("!bad", "Exists");
         t.value = "x";
         t.effect = "Bogus";
         c.spec.devices.requests[0].exactly->tolerations.push_back(t);
       },
       {ex0 + ".tolerations[0].key: Invalid value: \"!bad\": " + kNamePartMsg,
        ex0 + ".tolerations[0].value: Invalid value: \"x\": must be empty for "
              "operator `Exists`",
        ex0 + ".tolerations[0].effect: Unsupported value: \"Bogus\": " +
            kEffects}},
      {"toleration-missing-operator",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->tolerations.push_back(
             Toleration("key", ""));
       },
       {ex0 + ".tolerations[0].operator: Required value"}},
      {"toleration-unsupported-operator",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->tolerations.push_back(
             Toleration("key", "In"));
       },
       {ex0 + ".tolerations[0].operator: Unsupported value: \"In\": supported "
              "values: \"Equal\", \"Exists\""}},
      {"toleration-equal-bad-value",
       [](ResourceClaim& c) {
         DeviceToleration t = Toleration("key", "Equal");
         t.value = kBadName;
         c.spec.devices.requests[0].exactly->tolerations.push_back(t);
       },
       {ex0 + ".tolerations[0].value: Invalid value: " + kBadNameQ + ": " +
        kLabelValueMsg}},

      // --- firstAvailable
      {"first-available-valid",
       [](ResourceClaim& c) { c = ValidFirstAvailableClaim(); },
       {}},
      {"first-available-max",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly.reset();
         for (int i = 0; i < 8; ++i) {
           c.spec.devices.requests[0].first_available.push_back(
               SubRequest(StrCat("subreq-", i)));
         }
       },
       {}},
      {"first-available-too-many",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly.reset();
         for (int i = 0; i <= 8; ++i) {
           c.spec.devices.requests[0].first_available.push_back(
               SubRequest(StrCat("subreq-", i)));
         }
       },
       {fa0 + ": Too many: 9: must have at most 8 items"}},
      {"first-available-duplicate-name",
       [](ResourceClaim& c) {
         c = ValidFirstAvailableClaim();
         c.spec.devices.requests[0].first_available[1].name = "foo";
       },
       {fa0 + "[1]: Duplicate value: \"foo\""}},
      {"first-available-invalid-nested-request",
       [](ResourceClaim& c) {
         c = ValidFirstAvailableClaim();
         DeviceSubRequest bad;
         bad.name = kBadName;
         c.spec.devices.requests[0].first_available[0] = bad;
       },
       {fa0 + "[0].name: Invalid value: " + kBadNameQ + ": " + kLabelMsg,
        fa0 + "[0].deviceClassName: Required value",
        fa0 + "[0].allocationMode: Unsupported value: \"\": supported values: "
              "\"All\", \"ExactCount\""}},
      {"first-available-all-with-count",
       [](ResourceClaim& c) {
         c = ValidFirstAvailableClaim();
         c.spec.devices.requests[0].first_available[1].allocation_mode = "All";
         c.spec.devices.requests[0].first_available[1].count = 3;
       },
       {fa0 + "[1].count: Invalid value: 3: must not be specified when "
              "allocationMode is 'All'"}},
      {"first-available-too-many-selectors",
       [](ResourceClaim& c) {
         c = ValidFirstAvailableClaim();
         for (int i = 0; i < 33; ++i) {
           c.spec.devices.requests[0].first_available[0].selectors.push_back(
               Cel("true"));
         }
       },
       {fa0 + "[0].selectors: Too many: 33: must have at most 32 items"}},
      {"first-available-bad-toleration",
       [](ResourceClaim& c) {
         c = ValidFirstAvailableClaim();
         c.spec.devices.requests[0].first_available[0].tolerations.push_back(
             Toleration("key", ""));
       },
       {fa0 + "[0].tolerations[0].operator: Required value"}},

      // --- constraints
      {"max-constraints",
       [](ResourceClaim& c) {
         for (int i = 0; i < 32; ++i) {
           c.spec.devices.constraints.push_back(Match("foo/bar"));
         }
       },
       {}},
      {"too-many-constraints",
       [](ResourceClaim& c) {
         for (int i = 0; i < 33; ++i) {
           c.spec.devices.constraints.push_back(Match("foo/bar"));
         }
       },
       {"spec.devices.constraints: Too many: 33: must have at most 32 items"}},
      {"constraint-requests",
       [](ResourceClaim& c) {
         c.spec.devices.constraints.push_back(
             Match("dra.example.com/numa",
                   {"foo", kBadName, "bar", "foo/foo/foo", "foo"}));
       },
       {"spec.devices.constraints[0].requests[1]: Invalid value: " + kBadNameQ +
            ": " + kLabelMsg,
        "spec.devices.constraints[0].requests[1]: Invalid value: " + kBadNameQ +
            ": " + kRequestRefMsg,
        "spec.devices.constraints[0].requests[2]: Invalid value: \"bar\": " +
            kRequestRefMsg,
        "spec.devices.constraints[0].requests[3]: Invalid value: "
        "\"foo/foo/foo\": " +
            kRequestRefMsg,
        "spec.devices.constraints[0].requests[4]: Duplicate value: \"foo\""}},
      {"constraint-too-many-requests",
       [](ResourceClaim& c) {
         std::vector<std::string> requests(33, "foo");
         c.spec.devices.constraints.push_back(
             Match("dra.example.com/numa", requests));
       },
       {"spec.devices.constraints[0].requests: Too many: 33: must have at most "
        "32 items"}},
      {"constraint-subrequest-of-exact-request",
       [](ResourceClaim& c) {
         c.spec.devices.constraints.push_back(
             Match("dra.example.com/numa", {"foo/bar"}));
       },
       {"spec.devices.constraints[0].requests[0]: Invalid value: "
        "\"foo/bar\": " +
        kRequestRefMsg}},
      {"constraint-subrequest-references",
       [](ResourceClaim& c) {
         c = ValidFirstAvailableClaim();
         c.spec.devices.constraints.push_back(
             Match("dra.example.com/driverVersion", {"foo/bar", "foo"}));
         c.spec.devices.constraints.push_back(
             Match("dra.example.com/driverVersion", {"foo/baz"}));
       },
       {"spec.devices.constraints[1].requests[0]: Invalid value: "
        "\"foo/baz\": " +
        kRequestRefMsg}},
      {"constraint-bad-subrequest-name",
       [](ResourceClaim& c) {
         c = ValidFirstAvailableClaim();
         c.spec.devices.constraints.push_back(
             Match("dra.example.com/numa", {"foo/&^%$"}));
       },
       {"spec.devices.constraints[0].requests[0]: Invalid value: \"&^%$\": " +
            kLabelMsg,
        "spec.devices.constraints[0].requests[0]: Invalid value: "
        "\"foo/&^%$\": " +
            kRequestRefMsg}},
      {"match-attribute-missing-domain",
       [](ResourceClaim& c) {
         c.spec.devices.constraints.push_back(Match("missing-domain"));
       },
       {"spec.devices.constraints[0].matchAttribute: Invalid value: "
        "\"missing-domain\": " +
            kCIdentifierMsg,
        "spec.devices.constraints[0].matchAttribute: Invalid value: "
        "\"missing-domain\": " +
            kFQNMsg}},
      {"match-attribute-no-domain-valid-identifier",
       [](ResourceClaim& c) {
         c.spec.devices.constraints.push_back(Match("model"));
       },
       {"spec.devices.constraints[0].matchAttribute: Invalid value: "
        "\"model\": " +
        kFQNMsg}},
      {"match-attribute-empty",
       [](ResourceClaim& c) {
         c.spec.devices.constraints.push_back(Match(""));
       },
       {"spec.devices.constraints[0].matchAttribute: Invalid value: \"\": " +
            kCIdentifierMsg,
        "spec.devices.constraints[0].matchAttribute: Invalid value: \"\": " +
            kFQNMsg}},
      {"match-attribute-empty-parts",
       [](ResourceClaim& c) {
         c.spec.devices.constraints.push_back(Match("/"));
       },
       {"spec.devices.constraints[0].matchAttribute: Invalid value: \"\": the "
        "domain must not be empty",
        "spec.devices.constraints[0].matchAttribute: Invalid value: \"\": the "
        "name must not be empty"}},
      {"match-attribute-two-slashes",
       [](ResourceClaim& c) {
         c.spec.devices.constraints.push_back(Match("a/b/c"));
       },
       {"spec.devices.constraints[0].matchAttribute: Invalid value: \"a/b/c\": "
        "must not contain more than one slash"}},
      {"match-attribute-bad-domain",
       [](ResourceClaim& c) {
         c.spec.devices.constraints.push_back(Match(kBadName + "/model"));
       },
       {"spec.devices.constraints[0].matchAttribute: Invalid value: " +
        kBadNameQ + ": " + kSubdomainMsg}},
      {"distinct-attribute",
       [](ResourceClaim& c) {
         DeviceConstraint d;
         d.distinct_attribute = "dra.example.com/nic";
         c.spec.devices.constraints.push_back(d);
         DeviceConstraint bad;
         bad.distinct_attribute = "nic";
         c.spec.devices.constraints.push_back(bad);
       },
       {"spec.devices.constraints[1].distinctAttribute: Invalid value: "
        "\"nic\": " +
        kFQNMsg}},
      {"constraint-without-attribute",
       [](ResourceClaim& c) { c.spec.devices.constraints.push_back({}); },
       {"spec.devices.constraints[0]: Required value: exactly one of "
        "\"matchAttribute\" or \"distinctAttribute\" is required, but multiple "
        "fields are set"}},
      {"constraint-without-attribute-no-consumable-capacity",
       [](ResourceClaim& c) { c.spec.devices.constraints.push_back({}); },
       {"spec.devices.constraints[0].matchAttribute: Required value"},
       no_consumable},

      // --- config
      {"max-config",
       [](ResourceClaim& c) {
         for (int i = 0; i < 32; ++i)
           c.spec.devices.config.push_back(ClaimConfig());
       },
       {}},
      {"too-many-config",
       [](ResourceClaim& c) {
         for (int i = 0; i < 33; ++i)
           c.spec.devices.config.push_back(ClaimConfig());
       },
       {"spec.devices.config: Too many: 33: must have at most 32 items"}},
      {"config-requests",
       [](ResourceClaim& c) {
         c.spec.devices.config.push_back(ClaimConfig({"foo", kBadName}));
       },
       {"spec.devices.config[0].requests[1]: Invalid value: " + kBadNameQ +
            ": " + kLabelMsg,
        "spec.devices.config[0].requests[1]: Invalid value: " + kBadNameQ +
            ": " + kRequestRefMsg}},
      {"config-subrequest-references",
       [](ResourceClaim& c) {
         c = ValidFirstAvailableClaim();
         c.spec.devices.config.push_back(ClaimConfig({"foo/bar"}));
         c.spec.devices.config.push_back(ClaimConfig({"foo"}));
         c.spec.devices.config.push_back(ClaimConfig({"foo/baz"}));
       },
       {"spec.devices.config[2].requests[0]: Invalid value: \"foo/baz\": " +
        kRequestRefMsg}},
      {"config-missing-opaque",
       [](ResourceClaim& c) {
         c.spec.devices.config.push_back(DeviceClaimConfiguration{});
       },
       {"spec.devices.config[0].opaque: Required value"}},
      {"config-driver",
       [](ResourceClaim& c) {
         for (std::string driver :
              {std::string(""), kBadName, Repeat('a', 63), Repeat('a', 64),
               std::string("DRA.Example.COM")}) {
           DeviceClaimConfiguration config = ClaimConfig();
           config.opaque->driver = driver;
           c.spec.devices.config.push_back(config);
         }
       },
       {"spec.devices.config[0].opaque.driver: Required value",
        "spec.devices.config[1].opaque.driver: Invalid value: " + kBadNameQ +
            ": " + kSubdomainMsg,
        "spec.devices.config[3].opaque.driver: Too long: may not be more than "
        "63 bytes"}},
      {"config-parameters",
       [](ResourceClaim& c) {
         auto add = [&](Json params) {
           DeviceClaimConfiguration config = ClaimConfig();
           config.opaque->parameters = std::move(params);
           c.spec.devices.config.push_back(config);
         };
         add(Json());               // missing / null
         add(Json("hello-world"));  // not an object
         add(Json::array());        // not an object
         // {"str":"x…"}: 8 + n + 2 bytes.
         add(Json{{"str", Repeat('x', 10 * 1024 - 10)}});      // at the limit
         add(Json{{"str", Repeat('x', 10 * 1024 - 10 + 1)}});  // one too many
       },
       {"spec.devices.config[0].opaque.parameters: Required value",
        "spec.devices.config[1].opaque.parameters: Invalid value: \"<value "
        "omitted>\": must be a valid JSON object",
        "spec.devices.config[2].opaque.parameters: Invalid value: \"<value "
        "omitted>\": must be a valid JSON object",
        "spec.devices.config[4].opaque.parameters: Too long: may not be more "
        "than 10240 bytes"}},

      // upstream "invalid-spec": several problems at once, in order.
      {"invalid-spec",
       [](ResourceClaim& c) {
         c.spec.devices.constraints = {
             Match("missing-domain", {"foo", kBadName}), Match(""), {}};
         c.spec.devices.config = {ClaimConfig({"foo", kBadName})};
       },
       {"spec.devices.constraints[0].requests[1]: Invalid value: " + kBadNameQ +
            ": " + kLabelMsg,
        "spec.devices.constraints[0].requests[1]: Invalid value: " + kBadNameQ +
            ": " + kRequestRefMsg,
        "spec.devices.constraints[0].matchAttribute: Invalid value: "
        "\"missing-domain\": " +
            kCIdentifierMsg,
        "spec.devices.constraints[0].matchAttribute: Invalid value: "
        "\"missing-domain\": " +
            kFQNMsg,
        "spec.devices.constraints[1].matchAttribute: Invalid value: \"\": " +
            kCIdentifierMsg,
        "spec.devices.constraints[1].matchAttribute: Invalid value: \"\": " +
            kFQNMsg,
        "spec.devices.constraints[2]: Required value: exactly one of "
        "\"matchAttribute\" or \"distinctAttribute\" is required, but multiple "
        "fields are set",
        "spec.devices.config[0].requests[1]: Invalid value: " + kBadNameQ +
            ": " + kLabelMsg,
        "spec.devices.config[0].requests[1]: Invalid value: " + kBadNameQ +
            ": " + kRequestRefMsg}},
      // upstream "allocation-mode".
      {"allocation-mode",
       [](ResourceClaim& c) {
         DeviceRequest good = c.spec.devices.requests[0];
         DeviceRequest r = good;
         r.name = "foo2";
         r.exactly->allocation_mode = "All";
         r.exactly->count = 0;
         c.spec.devices.requests.push_back(r);
         r = good;
         r.name = "foo3";
         r.exactly->count = -1;
         c.spec.devices.requests.push_back(r);
         r = good;
         r.name = "foo4";
         r.exactly->allocation_mode = "other";
         c.spec.devices.requests.push_back(r);
         r = good;
         r.name = "foo5";
         r.exactly->allocation_mode = "All";
         r.exactly->count = 2;
         c.spec.devices.requests.push_back(r);
         c.spec.devices.requests.push_back(good);
       },
       {"spec.devices.requests[2].exactly.count: Invalid value: -1: must be "
        "greater than zero",
        "spec.devices.requests[3].exactly.allocationMode: Unsupported value: "
        "\"other\": supported values: \"All\", \"ExactCount\"",
        "spec.devices.requests[4].exactly.count: Invalid value: 2: must not be "
        "specified when allocationMode is 'All'",
        "spec.devices.requests[5]: Duplicate value: \"foo\""}},
  };
  RunCases<ResourceClaim>("ResourceClaim", "resource.k8s.io/v1", ValidClaim(),
                          cases);
}

TEST(ValidateResourceClaimTest, CELCompileHook) {
  ValidationOptions options;
  std::vector<std::string> compiled;
  options.compile_cel = [&](std::string_view expression) -> absl::Status {
    compiled.emplace_back(expression);
    if (expression == "device.attributes[true].someBoolean") {
      return absl::InvalidArgumentError(
          "compilation failed: ERROR: <input>:1:18: found no matching "
          "overload for '_[_]' applied to '(map(string, map(string, any)), "
          "bool)'");
    }
    return absl::OkStatus();
  };
  ResourceClaim c = ValidClaim();
  c.spec.devices.requests.push_back(ExactRequest("foo-2"));
  c.spec.devices.requests[1].exactly->selectors = {
      Cel(R"(device.driver == "dra.example.com")"),
      Cel("device.attributes[true].someBoolean"),
      Cel(CelOfLength(10 * 1024 + 1))};
  EXPECT_EQ(
      Errors(Obj("ResourceClaim", c), options),
      (Want{"spec.devices.requests[1].exactly.selectors[1].cel.expression: "
            "Invalid value: \"device.attributes[true].someBoolean\": "
            "compilation failed: ERROR: <input>:1:18: found no matching "
            "overload for '_[_]' applied to '(map(string, map(string, "
            "any)), bool)'",
            "spec.devices.requests[1].exactly.selectors[2].cel.expression: "
            "Too long: may not be more than 10240 bytes"}));
  // Too long expressions are not compiled.
  EXPECT_EQ(compiled,
            (std::vector<std::string>{R"(device.driver == "dra.example.com")",
                                      "device.attributes[true].someBoolean"}));
}

TEST(ValidateResourceClaimTest, Update) {
  ResourceClaim base = ValidClaim();
  base.metadata.resource_version = "1";
  std::vector<UpdateCase<ResourceClaim>> cases = {
      {"no-op", nullptr, [](ResourceClaim&) {}, {}},
      {"labels-may-change",
       nullptr,
       [](ResourceClaim& c) { c.metadata.labels["a"] = "b"; },
       {}},
      {"spec-immutable",
       nullptr,
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->device_class_name += "2";
       },
       {"spec: Invalid value: "
        R"({"devices":{"requests":[{"name":"foo","exactly":{"deviceClassName":"foo2","allocationMode":"ExactCount","count":1}}]}})"
        ": field is immutable"}},
      {"name-immutable",
       nullptr,
       [](ResourceClaim& c) { c.metadata.name = "bar"; },
       {"metadata.name: Invalid value: \"bar\": field is immutable"}},
      {"namespace-immutable",
       nullptr,
       [](ResourceClaim& c) { c.metadata.namespace_ = "other"; },
       {"metadata.namespace: Invalid value: \"other\": field is immutable"}},
      {"missing-resource-version",
       nullptr,
       [](ResourceClaim& c) { c.metadata.resource_version = ""; },
       {"metadata.resourceVersion: Invalid value: \"\": must be specified for "
        "an update"}},
      {"generation-decremented",
       [](ResourceClaim& c) { c.metadata.generation = 2; },
       [](ResourceClaim& c) { c.metadata.generation = 1; },
       {"metadata.generation: Invalid value: 1: must not be decremented"}},
      // Stored specs are not validated again: a too large parameter stays.
      {"too-large-config-valid-if-stored",
       [](ResourceClaim& c) {
         DeviceClaimConfiguration config = ClaimConfig();
         config.opaque->parameters = Json{{"str", Repeat('x', 10 * 1024)}};
         c.spec.devices.config.push_back(config);
       },
       [](ResourceClaim&) {},
       {}},
      {"no-new-finalizers-while-deleting",
       [](ResourceClaim& c) {
         c.metadata.deletion_timestamp = "2024-01-01T00:00:00Z";
       },
       [](ResourceClaim& c) { c.metadata.finalizers = {"example.com/new"}; },
       {"metadata.finalizers: Forbidden: no new finalizers can be added if the "
        "object is being deleted, found new finalizers "
        "[]string{\"example.com/new\"}"}},
  };
  RunUpdateCases<ResourceClaim>("ResourceClaim", base, /*status=*/false, cases);
}

DeviceRequestAllocationResult Result(std::string request = "foo",
                                     std::string device = "foo") {
  DeviceRequestAllocationResult r;
  r.request = std::move(request);
  r.driver = "foo";
  r.pool = "foo";
  r.device = std::move(device);
  r.admin_access = false;
  return r;
}

ResourceClaimConsumerReference Consumer(int i) {
  return ResourceClaimConsumerReference{"", "pods", StrCat("foo-", i),
                                        StrCat(i)};
}

Condition ReadyCondition(std::string type = "Ready") {
  Condition c;
  c.type = std::move(type);
  c.status = "True";
  c.last_transition_time = "2024-01-01T00:00:00Z";
  c.reason = "Ready";
  return c;
}

TEST(ValidateResourceClaimTest, StatusUpdate) {
  ResourceClaim base = ValidClaim();
  base.metadata.resource_version = "1";
  auto allocate = [](ResourceClaim& c) {
    c.status.allocation.emplace();
    c.status.allocation->devices.results.push_back(Result());
  };
  const std::string results = "status.allocation.devices.results";
  const std::string aconfig = "status.allocation.devices.config";
  auto add_config = [](ResourceClaim& c, std::string source) {
    DeviceAllocationConfiguration config;
    config.source = std::move(source);
    config.opaque = Opaque();
    c.status.allocation->devices.config.push_back(config);
  };
  std::vector<UpdateCase<ResourceClaim>> cases = {
      {"no-op", nullptr, [](ResourceClaim&) {}, {}},
      {"add-allocation-empty",
       nullptr,
       [](ResourceClaim& c) { c.status.allocation.emplace(); },
       {}},
      {"add-allocation", nullptr, allocate, {}},
      {"add-allocation-missing-admin-access",
       nullptr,
       [&](ResourceClaim& c) {
         allocate(c);
         c.status.allocation->devices.results[0].admin_access.reset();
       },
       {}},
      {"add-allocation-bad-request",
       nullptr,
       [&](ResourceClaim& c) {
         allocate(c);
         c.status.allocation->devices.results[0].request = kBadName;
       },
       {results + "[0].request: Invalid value: " + kBadNameQ + ": " + kLabelMsg,
        results + "[0].request: Invalid value: " + kBadNameQ + ": " +
            kRequestRefMsg}},
      {"add-allocation-bad-result-fields",
       nullptr,
       [&](ResourceClaim& c) {
         allocate(c);
         auto& r = c.status.allocation->devices.results[0];
         r.driver = "";
         r.pool = "";
         r.device = "a.b";
         r.tolerations = {Toleration("key", "")};
       },
       {results + "[0].driver: Required value",
        results + "[0].pool: Required value",
        results + "[0].device: Invalid value: \"a.b\": must not contain dots",
        results + "[0].tolerations[0].operator: Required value"}},
      {"max-results",
       nullptr,
       [&](ResourceClaim& c) {
         allocate(c);
         for (int i = 1; i < 32; ++i) {
           c.status.allocation->devices.results.push_back(
               Result("foo", StrCat("dev-", i)));
         }
       },
       {}},
      {"too-many-results",
       nullptr,
       [&](ResourceClaim& c) {
         allocate(c);
         for (int i = 1; i < 33; ++i) {
           c.status.allocation->devices.results.push_back(
               Result("foo", StrCat("dev-", i)));
         }
       },
       {results + ": Too many: 33: must have at most 32 items"}},
      {"share-id",
       nullptr,
       [&](ResourceClaim& c) {
         allocate(c);
         c.status.allocation->devices.results.push_back(Result());
         c.status.allocation->devices.results.push_back(Result());
         c.status.allocation->devices.results.push_back(Result());
         c.status.allocation->devices.results[0].share_id =
             "ac051fac-2ead-46d9-b8b4-4e0fbeb7455d";
         c.status.allocation->devices.results[1].share_id = "abc";
         c.status.allocation->devices.results[2].share_id =
             "AC051FAC-2EAD-46D9-B8B4-4E0FBEB7455D";
         c.status.allocation->devices.results[3].share_id =
             "ac051fac+2ead-46d9-b8b4-4e0fbeb7455d";
       },
       {results + "[1].shareID: Invalid value: \"abc\": error validating uid: "
                  "invalid UUID length: 3",
        results +
            "[2].shareID: Invalid value: "
            "\"AC051FAC-2EAD-46D9-B8B4-4E0FBEB7455D\": uid must be in RFC "
            "4122 normalized form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` "
            "with lowercase hexadecimal characters",
        results + "[3].shareID: Invalid value: "
                  "\"ac051fac+2ead-46d9-b8b4-4e0fbeb7455d\": error validating "
                  "uid: invalid UUID format"}},
      {"result-binding-conditions",
       nullptr,
       [&](ResourceClaim& c) {
         allocate(c);
         c.status.allocation->devices.results[0].binding_conditions = {
             "a", "b", "c", "d", "e"};
         c.status.allocation->devices.results[0].binding_failure_conditions = {
             "f"};
       },
       {results +
        "[0].bindingConditions: Too many: 5: must have at most 4 items"}},
      {"invalid-node-selector",
       nullptr,
       [](ResourceClaim& c) {
         c.status.allocation.emplace();
         c.status.allocation->node_selector.emplace();
       },
       {"status.allocation.nodeSelector.nodeSelectorTerms: Required value: "
        "must "
        "have at least one node selector term"}},
      {"allocation-config",
       nullptr,
       [&](ResourceClaim& c) {
         allocate(c);
         add_config(c, "FromClaim");
         add_config(c, "");
         add_config(c, "no-such-source");
         add_config(c, "FromClass");
         c.status.allocation->devices.config[3].opaque.reset();
         add_config(c, "FromClaim");
         c.status.allocation->devices.config[4].opaque->driver = "";
         c.status.allocation->devices.config[4].opaque->parameters = Json();
         add_config(c, "FromClaim");
         c.status.allocation->devices.config[5].requests = {"foo", kBadName};
         add_config(c, "FromClaim");
         c.status.allocation->devices.config[6].opaque->parameters =
             Json{{"str", Repeat('x', 10 * 1024)}};
       },
       {aconfig + "[1].source: Required value",
        aconfig +
            "[2].source: Unsupported value: \"no-such-source\": supported "
            "values: \"FromClaim\", \"FromClass\"",
        aconfig + "[3].opaque: Required value",
        aconfig + "[4].opaque.driver: Required value",
        aconfig + "[4].opaque.parameters: Required value",
        aconfig + "[5].requests[1]: Invalid value: " + kBadNameQ + ": " +
            kLabelMsg,
        aconfig + "[5].requests[1]: Invalid value: " + kBadNameQ + ": " +
            kRequestRefMsg,
        aconfig + "[6].opaque.parameters: Too long: may not be more than 10240 "
                  "bytes"}},
      {"max-allocation-config",
       nullptr,
       [&](ResourceClaim& c) {
         allocate(c);
         for (int i = 0; i < 64; ++i) add_config(c, "FromClass");
       },
       {}},
      {"too-many-allocation-config",
       nullptr,
       [&](ResourceClaim& c) {
         allocate(c);
         for (int i = 0; i < 65; ++i) add_config(c, "FromClass");
       },
       {aconfig + ": Too many: 65: must have at most 64 items"}},

      // --- reservedFor
      {"add-reservation",
       allocate,
       [](ResourceClaim& c) {
         for (int i = 0; i < 256; ++i)
           c.status.reserved_for.push_back(Consumer(i));
       },
       {}},
      {"add-reservation-and-allocation",
       nullptr,
       [&](ResourceClaim& c) {
         allocate(c);
         for (int i = 0; i < 256; ++i)
           c.status.reserved_for.push_back(Consumer(i));
       },
       {}},
      {"reserved-for-too-large",
       allocate,
       [](ResourceClaim& c) {
         for (int i = 0; i < 257; ++i)
           c.status.reserved_for.push_back(Consumer(i));
       },
       {"status.reservedFor: Too many: 257: must have at most 256 items"}},
      {"reserved-for-duplicate",
       allocate,
       [](ResourceClaim& c) {
         c.status.reserved_for = {Consumer(1), Consumer(1)};
       },
       {"status.reservedFor[1]: Duplicate value: \"1\""}},
      {"reserved-for-without-allocation",
       nullptr,
       [](ResourceClaim& c) { c.status.reserved_for = {Consumer(1)}; },
       {"status.reservedFor: Forbidden: may not be specified when `allocated` "
        "is not set"}},
      {"reserved-for-missing-fields",
       allocate,
       [](ResourceClaim& c) {
         c.status.reserved_for = {ResourceClaimConsumerReference{}};
       },
       {"status.reservedFor[0].resource: Required value",
        "status.reservedFor[0].name: Required value",
        "status.reservedFor[0].uid: Required value"}},
      {"reserved-for-while-deleted",
       [&](ResourceClaim& c) {
         allocate(c);
         c.metadata.deletion_timestamp = "2024-01-01T00:00:00Z";
       },
       [](ResourceClaim& c) { c.status.reserved_for = {Consumer(1)}; },
       {"status.reservedFor: Forbidden: new entries may not be added while "
        "`deallocationRequested` or `deletionTimestamp` are set"}},
      {"reserved-for-removal-while-deleted",
       [&](ResourceClaim& c) {
         allocate(c);
         c.status.reserved_for = {Consumer(1), Consumer(2)};
         c.metadata.deletion_timestamp = "2024-01-01T00:00:00Z";
       },
       [](ResourceClaim& c) { c.status.reserved_for = {Consumer(2)}; },
       {}},
      // --- allocation is immutable once set, but may be cleared
      {"allocation-modification",
       allocate,
       [](ResourceClaim& c) {
         c.status.allocation->devices.results[0].driver += "-2";
       },
       {"status.allocation: Invalid value: "
        R"({"devices":{"results":[{"request":"foo","driver":"foo-2","pool":"foo","device":"foo","adminAccess":false}]}})"
        ": field is immutable"}},
      {"allocation-cleared",
       allocate,
       [](ResourceClaim& c) { c.status.allocation.reset(); },
       {}},
      // A stored allocation is not validated again.
      {"stored-allocation-not-revalidated",
       [&](ResourceClaim& c) {
         allocate(c);
         c.status.allocation->devices.results[0].request = "gone";
       },
       [](ResourceClaim& c) { c.metadata.labels["a"] = "b"; },
       {}},

      // --- status.devices
      {"device-status",
       allocate,
       [](ResourceClaim& c) {
         AllocatedDeviceStatus d;
         d.driver = "foo";
         d.pool = "foo";
         d.device = "foo";
         d.conditions = {ReadyCondition()};
         d.data = Json{{"a", 1}};
         d.network_data = NetworkDeviceData{
             "eth0", {"10.9.8.7/24", "2001:db8::1/64"}, "ea:9f:cb:40:b1:7b"};
         c.status.devices.push_back(d);
       },
       {}},
      {"device-status-errors",
       allocate,
       [](ResourceClaim& c) {
         AllocatedDeviceStatus d;
         d.driver = "foo";
         d.pool = "foo";
         d.device = "bar";
         c.status.devices.push_back(d);
         AllocatedDeviceStatus dup;
         dup.driver = "foo";
         dup.pool = "foo";
         dup.device = "bar";
         c.status.devices.push_back(dup);
       },
       {"status.devices[0]: Invalid value: foo/foo/bar: must be an allocated "
        "device in the claim",
        "status.devices[1]: Invalid value: foo/foo/bar: must be an allocated "
        "device in the claim",
        "status.devices[1]: Duplicate value: foo/foo/bar"}},
      {"device-status-limits",
       allocate,
       [](ResourceClaim& c) {
         AllocatedDeviceStatus d;
         d.driver = "foo";
         d.pool = "foo";
         d.device = "foo";
         for (int i = 0; i < 9; ++i) {
           d.conditions.push_back(ReadyCondition(StrCat("cond", i)));
         }
         d.data = Json::array();
         NetworkDeviceData n;
         n.interface_name = Repeat('x', 257);
         n.hardware_address = Repeat('x', 129);
         n.ips = {"1.2.3.4", "010.0.0.1/24", "2001:DB8::1/64", "10.9.8.7/24",
                  "10.9.8.7/24"};
         d.network_data = n;
         c.status.devices.push_back(d);
       },
       {"status.devices[0].conditions: Too many: 9: must have at most 8 items",
        "status.devices[0].data: Invalid value: \"<value omitted>\": must be a "
        "valid JSON object",
        "status.devices[0].networkData.interfaceName: Too long: may not be "
        "more "
        "than 256 bytes",
        "status.devices[0].networkData.hardwareAddress: Too long: may not be "
        "more than 128 bytes",
        "status.devices[0].networkData.ips[0]: Invalid value: \"1.2.3.4\": " +
            kCIDRMsg,
        "status.devices[0].networkData.ips[1]: Invalid value: "
        "\"010.0.0.1/24\": "
        "must be in canonical form (\"10.0.0.1/24\")",
        "status.devices[0].networkData.ips[2]: Invalid value: "
        "\"2001:DB8::1/64\": must be in canonical form (\"2001:db8::1/64\")",
        "status.devices[0].networkData.ips[4]: Duplicate value: "
        "\"10.9.8.7/24\""}},
      {"device-status-ips-boundary",
       [&](ResourceClaim& c) {
         allocate(c);
         c.status.allocation->devices.results.push_back(Result());
         c.status.allocation->devices.results[1].share_id =
             "ac051fac-2ead-46d9-b8b4-4e0fbeb7455d";
       },
       [](ResourceClaim& c) {
         AllocatedDeviceStatus d;
         d.driver = "foo";
         d.pool = "foo";
         d.device = "foo";
         NetworkDeviceData n;
         for (int i = 0; i < 17; ++i)
           n.ips.push_back(StrCat("10.0.0.", i, "/24"));
         d.network_data = n;
         c.status.devices.push_back(d);
         d.network_data->ips.pop_back();
         d.device = "foo";
         d.share_id = "ac051fac-2ead-46d9-b8b4-4e0fbeb7455d";
         c.status.devices.push_back(d);
       },
       {"status.devices[0].networkData.ips: Too many: 17: must have at most 16 "
        "items"}},
      {"device-status-conditions",
       allocate,
       [](ResourceClaim& c) {
         AllocatedDeviceStatus d;
         d.driver = "foo";
         d.pool = "foo";
         d.device = "foo";
         Condition bad;
         bad.type = "Ready";
         bad.status = "Maybe";
         bad.observed_generation = -1;
         d.conditions = {ReadyCondition(), bad};
         c.status.devices.push_back(d);
       },
       {"status.devices[0].conditions[1].type: Duplicate value: \"Ready\"",
        "status.devices[0].conditions[1].status: Unsupported value: \"Maybe\": "
        "supported values: \"False\", \"True\", \"Unknown\"",
        "status.devices[0].conditions[1].observedGeneration: Invalid value: "
        "-1: "
        "must be greater than or equal to zero",
        "status.devices[0].conditions[1].lastTransitionTime: Required value: "
        "must be set",
        "status.devices[0].conditions[1].reason: Required value: must be set"}},
  };
  RunUpdateCases<ResourceClaim>("ResourceClaim", base, /*status=*/true, cases);
}

// ===================================================== ResourceClaimTemplate

TEST(ValidateResourceClaimTemplateTest, Create) {
  std::vector<Case<ResourceClaimTemplate>> cases = {
      {"missing-namespace",
       [](ResourceClaimTemplate& t) { t.metadata.namespace_ = ""; },
       {"metadata.namespace: Required value"}},
      {"bad-name",
       [](ResourceClaimTemplate& t) { t.metadata.name = kBadName; },
       {"metadata.name: Invalid value: " + kBadNameQ + ": " + kSubdomainMsg}},
      {"template-labels-and-annotations",
       [](ResourceClaimTemplate& t) {
         t.spec.Mutable().metadata.labels = {{"a", "b"}};
         t.spec.Mutable().metadata.annotations = {{"c", "d"}};
       },
       {}},
      {"template-metadata-forbidden-fields",
       [](ResourceClaimTemplate& t) {
         t.spec.Mutable().metadata.name = "x";
         t.spec.Mutable().metadata.namespace_ = "y";
         t.spec.Mutable().metadata.uid = "z";
         t.spec.Mutable().metadata.finalizers = {"example.com/f"};
         t.spec.Mutable().metadata.labels = {{"a", kBadName}};
       },
       {"spec.metadata.labels: Invalid value: " + kBadNameQ + ": " +
            kLabelValueMsg,
        "spec.metadata.name: Forbidden: cannot be set",
        "spec.metadata.namespace: Forbidden: cannot be set",
        "spec.metadata.uID: Forbidden: cannot be set",
        "spec.metadata.finalizers: Forbidden: cannot be set"}},
      {"bad-spec",
       [](ResourceClaimTemplate& t) {
         t.spec.Mutable().spec.devices.requests[0].exactly->count = 0;
         t.spec.Mutable().spec.devices.requests[0].exactly->device_class_name =
             "";
       },
       {"spec.spec.devices.requests[0].exactly.deviceClassName: Required value",
        "spec.spec.devices.requests[0].exactly.count: Invalid value: 0: must "
        "be "
        "greater than zero"}},
  };
  RunCases<ResourceClaimTemplate>("ResourceClaimTemplate", "resource.k8s.io/v1",
                                  ValidTemplate(), cases);
}

TEST(ValidateResourceClaimTemplateTest, Update) {
  ResourceClaimTemplate base = ValidTemplate();
  base.metadata.resource_version = "1";
  std::vector<UpdateCase<ResourceClaimTemplate>> cases = {
      {"no-op", nullptr, [](ResourceClaimTemplate&) {}, {}},
      {"spec-immutable",
       nullptr,
       [](ResourceClaimTemplate& t) {
         t.spec.Mutable().spec.devices.requests[0].exactly->count = 2;
       },
       {"spec: Invalid value: "
        R"({"metadata":{},"spec":{"devices":{"requests":[{"name":"foo","exactly":{"deviceClassName":"foo","allocationMode":"ExactCount","count":2}}]}}})"
        ": field is immutable"}},
      {"template-metadata-immutable",
       nullptr,
       [](ResourceClaimTemplate& t) {
         t.spec.Mutable().metadata.labels["a"] = "b";
       },
       {"spec: Invalid value: "
        R"({"metadata":{"labels":{"a":"b"}},"spec":{"devices":{"requests":[{"name":"foo","exactly":{"deviceClassName":"foo","allocationMode":"ExactCount","count":1}}]}}})"
        ": field is immutable"}},
  };
  RunUpdateCases<ResourceClaimTemplate>("ResourceClaimTemplate", base, false,
                                        cases);
}

// ===================================================== DeviceClass

TEST(ValidateDeviceClassTest, Create) {
  std::vector<Case<DeviceClass>> cases = {
      {"missing-name",
       [](DeviceClass& c) { c.metadata.name = ""; },
       {"metadata.name: Required value: name or generateName is required"}},
      {"bad-name",
       [](DeviceClass& c) { c.metadata.name = kBadName; },
       {"metadata.name: Invalid value: " + kBadNameQ + ": " + kSubdomainMsg}},
      {"namespace-forbidden",
       [](DeviceClass& c) { c.metadata.namespace_ = "ns"; },
       {"metadata.namespace: Forbidden: not allowed on this type"}},
      {"no-selectors-no-config",
       [](DeviceClass& c) {
         c.spec.selectors.clear();
         c.spec.config.clear();
       },
       {}},
      {"max-selectors",
       [](DeviceClass& c) { c.spec.selectors.assign(32, Cel("true")); },
       {}},
      {"too-many-selectors",
       [](DeviceClass& c) { c.spec.selectors.assign(33, Cel("true")); },
       {"spec.selectors: Too many: 33: must have at most 32 items"}},
      {"selector-without-cel",
       [](DeviceClass& c) { c.spec.selectors.push_back(DeviceSelector{}); },
       {"spec.selectors[1].cel: Required value"}},
      {"cel-too-long",
       [](DeviceClass& c) {
         c.spec.selectors[0] = Cel(CelOfLength(10 * 1024 + 1));
       },
       {"spec.selectors[0].cel.expression: Too long: may not be more than "
        "10240 "
        "bytes"}},
      {"max-config",
       [](DeviceClass& c) {
         DeviceClassConfiguration first = c.spec.config[0];
         c.spec.config.assign(32, first);
       },
       {}},
      {"too-many-config",
       [](DeviceClass& c) {
         DeviceClassConfiguration first = c.spec.config[0];
         c.spec.config.assign(33, first);
       },
       {"spec.config: Too many: 33: must have at most 32 items"}},
      {"config-errors",
       [](DeviceClass& c) {
         c.spec.config.push_back(DeviceClassConfiguration{});
         DeviceClassConfiguration bad;
         bad.opaque = Opaque(kBadName);
         bad.opaque->parameters = Json(42);
         c.spec.config.push_back(bad);
       },
       {"spec.config[1].opaque: Required value",
        "spec.config[2].opaque.driver: Invalid value: " + kBadNameQ + ": " +
            kSubdomainMsg,
        "spec.config[2].opaque.parameters: Invalid value: \"<value omitted>\": "
        "must be a valid JSON object"}},
      {"extended-resource-name",
       [](DeviceClass& c) {
         c.spec.extended_resource_name = "example.com/gpu";
       },
       {}},
      {"extended-resource-name-native",
       [](DeviceClass& c) { c.spec.extended_resource_name = "gpu"; },
       {"spec.extendedResourceName: Invalid value: \"gpu\": must be a valid "
        "extended resource name"}},
      {"extended-resource-name-kubernetes-io",
       [](DeviceClass& c) {
         c.spec.extended_resource_name = "kubernetes.io/gpu";
       },
       {"spec.extendedResourceName: Invalid value: \"kubernetes.io/gpu\": must "
        "be a valid extended resource name"}},
      {"extended-resource-name-requests-prefix",
       [](DeviceClass& c) {
         c.spec.extended_resource_name = "requests.example.com/gpu";
       },
       {"spec.extendedResourceName: Invalid value: "
        "\"requests.example.com/gpu\": must be a valid extended resource "
        "name"}},
      {"extended-resource-name-bad-format",
       [](DeviceClass& c) {
         c.spec.extended_resource_name = "example.com/g pu";
       },
       {"spec.extendedResourceName: Invalid value: \"example.com/g pu\": must "
        "be a valid extended resource name"}},
  };
  RunCases<DeviceClass>("DeviceClass", "resource.k8s.io/v1", ValidClass(),
                        cases);
}

TEST(ValidateDeviceClassTest, StoredExpressionsAreNotRevalidated) {
  ValidationOptions options;
  int calls = 0;
  options.compile_cel = [&](std::string_view expression) -> absl::Status {
    ++calls;
    if (expression == "bad") return absl::InvalidArgumentError("boom");
    return absl::OkStatus();
  };
  DeviceClass old = ValidClass();
  old.metadata.resource_version = "1";
  old.spec.selectors = {Cel("bad")};
  old.spec.config[0].opaque->parameters = Json{{"str", Repeat('x', 10 * 1024)}};
  // On create both are reported.
  EXPECT_EQ(
      Errors(Obj("DeviceClass", old), options),
      (Want{"spec.selectors[0].cel.expression: Invalid value: \"bad\": boom",
            "spec.config[0].opaque.parameters: Too long: may not be more "
            "than 10240 bytes"}));
  // Unchanged selectors and config count as stored.
  calls = 0;
  DeviceClass updated = old;
  updated.metadata.labels["a"] = "b";
  EXPECT_EQ(Strings(ValidateObjectUpdate(Obj("DeviceClass", updated),
                                         Obj("DeviceClass", old), options)),
            Want{});
  EXPECT_EQ(calls, 0);
  // Any change of the selectors (here: appending one) validates all again.
  updated.spec.selectors.push_back(Cel("true"));
  EXPECT_EQ(Strings(ValidateObjectUpdate(Obj("DeviceClass", updated),
                                         Obj("DeviceClass", old), options)),
            (Want{"spec.selectors[0].cel.expression: Invalid value: \"bad\": "
                  "boom"}));
  // Changing the config re-checks its size.
  updated = old;
  updated.spec.config.push_back(updated.spec.config[0]);
  EXPECT_EQ(Strings(ValidateObjectUpdate(Obj("DeviceClass", updated),
                                         Obj("DeviceClass", old), options)),
            (Want{"spec.config[0].opaque.parameters: Too long: may not be more "
                  "than 10240 bytes",
                  "spec.config[1].opaque.parameters: Too long: may not be more "
                  "than 10240 bytes"}));
}

// ===================================================== ResourceSlice

TEST(ValidateResourceSliceTest, Create) {
  const std::string dev0 = "spec.devices[0]";
  std::vector<Case<ResourceSlice>> cases = {
      // --- metadata (cluster-scoped kind)
      {"missing-name",
       [](ResourceSlice& s) { s.metadata.name = ""; },
       {"metadata.name: Required value: name or generateName is required"}},
      {"bad-name",
       [](ResourceSlice& s) { s.metadata.name = kBadName; },
       {"metadata.name: Invalid value: " + kBadNameQ + ": " + kSubdomainMsg}},
      {"namespace-forbidden",
       [](ResourceSlice& s) { s.metadata.namespace_ = "ns"; },
       {"metadata.namespace: Forbidden: not allowed on this type"}},
      {"generate-name",
       [](ResourceSlice& s) { s.metadata.generate_name = "prefix-"; },
       {}},

      // --- devices per slice
      {"max-devices", [](ResourceSlice& s) { s = ValidSlice(128); }, {}},
      {"too-many-devices",
       [](ResourceSlice& s) { s = ValidSlice(129); },
       {"spec.devices: Too many: 129: must have at most 128 items"}},
      {"max-devices-with-taints",
       [](ResourceSlice& s) {
         s = ValidSlice(64);
         for (Device& d : s.spec.devices) d.rare.Mutable().taints = {Taint()};
       },
       {}},
      {"too-many-devices-with-taints",
       [](ResourceSlice& s) {
         s = ValidSlice(65);
         s.spec.devices[64].rare.Mutable().taints = {Taint()};
       },
       {"spec.devices: Too many: 65: must have at most 64 items"}},
      {"max-devices-with-consumes-counters",
       [](ResourceSlice& s) {
         s = ValidSlice(64);
         for (Device& d : s.spec.devices)
           d.rare.Mutable().consumes_counters = ConsumesCounters(1);
       },
       {}},
      {"too-many-devices-with-consumes-counters",
       [](ResourceSlice& s) {
         s = ValidSlice(65);
         s.spec.devices[0].rare.Mutable().consumes_counters =
             ConsumesCounters(1);
       },
       {"spec.devices: Too many: 65: must have at most 64 items"}},
      {"too-many-devices-with-list-attributes",
       [](ResourceSlice& s) {
         s = ValidSlice(65);
         s.spec.devices[0].attributes["ints"] =
             Attribute([](DeviceAttributeFields& f) {
               f.ints = {1, 2, 3};
             });
       },
       {"spec.devices: Too many: 65: must have at most 64 items"}},
      {"65-plain-devices", [](ResourceSlice& s) { s = ValidSlice(65); }, {}},

      // --- driver and pool
      {"bad-driver",
       [](ResourceSlice& s) { s.spec.driver = kBadName; },
       {"spec.driver: Invalid value: " + kBadNameQ + ": " + kSubdomainMsg}},
      {"missing-driver",
       [](ResourceSlice& s) { s.spec.driver = ""; },
       {"spec.driver: Required value"}},
      {"driver-63",
       [](ResourceSlice& s) { s.spec.driver = Repeat('a', 63); },
       {}},
      {"driver-64",
       [](ResourceSlice& s) { s.spec.driver = Repeat('a', 64); },
       {"spec.driver: Too long: may not be more than 63 bytes"}},
      {"driver-upper-case",
       [](ResourceSlice& s) { s.spec.driver = "Test.Example.COM"; },
       {}},
      {"bad-node-name",
       [](ResourceSlice& s) { s.spec.node_name = kBadName; },
       {"spec.nodeName: Invalid value: " + kBadNameQ + ": " + kSubdomainMsg}},
      {"bad-pool-and-node-name",
       [](ResourceSlice& s) {
         s.spec.node_name = kBadName;
         s.spec.pool.name = kBadName;
       },
       {"spec.pool.name: Invalid value: " + kBadNameQ + ": " + kSubdomainMsg,
        "spec.nodeName: Invalid value: " + kBadNameQ + ": " + kSubdomainMsg}},
      {"bad-multi-pool-name",
       [](ResourceSlice& s) { s.spec.pool.name = kBadName + "/" + kBadName; },
       {"spec.pool.name: Invalid value: " + kBadNameQ + ": " + kSubdomainMsg,
        "spec.pool.name: Invalid value: " + kBadNameQ + ": " + kSubdomainMsg}},
      {"multi-part-pool-name",
       [](ResourceSlice& s) { s.spec.pool.name = "a.example.com/b/c"; },
       {}},
      {"pool-name-253",
       [](ResourceSlice& s) { s.spec.pool.name = Repeat('x', 253); },
       {}},
      {"bad-pool",
       [](ResourceSlice& s) {
         std::string name;
         for (int i = 0; i < 253 / 2; ++i) name += "x/";
         s.spec.pool.name = name + "xy";  // 254 bytes of valid parts
         s.spec.pool.resource_slice_count = 0;
         s.spec.pool.generation = -1;
       },
       {"spec.pool.name: Too long: may not be more than 253 bytes",
        "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than "
        "zero",
        "spec.pool.generation: Invalid value: -1: must be greater than or "
        "equal "
        "to zero"}},
      {"missing-pool-name",
       [](ResourceSlice& s) { s.spec.pool.name = ""; },
       {"spec.pool.name: Required value"}},
      {"empty-pool-name-part",
       [](ResourceSlice& s) { s.spec.pool.name = "a//b"; },
       {"spec.pool.name: Invalid value: \"\": " + kSubdomainMsg}},

      // --- node selection: exactly one of
      {"empty-node-selection",
       [](ResourceSlice& s) { s.spec.node_name.reset(); },
       {"spec: Required value: " + kSliceOneOf}},
      {"all-nodes",
       [](ResourceSlice& s) {
         s.spec.node_name.reset();
         s.spec.all_nodes = true;
       },
       {}},
      {"bad-node-selection",
       [](ResourceSlice& s) {
         s.spec.node_name = "worker";
         s.spec.node_selector = NodeSelector{
             {NodeSelectorTerm{{}, {{"metadata.name", "In", {"worker"}}}}}};
       },
       {"spec: Invalid value: \"{`nodeName`, `nodeSelector`}\": " +
        kSliceOneOf + ", but multiple fields are set"}},
      {"bad-node-selection-all-nodes",
       [](ResourceSlice& s) { s.spec.all_nodes = true; },
       {"spec: Invalid value: \"{`nodeName`, `allNodes`}\": " + kSliceOneOf +
        ", but multiple fields are set"}},
      {"all-four",
       [](ResourceSlice& s) {
         s.spec.node_selector =
             NodeSelector{{NodeSelectorTerm{{{"a", "Exists", {}}}, {}}}};
         s.spec.all_nodes = true;
         s.spec.per_device_node_selection = true;
         for (Device& d : s.spec.devices) d.rare.Mutable().all_nodes = true;
       },
       {"spec: Invalid value: \"{`nodeName`, `nodeSelector`, `allNodes`, "
        "`perDeviceNodeSelection`}\": " +
        kSliceOneOf + ", but multiple fields are set"}},
      {"invalid-false-all-nodes",
       [](ResourceSlice& s) { s.spec.all_nodes = false; },
       {"spec.allNodes: Invalid value: false: must be either unset or set to "
        "true"}},
      {"invalid-false-per-device-node-selection",
       [](ResourceSlice& s) { s.spec.per_device_node_selection = false; },
       {"spec.perDeviceNodeSelection: Invalid value: false: must be either "
        "unset or set to true"}},
      {"invalid-empty-node-name",
       [](ResourceSlice& s) {
         s.spec.node_name = "";
         s.spec.all_nodes = true;
       },
       {"spec.nodeName: Invalid value: \"\": must be either unset or set to a "
        "non-empty string"}},
      {"empty-node-selector",
       [](ResourceSlice& s) {
         s.spec.node_name.reset();
         s.spec.node_selector = NodeSelector{};
       },
       {"spec.nodeSelector.nodeSelectorTerms: Required value: must have at "
        "least one node selector term",
        "spec.nodeSelector.nodeSelectorTerms: Invalid value: "
        "[]core.NodeSelectorTerm(nil): must have exactly one node selector "
        "term"}},
      {"node-selector-two-terms",
       [](ResourceSlice& s) {
         s.spec.node_name.reset();
         NodeSelectorTerm t{{}, {{"metadata.name", "In", {"worker"}}}};
         NodeSelectorTerm t2{{{"zone", "In", {"a", "b"}}}, {}};
         s.spec.node_selector = NodeSelector{{t, t2}};
       },
       {"spec.nodeSelector.nodeSelectorTerms: Invalid value: "
        "[]core.NodeSelectorTerm{core.NodeSelectorTerm{MatchExpressions:[]core."
        "NodeSelectorRequirement(nil), "
        "MatchFields:[]core.NodeSelectorRequirement{core."
        "NodeSelectorRequirement{Key:\"metadata.name\", Operator:\"In\", "
        "Values:[]string{\"worker\"}}}}, "
        "core.NodeSelectorTerm{MatchExpressions:[]core.NodeSelectorRequirement{"
        "core.NodeSelectorRequirement{Key:\"zone\", Operator:\"In\", "
        "Values:[]string{\"a\", \"b\"}}}, "
        "MatchFields:[]core.NodeSelectorRequirement(nil)}}: must have exactly "
        "one node selector term"}},
      {"node-selector-requirements",
       [](ResourceSlice& s) {
         s.spec.node_name.reset();
         NodeSelectorTerm t;
         t.match_expressions = {{"foo", "In", {"-1"}},
                                {"foo", "In", {}},
                                {"foo", "Exists", {"x"}},
                                {"foo", "Gt", {"1", "2"}},
                                {kBadName, "Bogus", {}}};
         t.match_fields = {{"metadata.name", "In", {"a", "b"}},
                           {"metadata.uid", "Exists", {}},
                           {"metadata.name", "In", {kBadName}}};
         s.spec.node_selector = NodeSelector{{t}};
       },
       {"spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values[0]: "
        "Invalid value: \"-1\": " +
            kLabelValueMsg,
        "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[1].values: "
        "Required value: must be specified when `operator` is 'In' or 'NotIn'",
        "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[2].values: "
        "Forbidden: may not be specified when `operator` is 'Exists' or "
        "'DoesNotExist'",
        "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[3].values: "
        "Required value: must be specified single value when `operator` is "
        "'Lt' or 'Gt'",
        "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[4].operator: "
        "Invalid value: \"Bogus\": not a valid selector operator",
        "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[4].key: "
        "Invalid value: " +
            kBadNameQ + ": " + kNamePartMsg,
        "spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].values: "
        "Required "
        "value: must be only one value when `operator` is 'In' or 'NotIn' for "
        "node field selector",
        "spec.nodeSelector.nodeSelectorTerms[0].matchFields[1].operator: "
        "Invalid value: \"Exists\": not a valid selector operator",
        "spec.nodeSelector.nodeSelectorTerms[0].matchFields[1].key: Invalid "
        "value: \"metadata.uid\": not a valid field selector key",
        "spec.nodeSelector.nodeSelectorTerms[0].matchFields[2].values[0]: "
        "Invalid value: " +
            kBadNameQ + ": " + kSubdomainMsg}},

      // --- per-device node selection
      {"per-device-node-selection",
       [](ResourceSlice& s) {
         s = ValidSlice(3);
         s.spec.node_name.reset();
         s.spec.per_device_node_selection = true;
         s.spec.devices[0].rare.Mutable().node_name = "worker";
         s.spec.devices[1].rare.Mutable().all_nodes = true;
         s.spec.devices[2].rare.Mutable().node_selector =
             NodeSelector{{NodeSelectorTerm{{{"zone", "In", {"a"}}}, {}}}};
       },
       {}},
      {"bad-per-device-node-selection",
       [](ResourceSlice& s) { s.spec.per_device_node_selection = true; },
       {"spec: Invalid value: \"{`nodeName`, `perDeviceNodeSelection`}\": " +
            kSliceOneOf + ", but multiple fields are set",
        dev0 + ": Required value: " + kPerDeviceOneOf}},
      {"invalid-node-selection-in-device",
       [](ResourceSlice& s) {
         s.spec.node_name.reset();
         s.spec.per_device_node_selection = true;
         s.spec.devices[0].rare.Mutable().node_name = "";
         s.spec.devices[0].rare.Mutable().all_nodes = false;
       },
       {dev0 + ".nodeName: Invalid value: \"\": must not be empty",
        dev0 +
            ".allNodes: Invalid value: false: must be either unset or set to "
            "true",
        dev0 + ": Required value: " + kPerDeviceOneOf}},
      {"multiple-node-selection-in-device",
       [](ResourceSlice& s) {
         s.spec.node_name.reset();
         s.spec.per_device_node_selection = true;
         s.spec.devices[0].rare.Mutable().node_name = "worker";
         s.spec.devices[0].rare.Mutable().all_nodes = true;
       },
       {dev0 +
        ": Invalid value: \"{`nodeName`, `allNodes`}\": " + kPerDeviceOneOf}},
      {"bad-node-name-in-device",
       [](ResourceSlice& s) {
         s.spec.node_name.reset();
         s.spec.per_device_node_selection = true;
         s.spec.devices[0].rare.Mutable().node_name = kBadName;
       },
       {dev0 + ".nodeName: Invalid value: " + kBadNameQ + ": " +
        kSubdomainMsg}},
      {"device-node-selection-without-per-device",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().node_name = "worker";
       },
       {dev0 + ": Invalid value: null: `nodeName`, `nodeSelector` and "
               "`allNodes` can only be set if `perDeviceNodeSelection` is set "
               "to true in the ResourceSlice spec"}},

      // --- devices
      {"duplicate-device-names",
       [](ResourceSlice& s) {
         s = ValidSlice(3);
         s.spec.devices[2].name = "device-0";
       },
       {"spec.devices[2]: Duplicate value: \"device-0\""}},
      {"bad-device-name",
       [](ResourceSlice& s) {
         s = ValidSlice(3);
         s.spec.devices[1].name = kBadName;
       },
       {"spec.devices[1].name: Invalid value: " + kBadNameQ + ": " +
        kLabelMsg}},
      {"both-shared-counters-and-devices",
       [](ResourceSlice& s) { s.spec.shared_counters = SharedCounters(1); },
       {"spec: Invalid value: \"\": only one of `sharedCounters` or `devices` "
        "is "
        "allowed"}},
      {"no-devices", [](ResourceSlice& s) { s.spec.devices.clear(); }, {}},

      // --- attributes and capacities
      {"attribute-bad-name-and-no-value",
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes = {{kBadName, DeviceAttribute{}}};
       },
       {dev0 + ".attributes: Invalid value: " + kBadNameQ + ": " +
            kCIdentifierMsg,
        dev0 + ".attributes[" + kBadName +
            "]: Invalid value: \"\": exactly one value must be specified"}},
      {"attribute-two-values",
       [](ResourceSlice& s) {
         DeviceAttribute a = Attribute([](DeviceAttributeFields& f) {
           f.string_value = "x";
           f.version_value = "1.2.3";
         });
         s.spec.devices[0].attributes = {{"foo", a}};
       },
       {dev0 + ".attributes[foo]: Invalid value: "
               "resource.DeviceAttribute{IntValue:(*int64)(nil), "
               "BoolValue:(*bool)(nil), StringValue:(*string)(0xc000000000), "
               "VersionValue:(*string)(0xc000000000), IntValues:[]int64(nil), "
               "BoolValues:[]bool(nil), StringValues:[]string(nil), "
               "VersionValues:[]string(nil)}: exactly one value must be "
               "specified"}},
      {"attribute-string-64",
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes["foo"] =
             DeviceAttribute::String(Repeat('x', 64));
       },
       {}},
      {"attribute-string-65",
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes["foo"] =
             DeviceAttribute::String(Repeat('x', 65));
       },
       {dev0 + ".attributes[foo].string: Too long: may not be more than 64 "
               "bytes"}},
      {"attribute-version-too-long",
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes["foo"] =
             DeviceAttribute::Version(Repeat('x', 65));
       },
       {dev0 + ".attributes[foo].version: Invalid value: \"" + Repeat('x', 65) +
            "\": must be a string compatible with semver.org spec 2.0.0",
        dev0 + ".attributes[foo].version: Too long: may not be more than 64 "
               "bytes"}},
      {"attribute-version-64",
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes["foo"] =
             DeviceAttribute::Version("1.2.3-" + Repeat('a', 58));
       },
       {}},
      {"attribute-versions",
       [](ResourceSlice& s) {
         int i = 0;
         for (const char* v :
              {"1.2.3-alpha.1+build.5", "0.0.0", "1.2.3-0a", "01.2.3", "1.2",
               "1.2.3-01", "1.2.3+", "v1.2.3", "1.2.3-a..b"}) {
           s.spec.devices[0].attributes[StrCat("v", i++)] =
               DeviceAttribute::Version(v);
         }
       },
       {dev0 + ".attributes[v3].version: Invalid value: \"01.2.3\": must be a "
               "string compatible with semver.org spec 2.0.0",
        dev0 + ".attributes[v4].version: Invalid value: \"1.2\": must be a "
               "string compatible with semver.org spec 2.0.0",
        dev0 +
            ".attributes[v5].version: Invalid value: \"1.2.3-01\": must be a "
            "string compatible with semver.org spec 2.0.0",
        dev0 + ".attributes[v6].version: Invalid value: \"1.2.3+\": must be a "
               "string compatible with semver.org spec 2.0.0",
        dev0 + ".attributes[v7].version: Invalid value: \"v1.2.3\": must be a "
               "string compatible with semver.org spec 2.0.0",
        dev0 +
            ".attributes[v8].version: Invalid value: \"1.2.3-a..b\": must be "
            "a string compatible with semver.org spec 2.0.0"}},
      {"good-attribute-names",
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes[Repeat('x', 32)] =
             DeviceAttribute::String("y");
         s.spec.devices[0].attributes[Repeat('x', 63) + "/" + Repeat('y', 32)] =
             DeviceAttribute::String("z");
         s.spec.devices[0].attributes["_Under_score9"] =
             DeviceAttribute::Bool(false);
       },
       {}},
      {"bad-attribute-c-identifier",
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes = {{Repeat('.', 33), DeviceAttribute{}}};
         s.spec.devices[0].attributes.begin()->second =
             DeviceAttribute::String("y");
       },
       {dev0 + ".attributes: Too long: may not be more than 32 bytes",
        dev0 + ".attributes: Invalid value: \"" + Repeat('.', 33) +
            "\": " + kCIdentifierMsg}},
      {"bad-attribute-domain",
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes.clear();
         s.spec.devices[0].attributes[Repeat('_', 64) + "/y"] =
             DeviceAttribute::String("z");
       },
       {dev0 + ".attributes: Too long: may not be more than 63 bytes",
        dev0 + ".attributes: Invalid value: \"" + Repeat('_', 64) +
            "\": " + kSubdomainMsg}},
      {"bad-key-too-long",
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes.clear();
         s.spec.devices[0].attributes[Repeat('x', 64) + "/" + Repeat('y', 33)] =
             DeviceAttribute::String("z");
       },
       {dev0 + ".attributes: Too long: may not be more than 63 bytes",
        dev0 + ".attributes: Too long: may not be more than 32 bytes"}},
      // Keys longer than 63+1+32 get shortened in the middle in item paths.
      {"long-key-truncated-in-item-path",
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes.clear();
         s.spec.devices[0].attributes[Repeat('x', 64) + "/" + Repeat('y', 33)];
       },
       {dev0 + ".attributes: Too long: may not be more than 63 bytes",
        dev0 + ".attributes: Too long: may not be more than 32 bytes",
        dev0 + ".attributes[" + Repeat('x', 47) + "..." + Repeat('x', 12) +
            "/" + Repeat('y', 33) +
            "]: Invalid value: \"\": exactly one value must be specified"}},
      {"bad-attribute-empty-domain-and-c-identifier",
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes.clear();
         s.spec.devices[0].attributes["/"] = DeviceAttribute::String("z");
       },
       {dev0 + ".attributes: Invalid value: \"\": the domain must not be empty",
        dev0 + ".attributes: Invalid value: \"\": the name must not be empty"}},
      {"attribute-two-slashes",
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes["a/b/c"] = DeviceAttribute::String("z");
       },
       {dev0 + ".attributes: Invalid value: \"a/b/c\": must not contain more "
               "than one slash"}},
      // 1.36+: at most 48 attribute values, list elements counted singly.
      {"max-attribute-values",
       [](ResourceSlice& s) {
         Device& d = s.spec.devices[0];
         d.capacity.clear();
         d.attributes.clear();
         d.attributes["list_attr_0"] = Attribute([](DeviceAttributeFields& f) {
           f.strings = std::vector<std::string>(48 - 30, "x");
         });
         for (int i = 1; i < 31; ++i) {
           d.attributes[StrCat("list_attr_", i)] =
               Attribute([](DeviceAttributeFields& f) { f.strings = {"x"}; });
         }
       },
       {}},
      {"too-many-attribute-values",
       [](ResourceSlice& s) {
         Device& d = s.spec.devices[0];
         d.capacity.clear();
         d.attributes.clear();
         d.attributes["list_attr_0"] = Attribute([](DeviceAttributeFields& f) {
           f.strings = std::vector<std::string>(48 - 30, "x");
         });
         for (int i = 1; i < 31; ++i) {
           d.attributes[StrCat("list_attr_", i)] =
               Attribute([](DeviceAttributeFields& f) { f.strings = {"x"}; });
         }
         d.attributes["extra_attr"] = DeviceAttribute::Int(1);
       },
       {dev0 + ": Invalid value: 49: the total number of attribute values must "
               "not exceed 48"}},
      {"list-attribute-items",
       [](ResourceSlice& s) {
         Device& d = s.spec.devices[0];
         d.attributes["strs"] = Attribute([](DeviceAttributeFields& f) {
           f.strings = {"a", Repeat('x', 65)};
         });
         d.attributes["vers"] = Attribute([](DeviceAttributeFields& f) {
           f.versions = {"1.0.0", "1.0"};
         });
         d.attributes["mixed"] = Attribute([](DeviceAttributeFields& f) {
           f.ints = {1};
           f.bools = {true};
         });
       },
       {dev0 + ".attributes[mixed]: Invalid value: "
               "resource.DeviceAttribute{IntValue:(*int64)(nil), "
               "BoolValue:(*bool)(nil), StringValue:(*string)(nil), "
               "VersionValue:(*string)(nil), IntValues:[]int64{1}, "
               "BoolValues:[]bool{true}, StringValues:[]string(nil), "
               "VersionValues:[]string(nil)}: exactly one value must be "
               "specified",
        dev0 +
            ".attributes[strs].strings[1]: Too long: may not be more than 64 "
            "bytes",
        dev0 +
            ".attributes[vers].versions[1]: Invalid value: \"1.0\": must be a "
            "string compatible with semver.org spec 2.0.0"}},
      {"capacity-bad-name",
       [](ResourceSlice& s) {
         s.spec.devices[0].capacity["a-b"].value = Q("1");
       },
       {dev0 + ".capacity: Invalid value: \"a-b\": " + kCIdentifierMsg}},
      {"max-attributes-and-capacities",
       [](ResourceSlice& s) {
         Device& d = s.spec.devices[0];
         d.attributes.clear();
         for (int i = 0; i < 31; ++i) {
           d.attributes[StrCat("attr_", i)] = DeviceAttribute::String("x");
         }
       },
       {}},
      {"too-many-attributes-and-capacities",
       [](ResourceSlice& s) {
         Device& d = s.spec.devices[0];
         d.attributes.clear();
         for (int i = 0; i < 32; ++i) {
           d.attributes[StrCat("attr_", i)] = DeviceAttribute::String("x");
         }
       },
       {dev0 + ": Invalid value: 33: the total number of attributes and "
               "capacities must not exceed 32"}},
      {"too-many-capacities",
       [](ResourceSlice& s) {
         Device& d = s.spec.devices[0];
         d.attributes.clear();
         for (int i = 0; i < 32; ++i)
           d.capacity[StrCat("cap_", i)].value = Q("1Gi");
       },
       {dev0 + ": Invalid value: 33: the total number of attributes and "
               "capacities must not exceed 32"}},
      {"request-policy-without-multiple-allocations",
       [](ResourceSlice& s) {
         DeviceCapacity& cap = s.spec.devices[0].capacity["cap"];
         cap.value = Q("1Gi");
         cap.request_policy.emplace();
         cap.request_policy->default_ = Q("1Mi");
         cap.request_policy->valid_range = Range("1Mi");
       },
       {dev0 + ".capacity[cap].requestPolicy: Forbidden: "
               "allowMultipleAllocations must be true"}},

      // --- taints
      {"max-taints",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().taints.assign(16, Taint());
       },
       {}},
      {"too-many-taints",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().taints.assign(17, Taint());
       },
       {dev0 + ".taints: Too many: 17: must have at most 16 items"}},
      {"taints",
       [](ResourceSlice& s) {
         DeviceTaint full = Taint("taint", "NoSchedule");
         full.value = "tainted";
         full.time_added = "2024-01-01T00:00:00Z";
         DeviceTaint bad = Taint(kBadName, "some-other-effect");
         bad.value = kBadName;
         s.spec.devices[0].rare.Mutable().taints = {
             Taint(), full, DeviceTaint{}, bad, Taint("a", "None")};
       },
       {dev0 +
            ".taints[2].key: Invalid value: \"\": name part must be non-empty",
        dev0 + ".taints[2].key: Invalid value: \"\": " + kNamePartMsg,
        dev0 + ".taints[2].effect: Required value",
        dev0 + ".taints[3].key: Invalid value: " + kBadNameQ + ": " +
            kNamePartMsg,
        dev0 + ".taints[3].value: Invalid value: " + kBadNameQ + ": " +
            kLabelValueMsg,
        dev0 + ".taints[3].effect: Unsupported value: \"some-other-effect\": " +
            kEffects}},

      // --- consumesCounters
      {"max-consumes-counters",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().consumes_counters =
             ConsumesCounters(2);
       },
       {}},
      {"too-many-consumes-counters",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().consumes_counters =
             ConsumesCounters(3);
         s.spec.devices[0].rare.Mutable().consumes_counters[0].counter_set =
             kBadName;
       },
       {dev0 + ".consumesCounters: Too many: 3: must have at most 2 items"}},
      {"consumes-counters-errors",
       [](ResourceSlice& s) {
         s = ValidSlice(4);
         s.spec.devices[0].rare.Mutable().consumes_counters = {
             {"", TestCounters()}};
         s.spec.devices[1].rare.Mutable().consumes_counters = {
             {kBadName, TestCounters()}};
         s.spec.devices[2].rare.Mutable().consumes_counters = {
             {"foo", TestCounters()}, {"foo", TestCounters()}};
         s.spec.devices[3].rare.Mutable().consumes_counters = {
             {"counterset-0", {}}};
       },
       {"spec.devices[0].consumesCounters[0].counterSet: Required value",
        "spec.devices[1].consumesCounters[0].counterSet: Invalid value: " +
            kBadNameQ + ": " + kLabelMsg,
        "spec.devices[2].consumesCounters[1]: Duplicate value: \"foo\"",
        "spec.devices[3].consumesCounters[0].counters: Required value"}},
      {"max-counters-in-consumption",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().consumes_counters = {
             {"counterset-0", TestCounters(32)}};
       },
       {}},
      {"too-many-counters-in-consumption",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().consumes_counters = {
             {"counterset-0", TestCounters(33)}};
       },
       {dev0 + ".consumesCounters[0].counters: Too many: 33: must have at most "
               "32 items"}},
      {"bad-counter-name-in-consumption",
       [](ResourceSlice& s) {
         std::map<std::string, Counter> counters;
         counters[kBadName].value = Q("1");
         s.spec.devices[0].rare.Mutable().consumes_counters = {
             {"counterset-0", counters}};
       },
       {dev0 + ".consumesCounters[0].counters: Invalid value: " + kBadNameQ +
        ": " + kLabelMsg}},

      // --- binding conditions
      {"good-binding-conditions",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().binding_conditions = {
             "example.com/condition1", "condition2", "c3", "c4"};
         s.spec.devices[0].rare.Mutable().binding_failure_conditions = {
             "example.com/condition3", "condition4", "c5", "c6"};
         s.spec.devices[0].rare.Mutable().binds_to_node = true;
       },
       {}},
      {"too-many-binding-conditions",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().binding_conditions = {
             "condition1", "condition2", "condition3", "condition4",
             "condition5"};
         s.spec.devices[0].rare.Mutable().binding_failure_conditions = {
             "condition6", "condition7"};
       },
       {dev0 + ".bindingConditions: Too many: 5: must have at most 4 items"}},
      {"too-many-binding-failure-conditions",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().binding_conditions = {"condition1",
                                                                "condition2"};
         s.spec.devices[0].rare.Mutable().binding_failure_conditions = {
             "condition3", "condition4", "condition5", "condition6",
             "condition7"};
       },
       {dev0 + ".bindingFailureConditions: Too many: 5: must have at most 4 "
               "items"}},
      {"invalid-binding-conditions",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().binding_conditions = {"condition1",
                                                                "condition2!"};
         s.spec.devices[0].rare.Mutable().binding_failure_conditions = {
             "condition3!", "condition4"};
       },
       {dev0 + ".bindingConditions[1]: Invalid value: \"condition2!\": " +
            kNamePartMsg,
        dev0 +
            ".bindingFailureConditions[0]: Invalid value: \"condition3!\": " +
            kNamePartMsg}},
      {"binding-failure-without-binding-conditions",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().binding_failure_conditions = {
             "condition1", "condition2"};
       },
       {dev0 +
        ".bindingConditions: Invalid value: []string(nil): "
        "bindingConditions are required to use bindingFailureConditions"}},
      {"binding-conditions-without-binding-failure",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().binding_conditions = {"condition1",
                                                                "condition2"};
       },
       {dev0 +
        ".bindingFailureConditions: Invalid value: []string(nil): "
        "bindingFailureConditions are required to use bindingConditions"}},
      {"duplicate-and-overlapping-binding-conditions",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().binding_conditions = {"condition1",
                                                                "condition1"};
         s.spec.devices[0].rare.Mutable().binding_failure_conditions = {
             "condition1", "condition3", "condition3"};
       },
       {dev0 + ".bindingConditions[1]: Duplicate value: \"condition1\"",
        dev0 + ".bindingFailureConditions[0]: Invalid value: \"condition1\": "
               "bindingFailureConditions must not overlap with "
               "bindingConditions",
        dev0 +
            ".bindingFailureConditions[2]: Duplicate value: \"condition3\""}},
  };
  RunCases<ResourceSlice>("ResourceSlice", "resource.k8s.io/v1", ValidSlice(),
                          cases);
}

TEST(ValidateResourceSliceTest, SharedCounters) {
  const std::string sc = "spec.sharedCounters";
  std::vector<Case<ResourceSlice>> cases = {
      {"max-counter-sets",
       [](ResourceSlice& s) { s = ValidCounterSlice(8); },
       {}},
      {"too-many-counter-sets",
       [](ResourceSlice& s) { s = ValidCounterSlice(9); },
       {sc + ": Too many: 9: must have at most 8 items"}},
      {"max-counters-in-set",
       [](ResourceSlice& s) {
         s.spec.shared_counters[0].counters = TestCounters(32);
       },
       {}},
      {"too-many-counters-in-set",
       [](ResourceSlice& s) {
         s.spec.shared_counters[0].counters = TestCounters(33);
       },
       {sc + "[0].counters: Too many: 33: must have at most 32 items"}},
      {"missing-name",
       [](ResourceSlice& s) { s.spec.shared_counters[0].name = ""; },
       {sc + "[0].name: Required value"}},
      {"bad-name",
       [](ResourceSlice& s) { s.spec.shared_counters[0].name = kBadName; },
       {sc + "[0].name: Invalid value: " + kBadNameQ + ": " + kLabelMsg}},
      {"missing-counters",
       [](ResourceSlice& s) { s.spec.shared_counters[0].counters.clear(); },
       {sc + "[0].counters: Required value"}},
      {"bad-counter-name",
       [](ResourceSlice& s) {
         s.spec.shared_counters[0].counters.clear();
         s.spec.shared_counters[0].counters[kBadName].value = Q("1Gi");
       },
       {sc + "[0].counters: Invalid value: " + kBadNameQ + ": " + kLabelMsg}},
      {"duplicate-sets",
       [](ResourceSlice& s) {
         s = ValidCounterSlice(2);
         s.spec.shared_counters[1].name = s.spec.shared_counters[0].name;
       },
       {sc + "[1]: Duplicate value: \"counterset-0\""}},
      {"no-node-selection",
       [](ResourceSlice& s) { s.spec.node_name.reset(); },
       {"spec: Required value: " + kSliceOneOf}},
  };
  RunCases<ResourceSlice>("ResourceSlice", "resource.k8s.io/v1",
                          ValidCounterSlice(), cases);
}

TEST(ValidateResourceSliceTest, ConsumableCapacity) {
  const std::string rp = "spec.devices[0].capacity[a].requestPolicy";
  std::vector<Case<ResourceSlice>> cases = {
      {"no-valid-values",
       [](ResourceSlice& s) { Policy(s).valid_values.clear(); },
       {}},
      {"no-policy",
       [](ResourceSlice& s) {
         s.spec.devices[0].capacity["a"].request_policy.reset();
       },
       {}},
      {"max-valid-values",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         for (int i = 1; i <= 10; ++i)
           Policy(s).valid_values.push_back(Q(StrCat(i)));
         Policy(s).default_ = Q("1");
       },
       {}},
      {"too-many-valid-values",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         for (int i = 1; i <= 11; ++i)
           Policy(s).valid_values.push_back(Q(StrCat(i)));
         Policy(s).default_ = Q("1");
       },
       {rp + ".validValues: Too many: 11: must have at most 10 items",
        rp + ".validValues: Invalid value: \"1\": default value is not valid "
             "according to the requestPolicy"}},
      {"unsorted-valid-values",
       [](ResourceSlice& s) {
         Policy(s).valid_values = {Q("10"), Q("5"), Q("100")};
       },
       {rp + ".validValues[1]: Invalid value: \"5\": values must be sorted in "
             "ascending order"}},
      {"capacity-smaller-than-options",
       [](ResourceSlice& s) {
         s.spec.devices[0].capacity["a"].value = Q("-1");
       },
       {rp + ".validValues[0]: Invalid value: \"5\": option is larger than "
             "capacity value: -1",
        rp + ".validValues[1]: Invalid value: \"10\": option is larger than "
             "capacity value: -1",
        rp + ".validValues[2]: Invalid value: \"100\": option is larger than "
             "capacity value: -1"}},
      {"default-not-an-option",
       [](ResourceSlice& s) { Policy(s).default_ = Q("-1"); },
       {rp + ".validValues: Invalid value: \"-1\": default value is not valid "
             "according to the requestPolicy"}},
      {"valid-values-without-default",
       [](ResourceSlice& s) { Policy(s).default_.reset(); },
       {rp + ".default: Required value: required when validValues is defined"}},
      {"duplicate-spelling",
       [](ResourceSlice& s) {
         Policy(s).default_ = Q("5");
         Policy(s).valid_values[1] = Q("5.0");
       },
       {rp + ".validValues[1]: Duplicate value: \"5\""}},
      {"fractional-options-not-duplicates",
       [](ResourceSlice& s) { Policy(s).valid_values[0] = Q("9900m"); },
       {}},
      {"both-valid-values-and-range",
       [](ResourceSlice& s) { Policy(s).valid_range = Range("10"); },
       {rp + ": Forbidden: exactly one policy can be specified, cannot specify "
             "\"validValues\" and \"validRange\" at the same time"}},
      {"range-only",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         Policy(s).valid_range = Range("1");
       },
       {}},
      {"range-without-default",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         Policy(s).default_.reset();
         Policy(s).valid_range = Range("1");
       },
       {rp + ".default: Required value: required when validRange is defined"}},
      {"range-default-less-than-min",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("1050m");
         Policy(s).valid_range = Range("1100m");
       },
       {rp + ".validRange.default: Invalid value: \"1050m\": default is less "
             "than min: 1100m"}},
      {"range-min-larger-than-capacity",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("200");
         Policy(s).valid_range = Range("200");
       },
       {rp + ".validRange.min: Invalid value: \"200\": min is larger than "
             "capacity value: 100"}},
      {"range-min-larger-than-max",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("50");
         Policy(s).valid_range = Range("50", "20");
       },
       {rp + ".validRange.max: Invalid value: \"50\": min is larger than max: "
             "20",
        rp + ".validRange.default: Invalid value: \"50\": default is more than "
             "max: 20"}},
      {"range-max-larger-than-capacity",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         Policy(s).valid_range = Range("10", "200");
       },
       {rp + ".validRange.max: Invalid value: \"200\": max is larger than "
             "capacity value: 100"}},
      {"range-zero-step",
       [](ResourceSlice& s) {
         s.spec.devices[0].capacity["a"].value = Q("1Gi");
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("10Mi");
         Policy(s).valid_range = Range("1Mi", "100Mi", "0");
       },
       {rp + ".validRange.step: Invalid value: \"0\": must be greater than "
             "zero"}},
      {"range-negative-step",
       [](ResourceSlice& s) {
         s.spec.devices[0].capacity["a"].value = Q("1Gi");
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("10Mi");
         Policy(s).valid_range = Range("1Mi", "100Mi", "-1Mi");
       },
       {rp + ".validRange.step: Invalid value: \"-1Mi\": must be greater than "
             "zero"}},
      {"range-step-valid",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("20");
         Policy(s).valid_range = Range("10", "100", "10");
       },
       {}},
      {"range-one-step-too-large",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("60");
         Policy(s).valid_range = Range("60", std::nullopt, "50");
       },
       {rp + ".validRange.step: Invalid value: \"50\": one step 110 is larger "
             "than capacity value: 100"}},
      {"range-default-not-a-step",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("15");
         Policy(s).valid_range = Range("0", std::nullopt, "10");
       },
       {rp + ".validRange.step: Invalid value: \"15\": value is not a multiple "
             "of a given step (10) from (0)"}},
      {"range-max-not-a-step",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("10");
         Policy(s).valid_range = Range("0", "95", "10");
       },
       {rp + ".validRange.step: Invalid value: \"95\": value is not a multiple "
             "of a given step (10) from (0)"}},
      {"range-negative-bound",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("0");
         Policy(s).valid_range = Range("-1", std::nullopt, "1");
       },
       {rp + ".validRange.min: Invalid value: \"-1\": must be greater than or "
             "equal to 0"}},
      {"range-fractional",
       [](ResourceSlice& s) {
         s.spec.devices[0].capacity["a"].value = Q("1");
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("500m");
         Policy(s).valid_range = Range("100m", "1", "100m");
       },
       {}},
      {"range-fractional-not-a-step",
       [](ResourceSlice& s) {
         s.spec.devices[0].capacity["a"].value = Q("1");
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("550m");
         Policy(s).valid_range = Range("100m", "1", "100m");
       },
       {rp + ".validRange.step: Invalid value: \"550m\": value is not a "
             "multiple of a given step (100m) from (100m)"}},
      {"range-big-integers",
       [](ResourceSlice& s) {
         s.spec.devices[0].capacity["a"].value = Q("9223372036854775807");
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("9223372036854775807");
         Policy(s).valid_range = Range("0", "9223372036854775807", "1");
       },
       {}},
      {"range-not-representable-in-milli",
       [](ResourceSlice& s) {
         s.spec.devices[0].capacity["a"].value = Q("9223372036854775807");
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("9223372036854775807");
         Policy(s).valid_range = Range("0", "9223372036854775807", "1m");
       },
       {rp + ".validRange.default: Invalid value: \"9223372036854775807\": "
             "value cannot be represented as a milli value",
        rp + ".validRange.max: Invalid value: \"9223372036854775807\": value "
             "cannot be represented as a milli value"}},
  };
  RunCases<ResourceSlice>("ResourceSlice", "resource.k8s.io/v1",
                          ValidConsumableSlice(), cases);
}

TEST(ValidateResourceSliceTest, Update) {
  ResourceSlice base = ValidSlice();
  base.metadata.name = "valid";
  base.metadata.resource_version = "1";
  base.spec.node_name = "valid";
  base.spec.pool.name = "valid";
  base.spec.driver = "valid";
  auto bad_taints = [](ResourceSlice& s) {
    s.spec.devices[0].rare.Mutable().taints = {
        Taint("unhealthy-power", "NoExecute"),
        Taint("unhealthy-mem", "some-other-effect")};
  };
  auto with_duplicate_spelling = [](ResourceSlice& s) {
    s = ValidConsumableSlice();
    s.metadata.resource_version = "1";
    Policy(s).default_ = Q("5");
    Policy(s).valid_values[1] = Q("5.0");
  };
  std::vector<UpdateCase<ResourceSlice>> cases = {
      {"no-op", nullptr, [](ResourceSlice&) {}, {}},
      {"name-immutable",
       nullptr,
       [](ResourceSlice& s) { s.metadata.name += "-update"; },
       {"metadata.name: Invalid value: \"valid-update\": field is immutable"}},
      {"node-name-immutable",
       nullptr,
       [](ResourceSlice& s) { *s.spec.node_name += "-updated"; },
       {"spec.nodeName: Invalid value: \"valid-updated\": field is immutable"}},
      {"node-name-cleared",
       nullptr,
       [](ResourceSlice& s) {
         s.spec.node_name.reset();
         s.spec.all_nodes = true;
       },
       {"spec.nodeName: Invalid value: null: field is immutable"}},
      {"driver-immutable",
       nullptr,
       [](ResourceSlice& s) { s.spec.driver += "-updated"; },
       {"spec.driver: Invalid value: \"valid-updated\": field is immutable"}},
      {"pool-immutable",
       nullptr,
       [](ResourceSlice& s) { s.spec.pool.name += "-updated"; },
       {"spec.pool.name: Invalid value: \"valid-updated\": field is "
        "immutable"}},
      {"pool-generation-may-change",
       nullptr,
       [](ResourceSlice& s) { s.spec.pool.generation = 5; },
       {}},
      {"devices-may-change",
       nullptr,
       [](ResourceSlice& s) { s.spec.devices.push_back(TestDevice(7)); },
       {}},
      {"invalid-new-effect-in-old-device",
       nullptr,
       [&](ResourceSlice& s) { bad_taints(s); },
       {"spec.devices[0].taints[1].effect: Unsupported value: "
        "\"some-other-effect\": " +
        kEffects}},
      {"valid-old-effect",
       bad_taints,
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes["foo"] = DeviceAttribute::String("bar");
       },
       {}},
      {"invalid-new-effect-in-new-device",
       bad_taints,
       [](ResourceSlice& s) {
         Device d = s.spec.devices[0];
         d.name += "-other";
         s.spec.devices.push_back(d);
       },
       {"spec.devices[1].taints[1].effect: Unsupported value: "
        "\"some-other-effect\": " +
        kEffects}},
      {"invalid-nodeselector-label-value",
       [](ResourceSlice& s) {
         s.spec.node_name.reset();
         s.spec.node_selector =
             NodeSelector{{NodeSelectorTerm{{{"foo", "In", {"bar"}}}, {}}}};
       },
       [](ResourceSlice& s) {
         s.spec.node_selector->node_selector_terms[0]
             .match_expressions[0]
             .values = {"-1"};
       },
       {"spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values[0]: "
        "Invalid value: \"-1\": " +
        kLabelValueMsg}},
      {"consumable-capacity-duplicate-spelling",
       [](ResourceSlice& s) {
         s = ValidConsumableSlice();
         s.metadata.resource_version = "1";
       },
       [](ResourceSlice& s) {
         Policy(s).default_ = Q("5");
         Policy(s).valid_values[1] = Q("5.0");
       },
       {"spec.devices[0].capacity[a].requestPolicy.validValues[1]: Duplicate "
        "value: \"5\""}},
      {"consumable-capacity-okay-if-stored",
       with_duplicate_spelling,
       [](ResourceSlice& s) { s.metadata.labels["updated"] = "true"; },
       {}},
      {"consumable-capacity-rechecked",
       with_duplicate_spelling,
       [](ResourceSlice& s) { s.spec.devices[0].capacity["b"].value = Q("1"); },
       {"spec.devices[0].capacity[a].requestPolicy.validValues[1]: Duplicate "
        "value: \"5\""}},
  };
  RunUpdateCases<ResourceSlice>("ResourceSlice", base, false, cases);
}

// ===================================================== DeviceTaintRule

TEST(ValidateDeviceTaintRuleTest, Create) {
  std::vector<Case<DeviceTaintRule>> cases = {
      {"bad-name",
       [](DeviceTaintRule& r) { r.metadata.name = kBadName; },
       {"metadata.name: Invalid value: " + kBadNameQ + ": " + kSubdomainMsg}},
      {"namespace-forbidden",
       [](DeviceTaintRule& r) { r.metadata.namespace_ = "ns"; },
       {"metadata.namespace: Forbidden: not allowed on this type"}},
      {"no-selector",
       [](DeviceTaintRule& r) { r.spec.device_selector.reset(); },
       {}},
      {"empty-selector",
       [](DeviceTaintRule& r) {
         r.spec.device_selector = DeviceTaintSelector{};
       },
       {}},
      {"full-selector",
       [](DeviceTaintRule& r) {
         r.spec.device_selector->pool = "pool/a";
         r.spec.device_selector->device = "dev-0";
       },
       {}},
      {"bad-selector",
       [](DeviceTaintRule& r) {
         r.spec.device_selector->driver = "";
         r.spec.device_selector->pool = kBadName;
         r.spec.device_selector->device = "a.b";
       },
       {"spec.deviceSelector.driver: Required value",
        "spec.deviceSelector.pool: Invalid value: " + kBadNameQ + ": " +
            kSubdomainMsg,
        "spec.deviceSelector.device: Invalid value: \"a.b\": must not contain "
        "dots"}},
      {"empty-taint",
       [](DeviceTaintRule& r) { r.spec.taint = DeviceTaint{}; },
       {"spec.taint.key: Invalid value: \"\": name part must be non-empty",
        "spec.taint.key: Invalid value: \"\": " + kNamePartMsg,
        "spec.taint.effect: Required value"}},
      {"bad-taint",
       [](DeviceTaintRule& r) {
         r.spec.taint = Taint("example.com/" + kBadName, "Evict");
         r.spec.taint.value = kBadName;
       },
       {"spec.taint.key: Invalid value: \"example.com/" + kBadName +
            "\": " + kNamePartMsg,
        "spec.taint.value: Invalid value: " + kBadNameQ + ": " + kLabelValueMsg,
        "spec.taint.effect: Unsupported value: \"Evict\": " + kEffects}},
  };
  RunCases<DeviceTaintRule>("DeviceTaintRule", "resource.k8s.io/v1",
                            ValidTaintRule(), cases);
}

TEST(ValidateDeviceTaintRuleTest, Update) {
  DeviceTaintRule base = ValidTaintRule();
  base.metadata.resource_version = "1";
  std::vector<UpdateCase<DeviceTaintRule>> cases = {
      {"no-op", nullptr, [](DeviceTaintRule&) {}, {}},
      {"stored-unknown-effect",
       [](DeviceTaintRule& r) { r.spec.taint.effect = "Bogus"; },
       [](DeviceTaintRule& r) { r.spec.taint.value = "v"; },
       {}},
      {"changed-unknown-effect",
       [](DeviceTaintRule& r) { r.spec.taint.effect = "Bogus"; },
       [](DeviceTaintRule& r) { r.spec.taint.effect = "Other"; },
       {"spec.taint.effect: Unsupported value: \"Other\": " + kEffects}},
      {"selector-may-change",
       nullptr,
       [](DeviceTaintRule& r) { r.spec.device_selector->device = "dev"; },
       {}},
  };
  RunUpdateCases<DeviceTaintRule>("DeviceTaintRule", base, false, cases);
}

TEST(ValidateDeviceTaintRuleTest, StatusUpdate) {
  DeviceTaintRule base = ValidTaintRule();
  base.metadata.resource_version = "1";
  std::vector<UpdateCase<DeviceTaintRule>> cases = {
      {"max-conditions",
       nullptr,
       [](DeviceTaintRule& r) {
         for (int i = 0; i < 8; ++i) {
           r.status.conditions.push_back(ReadyCondition(StrCat("c", i)));
         }
       },
       {}},
      {"too-many-conditions",
       nullptr,
       [](DeviceTaintRule& r) {
         for (int i = 0; i < 9; ++i) {
           r.status.conditions.push_back(ReadyCondition(StrCat("c", i)));
         }
       },
       {"status.conditions: Too many: 9: must have at most 8 items"}},
      {"bad-condition",
       nullptr,
       [](DeviceTaintRule& r) {
         Condition c = ReadyCondition("EvictionInProgress");
         c.reason = "1bad";
         c.message = Repeat('m', 32 * 1024 + 1);
         r.status.conditions.push_back(c);
       },
       {"status.conditions[0].reason: Invalid value: \"1bad\": a condition "
        "reason must start with alphabetic character, optionally followed by a "
        "string of alphanumeric characters or '_,:', and must end with an "
        "alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or "
        "'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used "
        "for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')",
        "status.conditions[0].message: Too long: may not be more than 32768 "
        "bytes"}},
  };
  RunUpdateCases<DeviceTaintRule>("DeviceTaintRule", base, true, cases);
}

// ===================================================== Pod (DRA parts)

TEST(ValidatePodTest, ResourceClaims) {
  const std::string rc = "spec.resourceClaims";
  const std::string cc = "spec.containers[0].resources.claims";
  std::vector<Case<Pod>> cases = {
      {"missing-namespace",
       [](Pod& p) { p.metadata.namespace_ = ""; },
       {"metadata.namespace: Required value"}},
      // The seed case: an empty template name is not "unset".
      {"empty-template-name",
       [](Pod& p) {
         p.spec.resource_claims[0] = {"my-claim", std::nullopt, ""};
       },
       {rc + "[0].resourceClaimTemplateName: Invalid value: \"\": " +
        kSubdomainMsg}},
      {"empty-claim-name",
       [](Pod& p) { p.spec.resource_claims[0].resource_claim_name = ""; },
       {rc + "[0].resourceClaimName: Invalid value: \"\": " + kSubdomainMsg}},
      {"bad-claim-name",
       [](Pod& p) { p.spec.resource_claims[0].resource_claim_name = kBadName; },
       {rc + "[0].resourceClaimName: Invalid value: " + kBadNameQ + ": " +
        kSubdomainMsg}},
      {"neither-claim-nor-template",
       [](Pod& p) { p.spec.resource_claims[0].resource_claim_name.reset(); },
       {rc + "[0]: Invalid value: core.PodResourceClaim{Name:\"my-claim\", "
             "ResourceClaimName:(*string)(nil), "
             "ResourceClaimTemplateName:(*string)(nil)}: must specify one of: "
             "`resourceClaimName`, `resourceClaimTemplateName`"}},
      {"both-claim-and-template",
       [](Pod& p) {
         p.spec.resource_claims[0].resource_claim_template_name = "template";
       },
       {rc + "[0]: Invalid value: core.PodResourceClaim{Name:\"my-claim\", "
             "ResourceClaimName:(*string)(0xc000000000), "
             "ResourceClaimTemplateName:(*string)(0xc000000000)}: at most one "
             "of `resourceClaimName` or `resourceClaimTemplateName` may be "
             "specified"}},
      {"missing-name",
       [](Pod& p) { p.spec.resource_claims[0].name = ""; },
       {rc + "[0].name: Required value",
        cc + "[0]: Not found: \"my-claim\": must be one of the names in "
             "pod.spec.resourceClaims: tmpl"}},
      {"bad-name",
       [](Pod& p) {
         p.spec.resource_claims[0].name = "My_Claim";
         p.spec.containers[0].resources.claims[0].name = "My_Claim";
       },
       {rc + "[0].name: Invalid value: \"My_Claim\": " + kLabelMsg}},
      {"duplicate-name",
       [](Pod& p) { p.spec.resource_claims[1].name = "my-claim"; },
       {rc + "[1].name: Duplicate value: \"my-claim\"",
        cc + "[1]: Not found: \"tmpl\": must be one of the names in "
             "pod.spec.resourceClaims: my-claim"}},
      {"container-claim-not-found",
       [](Pod& p) {
         p.spec.containers[0].resources.claims.push_back({"nope", ""});
       },
       {cc + "[2]: Not found: \"nope\": must be one of the names in "
             "pod.spec.resourceClaims: my-claim, tmpl"}},
      {"no-pod-claims",
       [](Pod& p) { p.spec.resource_claims.clear(); },
       {cc + "[0]: Not found: \"my-claim\": must be one of the names in "
             "pod.spec.resourceClaims which is empty",
        cc + "[1]: Not found: \"tmpl\": must be one of the names in "
             "pod.spec.resourceClaims which is empty"}},
      {"container-claim-empty-name",
       [](Pod& p) {
         p.spec.containers[0].resources.claims.push_back({"", "x"});
       },
       {cc + "[2]: Required value"}},
      {"container-claim-duplicate",
       [](Pod& p) {
         p.spec.containers[0].resources.claims.push_back({"my-claim", ""});
       },
       {cc + "[2]: Duplicate value: \"my-claim\""}},
      {"container-claim-duplicate-request",
       [](Pod& p) {
         p.spec.containers[0].resources.claims.push_back({"tmpl", "req"});
       },
       {cc + "[2]: Duplicate value: \"tmpl/req\""}},
      {"container-claim-other-request",
       [](Pod& p) {
         p.spec.containers[0].resources.claims.push_back({"tmpl", "other"});
       },
       {}},
      // The whole claim is referenced after one of its requests...
      {"container-claim-after-request",
       [](Pod& p) {
         p.spec.containers[0].resources.claims.push_back({"tmpl", ""});
       },
       {cc + "[2]: Duplicate value: \"tmpl\""}},
      // ... or one of its requests after the whole claim.
      {"container-request-after-claim",
       [](Pod& p) {
         p.spec.containers[0].resources.claims.push_back({"my-claim", "req"});
       },
       {cc + "[2]: Duplicate value: \"my-claim\""}},
      {"container-claim-bad-request",
       [](Pod& p) { p.spec.containers[0].resources.claims[1].request = "Bad"; },
       {cc + "[1].request: Invalid value: \"Bad\": " + kLabelMsg}},
      {"init-container-claims",
       [](Pod& p) {
         Container init;
         init.name = "init";
         init.resources.claims = {{"tmpl", ""}, {"nope", ""}};
         p.spec.init_containers.push_back(init);
       },
       {"spec.initContainers[0].resources.claims[1]: Not found: \"nope\": must "
        "be one of the names in pod.spec.resourceClaims: my-claim, tmpl"}},
  };
  RunCases<Pod>("Pod", "v1", ValidPod(), cases);
}

TEST(ValidatePodTest, PodTemplatesInWorkloads) {
  Pod pod = ValidPod();
  pod.spec.resource_claims[0].resource_claim_template_name = "";
  pod.spec.resource_claims[0].resource_claim_name.reset();
  Deployment d;
  d.metadata.name = "deploy";
  d.metadata.namespace_ = "ns";
  d.spec.template_.Mutable().spec = pod.spec;
  EXPECT_EQ(
      Errors(Obj("Deployment", d, "apps/v1")),
      (Want{"spec.template.spec.resourceClaims[0].resourceClaimTemplateName: "
            "Invalid value: \"\": " +
            kSubdomainMsg}));
  Job j;
  j.metadata.name = "job";
  j.spec.template_.Mutable().spec = pod.spec;
  EXPECT_EQ(
      Errors(Obj("Job", j, "batch/v1")),
      (Want{"metadata.namespace: Required value",
            "spec.template.spec.resourceClaims[0].resourceClaimTemplateName: "
            "Invalid value: \"\": " +
                kSubdomainMsg}));
}

// ===================================================== other kinds: metadata

TEST(ValidateMetadataTest, NamespacedAndClusterScopedKinds) {
  Namespace ns;
  ns.metadata.name = "a.b";
  ns.metadata.namespace_ = "x";
  EXPECT_EQ(
      Errors(Obj("Namespace", ns, "v1")),
      (Want{"metadata.name: Invalid value: \"a.b\": must not contain dots",
            "metadata.namespace: Forbidden: not allowed on this type"}));
  Node node;
  node.metadata.name = "node-1";
  EXPECT_EQ(Errors(Obj("Node", node, "v1")), Want{});
  Event event;
  event.metadata.name = "e";
  EXPECT_EQ(Errors(Obj("Event", event, "v1")),
            (Want{"metadata.namespace: Required value"}));
  UnstructuredObject u;
  u.json = Json{{"metadata", {{"name", kBadName}}}};
  EXPECT_EQ(Errors(Obj("Service", u, "v1")), Want{});
}

TEST(ValidateObjectUpdateTest, KindMismatch) {
  EXPECT_EQ(Strings(ValidateObjectUpdate(Obj("ResourceClaim", ValidClaim()),
                                         Obj("DeviceClass", ValidClass()))),
            (Want{": Internal error: the kind of an object cannot change"}));
}

// ===================================================== SetDefaults

TEST(SetDefaultsTest, ClaimRequests) {
  ResourceClaim c = ValidClaim();
  c.spec.devices.requests[0].exactly->allocation_mode = "";
  c.spec.devices.requests[0].exactly->count = 0;
  c.spec.devices.requests[0].exactly->tolerations = {Toleration("a", "")};
  DeviceRequest all = ExactRequest("all");
  all.exactly->allocation_mode = "All";
  all.exactly->count = 0;
  c.spec.devices.requests.push_back(all);
  DeviceRequest three = ExactRequest("three");
  three.exactly->allocation_mode = "";
  three.exactly->count = 3;
  c.spec.devices.requests.push_back(three);
  DeviceRequest fa;
  fa.name = "fa";
  DeviceSubRequest sub;
  sub.name = "sub";
  sub.device_class_name = "foo";
  sub.tolerations = {Toleration("b", ""), Toleration("c", "Exists")};
  fa.first_available = {sub};
  c.spec.devices.requests.push_back(fa);
  c.status.allocation.emplace();
  c.status.allocation->devices.results.push_back(Result());
  c.status.allocation->devices.results[0].tolerations = {Toleration("d", "")};

  Object o = Obj("ResourceClaim", c);
  EXPECT_FALSE(Errors(o).empty());
  SetDefaults(o);
  const ResourceClaim& got = std::get<ResourceClaim>(o.value);
  const auto& reqs = got.spec.devices.requests;
  EXPECT_EQ(reqs[0].exactly->allocation_mode, "ExactCount");
  EXPECT_EQ(reqs[0].exactly->count, 1);
  EXPECT_EQ(reqs[0].exactly->tolerations[0].operator_, "Equal");
  EXPECT_EQ(reqs[1].exactly->allocation_mode, "All");
  EXPECT_EQ(reqs[1].exactly->count, 0);
  EXPECT_EQ(reqs[2].exactly->allocation_mode, "ExactCount");
  EXPECT_EQ(reqs[2].exactly->count, 3);
  EXPECT_EQ(reqs[3].first_available[0].allocation_mode, "ExactCount");
  EXPECT_EQ(reqs[3].first_available[0].count, 1);
  EXPECT_EQ(reqs[3].first_available[0].tolerations[0].operator_, "Equal");
  EXPECT_EQ(reqs[3].first_available[0].tolerations[1].operator_, "Exists");
  EXPECT_EQ(got.status.allocation->devices.results[0].tolerations[0].operator_,
            "Equal");
  EXPECT_EQ(Errors(o), Want{});

  // Idempotent.
  Object again = o;
  SetDefaults(again);
  EXPECT_EQ(Strings(ValidateObjectUpdate(
                [&] {
                  Object u = again;
                  u.mutable_metadata()->resource_version = "1";
                  return u;
                }(),
                [&] {
                  Object u = o;
                  u.mutable_metadata()->resource_version = "1";
                  return u;
                }())),
            Want{});
}

TEST(SetDefaultsTest, TemplateAndOtherKinds) {
  ResourceClaimTemplate t = ValidTemplate();
  t.spec.Mutable().spec.devices.requests[0].exactly->allocation_mode = "";
  t.spec.Mutable().spec.devices.requests[0].exactly->count = 0;
  Object o = Obj("ResourceClaimTemplate", t);
  SetDefaults(o);
  const auto& got = std::get<ResourceClaimTemplate>(o.value);
  EXPECT_EQ(got.spec->spec.devices.requests[0].exactly->allocation_mode,
            "ExactCount");
  EXPECT_EQ(got.spec->spec.devices.requests[0].exactly->count, 1);
  EXPECT_EQ(Errors(o), Want{});

  // A class, a slice and a pod are not changed.
  Object c = Obj("DeviceClass", ValidClass());
  SetDefaults(c);
  EXPECT_EQ(std::get<DeviceClass>(c.value).spec.selectors.size(), 1u);
  Object s = Obj("ResourceSlice", ValidSlice());
  SetDefaults(s);
  EXPECT_EQ(std::get<ResourceSlice>(s.value).spec.devices.size(), 1u);
}

TEST(SetDefaultsTest, PodRequestsDefaultToLimits) {
  // Upstream SetDefaults_Pod: what a container limits and does not
  // request, it requests (so the scheduler counts nvidia.com/gpu limits).
  Pod pod;
  pod.metadata.name = "p";
  pod.metadata.namespace_ = "default";
  Container c;
  c.name = "c";
  c.resources.limits["nvidia.com/gpu"] = Quantity::FromInt64(2);
  c.resources.limits["cpu"] = Quantity::FromInt64(4);
  c.resources.requests["cpu"] = Quantity::FromInt64(1);
  pod.spec.containers.push_back(c);
  pod.spec.init_containers.push_back(c);
  Object o = Obj("Pod", pod);
  SetDefaults(o);
  for (const auto* list : {&std::get<Pod>(o.value).spec.containers,
                           &std::get<Pod>(o.value).spec.init_containers}) {
    const ResourceList& requests = (*list)[0].resources.requests;
    ASSERT_EQ(requests.size(), 2u);
    EXPECT_EQ(requests.find("nvidia.com/gpu")->second.ToString(), "2");
    EXPECT_EQ(requests.find("cpu")->second.ToString(), "1");  // kept
  }
}

// ===================================================== NormalizeErrorPaths

TEST(NormalizeErrorPathsTest, V1beta1) {
  auto normalize = [](std::string kind, std::string api_version,
                      std::vector<std::string> paths) {
    FieldErrorList errs;
    for (const std::string& p : paths) {
      errs.push_back(Required(FieldPath(p)));
    }
    NormalizeErrorPaths(kind, api_version, errs);
    std::vector<std::string> out;
    for (const FieldError& e : errs) out.push_back(e.field);
    return out;
  };
  EXPECT_EQ(
      normalize(
          "ResourceClaim", "resource.k8s.io/v1beta1",
          {"spec.devices.requests[0].exactly.count",
           "spec.devices.requests[12].exactly.selectors[0].cel.expression",
           "spec.devices.requests[0].exactly",
           "spec.devices.requests[0].exactly.tolerations[1].key",
           "spec.devices.requests[0].name",
           "spec.devices.requests[0].firstAvailable[1].count",
           "spec.devices.requests[0].exactlyfoo",
           "spec.devices.constraints[0].requests[0]", "metadata.name"}),
      (std::vector<std::string>{
          "spec.devices.requests[0].count",
          "spec.devices.requests[12].selectors[0].cel.expression",
          "spec.devices.requests[0]",
          "spec.devices.requests[0].tolerations[1].key",
          "spec.devices.requests[0].name",
          "spec.devices.requests[0].firstAvailable[1].count",
          "spec.devices.requests[0].exactlyfoo",
          "spec.devices.constraints[0].requests[0]", "metadata.name"}));
  EXPECT_EQ(normalize("ResourceClaimTemplate", "resource.k8s.io/v1beta1",
                      {"spec.spec.devices.requests[1].exactly.deviceClassName",
                       "spec.devices.requests[1].exactly.deviceClassName"}),
            (std::vector<std::string>{
                "spec.spec.devices.requests[1].deviceClassName",
                "spec.devices.requests[1].exactly.deviceClassName"}));
  EXPECT_EQ(
      normalize("ResourceSlice", "resource.k8s.io/v1beta1",
                {"spec.devices[2].attributes[foo]",
                 "spec.devices[2].taints[0].effect", "spec.devices[2].name",
                 "spec.devices[2]", "spec.devices", "spec.pool.name",
                 "spec.sharedCounters[0].name"}),
      (std::vector<std::string>{"spec.devices[2].basic.attributes[foo]",
                                "spec.devices[2].basic.taints[0].effect",
                                "spec.devices[2].name", "spec.devices[2]",
                                "spec.devices", "spec.pool.name",
                                "spec.sharedCounters[0].name"}));
  // Other versions and kinds are left alone.
  for (const char* version :
       {"resource.k8s.io/v1", "resource.k8s.io/v1beta2"}) {
    EXPECT_EQ(
        normalize("ResourceClaim", version,
                  {"spec.devices.requests[0].exactly.count"}),
        (std::vector<std::string>{"spec.devices.requests[0].exactly.count"}));
    EXPECT_EQ(
        normalize("ResourceSlice", version, {"spec.devices[0].attributes"}),
        (std::vector<std::string>{"spec.devices[0].attributes"}));
  }
  EXPECT_EQ(normalize("DeviceClass", "resource.k8s.io/v1beta1",
                      {"spec.devices[0].attributes"}),
            (std::vector<std::string>{"spec.devices[0].attributes"}));
}

TEST(NormalizeErrorPathsTest, EndToEnd) {
  ResourceClaim c = ValidClaim();
  c.spec.devices.requests[0].exactly->count = 0;
  Object o = Obj("ResourceClaim", c, "resource.k8s.io/v1beta1");
  FieldErrorList errs = ValidateObject(o);
  NormalizeErrorPaths(o.kind(), o.type.api_version, errs);
  EXPECT_EQ(Strings(errs),
            (Want{"spec.devices.requests[0].count: Invalid value: 0: must be "
                  "greater than zero"}));

  ResourceSlice s = ValidSlice();
  s.spec.devices[0].rare.Mutable().taints = {Taint("k", "Bad")};
  Object so = Obj("ResourceSlice", s, "resource.k8s.io/v1beta1");
  errs = ValidateObject(so);
  NormalizeErrorPaths(so.kind(), so.type.api_version, errs);
  EXPECT_EQ(Strings(errs), (Want{"spec.devices[0].basic.taints[0].effect: "
                                 "Unsupported value: \"Bad\": " +
                                 kEffects}));
}

// ===================================================== name formats

TEST(NameValidationTest, Formats) {
  namespace nv = ::draplane::name_validation;
  EXPECT_TRUE(nv::IsDNS1123Label("a-1").empty());
  EXPECT_EQ(nv::IsDNS1123Label("-a"), std::vector<std::string>{kLabelMsg});
  EXPECT_EQ(nv::IsDNS1123Label(Repeat('a', 64)),
            std::vector<std::string>{"must be no more than 63 bytes"});
  EXPECT_EQ(nv::IsDNS1123Subdomain(Repeat('a', 254)),
            std::vector<std::string>{"must be no more than 253 bytes"});
  EXPECT_EQ(nv::IsDNS1123Subdomain("a..b"),
            std::vector<std::string>{kSubdomainMsg});
  EXPECT_EQ(nv::NameIsDNSSubdomain("prefix-", /*prefix=*/true),
            std::vector<std::string>{});
  EXPECT_EQ(nv::NameIsDNSSubdomain("prefix-", /*prefix=*/false),
            std::vector<std::string>{kSubdomainMsg});
  EXPECT_EQ(nv::IsQualifiedName("/a"),
            (std::vector<std::string>{"prefix part must be non-empty"}));
  EXPECT_EQ(nv::IsQualifiedName("a/b/c").size(), 1u);
  EXPECT_EQ(
      nv::IsQualifiedName("a/b/c")[0],
      "a valid label key must consist of alphanumeric characters, '-', "
      "'_' or '.', and must start and end with an alphanumeric character "
      "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
      "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an "
      "optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
  EXPECT_EQ(nv::IsQualifiedName("Example.com/x"),
            (std::vector<std::string>{"prefix part " + kSubdomainMsg}));
  EXPECT_EQ(
      nv::IsQualifiedName(Repeat('a', 64)),
      (std::vector<std::string>{"name part must be no more than 63 bytes"}));
  EXPECT_EQ(nv::IsLabelValue(""), std::vector<std::string>{});

  for (const char* v :
       {"0.0.0", "1.2.3", "1.2.3-alpha", "1.2.3-alpha.1", "1.2.3-0",
        "1.2.3-x-y-z.-", "1.2.3+build", "1.2.3-0a+001", "10.20.30"}) {
    EXPECT_TRUE(nv::IsSemver(v)) << v;
  }
  for (const char* v :
       {"", "1", "1.2", "1.2.3.4", "01.2.3", "1.02.3", "1.2.03", "1.2.3-",
        "1.2.3-01", "1.2.3+", "1.2.3+a..b", "1.2.3-a+", "a.b.c", "1.2.3 "}) {
    EXPECT_FALSE(nv::IsSemver(v)) << v;
  }

  EXPECT_EQ(nv::UUIDValidateError("ac051fac-2ead-46d9-b8b4-4e0fbeb7455d"),
            std::nullopt);
  EXPECT_EQ(nv::UUIDValidateError("ac051fac2ead46d9b8b44e0fbeb7455d"),
            std::nullopt);
  EXPECT_EQ(nv::UUIDValidateError("{ac051fac-2ead-46d9-b8b4-4e0fbeb7455d}"),
            std::nullopt);
  EXPECT_EQ(nv::UUIDValidateError("x"), "invalid UUID length: 1");
  EXPECT_EQ(nv::UUIDValidateError("(ac051fac-2ead-46d9-b8b4-4e0fbeb7455d)"),
            "invalid bracketed UUID format");
  EXPECT_EQ(
      nv::UUIDValidateError("urn:uuix:ac051fac-2ead-46d9-b8b4-4e0fbeb7455d"),
      "invalid urn prefix: \"urn:uuix:\"");
  EXPECT_EQ(nv::UUIDValidateError("zc051fac-2ead-46d9-b8b4-4e0fbeb7455d"),
            "invalid UUID format");

  EXPECT_TRUE(nv::IsValidInterfaceAddress("10.9.8.7/24").empty());
  EXPECT_TRUE(nv::IsValidInterfaceAddress("2001:db8::1/64").empty());
  EXPECT_EQ(nv::IsValidInterfaceAddress("10.9.8.7"),
            std::vector<std::string>{kCIDRMsg});
  EXPECT_EQ(nv::IsValidInterfaceAddress("10.9.8.7/33"),
            std::vector<std::string>{kCIDRMsg});
  EXPECT_EQ(nv::IsValidInterfaceAddress("::ffff:10.9.8.7/120"),
            (std::vector<std::string>{
                "must be in canonical form (\"10.9.8.7/24\")"}));
  EXPECT_EQ(nv::IsValidInterfaceAddress("2001:0db8:0:0:0:0:0:1/64"),
            (std::vector<std::string>{
                "must be in canonical form (\"2001:db8::1/64\")"}));
}

}  // namespace
}  // namespace draplane::api

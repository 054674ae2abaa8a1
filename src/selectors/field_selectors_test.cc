// Tests for field selectors: parsing, matching, the per-kind selectable
// fields and their values. The parse and match tables were produced by
// running the same inputs through upstream's k8s.io/apimachinery@v0.37.2
// (fields.ParseSelector); they include the cases of upstream's
// fields/selector_test.go.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "selectors/selectors.h"
#include "selectors/selectors_test_util.h"

namespace draplane::selectors {
namespace {

using namespace std::string_view_literals;

using selectors_test::J;
using selectors_test::Labels;
using selectors_test::Msg;

// ------------------------------------------------------------ field parse

struct FieldParseCase {
  std::string_view input;
  bool ok;
  std::string_view want;  // String() or the error
};

constexpr FieldParseCase kFieldParseCases[] = {
    {"x=a,y=b,z=c"sv, true, "x=a,y=b,z=c"sv},
    {""sv, true, ""sv},
    {"x!=a,y=b"sv, true, "x!=a,y=b"sv},
    {"x=a||y\\=b"sv, true, "x=a||y\\=b"sv},
    {"x=a\\=\\=b"sv, true, "x=a\\=\\=b"sv},
    {"x=a||y=b"sv, false,
     "invalid field selector: unescaped character in value: 61"sv},
    {"x==a==b"sv, false,
     "invalid field selector: unescaped character in value: 61"sv},
    {"x=a,b"sv, false, "invalid selector: 'x=a,b'; can't understand 'b'"sv},
    {"x in (a)"sv, false,
     "invalid selector: 'x in (a)'; can't understand 'x in (a)'"sv},
    {"x in (a,b,c)"sv, false,
     "invalid selector: 'x in (a,b,c)'; can't understand 'b'"sv},
    {"x"sv, false, "invalid selector: 'x'; can't understand 'x'"sv},
    {"k=\\,,k2=v2"sv, true, "k2=v2,k=\\,"sv},
    {"k=\\\\,k2=v2"sv, true, "k2=v2,k=\\\\"sv},
    {"k=\\\\\\,,k2=v2"sv, true, "k2=v2,k=\\\\\\,"sv},
    {"k=\\a\\b\\"sv, false,
     "invalid field selector: invalid escape sequence: \\a"sv},
    {"k=\\"sv, false, "invalid field selector: invalid escape sequence: \\"sv},
    {"\xed"
     "\x95"
     "\xa8"
     "=\xec"
     "\x88"
     "\x98"
     ",\xeb"
     "\xaa"
     "\xa9"
     "=\xeb"
     "\xa1"
     "\x9d"
     ""sv,
     true,
     "\xeb"
     "\xaa"
     "\xa9"
     "=\xeb"
     "\xa1"
     "\x9d"
     ",\xed"
     "\x95"
     "\xa8"
     "=\xec"
     "\x88"
     "\x98"
     ""sv},
    {"x=a,a=x"sv, true, "a=x,x=a"sv},
    {"a=x,x=a"sv, true, "a=x,x=a"sv},
    {"b==1,b=2"sv, true, "b=2,b=1"sv},
    {"="sv, true, ""sv},
    {"=x"sv, true, "=x"sv},
    {"a=b,="sv, true, "a=b"sv},
    {",a=b,"sv, true, "a=b"sv},
    {",,"sv, true, ""sv},
    {"a!="sv, true, "a!="sv},
    {"a=="sv, true, "a="sv},
    {"a="sv, true, "a="sv},
    {"a!==b"sv, false,
     "invalid field selector: unescaped character in value: 61"sv},
    {"a=!b"sv, true, "a=!b"sv},
    {"a=\\=b"sv, true, "a=\\=b"sv},
    {"a=\\\\\\="sv, true, "a=\\\\\\="sv},
    {"a=\\\xff"
     ",b=\xff"
     ""sv,
     false,
     "invalid field selector: invalid escape sequence: \\\xef"
     "\xbf"
     "\xbd"
     ""sv},
    {"a=\\\xc3"
     "\xa9"
     ""sv,
     false,
     "invalid field selector: invalid escape sequence: \\\xc3"
     "\xa9"
     ""sv},
    {"spec.nodeName=node1,status.phase!=Running"sv, true,
     "spec.nodeName=node1,status.phase!=Running"sv},
    {"metadata.name=a\\,b"sv, true, "metadata.name=a\\,b"sv},
    {"x=a\\"sv, false, "invalid field selector: invalid escape sequence: \\"sv},
    {"x=,y="sv, true, "x=,y="sv},
    {"!=a"sv, true, "!=a"sv},
    {"a!b=c"sv, true, "a!b=c"sv},
};

TEST(ParseFieldSelector, MatchesUpstreamStringAndErrors) {
  for (const FieldParseCase& c : kFieldParseCases) {
    SCOPED_TRACE(std::string(c.input));
    absl::StatusOr<FieldSelector> sel = ParseFieldSelector(c.input);
    if (c.ok) {
      ASSERT_TRUE(sel.ok()) << sel.status();
      EXPECT_EQ(sel->String(), c.want);
      // String() parses back; the text may re-sort once ("b==1,b=2" prints
      // "b=2,b=1", which sorts as "b=1,b=2"), then it is stable.
      absl::StatusOr<FieldSelector> again = ParseFieldSelector(sel->String());
      ASSERT_TRUE(again.ok()) << again.status();
      EXPECT_EQ(ParseFieldSelector(again->String())->String(), again->String());
    } else {
      ASSERT_FALSE(sel.ok()) << sel->String();
      EXPECT_EQ(sel.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_EQ(Msg(sel.status()), c.want);
    }
  }
}

TEST(ParseFieldSelector, Requirements) {
  absl::StatusOr<FieldSelector> sel = ParseFieldSelector(
      R"(status.phase!=Running,spec.nodeName==node1,metadata.name=a\,b\=c\\)");
  ASSERT_TRUE(sel.ok()) << sel.status();
  const std::vector<FieldRequirement>& r = sel->Requirements();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].field, "metadata.name");
  EXPECT_EQ(r[0].op, FieldOperator::kEquals);
  EXPECT_EQ(r[0].value, R"(a,b=c\)");
  EXPECT_EQ(r[1].field, "spec.nodeName");
  EXPECT_EQ(r[1].op, FieldOperator::kEquals);
  EXPECT_EQ(r[1].value, "node1");
  EXPECT_EQ(r[2].field, "status.phase");
  EXPECT_EQ(r[2].op, FieldOperator::kNotEquals);
  EXPECT_EQ(r[2].value, "Running");
  EXPECT_EQ(
      sel->String(),
      R"(metadata.name=a\,b\=c\\,spec.nodeName=node1,status.phase!=Running)");
  EXPECT_EQ(sel->RequiresExactMatch("spec.nodeName"), "node1");
  EXPECT_EQ(sel->RequiresExactMatch("status.phase"), std::nullopt);
  EXPECT_TRUE(ParseFieldSelector("")->Empty());
  EXPECT_TRUE(ParseFieldSelector("=,")->Empty());
  EXPECT_FALSE(sel->Empty());
}

TEST(FieldValueEscaping, RoundTripsLikeUpstream) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"", ""},       {"a", "a"},        {"=", R"(\=)"},
      {",", R"(\,)"}, {R"(\)", R"(\\)"}, {R"(\=\,\)", R"(\\\=\\\,\\)"},
  };
  for (const auto& [raw, escaped] : cases) {
    EXPECT_EQ(EscapeFieldValue(raw), escaped);
    absl::StatusOr<std::string> back = UnescapeFieldValue(escaped);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, raw);
  }
  EXPECT_EQ(Msg(UnescapeFieldValue(R"(\)").status()),
            R"(invalid field selector: invalid escape sequence: \)");
  EXPECT_EQ(Msg(UnescapeFieldValue(R"(\\\)").status()),
            R"(invalid field selector: invalid escape sequence: \)");
  EXPECT_EQ(Msg(UnescapeFieldValue(R"(\a)").status()),
            R"(invalid field selector: invalid escape sequence: \a)");
  EXPECT_EQ(Msg(UnescapeFieldValue("a,b").status()),
            "invalid field selector: unescaped character in value: 44");
  // Without a special character the value is returned as is, invalid UTF-8
  // included; with one, Go rewrites invalid bytes as U+FFFD.
  EXPECT_EQ(*UnescapeFieldValue("\xff"), "\xff");
  EXPECT_EQ(*UnescapeFieldValue("\xff\\="), "\xEF\xBF\xBD=");
}

// ------------------------------------------------------------ field match

TEST(FieldSelectorMatches, UpstreamCases) {
  auto match = [](std::string_view sel, const Labels& fields) {
    absl::StatusOr<FieldSelector> s = ParseFieldSelector(sel);
    EXPECT_TRUE(s.ok()) << sel << ": " << s.status();
    return s->Matches(fields);
  };
  EXPECT_TRUE(match("", {{"x", "y"}}));
  EXPECT_TRUE(match("x=y", {{"x", "y"}}));
  EXPECT_TRUE(match("x=y,z=w", {{"x", "y"}, {"z", "w"}}));
  EXPECT_TRUE(match("x!=y,z!=w", {{"x", "z"}, {"z", "a"}}));
  EXPECT_TRUE(match("notin=in", {{"notin", "in"}}));
  EXPECT_FALSE(match("x=y", {{"x", "z"}}));
  EXPECT_FALSE(match("x=y,z=w", {{"x", "w"}, {"z", "w"}}));
  EXPECT_FALSE(match("x!=y,z!=w", {{"x", "z"}, {"z", "w"}}));
  const Labels fieldset = {
      {"foo", "bar"}, {"baz", "blah"}, {"complex", R"(=value\,\)"}};
  EXPECT_TRUE(match("foo=bar", fieldset));
  EXPECT_TRUE(match("baz=blah", fieldset));
  EXPECT_TRUE(match("foo=bar,baz=blah", fieldset));
  EXPECT_TRUE(match(R"(foo=bar,baz=blah,complex=\=value\\\,\\)", fieldset));
  EXPECT_FALSE(match("foo=blah", fieldset));
  EXPECT_FALSE(match("baz=bar", fieldset));
  EXPECT_FALSE(match("foo=bar,foobar=bar,baz=blah", fieldset));
  // A missing field has the value "".
  EXPECT_TRUE(match("missing=", {}));
  EXPECT_FALSE(match("missing!=", {}));
  EXPECT_TRUE(match("missing!=x", {}));
}

TEST(FieldSelectorMatches, WithLookup) {
  absl::StatusOr<FieldSelector> sel =
      ParseFieldSelector("spec.nodeName=node1,status.phase!=Failed,gone=");
  ASSERT_TRUE(sel.ok());
  std::vector<std::string> asked;
  FieldLookup lookup =
      [&](std::string_view field) -> std::optional<std::string> {
    asked.emplace_back(field);
    if (field == "spec.nodeName") return "node1";
    if (field == "status.phase") return "Running";
    return std::nullopt;
  };
  EXPECT_TRUE(sel->Matches(lookup));
  EXPECT_EQ(asked, (std::vector<std::string>{"gone", "spec.nodeName",
                                             "status.phase"}));
  FieldLookup failed =
      [](std::string_view field) -> std::optional<std::string> {
    if (field == "spec.nodeName") return "node1";
    if (field == "status.phase") return "Failed";
    return std::nullopt;
  };
  EXPECT_FALSE(sel->Matches(failed));
}

// ------------------------------------------------------------ kinds

std::string CheckError(std::string_view selector, std::string_view group,
                       std::string_view kind, std::string_view version = "") {
  absl::StatusOr<FieldSelector> sel = ParseFieldSelector(selector);
  EXPECT_TRUE(sel.ok()) << sel.status();
  absl::Status st = CheckFieldSelectorSupported(*sel, group, kind, version);
  if (st.ok()) return "OK";
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  return Msg(st);
}

TEST(CheckFieldSelectorSupported, CoreKinds) {
  EXPECT_EQ(CheckError("metadata.name=p,metadata.namespace=d,spec.nodeName=n,"
                       "spec.restartPolicy=Always,spec.schedulerName=s,"
                       "spec.serviceAccountName=sa,spec.hostNetwork=true,"
                       "status.phase=Running,status.podIP=1.2.3.4,"
                       "status.podIPs=1.2.3.4,status.nominatedNodeName=n,"
                       "spec.host=n",
                       "", "Pod"),
            "OK");
  EXPECT_EQ(CheckError("spec.foo=1", "", "Pod"),
            "field label not supported: spec.foo");
  EXPECT_EQ(CheckError("metadata.name=n,spec.unschedulable=true", "", "Node"),
            "OK");
  EXPECT_EQ(CheckError("metadata.namespace=", "", "Node"),
            "field label not supported: metadata.namespace");
  EXPECT_EQ(CheckError("metadata.name=n,status.phase=Active", "", "Namespace"),
            "OK");
  EXPECT_EQ(CheckError("name=n", "", "Namespace"),
            "field label not supported: name");
  EXPECT_EQ(CheckError(
                "involvedObject.kind=Pod,involvedObject.namespace=,"
                "involvedObject.name=p,involvedObject.uid=u,"
                "involvedObject.apiVersion=v1,involvedObject.resourceVersion=1,"
                "involvedObject.fieldPath=f,reason=r,reportingComponent=c,"
                "source=s,type=Normal,metadata.namespace=d,metadata.name=e",
                "", "Event"),
            "OK");
  EXPECT_EQ(CheckError("involvedObject.foo=x", "", "Event"),
            "field label not supported: involvedObject.foo");
  // No conversion function upstream: runtime's default.
  EXPECT_EQ(
      CheckError("metadata.name=q,metadata.namespace=d", "", "ResourceQuota"),
      "OK");
  EXPECT_EQ(CheckError("spec.foo=1", "", "ResourceQuota"),
            "\"spec.foo\" is not a known field selector: only "
            "\"metadata.name\", \"metadata.namespace\"");
}

TEST(CheckFieldSelectorSupported, OtherGroups) {
  EXPECT_EQ(CheckError("metadata.name=s,spec.nodeName=,spec.driver=d",
                       "resource.k8s.io", "ResourceSlice"),
            "OK");
  EXPECT_EQ(CheckError("spec.foo=1", "resource.k8s.io", "ResourceSlice"),
            "field label not supported for resource.k8s.io/v1, "
            "Kind=ResourceSlice: spec.foo");
  EXPECT_EQ(CheckError("metadata.namespace=x", "resource.k8s.io",
                       "ResourceSlice", "v1beta1"),
            "field label not supported for resource.k8s.io/v1beta1, "
            "Kind=ResourceSlice: metadata.namespace");
  EXPECT_EQ(CheckError("metadata.name=j,metadata.namespace=d,"
                       "status.successful=1",
                       "batch", "Job"),
            "OK");
  EXPECT_EQ(CheckError("spec.foo=1", "batch", "Job"),
            "field label \"spec.foo\" not supported for Job");
  for (auto [group, kind] : {std::pair{"apps", "Deployment"},
                             {"coordination.k8s.io", "Lease"},
                             {"resource.k8s.io", "DeviceClass"},
                             {"resource.k8s.io", "ResourceClaimTemplate"},
                             {"resource.k8s.io", "DeviceTaintRule"}}) {
    EXPECT_EQ(CheckError("metadata.name=a,metadata.namespace=b", group, kind),
              "OK");
    EXPECT_EQ(CheckError("spec.nodeName=a", group, kind),
              "\"spec.nodeName\" is not a known field selector: only "
              "\"metadata.name\", \"metadata.namespace\"")
        << kind;
  }
}

TEST(CheckFieldSelectorSupported, DraplaneClaimExtensions) {
  EXPECT_EQ(CheckError("status.allocation=,status.reservedFor=true",
                       "resource.k8s.io", "ResourceClaim"),
            "OK");
  EXPECT_EQ(CheckError("status.devices=", "resource.k8s.io", "ResourceClaim"),
            "\"status.devices\" is not a known field selector: only "
            "\"metadata.name\", \"metadata.namespace\"");
  // Only for ResourceClaims.
  EXPECT_EQ(CheckError("status.allocation=", "resource.k8s.io",
                       "ResourceClaimTemplate"),
            "\"status.allocation\" is not a known field selector: only "
            "\"metadata.name\", \"metadata.namespace\"");
}

TEST(CheckFieldSelectorSupported, FirstUnsupportedInSortedOrder) {
  // Terms are sorted as text before the check, like upstream.
  EXPECT_EQ(CheckError("spec.foo=1,metadata.bar=2", "", "Pod"),
            "field label not supported: metadata.bar");
}

TEST(ConvertFieldSelector, PodSpecHostIsSpecNodeName) {
  absl::StatusOr<FieldSelector> sel =
      ParseFieldSelector("spec.host=node1,status.phase!=Failed");
  ASSERT_TRUE(sel.ok());
  absl::StatusOr<FieldSelector> converted =
      ConvertFieldSelector(*sel, "", "Pod");
  ASSERT_TRUE(converted.ok()) << converted.status();
  EXPECT_EQ(converted->String(), "spec.nodeName=node1,status.phase!=Failed");
  absl::StatusOr<FieldSelector> node =
      ConvertFieldSelector(*ParseFieldSelector("spec.host=n"), "", "Node");
  EXPECT_EQ(Msg(node.status()), "field label not supported: spec.host");
}

// ------------------------------------------------------------ values

using Fields = std::map<std::string, std::string>;

TEST(SelectableFields, Pod) {
  api::Json pod = J(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "p1", "namespace": "default", "labels": {"a": "b"}},
    "spec": {"nodeName": "node1", "restartPolicy": "Always",
             "schedulerName": "default-scheduler", "serviceAccount": "old",
             "hostNetwork": true, "containers": [{"name": "c"}]},
    "status": {"phase": "Running", "podIPs": [{"ip": "10.0.0.5"}, {"ip": "fd00::5"}],
               "nominatedNodeName": "node2"}})");
  EXPECT_EQ(SelectableFields(pod, "", "Pod"),
            (Fields{{"metadata.name", "p1"},
                    {"metadata.namespace", "default"},
                    {"spec.hostNetwork", "true"},
                    {"spec.nodeName", "node1"},
                    {"spec.restartPolicy", "Always"},
                    {"spec.schedulerName", "default-scheduler"},
                    {"spec.serviceAccountName", "old"},
                    {"status.nominatedNodeName", "node2"},
                    {"status.phase", "Running"},
                    {"status.podIP", "10.0.0.5"}}));

  api::Json bare = J(R"({"metadata": {"name": "p2", "namespace": "ns"},
                         "spec": {"serviceAccountName": "sa",
                                  "serviceAccount": "old"},
                         "status": {"podIP": "10.0.0.9",
                                    "podIPs": [{"ip": "10.0.0.5"}]}})");
  EXPECT_EQ(SelectableFields(bare, "", "Pod"),
            (Fields{{"metadata.name", "p2"},
                    {"metadata.namespace", "ns"},
                    {"spec.hostNetwork", "false"},
                    {"spec.nodeName", ""},
                    {"spec.restartPolicy", ""},
                    {"spec.schedulerName", ""},
                    {"spec.serviceAccountName", "sa"},
                    {"status.nominatedNodeName", ""},
                    {"status.phase", ""},
                    {"status.podIP", "10.0.0.9"}}));

  // End to end: what `kubectl get pods --field-selector` does.
  absl::StatusOr<FieldSelector> sel = ConvertFieldSelector(
      *ParseFieldSelector("spec.host=node1,status.phase!=Succeeded"), "",
      "Pod");
  ASSERT_TRUE(sel.ok());
  EXPECT_TRUE(sel->Matches(SelectableFields(pod, "", "Pod")));
  EXPECT_FALSE(sel->Matches(SelectableFields(bare, "", "Pod")));
  // status.podIPs is accepted but has no value upstream.
  EXPECT_TRUE(ParseFieldSelector("status.podIPs=")
                  ->Matches(SelectableFields(pod, "", "Pod")));
}

TEST(SelectableFields, Node) {
  api::Json node = J(R"({"apiVersion": "v1", "kind": "Node",
      "metadata": {"name": "node1", "labels": {"kubernetes.io/hostname": "node1"}},
      "spec": {"unschedulable": true, "taints": []}})");
  EXPECT_EQ(
      SelectableFields(node, "", "Node"),
      (Fields{{"metadata.name", "node1"}, {"spec.unschedulable", "true"}}));
  api::Json schedulable = J(R"({"metadata": {"name": "node2"}})");
  EXPECT_EQ(
      SelectableFields(schedulable, "", "Node"),
      (Fields{{"metadata.name", "node2"}, {"spec.unschedulable", "false"}}));
}

TEST(SelectableFields, Event) {
  api::Json event = J(R"({"apiVersion": "v1", "kind": "Event",
      "metadata": {"name": "claim1.17a", "namespace": "default"},
      "involvedObject": {"kind": "ResourceClaim", "namespace": "default",
                         "name": "claim1", "uid": "u-1",
                         "apiVersion": "resource.k8s.io/v1",
                         "resourceVersion": "42"},
      "reason": "Allocated", "message": "m", "type": "Normal",
      "reportingComponent": "draplane-scheduler", "source": {}})");
  const Fields want = {
      {"involvedObject.apiVersion", "resource.k8s.io/v1"},
      {"involvedObject.fieldPath", ""},
      {"involvedObject.kind", "ResourceClaim"},
      {"involvedObject.name", "claim1"},
      {"involvedObject.namespace", "default"},
      {"involvedObject.resourceVersion", "42"},
      {"involvedObject.uid", "u-1"},
      {"metadata.name", "claim1.17a"},
      {"metadata.namespace", "default"},
      {"reason", "Allocated"},
      {"reportingComponent", "draplane-scheduler"},
      {"source", "draplane-scheduler"},  // falls back to reportingComponent
      {"type", "Normal"}};
  EXPECT_EQ(SelectableFields(event, "", "Event"), want);
  event["source"] = J(R"({"component": "kubelet", "host": "node1"})");
  EXPECT_EQ(SelectableFields(event, "", "Event").at("source"), "kubelet");

  // kubectl describe's event query for a cluster-scoped object.
  absl::StatusOr<FieldSelector> sel = ParseFieldSelector(
      "involvedObject.name=claim1,involvedObject.namespace=default,"
      "involvedObject.kind=ResourceClaim,involvedObject.uid=u-1");
  ASSERT_TRUE(sel.ok());
  ASSERT_TRUE(CheckFieldSelectorSupported(*sel, "", "Event").ok());
  EXPECT_TRUE(sel->Matches(SelectableFields(event, "", "Event")));
  EXPECT_FALSE(ParseFieldSelector("involvedObject.namespace=")
                   ->Matches(SelectableFields(event, "", "Event")));
}

TEST(SelectableFields, ResourceSlice) {
  api::Json slice = J(R"({"apiVersion": "resource.k8s.io/v1",
      "kind": "ResourceSlice", "metadata": {"name": "node1-gpu"},
      "spec": {"driver": "gpu.example.com", "nodeName": "node1",
               "pool": {"name": "node1", "generation": 1,
                        "resourceSliceCount": 1},
               "devices": [{"name": "gpu-0"}]}})");
  EXPECT_EQ(SelectableFields(slice, "resource.k8s.io", "ResourceSlice"),
            (Fields{{"metadata.name", "node1-gpu"},
                    {"spec.driver", "gpu.example.com"},
                    {"spec.nodeName", "node1"}}));
  api::Json network = J(R"({"metadata": {"name": "fabric"},
      "spec": {"driver": "net.example.com", "allNodes": true}})");
  const Fields values =
      SelectableFields(network, "resource.k8s.io", "ResourceSlice");
  EXPECT_EQ(values, (Fields{{"metadata.name", "fabric"},
                            {"spec.driver", "net.example.com"},
                            {"spec.nodeName", ""}}));
  EXPECT_TRUE(ParseFieldSelector("spec.nodeName=")->Matches(values));
  EXPECT_TRUE(
      ParseFieldSelector("spec.driver=net.example.com")->Matches(values));
}

TEST(SelectableFields, OtherKinds) {
  EXPECT_EQ(SelectableFields(J(R"({"metadata": {"name": "ns1"},
                                   "status": {"phase": "Active"}})"),
                             "", "Namespace"),
            (Fields{{"metadata.name", "ns1"},
                    {"name", "ns1"},
                    {"status.phase", "Active"}}));
  EXPECT_EQ(SelectableFields(J(R"({"metadata": {"name": "j", "namespace": "d"},
                                   "status": {"succeeded": 3}})"),
                             "batch", "Job"),
            (Fields{{"metadata.name", "j"},
                    {"metadata.namespace", "d"},
                    {"status.successful", "3"}}));
  EXPECT_EQ(
      SelectableFields(J(R"({"metadata": {"name": "j", "namespace": "d"}})"),
                       "batch", "Job")
          .at("status.successful"),
      "0");
  EXPECT_EQ(SelectableFields(J(R"({"metadata": {"name": "d1", "namespace": "d"},
                                   "spec": {"replicas": 2}})"),
                             "apps", "Deployment"),
            (Fields{{"metadata.name", "d1"}, {"metadata.namespace", "d"}}));
  EXPECT_EQ(SelectableFields(J(R"({"metadata": {"name": "gpu.example.com"}})"),
                             "resource.k8s.io", "DeviceClass"),
            (Fields{{"metadata.name", "gpu.example.com"}}));
  EXPECT_EQ(SelectableFields(J(R"({"metadata": {"name": "node1",
                                                "namespace": "kube-node-lease"}})"),
                             "coordination.k8s.io", "Lease"),
            (Fields{{"metadata.name", "node1"},
                    {"metadata.namespace", "kube-node-lease"}}));
  // Not a JSON object at all: zero values, no exception.
  EXPECT_EQ(SelectableFields(J("[1]"), "", "Node"),
            (Fields{{"metadata.name", ""}, {"spec.unschedulable", "false"}}));
  EXPECT_EQ(SelectableFields(J(R"({"metadata": {"name": 5}})"), "", "Node"),
            (Fields{{"metadata.name", ""}, {"spec.unschedulable", "false"}}));
}

TEST(SelectableFields, DraplaneClaimExtensions) {
  api::Json pending = J(R"({"metadata": {"name": "c1", "namespace": "d"},
                            "spec": {"devices": {"requests": []}}})");
  api::Json allocated = J(R"({"metadata": {"name": "c2", "namespace": "d"},
      "status": {"allocation": {"devices": {"results": []}},
                 "reservedFor": [{"resource": "pods", "name": "p", "uid": "u"}]}})");
  api::Json unreserved = J(R"({"metadata": {"name": "c3", "namespace": "d"},
      "status": {"allocation": {}, "reservedFor": []}})");
  const std::string_view g = "resource.k8s.io";
  EXPECT_EQ(SelectableFields(pending, g, "ResourceClaim"),
            (Fields{{"metadata.name", "c1"},
                    {"metadata.namespace", "d"},
                    {"status.allocation", ""},
                    {"status.reservedFor", ""}}));
  EXPECT_EQ(SelectableFields(allocated, g, "ResourceClaim"),
            (Fields{{"metadata.name", "c2"},
                    {"metadata.namespace", "d"},
                    {"status.allocation", "true"},
                    {"status.reservedFor", "true"}}));
  EXPECT_EQ(SelectableFields(unreserved, g, "ResourceClaim"),
            (Fields{{"metadata.name", "c3"},
                    {"metadata.namespace", "d"},
                    {"status.allocation", "true"},
                    {"status.reservedFor", ""}}));
  // `kubectl get resourceclaims --field-selector status.allocation=`
  absl::StatusOr<FieldSelector> sel = ParseFieldSelector("status.allocation=");
  ASSERT_TRUE(sel.ok());
  ASSERT_TRUE(CheckFieldSelectorSupported(*sel, g, "ResourceClaim").ok());
  EXPECT_TRUE(sel->Matches(SelectableFields(pending, g, "ResourceClaim")));
  EXPECT_FALSE(sel->Matches(SelectableFields(allocated, g, "ResourceClaim")));
}

}  // namespace
}  // namespace draplane::selectors

#include "protobuf/kube_protobuf.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/unknown_field_set.h"
#include "gtest/gtest.h"
#include "kube.pb.h"

namespace draplane::protobuf {
namespace {

namespace fs = std::filesystem;
namespace gp = ::google::protobuf;
using ::testing::HasSubstr;

std::string FromHex(std::string_view hex) {
  return absl::HexStringToBytes(absl::string_view(hex.data(), hex.size()));
}

// "k8s\0" + runtime.Unknown{typeMeta, raw = object}.
std::string Body(std::string_view api_version, std::string_view kind,
                 const gp::Message& object) {
  gp::LogSilencer silence_utf8_warnings;  // Some tests send invalid UTF-8.
  kube::Unknown unknown;
  unknown.mutable_typemeta()->set_apiversion(std::string(api_version));
  unknown.mutable_typemeta()->set_kind(std::string(kind));
  unknown.set_raw(object.SerializeAsString());
  return std::string("k8s\0", 4) + unknown.SerializeAsString();
}

// The decoded JSON as compact text, or "error: <status>".
std::string Decoded(std::string_view body, std::string_view api_version = {},
                    std::string_view kind = {}) {
  absl::StatusOr<api::Json> json = DecodeKubeProtobuf(body, api_version, kind);
  if (!json.ok()) return "error: " + json.status().ToString();
  return api::DumpJson(*json);
}

std::string ErrorOf(std::string_view body) {
  absl::StatusOr<api::Json> json = DecodeKubeProtobuf(body);
  EXPECT_FALSE(json.ok()) << api::DumpJson(*json);
  if (json.ok()) return "";
  EXPECT_EQ(json.status().code(), absl::StatusCode::kInvalidArgument)
      << json.status();
  return std::string(json.status().message());
}

// Captured from kubectl 1.32.4 (see kubectl-protocol.md §6.9).
constexpr std::string_view kCreateNamespaceTest1 =
    "6b3873000a0f0a02763112094e616d657370616365121d0a150a057465737431120"
    "01a0022002a0032003800420012001a020a001a002200";
constexpr std::string_view kCreateQuotaQ1 =
    "6b3873000a130a027631120d5265736f7572636551756f746112320a120a0271311"
    "2001a0022002a00320038004200121a0a0a0a0363707512030a01310a0c0a04706f"
    "647312040a0231301a001a002200";
// kubectl create configmap cm1 --from-literal=a=b
constexpr std::string_view kCreateConfigMap =
    "6b3873000a0f0a0276311209436f6e6669674d6170121d0a130a03636d3112001a00"
    "22002a0032003800420012060a01611201621a002200";

TEST(DecodeKubeProtobufTest, KubectlCreateNamespace) {
  // ObjectMeta carries empty strings, generation 0 and an empty
  // creationTimestamp; NamespaceStatus an empty phase. Go decodes zero
  // values, and encoding/json leaves out the omitempty strings and the
  // omitzero creationTimestamp, but always writes the structs spec/status.
  EXPECT_EQ(
      Decoded(FromHex(kCreateNamespaceTest1)),
      R"({"kind":"Namespace","apiVersion":"v1","metadata":{"name":"test1"},)"
      R"("spec":{},"status":{}})");
}

TEST(DecodeKubeProtobufTest, KubectlCreateQuota) {
  EXPECT_EQ(
      Decoded(FromHex(kCreateQuotaQ1)),
      R"({"kind":"ResourceQuota","apiVersion":"v1","metadata":{"name":"q1"},)"
      R"("spec":{"hard":{"cpu":"1","pods":"10"}},"status":{}})");
}

TEST(DecodeKubeProtobufTest, KindNotServedInProtobuf) {
  EXPECT_EQ(ErrorOf(FromHex(kCreateConfigMap)),
            "no kind \"ConfigMap\" is registered for version \"v1\" in "
            "draplane's protobuf decoder; send the object as application/json");
  kube::Deployment deployment;
  EXPECT_THAT(ErrorOf(Body("apps/v1beta1", "Deployment", deployment)),
              HasSubstr("no kind \"Deployment\" is registered for version "
                        "\"apps/v1beta1\""));
}

TEST(DecodeKubeProtobufTest, KindsTable) {
  std::vector<std::string> kinds;
  for (const KubeProtobufKind& k : KubeProtobufKinds()) {
    kinds.push_back(std::string(k.api_version) + " " + std::string(k.kind));
  }
  EXPECT_THAT(
      kinds,
      ::testing::ElementsAre(
          "v1 Namespace", "v1 ResourceQuota", "v1 Pod", "v1 Node", "v1 Event",
          "v1 ServiceAccount", "apps/v1 Deployment", "batch/v1 Job",
          "coordination.k8s.io/v1 Lease", "rbac.authorization.k8s.io/v1 Role",
          "rbac.authorization.k8s.io/v1 ClusterRole",
          "rbac.authorization.k8s.io/v1 RoleBinding",
          "rbac.authorization.k8s.io/v1 ClusterRoleBinding",
          "authorization.k8s.io/v1 SelfSubjectAccessReview",
          "authorization.k8s.io/v1 SubjectAccessReview",
          "authorization.k8s.io/v1 SelfSubjectRulesReview",
          "authorization.k8s.io/v1 LocalSubjectAccessReview",
          "authentication.k8s.io/v1 SelfSubjectReview",
          "authentication.k8s.io/v1 TokenReview",
          "authentication.k8s.io/v1 TokenRequest"));
}

// Every case of testdata/go_golden.json: bytes written by upstream's Go
// serializer (or captured from kubectl) and the JSON encoding/json writes
// for the object Go decodes from them. The comparison is on the compact
// text, so key order must match too.
TEST(DecodeKubeProtobufTest, MatchesGoGolden) {
  const char* env = std::getenv("DRAPLANE_SOURCE_DIR");
  const fs::path root = env != nullptr ? fs::path(env) : DRAPLANE_SOURCE_DIR;
  std::ifstream in(root / "src/protobuf/testdata/go_golden.json");
  ASSERT_TRUE(in) << "cannot open go_golden.json";
  std::stringstream text;
  text << in.rdbuf();
  const api::Json cases = api::Json::parse(text.str());
  ASSERT_GE(cases.size(), 103u);
  std::set<std::string> kinds;
  for (const api::Json& c : cases) {
    const std::string name = c["name"];
    SCOPED_TRACE(name);
    const std::string body = FromHex(c["protobuf"].get<std::string>());
    const std::string got = Decoded(body);
    const std::string want = api::DumpJson(c["json"]);
    if (got != want) {
      size_t at = 0;
      while (at < got.size() && at < want.size() && got[at] == want[at]) ++at;
      const size_t from = at < 80 ? 0 : at - 80;
      ADD_FAILURE() << "first difference at byte " << at << "\n got: ..."
                    << got.substr(from, 200) << "\nwant: ..."
                    << want.substr(from, 200);
    }
    kinds.insert(c["json"]["kind"].get<std::string>());
  }
  EXPECT_EQ(kinds.size(), KubeProtobufKinds().size());
}

TEST(DecodeKubeProtobufTest, EnvelopeErrors) {
  EXPECT_EQ(ErrorOf(""), "empty data");
  EXPECT_EQ(ErrorOf("{\"kind\":\"Namespace\"}"),
            "provided data does not appear to be a protobuf message, "
            "expected prefix [107 56 115 0]");
  EXPECT_EQ(ErrorOf(std::string("k8s", 3)),
            "provided data does not appear to be a protobuf message, "
            "expected prefix [107 56 115 0]");
  EXPECT_EQ(ErrorOf(std::string("k8s\0", 4)), "empty body");
  EXPECT_THAT(ErrorOf(std::string("k8s\0\xff\xff\xff", 7)),
              HasSubstr("not a valid runtime.Unknown"));
  EXPECT_THAT(ErrorOf(std::string(kMaxKubeProtobufBytes + 1, 'k')),
              HasSubstr("provided data does not appear"));
  std::string huge("k8s\0", 4);
  huge.resize(kMaxKubeProtobufBytes + 1, '\0');
  EXPECT_THAT(ErrorOf(huge), HasSubstr("is larger than"));
}

TEST(DecodeKubeProtobufTest, MissingKindAndVersion) {
  kube::Namespace ns;
  ns.mutable_metadata()->set_name("a");
  EXPECT_EQ(ErrorOf(Body("v1", "", ns)),
            "Object 'Kind' is missing in 'runtime.TypeMeta{APIVersion:\"v1\", "
            "Kind:\"\"}'");
  EXPECT_EQ(ErrorOf(Body("", "Namespace", ns)),
            "Object 'apiVersion' is missing in "
            "'runtime.TypeMeta{APIVersion:\"\", Kind:\"Namespace\"}'");
  // The endpoint's kind fills in what the body leaves out
  // (copyKindDefaults).
  EXPECT_EQ(Decoded(Body("", "", ns), "v1", "Namespace"),
            R"({"kind":"Namespace","apiVersion":"v1","metadata":{"name":"a"},)"
            R"("spec":{},"status":{}})");
  // ... but does not override what the body says.
  EXPECT_THAT(Decoded(Body("v1", "Pod", kube::Pod()), "v1", "Namespace"),
              HasSubstr(R"({"kind":"Pod","apiVersion":"v1")"));
}

TEST(DecodeKubeProtobufTest, EmptyRawIsTheZeroObject) {
  EXPECT_EQ(Decoded(Body("coordination.k8s.io/v1", "Lease", kube::Lease())),
            R"({"kind":"Lease","apiVersion":"coordination.k8s.io/v1",)"
            R"("metadata":{},"spec":{}})");
  // Non-omitempty slices decode to nil and are written as null.
  EXPECT_EQ(
      Decoded(Body("v1", "Pod", kube::Pod())),
      R"({"kind":"Pod","apiVersion":"v1","metadata":{},"spec":{"containers":null},"status":{}})");
}

TEST(DecodeKubeProtobufTest, UnknownFieldIsAnError) {
  kube::Pod pod;
  pod.mutable_metadata()->set_name("p");
  kube::Container* container = pod.mutable_spec()->add_containers();
  container->set_name("c");
  container->GetReflection()->MutableUnknownFields(container)->AddVarint(99, 1);
  EXPECT_EQ(ErrorOf(Body("v1", "Pod", pod)),
            "protobuf v1 Pod: unknown field 99 (wire type varint) in "
            "k8s.io/api/core/v1.Container at spec.containers[0]: draplane does "
            "not know this field of the protobuf encoding and would lose it; "
            "send the object as application/json");

  // Inside a map value.
  kube::ResourceQuota quota;
  kube::Quantity& cpu = (*quota.mutable_spec()->mutable_hard())["cpu"];
  cpu.set_string("1");
  cpu.GetReflection()->MutableUnknownFields(&cpu)->AddLengthDelimited(7, "x");
  EXPECT_THAT(ErrorOf(Body("v1", "ResourceQuota", quota)),
              HasSubstr("unknown field 7 (wire type length-delimited) in "
                        "k8s.io/apimachinery/pkg/api/resource.Quantity at "
                        "spec.hard[cpu]"));

  // At the top of the object and in the envelope.
  kube::Namespace ns;
  ns.GetReflection()->MutableUnknownFields(&ns)->AddFixed32(5, 1);
  EXPECT_THAT(ErrorOf(Body("v1", "Namespace", ns)),
              HasSubstr("unknown field 5 (wire type fixed32) in "
                        "k8s.io/api/core/v1.Namespace: "));
  std::string body = Body("v1", "Namespace", kube::Namespace());
  body += FromHex("2801");  // field 5, varint 1
  EXPECT_EQ(ErrorOf(body),
            "protobuf envelope: unknown field 5 (wire type varint) in "
            "k8s.io/apimachinery/pkg/runtime.Unknown: draplane does not know "
            "this field of the protobuf encoding and would lose it");
}

TEST(DecodeKubeProtobufTest, WrongWireTypeForKnownField) {
  // Namespace{metadata: ObjectMeta{name: varint 7}}: 0a 02 08 07.
  kube::Unknown unknown;
  unknown.mutable_typemeta()->set_apiversion("v1");
  unknown.mutable_typemeta()->set_kind("Namespace");
  unknown.set_raw(FromHex("0a020807"));
  EXPECT_EQ(ErrorOf(std::string("k8s\0", 4) + unknown.SerializeAsString()),
            "protobuf v1 Namespace: field 1 (name) of "
            "k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta at metadata has "
            "wire type varint, expected length-delimited; send the object as "
            "application/json");
}

TEST(DecodeKubeProtobufTest, MalformedRaw) {
  kube::Unknown unknown;
  unknown.mutable_typemeta()->set_apiversion("batch/v1");
  unknown.mutable_typemeta()->set_kind("Job");
  unknown.set_raw(FromHex("0a05"));  // metadata, length 5, no bytes
  EXPECT_EQ(ErrorOf(std::string("k8s\0", 4) + unknown.SerializeAsString()),
            "malformed protobuf body: raw is not a valid batch/v1 Job");
}

TEST(DecodeKubeProtobufTest, QuantitiesAreCanonical) {
  kube::ResourceQuota quota;
  auto& hard = *quota.mutable_spec()->mutable_hard();
  hard["memory"].set_string("1024Mi");
  hard["cpu"].set_string("1000m");
  hard["pods"];  // Quantity without its string: the zero quantity.
  hard["ephemeral"].set_string("0");
  EXPECT_THAT(
      Decoded(Body("v1", "ResourceQuota", quota)),
      HasSubstr(
          R"("spec":{"hard":{"cpu":"1","ephemeral":"0","memory":"1Gi","pods":"0"}})"));

  hard["memory"].set_string("1 Gi");
  EXPECT_EQ(ErrorOf(Body("v1", "ResourceQuota", quota)),
            "protobuf v1 ResourceQuota: spec.hard[memory]: quantities must "
            "match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  hard["memory"].set_string("");
  EXPECT_THAT(ErrorOf(Body("v1", "ResourceQuota", quota)),
              HasSubstr("spec.hard[memory]: quantities must match"));
}

TEST(DecodeKubeProtobufTest, IntOrString) {
  kube::Deployment deployment;
  auto* rolling =
      deployment.mutable_spec()->mutable_strategy()->mutable_rollingupdate();
  rolling->mutable_maxsurge()->set_type(1);
  rolling->mutable_maxsurge()->set_strval("25%");
  rolling->mutable_maxunavailable()->set_intval(-2);
  EXPECT_THAT(Decoded(Body("apps/v1", "Deployment", deployment)),
              HasSubstr(R"("strategy":{"rollingUpdate":{"maxUnavailable":-2,)"
                        R"("maxSurge":"25%"}})"));
  rolling->mutable_maxsurge()->set_type(2);
  EXPECT_EQ(
      ErrorOf(Body("apps/v1", "Deployment", deployment)),
      "protobuf apps/v1 Deployment: spec.strategy.rollingUpdate.maxSurge: "
      "impossible IntOrString.Type 2");
}

// ExtraValue/AttestationValue: a named []string in an `items` message. Go's
// Unmarshal starts each map value from an empty, non-nil slice, so an entry
// without items is [] (not null).
TEST(DecodeKubeProtobufTest, StringListMapValues) {
  kube::TokenReview review;
  auto& extra = *review.mutable_status()->mutable_user()->mutable_extra();
  extra["scopes"].add_items("openid");
  extra["scopes"].add_items("email");
  extra["none"];
  EXPECT_EQ(Decoded(Body("authentication.k8s.io/v1", "TokenReview", review)),
            R"({"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1",)"
            R"("metadata":{},"spec":{},"status":{"user":{"extra":)"
            R"({"none":[],"scopes":["openid","email"]}}}})");

  extra["none"]
      .GetReflection()
      ->MutableUnknownFields(&extra["none"])
      ->AddVarint(2, 1);
  EXPECT_THAT(ErrorOf(Body("authentication.k8s.io/v1", "TokenReview", review)),
              HasSubstr("unknown field 2 (wire type varint) in "
                        "k8s.io/api/authentication/v1.ExtraValue at "
                        "status.user.extra[none]: "));
}

TEST(DecodeKubeProtobufTest, Times) {
  kube::Pod pod;
  kube::ObjectMeta& meta = *pod.mutable_metadata();
  // An empty Time on the wire is the zero time: creationTimestamp (omitzero)
  // is left out, a present deletionTimestamp pointer is null.
  meta.mutable_creationtimestamp();
  meta.mutable_deletiontimestamp();
  EXPECT_THAT(Decoded(Body("v1", "Pod", pod)),
              HasSubstr(R"("metadata":{"deletionTimestamp":null},)"));
  // seconds 0 written explicitly is the Unix epoch, not the zero time;
  // nanos are dropped (time_proto.go).
  meta.mutable_creationtimestamp()->set_seconds(0);
  meta.mutable_deletiontimestamp()->set_seconds(1740830400);
  meta.mutable_deletiontimestamp()->set_nanos(999999999);
  EXPECT_THAT(
      Decoded(Body("v1", "Pod", pod)),
      HasSubstr(R"("metadata":{"creationTimestamp":"1970-01-01T00:00:00Z",)"
                R"("deletionTimestamp":"2025-03-01T12:00:00Z"},)"));
  // Go's zero instant written out explicitly is still IsZero.
  meta.mutable_creationtimestamp()->set_seconds(-62135596800);
  EXPECT_THAT(Decoded(Body("v1", "Pod", pod)),
              HasSubstr(R"("metadata":{"deletionTimestamp":)"));
  meta.mutable_creationtimestamp()->set_seconds(253402300800);  // year 10000
  EXPECT_EQ(ErrorOf(Body("v1", "Pod", pod)),
            "protobuf v1 Pod: metadata.creationTimestamp: time 253402300800s "
            "since the epoch is outside years 0-9999");

  // MicroTime keeps microseconds, truncating nanos toward zero.
  kube::Lease lease;
  lease.mutable_spec()->mutable_renewtime()->set_seconds(1740830400);
  lease.mutable_spec()->mutable_renewtime()->set_nanos(123456789);
  lease.mutable_spec()->mutable_acquiretime()->set_seconds(1740830400);
  lease.mutable_spec()->mutable_acquiretime()->set_nanos(-1500);
  EXPECT_THAT(
      Decoded(Body("coordination.k8s.io/v1", "Lease", lease)),
      HasSubstr(R"("spec":{"acquireTime":"2025-03-01T11:59:59.999999Z",)"
                R"("renewTime":"2025-03-01T12:00:00.123456Z"}})"));

  // Event.eventTime is a non-pointer MicroTime: null when unset.
  kube::Event event;
  EXPECT_THAT(Decoded(Body("v1", "Event", event)),
              HasSubstr(R"("eventTime":null,)"));
}

TEST(DecodeKubeProtobufTest, InvalidUtf8BecomesReplacementCharacter) {
  kube::Namespace ns;
  (*ns.mutable_metadata()->mutable_labels())["k\xff"] = "v\xc3";
  ns.mutable_metadata()->set_name("a\xed\xa0\x80z");  // a surrogate
  EXPECT_EQ(Decoded(Body("v1", "Namespace", ns)),
            "{\"kind\":\"Namespace\",\"apiVersion\":\"v1\",\"metadata\":{"
            "\"name\":\"a\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBDz\",\"labels\":{"
            "\"k\xEF\xBF\xBD\":\"v\xEF\xBF\xBD\"}},\"spec\":{},\"status\":{}}");
}

TEST(DecodeKubeProtobufTest, LabelsSortedByBytes) {
  kube::Namespace ns;
  auto& labels = *ns.mutable_metadata()->mutable_labels();
  labels["b"] = "2";
  labels["a"] = "1";
  labels["\xc3\xa9"] = "3";  // é sorts after ASCII
  labels["B"] = "4";
  EXPECT_THAT(Decoded(Body("v1", "Namespace", ns)),
              HasSubstr("\"labels\":{\"B\":\"4\",\"a\":\"1\",\"b\":\"2\","
                        "\"\xc3\xa9\":\"3\"}"));
}

TEST(DecodeKubeProtobufTest, ManagedFields) {
  kube::Namespace ns;
  kube::ManagedFieldsEntry* entry = ns.mutable_metadata()->add_managedfields();
  entry->set_manager("m");
  entry->mutable_fieldsv1()->set_raw(R"({"f:metadata":{"f:labels":{}}})");
  EXPECT_THAT(Decoded(Body("v1", "Namespace", ns)),
              HasSubstr(R"("managedFields":[{"manager":"m",)"
                        R"("fieldsV1":{"f:metadata":{"f:labels":{}}}}])"));
  entry->mutable_fieldsv1()->set_raw("");
  EXPECT_THAT(
      Decoded(Body("v1", "Namespace", ns)),
      HasSubstr(R"("managedFields":[{"manager":"m","fieldsV1":null}])"));
  entry->mutable_fieldsv1()->set_raw("{not json");
  EXPECT_EQ(ErrorOf(Body("v1", "Namespace", ns)),
            "protobuf v1 Namespace: metadata.managedFields[0].fieldsV1: "
            "fieldsV1 is not valid JSON");
  entry->mutable_fieldsv1()->set_raw("\xa1\x61\x61\xa0");  // CBOR {"a":{}}
  EXPECT_THAT(ErrorOf(Body("v1", "Namespace", ns)),
              HasSubstr("fieldsV1 in CBOR is not supported"));
}

TEST(DecodeKubeProtobufTest, PointersWrittenWhenPresent) {
  kube::Pod pod;
  kube::PodSpec& spec = *pod.mutable_spec();
  spec.set_terminationgraceperiodseconds(0);  // *int64 = 0: written
  spec.set_automountserviceaccounttoken(false);
  spec.set_hostnetwork(false);     // bool, omitempty: left out
  spec.mutable_securitycontext();  // *PodSecurityContext{}: {}
  kube::Container& c = *spec.add_containers();
  c.set_name("c");
  c.add_ports()->set_containerport(80);
  // An embedded struct (ProbeHandler in Probe) writes its fields inline.
  c.mutable_readinessprobe()->mutable_handler()->mutable_exec()->add_command(
      "true");
  EXPECT_EQ(
      Decoded(Body("v1", "Pod", pod)),
      R"({"kind":"Pod","apiVersion":"v1","metadata":{},"spec":{"containers":[)"
      R"({"name":"c","ports":[{"containerPort":80}],"resources":{},)"
      R"("readinessProbe":{"exec":{"command":["true"]}}}],)"
      R"("terminationGracePeriodSeconds":0,"automountServiceAccountToken":false,)"
      R"("securityContext":{}},"status":{}})");
}

// Schema contracts the converter relies on: kube.proto is not recursive (so
// parsing and converting are bounded by the schema depth) and every message
// names its Go type.
TEST(KubeProtoSchemaTest, AcyclicAndNamed) {
  const gp::FileDescriptor* file = kube::Pod::descriptor()->file();
  ASSERT_NE(file, nullptr);
  std::function<int(const gp::Descriptor*, std::set<const gp::Descriptor*>&)>
      depth = [&](const gp::Descriptor* d,
                  std::set<const gp::Descriptor*>& stack) -> int {
    EXPECT_FALSE(stack.count(d)) << "recursive message " << d->full_name();
    if (stack.count(d)) return 0;
    stack.insert(d);
    int deepest = 0;
    for (int i = 0; i < d->field_count(); ++i) {
      if (const gp::Descriptor* sub = d->field(i)->message_type()) {
        deepest = std::max(deepest, depth(sub, stack));
      }
    }
    stack.erase(d);
    return deepest + 1;
  };
  int max_depth = 0;
  for (int i = 0; i < file->message_type_count(); ++i) {
    const gp::Descriptor* d = file->message_type(i);
    EXPECT_FALSE(d->options().GetExtension(kube::go_type).empty())
        << d->full_name();
    std::set<const gp::Descriptor*> stack;
    max_depth = std::max(max_depth, depth(d, stack));
  }
  // Well below protobuf's default recursion limit of 100.
  EXPECT_LT(max_depth, 30);
}

// Hostile input: every prefix of real bodies and random byte mutations of
// them decode or fail with InvalidArgument, never crash or throw.
TEST(DecodeKubeProtobufTest, TruncatedAndMutatedBodies) {
  const std::vector<std::string> bodies = {
      FromHex(kCreateNamespaceTest1),
      FromHex(kCreateQuotaQ1),
      Body("v1", "Pod",
           [] {
             kube::Pod pod;
             pod.mutable_metadata()->set_name("p");
             (*pod.mutable_metadata()->mutable_labels())["a"] = "b";
             kube::Container* c = pod.mutable_spec()->add_containers();
             c->set_name("c");
             (*c->mutable_resources()->mutable_limits())["cpu"].set_string("1");
             c->mutable_livenessprobe()
                 ->mutable_handler()
                 ->mutable_tcpsocket()
                 ->mutable_port()
                 ->set_intval(8);
             pod.mutable_metadata()->mutable_creationtimestamp()->set_seconds(
                 1);
             return pod;
           }()),
  };
  int ok = 0;
  int invalid = 0;
  auto check = [&](const std::string& body) {
    absl::StatusOr<api::Json> json = DecodeKubeProtobuf(body);
    if (json.ok()) {
      ++ok;
    } else {
      ++invalid;
      EXPECT_EQ(json.status().code(), absl::StatusCode::kInvalidArgument)
          << json.status();
    }
  };
  for (const std::string& body : bodies) {
    for (size_t n = 0; n < body.size(); ++n) check(body.substr(0, n));
  }
  std::mt19937 rng(42);
  for (int i = 0; i < 3000; ++i) {
    std::string body = bodies[i % bodies.size()];
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = 4 + rng() % (body.size() - 4);
      switch (rng() % 3) {
        case 0:
          body[at] = static_cast<char>(rng());
          break;
        case 1:
          body.insert(at, 1, static_cast<char>(rng()));
          break;
        default:
          body.erase(at, 1);
      }
    }
    check(body);
  }
  EXPECT_GT(ok, 0);
  EXPECT_GT(invalid, 0);
}

}  // namespace
}  // namespace draplane::protobuf

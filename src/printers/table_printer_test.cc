#include "printers/table_printer.h"

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace draplane::printers {
namespace {

using api::Json;

// Every test prints as of this instant.
absl::Time Now() {
  return absl::FromCivil(absl::CivilSecond(2026, 3, 1, 12, 0, 0),
                         absl::UTCTimeZone());
}

// RFC 3339 text of Now() - ago.
std::string Ago(absl::Duration ago) {
  return absl::FormatTime("%Y-%m-%d%ET%H:%M:%E*SZ", Now() - ago,
                          absl::UTCTimeZone());
}

Json Print(const std::vector<Json>& objects, std::string_view group,
           std::string_view kind, TableOptions options = {}) {
  options.now = Now();
  absl::StatusOr<Json> table = PrintTable(objects, group, kind, options);
  EXPECT_TRUE(table.ok()) << table.status();
  return table.ok() ? *table : Json();
}

// The cells of the single row of printing `object`.
Json Cells(const Json& object, std::string_view group, std::string_view kind) {
  Json table = Print({object}, group, kind);
  if (!table["rows"].is_array() || table["rows"].size() != 1) return Json();
  return table["rows"][0]["cells"];
}

// "name|type|format|priority" per column definition.
std::vector<std::string> Columns(std::string_view group,
                                 std::string_view kind) {
  Json table = Print({}, group, kind);
  std::vector<std::string> columns;
  for (const Json& c : table["columnDefinitions"]) {
    columns.push_back(c["name"].get<std::string>() + "|" +
                      c["type"].get<std::string>() + "|" +
                      c["format"].get<std::string>() + "|" +
                      std::to_string(c["priority"].get<int>()));
  }
  return columns;
}

Json Object(std::string_view api_version, std::string_view kind,
            std::string_view name, absl::Duration age, Json rest = {}) {
  Json object = Json::object();
  object["apiVersion"] = api_version;
  object["kind"] = kind;
  object["metadata"] = Json{{"name", name},
                            {"uid", std::string(name) + "-uid"},
                            {"resourceVersion", "42"},
                            {"creationTimestamp", Ago(age)}};
  if (rest.is_object()) {
    for (auto it = rest.begin(); it != rest.end(); ++it) {
      object[it.key()] = it.value();
    }
  }
  return object;
}

// ---------------------------------------------------------------------------
// HumanDuration (values checked against k8s.io/apimachinery v0.37.2
// duration.HumanDuration).

TEST(HumanDurationTest, MatchesUpstreamAtBoundaries) {
  struct Case {
    absl::Duration d;
    std::string want;
  };
  const std::vector<Case> cases = {
      {absl::Seconds(-2), "<invalid>"},
      {absl::Milliseconds(-1500), "0s"},
      {absl::Seconds(-1), "0s"},
      {absl::ZeroDuration(), "0s"},
      {absl::Milliseconds(999), "0s"},
      {absl::Seconds(59), "59s"},
      {absl::Seconds(119), "119s"},
      {absl::Milliseconds(119999), "119s"},
      {absl::Seconds(120), "2m"},
      {absl::Seconds(121), "2m1s"},
      {absl::Minutes(9) + absl::Seconds(59), "9m59s"},
      {absl::Minutes(10), "10m"},
      {absl::Minutes(90), "90m"},
      {absl::Minutes(179), "179m"},
      {absl::Hours(3), "3h"},
      {absl::Hours(3) + absl::Minutes(30), "3h30m"},
      {absl::Hours(7) + absl::Minutes(59), "7h59m"},
      {absl::Hours(8), "8h"},
      {absl::Hours(47), "47h"},
      {absl::Hours(48), "2d"},
      {absl::Hours(49), "2d1h"},
      {absl::Hours(72), "3d"},
      {absl::Hours(191), "7d23h"},
      {absl::Hours(192), "8d"},
      {absl::Hours(17519), "729d"},
      {absl::Hours(17520), "2y"},
      {absl::Hours(17544), "2y1d"},
      {absl::Hours(70079), "7y364d"},
      {absl::Hours(70080), "8y"},
      {absl::Hours(100000), "11y"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(HumanDuration(c.d), c.want) << absl::FormatDuration(c.d);
  }
}

TEST(HumanDurationTest, SaturatesLikeGoDurations) {
  // Go's Time.Sub saturates at about 292 years.
  EXPECT_EQ(HumanDuration(absl::Hours(24 * 365 * 1000)), "292y");
  EXPECT_EQ(HumanDuration(-absl::Hours(24 * 365 * 1000)), "<invalid>");
  EXPECT_EQ(HumanDuration(absl::InfiniteDuration()), "292y");
}

// ---------------------------------------------------------------------------
// Table shape.

TEST(PrintTableTest, DeviceClassTableIsExactlyUpstreamsJson) {
  Json dc = Object("resource.k8s.io/v1", "DeviceClass", "gpu.nvidia.com-a100",
                   absl::Minutes(5));
  TableOptions options;
  options.resource_version = "105";
  Json table = Print({dc}, "resource.k8s.io", "DeviceClass", options);
  const std::string want =
      R"({"kind":"Table","apiVersion":"meta.k8s.io/v1",)"
      R"("metadata":{"resourceVersion":"105"},"columnDefinitions":[)"
      R"({"name":"Name","type":"string","format":"name","description":)"
      R"("Name must be unique within a namespace. Is required when creating )"
      R"(resources, although some resources may allow a client to request )"
      R"(the generation of an appropriate name automatically. Name is )"
      R"(primarily intended for creation idempotence and configuration )"
      R"(definition. Cannot be updated. More info: )"
      R"(https://kubernetes.io/docs/concepts/overview/working-with-objects/)"
      R"(names#names","priority":0},)"
      R"({"name":"Age","type":"string","format":"","description":)"
      R"("CreationTimestamp is a timestamp representing the server time when )"
      R"(this object was created. It is not guaranteed to be set in )"
      R"(happens-before order across separate operations. Clients may not set )"
      R"(this value. It is represented in RFC3339 form and is in UTC.\n\n)"
      R"(Populated by the system. Read-only. Null for lists. More info: )"
      R"(https://git.k8s.io/community/contributors/devel/sig-architecture/)"
      R"(api-conventions.md#metadata","priority":0}],)"
      R"("rows":[{"cells":["gpu.nvidia.com-a100","5m"],)"
      R"("object":{"kind":"PartialObjectMetadata","apiVersion":)"
      R"("meta.k8s.io/v1","metadata":{"name":"gpu.nvidia.com-a100",)"
      R"("uid":"gpu.nvidia.com-a100-uid","resourceVersion":"42",)"
      R"("creationTimestamp":"2026-03-01T11:55:00Z"}}}]})";
  EXPECT_EQ(api::DumpJson(table), want);
}

TEST(PrintTableTest, ListMetadataIsCopiedAndEmptyFieldsOmitted) {
  TableOptions options;
  options.resource_version = "7";
  options.continue_token = "abc";
  options.remaining_item_count = 3;
  Json table = Print({}, "", "Pod", options);
  EXPECT_EQ(
      api::DumpJson(table["metadata"]),
      R"({"resourceVersion":"7","continue":"abc","remainingItemCount":3})");
  // An empty list of a kind with its own printer has rows: [].
  EXPECT_EQ(api::DumpJson(table["rows"]), "[]");
  EXPECT_EQ(api::DumpJson(Print({}, "", "Pod")["metadata"]), "{}");
}

TEST(PrintTableTest, IncludeObjectChoosesWhatRowsCarry) {
  Json ns = Object("v1", "Namespace", "ml-workloads", absl::Hours(3),
                   Json{{"status", {{"phase", "Active"}}}});
  ns["metadata"]["labels"] = Json{{"team", "ml"}};

  TableOptions options;
  options.include_object = IncludeObject::kObject;
  Json table = Print({ns}, "", "Namespace", options);
  EXPECT_EQ(table["rows"][0]["object"], ns);

  options.include_object = IncludeObject::kNone;
  table = Print({ns}, "", "Namespace", options);
  EXPECT_EQ(api::DumpJson(table["rows"][0]),
            R"({"cells":["ml-workloads","Active","3h"],"object":null})");

  options.include_object = IncludeObject::kMetadata;
  table = Print({ns}, "", "Namespace", options);
  EXPECT_EQ(table["rows"][0]["object"]["kind"], "PartialObjectMetadata");
  EXPECT_EQ(table["rows"][0]["object"]["apiVersion"], "meta.k8s.io/v1");
  EXPECT_EQ(table["rows"][0]["object"]["metadata"], ns["metadata"]);
  EXPECT_FALSE(table["rows"][0]["object"].contains("status"));
}

TEST(PrintTableTest, NoHeadersLeavesColumnDefinitionsNull) {
  TableOptions options;
  options.no_headers = true;
  Json table = Print({}, "", "Pod", options);
  ASSERT_TRUE(table.contains("columnDefinitions"));
  EXPECT_TRUE(table["columnDefinitions"].is_null());
}

TEST(PrintTableTest, RejectsNonObjects) {
  TableOptions options;
  absl::StatusOr<Json> table =
      PrintTable({Json::object(), Json("x")}, "", "Pod", options);
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(table.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(table.status().message(), "objects[1] is not a JSON object");
}

TEST(PrintTableTest, WrongJsonTypesReadAsUnset) {
  Json pod =
      Object("v1", "Pod", "odd", absl::Seconds(30),
             Json{{"spec", {{"containers", "not-a-list"}}},
                  {"status", {{"phase", 7}, {"conditions", {{"x", 1}}}}}});
  pod["metadata"]["creationTimestamp"] = "yesterday";
  EXPECT_EQ(api::DumpJson(Cells(pod, "", "Pod")),
            R"(["odd","0/0","","0","<unknown>","<none>","<none>","<none>",)"
            R"("<none>"])");
}

TEST(ParseIncludeObjectTest, AcceptsUpstreamValues) {
  EXPECT_EQ(*ParseIncludeObject(""), IncludeObject::kMetadata);
  EXPECT_EQ(*ParseIncludeObject("Metadata"), IncludeObject::kMetadata);
  EXPECT_EQ(*ParseIncludeObject("Object"), IncludeObject::kObject);
  EXPECT_EQ(*ParseIncludeObject("None"), IncludeObject::kNone);
  absl::StatusOr<IncludeObject> bad = ParseIncludeObject("metadata");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(),
            "unrecognized includeObject value: \"metadata\"");
}

// ---------------------------------------------------------------------------
// Default table (kinds without their own columns).

TEST(DefaultTableTest, NameAndCreatedAt) {
  EXPECT_FALSE(HasKindColumns("", "ConfigMap"));
  EXPECT_EQ(
      Columns("", "ConfigMap"),
      (std::vector<std::string>{"Name|string|name|0", "Created At|date||0"}));
  Json cm = Object("v1", "ConfigMap", "settings", absl::Hours(24));
  EXPECT_EQ(api::DumpJson(Cells(cm, "", "ConfigMap")),
            R"(["settings","2026-02-28T12:00:00Z"])");
  // Other offsets and fractions print in UTC, whole seconds.
  cm["metadata"]["creationTimestamp"] = "2026-02-28T13:00:00.75+01:00";
  EXPECT_EQ(api::DumpJson(Cells(cm, "", "ConfigMap")),
            R"(["settings","2026-02-28T12:00:00Z"])");
  // No creation time: Go's zero time.
  cm["metadata"].erase("creationTimestamp");
  EXPECT_EQ(api::DumpJson(Cells(cm, "", "ConfigMap")),
            R"(["settings","0001-01-01T00:00:00Z"])");
}

TEST(DefaultTableTest, EmptyListHasNullRows) {
  Json table = Print({}, "example.com", "Widget");
  ASSERT_TRUE(table.contains("rows"));
  EXPECT_TRUE(table["rows"].is_null());
}

// ---------------------------------------------------------------------------
// resource.k8s.io

TEST(DeviceClassTest, NameAge) {
  EXPECT_TRUE(HasKindColumns("resource.k8s.io", "DeviceClass"));
  EXPECT_EQ(Columns("resource.k8s.io", "DeviceClass"),
            (std::vector<std::string>{"Name|string|name|0", "Age|string||0"}));
  // The guide's DeviceClass as served in v1beta1.
  Json dc = Object("resource.k8s.io/v1beta1", "DeviceClass",
                   "gpu.nvidia.com-h100", absl::Hours(49),
                   Json::parse(R"({"spec":{"selectors":[{"cel":{"expression":
                     "device.driver == 'gpu.nvidia.com'"}}]}})"));
  EXPECT_EQ(api::DumpJson(Cells(dc, "resource.k8s.io", "DeviceClass")),
            R"(["gpu.nvidia.com-h100","2d1h"])");
}

Json Claim(std::string_view api_version, const Json& status, bool deleting) {
  Json claim = Object(api_version, "ResourceClaim", "training-gpu-claim",
                      absl::Minutes(90));
  claim["metadata"]["namespace"] = "ml-workloads";
  if (deleting) claim["metadata"]["deletionTimestamp"] = Ago(absl::Seconds(5));
  claim["spec"] = Json::parse(R"({"devices":{"requests":[{"name":"gpu",
      "exactly":{"deviceClassName":"gpu.nvidia.com-a100","count":4}}]}})");
  if (!status.is_null()) claim["status"] = status;
  return claim;
}

TEST(ResourceClaimTest, StateAsUpstreamComputesIt) {
  EXPECT_EQ(Columns("resource.k8s.io", "ResourceClaim"),
            (std::vector<std::string>{"Name|string|name|0", "State|string||0",
                                      "Age|string||0"}));
  const Json allocation = Json::parse(R"({"allocation":{"devices":{"results":[
      {"request":"gpu","driver":"gpu.nvidia.com","pool":"node-1",
       "device":"gpu-0"}]}}})");
  Json reserved = allocation;
  reserved["reservedFor"] = Json::parse(
      R"([{"resource":"pods","name":"distributed-training","uid":"u1"}])");
  Json empty_reserved = allocation;
  empty_reserved["reservedFor"] = Json::array();

  struct Case {
    Json status;
    bool deleting;
    std::string want;
  };
  const std::vector<Case> cases = {
      {nullptr, false, "pending"},
      {Json::object(), false, "pending"},
      {allocation, false, "allocated"},
      {empty_reserved, false, "allocated"},
      {reserved, false, "allocated,reserved"},
      {nullptr, true, "deleted"},
      {allocation, true, "deleted,allocated"},
      {reserved, true, "deleted,allocated,reserved"},
  };
  for (const Case& c : cases) {
    for (std::string_view version :
         {"resource.k8s.io/v1", "resource.k8s.io/v1beta1"}) {
      Json cells = Cells(Claim(version, c.status, c.deleting),
                         "resource.k8s.io", "ResourceClaim");
      EXPECT_EQ(api::DumpJson(cells),
                R"(["training-gpu-claim",")" + c.want + R"(","90m"])")
          << api::DumpJson(c.status) << " deleting=" << c.deleting;
    }
  }
  // The State description is upstream's text.
  Json table = Print({}, "resource.k8s.io", "ResourceClaim");
  EXPECT_EQ(table["columnDefinitions"][1]["description"],
            "A summary of the current state (allocated, pending, reserved, "
            "etc.).");
}

TEST(ResourceClaimTemplateTest, NameAge) {
  EXPECT_EQ(Columns("resource.k8s.io", "ResourceClaimTemplate"),
            (std::vector<std::string>{"Name|string|name|0", "Age|string||0"}));
  Json rct = Object("resource.k8s.io/v1beta1", "ResourceClaimTemplate",
                    "mig-inference-template", absl::Hours(24 * 10));
  rct["metadata"]["namespace"] = "ml-workloads";
  EXPECT_EQ(
      api::DumpJson(Cells(rct, "resource.k8s.io", "ResourceClaimTemplate")),
      R"(["mig-inference-template","10d"])");
}

TEST(ResourceSliceTest, NodeDriverPoolAgeAndDraplaneDevicesColumn) {
  EXPECT_EQ(Columns("resource.k8s.io", "ResourceSlice"),
            (std::vector<std::string>{"Name|string|name|0", "Node|string||0",
                                      "Driver|string||0", "Pool|string||0",
                                      "Age|string||0", "Devices|integer||1"}));
  Json v1 = Object("resource.k8s.io/v1", "ResourceSlice",
                   "node-1-gpu.nvidia.com-abcde", absl::Hours(5),
                   Json::parse(R"({"spec":{"nodeName":"node-1",
                     "driver":"gpu.nvidia.com",
                     "pool":{"name":"node-1","generation":1,
                             "resourceSliceCount":1},
                     "devices":[{"name":"gpu-0"},{"name":"gpu-1"},
                                {"name":"gpu-2"}]}})"));
  EXPECT_EQ(api::DumpJson(Cells(v1, "resource.k8s.io", "ResourceSlice")),
            R"(["node-1-gpu.nvidia.com-abcde","node-1","gpu.nvidia.com",)"
            R"("node-1","5h",3])");
  // v1beta1 wraps each device in "basic"; the count is the same.
  Json v1beta1 = v1;
  v1beta1["apiVersion"] = "resource.k8s.io/v1beta1";
  v1beta1["spec"]["devices"] = Json::parse(
      R"([{"name":"gpu-0","basic":{}},{"name":"gpu-1","basic":{}},
          {"name":"gpu-2","basic":{}}])");
  EXPECT_EQ(Cells(v1beta1, "resource.k8s.io", "ResourceSlice"),
            Cells(v1, "resource.k8s.io", "ResourceSlice"));
  // A network-attached pool (allNodes) has no node name and, here, no
  // devices.
  Json shared =
      Object("resource.k8s.io/v1", "ResourceSlice", "fabric", absl::Seconds(30),
             Json::parse(R"({"spec":{"allNodes":true,
                         "driver":"net.example.com",
                         "pool":{"name":"fabric","generation":2,
                                 "resourceSliceCount":1}}})"));
  EXPECT_EQ(api::DumpJson(Cells(shared, "resource.k8s.io", "ResourceSlice")),
            R"(["fabric","","net.example.com","fabric","30s",0])");
}

TEST(DeviceTaintRuleTest, TaintColumns) {
  EXPECT_EQ(Columns("resource.k8s.io", "DeviceTaintRule"),
            (std::vector<std::string>{"Name|string|name|0", "Key|string||0",
                                      "Value|string||0", "Effect|string||0",
                                      "TimeAdded|string||0", "Age|string||0"}));
  Json rule = Object("resource.k8s.io/v1", "DeviceTaintRule", "gpu-0-broken",
                     absl::Hours(2),
                     Json{{"spec",
                           {{"deviceSelector",
                             {{"driver", "gpu.nvidia.com"},
                              {"pool", "node-1"},
                              {"device", "gpu-0"}}},
                            {"taint",
                             {{"key", "example.com/unhealthy"},
                              {"value", "ecc"},
                              {"effect", "NoExecute"},
                              {"timeAdded", Ago(absl::Minutes(30))}}}}}});
  EXPECT_EQ(api::DumpJson(Cells(rule, "resource.k8s.io", "DeviceTaintRule")),
            R"(["gpu-0-broken","example.com/unhealthy","ecc","NoExecute",)"
            R"("30m","120m"])");
  // No timeAdded: an empty cell (upstream prints "" for a nil pointer).
  rule["spec"]["taint"].erase("timeAdded");
  rule["spec"]["taint"].erase("value");
  EXPECT_EQ(api::DumpJson(Cells(rule, "resource.k8s.io", "DeviceTaintRule")),
            R"(["gpu-0-broken","example.com/unhealthy","","NoExecute","",)"
            R"("120m"])");
}

// ---------------------------------------------------------------------------
// core/v1

TEST(NamespaceTest, NameStatusAge) {
  EXPECT_EQ(Columns("", "Namespace"),
            (std::vector<std::string>{"Name|string|name|0", "Status|string||0",
                                      "Age|string||0"}));
  Json ns = Object("v1", "Namespace", "ml-workloads", absl::Hours(24 * 30),
                   Json{{"status", {{"phase", "Terminating"}}}});
  EXPECT_EQ(api::DumpJson(Cells(ns, "", "Namespace")),
            R"(["ml-workloads","Terminating","30d"])");
}

TEST(NodeTest, StatusRolesVersionAndWideColumns) {
  EXPECT_EQ(Columns("", "Node"),
            (std::vector<std::string>{
                "Name|string|name|0", "Status|string||0", "Roles|string||0",
                "Age|string||0", "Version|string||0", "Internal-IP|string||1",
                "External-IP|string||1", "OS-Image|string||1",
                "Kernel-Version|string||1", "Container-Runtime|string||1"}));
  Json node = Object("v1", "Node", "node-1", absl::Hours(72), Json::parse(R"({
    "spec":{"unschedulable":true},
    "status":{
      "conditions":[{"type":"MemoryPressure","status":"False"},
                    {"type":"Ready","status":"True"}],
      "addresses":[{"type":"Hostname","address":"node-1"},
                   {"type":"InternalIP","address":"10.0.0.11"},
                   {"type":"InternalIP","address":"10.0.0.12"},
                   {"type":"ExternalIP","address":"203.0.113.7"}],
      "nodeInfo":{"kubeletVersion":"v1.32.4","osImage":"Ubuntu 22.04.4 LTS",
                  "kernelVersion":"5.15.0-105-generic",
                  "containerRuntimeVersion":"containerd://1.7.13",
                  "architecture":"amd64"}}})"));
  node["metadata"]["labels"] =
      Json{{"node-role.kubernetes.io/worker", ""},
           {"node-role.kubernetes.io/", ""},
           {"kubernetes.io/role", "gpu"},
           {"node-role.kubernetes.io/control-plane", ""},
           {"nvidia.com/gpu.present", "true"}};
  EXPECT_EQ(
      api::DumpJson(Cells(node, "", "Node")),
      R"(["node-1","Ready,SchedulingDisabled","control-plane,gpu,worker",)"
      R"("3d","v1.32.4","10.0.0.11","203.0.113.7","Ubuntu 22.04.4 LTS",)"
      R"j("5.15.0-105-generic (amd64)","containerd://1.7.13"])j");

  Json bare = Object("v1", "Node", "node-2", absl::Seconds(10),
                     Json::parse(R"({"status":{"conditions":[
                       {"type":"Ready","status":"Unknown"}]}})"));
  EXPECT_EQ(api::DumpJson(Cells(bare, "", "Node")),
            R"(["node-2","NotReady","<none>","10s","","<none>","<none>",)"
            R"("<unknown>","<unknown>","<unknown>"])");

  // No Ready condition at all; the last Ready condition wins otherwise.
  Json unknown = Object("v1", "Node", "node-3", absl::Seconds(10));
  EXPECT_EQ(Cells(unknown, "", "Node")[1], "Unknown");
  unknown["status"] = Json::parse(R"({"conditions":[
      {"type":"Ready","status":"True"},{"type":"Ready","status":"False"}]})");
  EXPECT_EQ(Cells(unknown, "", "Node")[1], "NotReady");
}

Json Pod(std::string_view name, absl::Duration age, std::string_view rest) {
  Json pod = Object("v1", "Pod", name, age, Json::parse(rest));
  pod["metadata"]["namespace"] = "ml-workloads";
  return pod;
}

TEST(PodTest, Columns) {
  EXPECT_EQ(Columns("", "Pod"),
            (std::vector<std::string>{
                "Name|string|name|0", "Ready|string||0", "Status|string||0",
                "Restarts|string||0", "Age|string||0", "IP|string||1",
                "Node|string||1", "Nominated Node|string||1",
                "Readiness Gates|string||1"}));
}

TEST(PodTest, RunningPodWithWideCells) {
  // The guide's distributed-training pod, bound and running.
  Json pod = Pod("distributed-training", absl::Minutes(5), R"({
    "spec":{"nodeName":"node-1","containers":[
      {"name":"trainer","image":"nvcr.io/nvidia/pytorch:24.01-py3"}]},
    "status":{"phase":"Running","podIP":"10.244.1.5",
      "podIPs":[{"ip":"10.244.1.5"},{"ip":"fd00::5"}],
      "conditions":[{"type":"Initialized","status":"True"},
                    {"type":"Ready","status":"True"}],
      "containerStatuses":[{"name":"trainer","ready":true,"restartCount":0,
        "started":true,"state":{"running":{"startedAt":"2026-03-01T11:56:00Z"}}}]}})");
  Json table = Print({pod}, "", "Pod");
  EXPECT_EQ(api::DumpJson(table["rows"][0]["cells"]),
            R"(["distributed-training","1/1","Running","0","5m","10.244.1.5",)"
            R"("node-1","<none>","<none>"])");
  EXPECT_FALSE(table["rows"][0].contains("conditions"));
}

TEST(PodTest, PendingPodWithoutStatuses) {
  Json pod = Pod("quick-gpu-job", absl::Seconds(3), R"({
    "spec":{"containers":[{"name":"compute"}]},
    "status":{"phase":"Pending"}})");
  EXPECT_EQ(api::DumpJson(Cells(pod, "", "Pod")),
            R"(["quick-gpu-job","0/1","Pending","0","3s","<none>","<none>",)"
            R"("<none>","<none>"])");
}

TEST(PodTest, CompletedPodHasCompletedRowCondition) {
  Json pod = Pod("batch-1", absl::Hours(1), R"({
    "spec":{"containers":[{"name":"main"}]},
    "status":{"phase":"Succeeded",
      "conditions":[{"type":"Ready","status":"False"}],
      "containerStatuses":[{"name":"main","ready":false,"restartCount":0,
        "state":{"terminated":{"exitCode":0,"reason":"Completed"}}}]}})");
  Json table = Print({pod}, "", "Pod");
  EXPECT_EQ(table["rows"][0]["cells"][1], "0/1");
  EXPECT_EQ(table["rows"][0]["cells"][2], "Completed");
  EXPECT_EQ(api::DumpJson(table["rows"][0]["conditions"]),
            R"([{"type":"Completed","status":"True","reason":"Succeeded",)"
            R"("message":"The pod has completed successfully."}])");
  // Deleting a finished pod does not make it Terminating.
  pod["metadata"]["deletionTimestamp"] = Ago(absl::Seconds(1));
  EXPECT_EQ(Cells(pod, "", "Pod")[2], "Completed");
}

TEST(PodTest, FailedPodShowsTheFailingContainersReason) {
  // The last container completed, another failed: upstream reports the
  // error instead of "Completed".
  Json pod = Pod("two", absl::Hours(1), R"({
    "spec":{"containers":[{"name":"a"},{"name":"b"}]},
    "status":{"phase":"Failed",
      "containerStatuses":[
        {"name":"a","state":{"terminated":{"exitCode":0,"reason":"Completed"}}},
        {"name":"b","state":{"terminated":{"exitCode":1,"reason":"Error"}}}]}})");
  // Statuses are walked from the last: b sets "Error", a sets "Completed",
  // and the error wins.
  Json table = Print({pod}, "", "Pod");
  EXPECT_EQ(table["rows"][0]["cells"][2], "Error");
  EXPECT_EQ(api::DumpJson(table["rows"][0]["conditions"]),
            R"([{"type":"Completed","status":"True","reason":"Failed",)"
            R"("message":"The pod failed."}])");
  // Without a reason: ExitCode or Signal.
  pod["status"]["containerStatuses"] = Json::parse(R"([
      {"name":"a","state":{"terminated":{"exitCode":137,"signal":9}}}])");
  EXPECT_EQ(Cells(pod, "", "Pod")[2], "Signal:9");
  pod["status"]["containerStatuses"] = Json::parse(R"([
      {"name":"a","state":{"terminated":{"exitCode":3}}}])");
  EXPECT_EQ(Cells(pod, "", "Pod")[2], "ExitCode:3");
}

TEST(PodTest, CrashLoopBackOffWithRestartsAgo) {
  Json pod = Pod("trainer-0", absl::Hours(2), R"({
    "spec":{"containers":[{"name":"trainer"}]},
    "status":{"phase":"Running",
      "containerStatuses":[{"name":"trainer","ready":false,"restartCount":4,
        "state":{"waiting":{"reason":"CrashLoopBackOff",
                            "message":"back-off 1m20s"}},
        "lastState":{"terminated":{"exitCode":1,"reason":"Error",
                     "finishedAt":"2026-03-01T11:55:00Z"}}}]}})");
  EXPECT_EQ(api::DumpJson(Cells(pod, "", "Pod")),
            R"j(["trainer-0","0/1","CrashLoopBackOff","4 (5m ago)","120m",)j"
            R"("<none>","<none>","<none>","<none>"])");
  // Restarts without a recorded termination time print the bare count.
  pod["status"]["containerStatuses"][0].erase("lastState");
  EXPECT_EQ(Cells(pod, "", "Pod")[3], "4");
}

TEST(PodTest, TerminatingAndNodeLost) {
  Json pod = Pod("web", absl::Minutes(10), R"({
    "spec":{"containers":[{"name":"web"}]},
    "status":{"phase":"Running",
      "containerStatuses":[{"name":"web","ready":true,
        "state":{"running":{}}}]}})");
  pod["metadata"]["deletionTimestamp"] = Ago(absl::Seconds(2));
  EXPECT_EQ(api::DumpJson(Cells(pod, "", "Pod")),
            R"(["web","1/1","Terminating","0","10m","<none>","<none>",)"
            R"("<none>","<none>"])");
  pod["status"]["reason"] = "NodeLost";
  EXPECT_EQ(Cells(pod, "", "Pod")[2], "Unknown");
}

TEST(PodTest, InitContainerStates) {
  const std::string spec =
      R"("spec":{"initContainers":[{"name":"init"}],
                 "containers":[{"name":"app"}]})";
  auto pod_with_init_status = [&](std::string_view init_status) {
    return Pod("init-pod", absl::Minutes(1),
               "{" + spec + R"(,"status":{"phase":"Pending",
                 "conditions":[{"type":"Initialized","status":"False"}],
                 "initContainerStatuses":[)" +
                   std::string(init_status) +
                   R"(],"containerStatuses":[{"name":"app","ready":false,
                 "state":{"waiting":{"reason":"PodInitializing"}}}]}})");
  };
  // Running (or waiting to initialize): Init:<index>/<count>.
  EXPECT_EQ(
      api::DumpJson(Cells(
          pod_with_init_status(R"({"name":"init","state":{"running":{}}})"), "",
          "Pod")),
      R"(["init-pod","0/1","Init:0/1","0","60s","<none>","<none>",)"
      R"("<none>","<none>"])");
  EXPECT_EQ(Cells(pod_with_init_status(R"({"name":"init","state":{"waiting":
                      {"reason":"PodInitializing"}}})"),
                  "", "Pod")[2],
            "Init:0/1");
  // A waiting reason: Init:<reason>, with the init container's restarts.
  Json crashing = pod_with_init_status(R"({"name":"init","restartCount":3,
      "state":{"waiting":{"reason":"CrashLoopBackOff"}},
      "lastState":{"terminated":{"exitCode":1,
                                 "finishedAt":"2026-03-01T11:58:00Z"}}})");
  EXPECT_EQ(Cells(crashing, "", "Pod")[2], "Init:CrashLoopBackOff");
  EXPECT_EQ(Cells(crashing, "", "Pod")[3], "3 (2m ago)");
  // Failed: Init:<reason>, Init:Signal:N, Init:ExitCode:N.
  EXPECT_EQ(Cells(pod_with_init_status(R"({"name":"init","state":{"terminated":
                      {"exitCode":1,"reason":"Error"}}})"),
                  "", "Pod")[2],
            "Init:Error");
  EXPECT_EQ(Cells(pod_with_init_status(R"({"name":"init","state":{"terminated":
                      {"exitCode":137,"signal":9}}})"),
                  "", "Pod")[2],
            "Init:Signal:9");
  EXPECT_EQ(Cells(pod_with_init_status(R"({"name":"init","state":{"terminated":
                      {"exitCode":2}}})"),
                  "", "Pod")[2],
            "Init:ExitCode:2");
  // A finished init container is skipped; the next one is reported.
  Json two = Pod("init-pod", absl::Minutes(1), R"({
    "spec":{"initContainers":[{"name":"a"},{"name":"b"}],
            "containers":[{"name":"app"}]},
    "status":{"phase":"Pending","initContainerStatuses":[
      {"name":"a","state":{"terminated":{"exitCode":0,"reason":"Completed"}}},
      {"name":"b","state":{"running":{}}}]}})");
  EXPECT_EQ(Cells(two, "", "Pod")[2], "Init:1/2");
  // All init containers done: the app container's state counts.
  two["status"]["initContainerStatuses"][1]["state"] =
      Json::parse(R"({"terminated":{"exitCode":0,"reason":"Completed"}})");
  two["status"]["containerStatuses"] = Json::parse(
      R"([{"name":"app","state":{"waiting":{"reason":"ContainerCreating"}}}])");
  EXPECT_EQ(Cells(two, "", "Pod")[2], "ContainerCreating");
}

TEST(PodTest, SidecarInitContainersCountAsContainers) {
  Json pod = Pod("with-sidecar", absl::Hours(1), R"({
    "spec":{"initContainers":[{"name":"proxy","restartPolicy":"Always"}],
            "containers":[{"name":"app"}]},
    "status":{"phase":"Running",
      "conditions":[{"type":"Initialized","status":"True"},
                    {"type":"Ready","status":"True"}],
      "initContainerStatuses":[{"name":"proxy","started":true,"ready":true,
        "restartCount":2,"state":{"running":{}},
        "lastState":{"terminated":{"exitCode":1,
                                   "finishedAt":"2026-03-01T11:50:00Z"}}}],
      "containerStatuses":[{"name":"app","ready":true,"restartCount":1,
        "state":{"running":{}},
        "lastState":{"terminated":{"exitCode":1,
                                   "finishedAt":"2026-03-01T11:57:00Z"}}}]}})");
  EXPECT_EQ(api::DumpJson(Cells(pod, "", "Pod")),
            R"j(["with-sidecar","2/2","Running","3 (3m ago)","60m","<none>",)j"
            R"("<none>","<none>","<none>"])");
}

TEST(PodTest, CompletedContainerNextToARunningOne) {
  Json pod = Pod("mixed", absl::Minutes(4), R"({
    "spec":{"containers":[{"name":"a"},{"name":"b"}]},
    "status":{"phase":"Running",
      "conditions":[{"type":"Ready","status":"True"}],
      "containerStatuses":[
        {"name":"a","state":{"terminated":{"exitCode":0,"reason":"Completed"}}},
        {"name":"b","ready":true,"state":{"running":{}}}]}})");
  EXPECT_EQ(Cells(pod, "", "Pod")[1], "1/2");
  EXPECT_EQ(Cells(pod, "", "Pod")[2], "Running");
  pod["status"]["conditions"][0]["status"] = "False";
  EXPECT_EQ(Cells(pod, "", "Pod")[2], "NotReady");
}

TEST(PodTest, SchedulingGated) {
  Json pod = Pod("gated", absl::Seconds(20), R"({
    "spec":{"containers":[{"name":"a"}],"schedulingGates":[{"name":"x"}]},
    "status":{"phase":"Pending","conditions":[{"type":"PodScheduled",
      "status":"False","reason":"SchedulingGated"}]}})");
  EXPECT_EQ(Cells(pod, "", "Pod")[2], "SchedulingGated");
}

TEST(PodTest, WideCellsFallBackAndCountReadinessGates) {
  Json pod = Pod("gates", absl::Seconds(20), R"({
    "spec":{"containers":[{"name":"a"}],
            "readinessGates":[{"conditionType":"example.com/lb"},
                              {"conditionType":"example.com/dns"}]},
    "status":{"phase":"Pending","podIP":"10.1.1.1",
      "nominatedNodeName":"node-2",
      "conditions":[{"type":"example.com/lb","status":"True"},
                    {"type":"example.com/dns","status":"False"}]}})");
  EXPECT_EQ(api::DumpJson(Cells(pod, "", "Pod")),
            R"(["gates","0/1","Pending","0","20s","10.1.1.1","<none>",)"
            R"("node-2","1/2"])");
}

TEST(EventTest, ColumnsAndClassicEvent) {
  EXPECT_EQ(Columns("", "Event"),
            (std::vector<std::string>{
                "Last Seen|string||0", "Type|string||0", "Reason|string||0",
                "Object|string||0", "Subobject|string||1", "Source|string||1",
                "Message|string||0", "First Seen|string||1", "Count|string||1",
                "Name|string|name|1"}));
  Json event = Object("v1", "Event", "distributed-training.17a9c",
                      absl::Minutes(90), Json::parse(R"({
    "involvedObject":{"kind":"Pod","namespace":"ml-workloads",
                      "name":"distributed-training",
                      "fieldPath":"spec.containers{trainer}"},
    "reason":"Pulled","message":"  Successfully pulled image\n",
    "source":{"component":"kubelet","host":"node-1"},
    "count":3,"type":"Normal"})"));
  event["firstTimestamp"] = Ago(absl::Minutes(90));
  event["lastTimestamp"] = Ago(absl::Minutes(2));
  EXPECT_EQ(api::DumpJson(Cells(event, "", "Event")),
            R"(["2m","Normal","Pulled","pod/distributed-training",)"
            R"("spec.containers{trainer}","kubelet, node-1",)"
            R"("Successfully pulled image","90m",3,)"
            R"("distributed-training.17a9c"])");
}

TEST(EventTest, EventsApiEventWithSeries) {
  Json event = Object("v1", "Event", "training-gpu-claim.1", absl::Minutes(1),
                      Json::parse(R"({
    "involvedObject":{"kind":"ResourceClaim","namespace":"ml-workloads",
                      "name":"training-gpu-claim"},
    "reason":"FailedScheduling","message":"0/3 nodes are available",
    "source":{},"firstTimestamp":null,"lastTimestamp":null,
    "type":"Warning","eventTime":"2026-03-01T11:58:59.876543Z",
    "series":{"count":5,"lastObservedTime":"2026-03-01T11:59:30.000000Z"},
    "reportingComponent":"draplane-scheduler","reportingInstance":""})"));
  EXPECT_EQ(api::DumpJson(Cells(event, "", "Event")),
            R"(["30s","Warning","FailedScheduling",)"
            R"("resourceclaim/training-gpu-claim","","draplane-scheduler",)"
            R"("0/3 nodes are available","60s",5,"training-gpu-claim.1"])");
}

TEST(EventTest, SingletonEventsCountOne) {
  Json event =
      Object("v1", "Event", "node-3.1", absl::Seconds(10), Json::parse(R"({
    "involvedObject":{"kind":"Node","name":""},
    "reason":"NodeReady","type":"Normal",
    "eventTime":"2026-03-01T11:59:50.000000Z",
    "reportingComponent":"kubelet","reportingInstance":"node-3"})"));
  EXPECT_EQ(api::DumpJson(Cells(event, "", "Event")),
            R"(["10s","Normal","NodeReady","node","","kubelet, node-3","",)"
            R"("10s",1,"node-3.1"])");
  // Neither firstTimestamp nor eventTime.
  event.erase("eventTime");
  EXPECT_EQ(Cells(event, "", "Event")[0], "<unknown>");
  EXPECT_EQ(Cells(event, "", "Event")[7], "<unknown>");
}

TEST(ResourceQuotaTest, RequestAndLimitColumns) {
  EXPECT_EQ(Columns("", "ResourceQuota"),
            (std::vector<std::string>{"Name|string|name|0", "Request|string||0",
                                      "Limit|string||0", "Age|string||0"}));
  Json quota = Object("v1", "ResourceQuota", "gpu-quota", absl::Hours(24 * 1),
                      Json::parse(R"({
    "spec":{"hard":{"pods":"10"}},
    "status":{
      "hard":{"pods":"10","cpu":"1","limits.memory":"2Gi",
              "requests.memory":"1Gi",
              "count/resourceclaims.resource.k8s.io":"4"},
      "used":{"cpu":"1000m","pods":3,
              "count/resourceclaims.resource.k8s.io":"1"}}})"));
  EXPECT_EQ(api::DumpJson(Cells(quota, "", "ResourceQuota")),
            R"(["gpu-quota","count/resourceclaims.resource.k8s.io: 1/4, )"
            R"(cpu: 1/1, pods: 3/10, requests.memory: 0/1Gi",)"
            R"("limits.memory: 0/2Gi","24h"])");
  // Before the quota controller has filled the status.
  quota.erase("status");
  EXPECT_EQ(api::DumpJson(Cells(quota, "", "ResourceQuota")),
            R"(["gpu-quota","","","24h"])");
}

// ---------------------------------------------------------------------------
// coordination.k8s.io, apps, batch

TEST(LeaseTest, Holder) {
  EXPECT_EQ(Columns("coordination.k8s.io", "Lease"),
            (std::vector<std::string>{"Name|string|name|0", "Holder|string||0",
                                      "Age|string||0"}));
  Json lease = Object(
      "coordination.k8s.io/v1", "Lease", "node-1",
      absl::Hours(24 * 3) + absl::Hours(4),
      Json{{"spec",
            {{"holderIdentity", "node-1"}, {"leaseDurationSeconds", 40}}}});
  EXPECT_EQ(api::DumpJson(Cells(lease, "coordination.k8s.io", "Lease")),
            R"(["node-1","node-1","3d4h"])");
  lease["spec"].erase("holderIdentity");
  EXPECT_EQ(Cells(lease, "coordination.k8s.io", "Lease")[1], "");
}

TEST(DeploymentTest, SeedDeployment) {
  EXPECT_EQ(Columns("apps", "Deployment"),
            (std::vector<std::string>{
                "Name|string|name|0", "Ready|string||0", "Up-to-date|string||0",
                "Available|string||0", "Age|string||0", "Containers|string||1",
                "Images|string||1", "Selector|string||1"}));
  Json deployment = Object("apps/v1", "Deployment", "llm-inference-service",
                           absl::Minutes(45), Json::parse(R"({
    "spec":{"replicas":6,"selector":{"matchLabels":{"app":"llm-inference"}},
      "template":{"metadata":{"labels":{"app":"llm-inference"}},
        "spec":{"containers":[
          {"name":"inference-server",
           "image":"nvcr.io/nvidia/tritonserver:24.01-py3"},
          {"name":"metrics","image":"prom/exporter:1"}]}}},
    "status":{"replicas":6,"updatedReplicas":6,"readyReplicas":4,
              "availableReplicas":4}})"));
  EXPECT_EQ(api::DumpJson(Cells(deployment, "apps", "Deployment")),
            R"(["llm-inference-service","4/6",6,4,"45m",)"
            R"("inference-server,metrics",)"
            R"("nvcr.io/nvidia/tritonserver:24.01-py3,prom/exporter:1",)"
            R"("app=llm-inference"])");
}

TEST(DeploymentTest, SelectorStringsAndDefaults) {
  Json deployment =
      Object("apps/v1", "Deployment", "d", absl::Seconds(5), Json::parse(R"({
    "spec":{"selector":{"matchLabels":{"tier":"web","app":"x"},
      "matchExpressions":[
        {"key":"env","operator":"In","values":["prod","dev"]},
        {"key":"zone","operator":"NotIn","values":["b"]},
        {"key":"canary","operator":"DoesNotExist"},
        {"key":"gpu","operator":"Exists"}]}},
    "status":{}})"));
  // Sorted by key; in/notin values sorted. No spec.replicas: apps/v1
  // defaulting's 1.
  EXPECT_EQ(
      api::DumpJson(Cells(deployment, "apps", "Deployment")),
      R"(["d","0/1",0,0,"5s","","",)"
      R"j("app=x,!canary,env in (dev,prod),gpu,tier=web,zone notin (b)"])j");
  // What upstream's LabelSelectorAsSelector refuses.
  for (
      const char* bad : {
          R"({"matchExpressions":[{"key":"a","operator":"Gt","values":["1"]}]})",
          R"({"matchExpressions":[{"key":"a","operator":"In"}]})",
          R"({"matchExpressions":[{"key":"a","operator":"Exists",
               "values":["x"]}]})",
          R"({"matchLabels":{"bad key":"x"}})",
          R"({"matchLabels":{"a":"bad value!"}})",
      }) {
    deployment["spec"]["selector"] = Json::parse(bad);
    EXPECT_EQ(Cells(deployment, "apps", "Deployment")[7], "<invalid>") << bad;
  }
  // Absent and empty selectors print as "".
  deployment["spec"]["selector"] = Json::object();
  EXPECT_EQ(Cells(deployment, "apps", "Deployment")[7], "");
  deployment["spec"].erase("selector");
  EXPECT_EQ(Cells(deployment, "apps", "Deployment")[7], "");
  deployment["spec"]["selector"] =
      Json{{"matchLabels", {{"example.com/app", "a.b-c_d"}}}};
  EXPECT_EQ(Cells(deployment, "apps", "Deployment")[7],
            "example.com/app=a.b-c_d");
}

Json Job(std::string_view name, absl::Duration age, std::string_view rest) {
  Json job = Object("batch/v1", "Job", name, age, Json::parse(rest));
  job["metadata"]["namespace"] = "ml-workloads";
  return job;
}

TEST(JobTest, Columns) {
  EXPECT_EQ(
      Columns("batch", "Job"),
      (std::vector<std::string>{"Name|string|name|0", "Status|string||0",
                                "Completions|string||0", "Duration|string||0",
                                "Age|string||0", "Containers|string||1",
                                "Images|string||1", "Selector|string||1"}));
}

TEST(JobTest, CompleteJob) {
  Json job = Job("pi", absl::Minutes(10), R"({
    "spec":{"completions":1,"parallelism":1,
      "selector":{"matchLabels":{"batch.kubernetes.io/controller-uid":"u-1"}},
      "template":{"spec":{"containers":[{"name":"pi","image":"perl:5.34"}]}}},
    "status":{"succeeded":1,"startTime":"2026-03-01T11:50:00Z",
      "completionTime":"2026-03-01T11:52:00Z",
      "conditions":[{"type":"SuccessCriteriaMet","status":"True"},
                    {"type":"Complete","status":"True"}]}})");
  EXPECT_EQ(api::DumpJson(Cells(job, "batch", "Job")),
            R"(["pi","Complete","1/1","2m","10m","pi","perl:5.34",)"
            R"("batch.kubernetes.io/controller-uid=u-1"])");
}

TEST(JobTest, RunningParallelJob) {
  Json job = Job("sweep", absl::Seconds(100), R"({
    "spec":{"parallelism":3},
    "status":{"startTime":"2026-03-01T11:58:30Z","active":3}})");
  EXPECT_EQ(api::DumpJson(Cells(job, "batch", "Job")),
            R"(["sweep","Running","0/1 of 3","90s","100s","","","<none>"])");
  job["spec"]["parallelism"] = 1;
  EXPECT_EQ(Cells(job, "batch", "Job")[2], "0/1");
}

TEST(JobTest, StatusPrecedence) {
  struct Case {
    std::string conditions;
    bool deleting;
    std::string want;
  };
  const std::vector<Case> cases = {
      {R"([{"type":"Failed","status":"True"}])", false, "Failed"},
      {R"([{"type":"Failed","status":"True"}])", true, "Failed"},
      {"[]", true, "Terminating"},
      {R"([{"type":"Suspended","status":"True"}])", false, "Suspended"},
      {R"([{"type":"FailureTarget","status":"True"}])", false, "FailureTarget"},
      {R"([{"type":"SuccessCriteriaMet","status":"True"}])", false,
       "SuccessCriteriaMet"},
      {R"([{"type":"Suspended","status":"False"}])", false, "Running"},
      // The first condition of a type decides.
      {R"([{"type":"Complete","status":"False"},
           {"type":"Complete","status":"True"}])",
       false, "Running"},
  };
  for (const Case& c : cases) {
    Json job = Job("j", absl::Minutes(1),
                   R"({"spec":{"completions":2},"status":{"succeeded":1,
                       "conditions":)" +
                       c.conditions + "}}");
    if (c.deleting)
      job["metadata"]["deletionTimestamp"] = Ago(absl::Seconds(1));
    Json cells = Cells(job, "batch", "Job");
    EXPECT_EQ(cells[1], c.want) << c.conditions;
    EXPECT_EQ(cells[2], "1/2");
    EXPECT_EQ(cells[3], "");  // No startTime.
  }
}

}  // namespace
}  // namespace draplane::printers

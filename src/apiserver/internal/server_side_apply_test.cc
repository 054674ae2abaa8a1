#include "apiserver/internal/server_side_apply.h"

#include <random>
#include <string>
#include <vector>

#include "apiserver/internal/resources.h"
#include "common/str_cat.h"
#include "gtest/gtest.h"

namespace draplane::apiserver::internal {
namespace {

using api::Json;

// ------------------------------------------------------------- reference
// The definition RecordUpdateManager must match: every leaf of next's field
// set (FieldSetOf) whose value differs from current's, each looked up from
// the root (ValueAt).

// The fieldsV1 a new "Update" entry gets for `next` over `current`.
Json ExpectedFields(const ResourceInfo& r, const Json& current,
                    const Json& next) {
  Json mine = Json::object();
  for (const FieldSetPath& p : LeavesOf(FieldSetOf(r, next))) {
    const Json* before = ValueAt(current, p);
    const Json* after = ValueAt(next, p);
    if (before != nullptr && after != nullptr && *before == *after) continue;
    Json* node = &mine;
    for (const std::string& segment : p) {
      Json& child = (*node)[segment];
      if (!child.is_object()) child = Json::object();
      node = &child;
    }
    if (!p.empty() && p.back()[0] == 'k') (*node)["."] = Json::object();
  }
  return mine;
}

// ------------------------------------------------------------- mutations
// Random edits of a JSON object: scalars changed, members dropped or
// added, list elements dropped, duplicated with a new key or reordered.
void Mutate(Json& value, std::mt19937& rng, int depth = 0) {
  std::uniform_int_distribution<int> pct(0, 99);
  if (value.is_object()) {
    std::vector<std::string> keys;
    for (auto it = value.begin(); it != value.end(); ++it) {
      keys.push_back(it.key());
    }
    for (const std::string& key : keys) {
      const int roll = pct(rng);
      if (depth > 0 && roll < 5) {
        value.erase(key);
      } else if (roll < 60) {
        Mutate(value[key], rng, depth + 1);
      }
    }
    if (pct(rng) < 5) value[StrCat("extra", pct(rng))] = pct(rng);
  } else if (value.is_array()) {
    if (!value.empty() && pct(rng) < 15) {
      value.erase(value.begin() + pct(rng) % value.size());
    }
    if (!value.empty() && pct(rng) < 15) {
      // A copy under new merge keys (lists with duplicate keys are
      // invalid: upstream's field manager rejects them).
      static int serial = 0;
      Json copy = value[pct(rng) % value.size()];
      if (copy.is_object()) {
        for (const char* key : {"name", "type", "uid", "key"}) {
          if (copy.contains(key)) copy[key] = StrCat("new", ++serial);
        }
        value.push_back(std::move(copy));
      }
    }
    if (value.size() > 1 && pct(rng) < 10) std::swap(value[0], value[1]);
    for (Json& element : value) {
      if (pct(rng) < 40) Mutate(element, rng, depth + 1);
    }
  } else if (value.is_string()) {
    if (pct(rng) < 30) value = StrCat(value.get<std::string>(), "x");
  } else if (value.is_number_integer()) {
    if (pct(rng) < 30) value = value.get<int64_t>() + 1;
  } else if (value.is_boolean()) {
    if (pct(rng) < 30) value = !value.get<bool>();
  }
}

const Json kPod = Json::parse(R"({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "p", "namespace": "default", "uid": "u1",
               "labels": {"app": "train", "tier": "gold"},
               "finalizers": ["a/b", "c/d"]},
  "spec": {
    "nodeName": "",
    "containers": [
      {"name": "main", "image": "img:1", "args": ["--x", "--y"],
       "resources": {"claims": [{"name": "gpus"}, {"name": "nic"}],
                     "limits": {"cpu": "1"}},
       "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]},
      {"name": "side", "image": "img:2"}],
    "tolerations": [{"key": "k", "operator": "Exists"}],
    "resourceClaims": [{"name": "gpus", "resourceClaimName": "c1"},
                       {"name": "nic", "resourceClaimTemplateName": "t"}],
    "nodeSelector": {"gpu": "a100"}},
  "status": {"phase": "Pending",
             "conditions": [{"type": "PodScheduled", "status": "False"}]}
})");

const Json kClaim = Json::parse(R"({
  "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
  "metadata": {"name": "c", "namespace": "default",
               "finalizers": ["resource.kubernetes.io/delete-protection"]},
  "spec": {"devices": {
    "requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu",
                  "count": 2, "selectors": [{"cel": {"expression": "true"}}]}}],
    "constraints": [{"requests": ["gpu"], "matchAttribute": "x/y"}]}},
  "status": {
    "allocation": {"devices": {"results": [
      {"request": "gpu", "driver": "d", "pool": "p", "device": "g0"},
      {"request": "gpu", "driver": "d", "pool": "p", "device": "g1"}]},
      "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}},
    "reservedFor": [{"resource": "pods", "name": "p", "uid": "u1"},
                    {"resource": "pods", "name": "q", "uid": "u2"}]}
})");

// The recorded entry owns exactly the changed leaves, for random pairs of
// objects (the implementation skips members equal in both; the reference
// compares every leaf).
TEST(RecordUpdateManagerTest, OwnsExactlyTheChangedLeaves) {
  std::mt19937 rng(7);
  int compared = 0, non_trivial = 0;
  for (const auto& [group, resource, base] :
       {std::tuple<std::string, std::string, Json>{"", "pods", kPod},
        {"resource.k8s.io", "resourceclaims", kClaim}}) {
    const ResourceInfo* r = FindResource(group, resource);
    ASSERT_NE(r, nullptr);
    for (int i = 0; i < 400; ++i) {
      Json current = base;
      if (i % 2 == 1) Mutate(current, rng);
      Json next = current;
      Mutate(next, rng);
      const Json expected = ExpectedFields(*r, current, next);
      Json recorded = next;
      RecordUpdateManager(*r, i % 7 == 0 ? Json() : current, recorded, "m",
                          "v1", "", absl::FromUnixSeconds(1767225600));
      const Json managed =
          recorded["metadata"].value("managedFields", Json::array());
      if (i % 7 == 0) continue;  // creation: every field (checked below)
      ++compared;
      if (expected.empty()) {
        EXPECT_TRUE(managed.empty()) << managed.dump();
        continue;
      }
      ++non_trivial;
      ASSERT_EQ(managed.size(), 1u) << managed.dump();
      EXPECT_EQ(managed[0]["fieldsV1"], expected)
          << "current: " << current.dump() << "\nnext: " << next.dump();
    }
  }
  EXPECT_GT(non_trivial, 200);
  EXPECT_GT(compared, non_trivial);
}

TEST(RecordUpdateManagerTest, CreationOwnsEveryField) {
  for (const auto& [group, resource, base] :
       {std::tuple<std::string, std::string, Json>{"", "pods", kPod},
        {"resource.k8s.io", "resourceclaims", kClaim}}) {
    const ResourceInfo* r = FindResource(group, resource);
    ASSERT_NE(r, nullptr);
    Json created = base;
    RecordUpdateManager(*r, Json(), created, "m", "v1", "",
                        absl::FromUnixSeconds(1767225600));
    ASSERT_EQ(created["metadata"]["managedFields"].size(), 1u);
    EXPECT_EQ(created["metadata"]["managedFields"][0]["time"],
              "2026-01-01T00:00:00Z");
    EXPECT_EQ(created["metadata"]["managedFields"][0]["fieldsV1"],
              ExpectedFields(*r, Json(), base));
    EXPECT_EQ(created["metadata"]["managedFields"][0]["fieldsV1"],
              FieldSetOf(*r, base))
        << "a new object's manager owns its whole field set";
  }
}

// ------------------------------------------------------------ apply configs

ApplyRequest Applier(const std::string& manager) {
  ApplyRequest request;
  request.manager = manager;
  request.api_version = "v1";
  request.now = absl::FromUnixSeconds(1767225600);
  return request;
}

const ResourceInfo& Pods() { return *FindResource("", "pods"); }

// What structured-merge-diff refuses in an apply configuration, on
// creation as on update: an associative list element without its key,
// two elements with one key, a strategic-merge-patch directive.
TEST(ServerSideApplyTest, RefusesConfigurationsSchemaCannotHold) {
  const Json created = *ServerSideApply(Pods(), Json(), kPod, Applier("a"));
  for (const char* bad :
       {R"({"spec": {"containers": [{"image": "x"}]}})",
        R"({"spec": {"containers": [{"name": "c", "ports":
               [{"protocol": "TCP"}]}]}})",
        R"({"spec": {"containers": [{"name": "c"}, {"name": "c"}]}})",
        R"({"spec": {"$setElementOrder/containers": [{"name": "c"}]}})",
        R"({"metadata": {"labels": {"$patch": "replace"}}})"}) {
    Json applied = kPod;
    applied.merge_patch(Json::parse(bad));
    for (const Json* current : {static_cast<const Json*>(nullptr), &created}) {
      auto result = ServerSideApply(Pods(), current ? *current : Json(),
                                    applied, Applier("b"));
      ASSERT_FALSE(result.ok()) << bad;
      EXPECT_NE(result.status().message().find(
                    "failed to create typed patch object: ."),
                std::string::npos)
          << result.status();
    }
  }
  // Opaque driver parameters and device status data are free-form: their
  // members are not fields.
  Json claim = kClaim;
  claim["spec"]["devices"]["config"] = Json::parse(R"([{"opaque":
      {"driver": "d", "parameters": {"$schema": "s", "list": [{}]}}}])");
  claim["status"]["devices"] = Json::parse(R"([{"driver": "d", "pool": "p",
      "device": "g1", "data": {"$ref": "#/x"}}])");
  auto free_form =
      ServerSideApply(*FindResource("resource.k8s.io", "resourceclaims"),
                      Json(), claim, Applier("a"));
  EXPECT_TRUE(free_form.ok()) << free_form.status();
}

// A null member is no value: creating and re-applying give one object.
TEST(ServerSideApplyTest, NullMembersAreNoValueOnCreationAsOnUpdate) {
  Json applied = kPod;
  applied["metadata"]["labels"] = Json::parse(R"({"a": "b", "gone": null})");
  const Json created = *ServerSideApply(Pods(), Json(), applied, Applier("a"));
  EXPECT_FALSE(created["metadata"]["labels"].contains("gone"))
      << created.dump();
  EXPECT_EQ(*ServerSideApply(Pods(), created, applied, Applier("a")), created);
}

}  // namespace
}  // namespace draplane::apiserver::internal

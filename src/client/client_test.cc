#include "client/client.h"

#include <atomic>
#include <set>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "api/object_codec.h"
#include "client/testing/test_server.h"
#include "common/str_cat.h"
#include "gtest/gtest.h"
#include "testing/eventually.h"

namespace draplane::client {
namespace {

using api::Json;
using testing::Claim;
using testing::Meta;
using testing::Node;
using testing::Obj;
using testing::Pod;
using testing::TestServer;

// Every test runs in-process and over HTTPS (the HTTP transport with CA
// verification and a bearer token).
class ClientTest : public ::testing::TestWithParam<bool> {
 protected:
  ClientTest() : server_(GetParam()), client_(server_.NewClient()) {}

  TestServer server_;
  std::unique_ptr<Client> client_;
};

TEST_P(ClientTest, ResourceClaimCrud) {
  auto created = client_->Create(Claim("c1"));
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(created->type.api_version, "resource.k8s.io/v1");
  EXPECT_EQ(Meta(*created).name, "c1");
  EXPECT_EQ(Meta(*created).namespace_, "default");
  EXPECT_FALSE(Meta(*created).uid.empty());
  EXPECT_FALSE(Meta(*created).resource_version.empty());

  auto got = client_->Get(Kind("ResourceClaim"), "default", "c1");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(Meta(*got).uid, Meta(*created).uid);
  const auto& claim = std::get<api::ResourceClaim>(got->value);
  ASSERT_EQ(claim.spec.devices.requests.size(), 1u);
  EXPECT_EQ(claim.spec.devices.requests[0].name, "gpu");

  api::Object changed = *got;
  changed.mutable_metadata()->labels["tier"] = "gold";
  auto updated = client_->Update(changed);
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_EQ(Meta(*updated).labels.at("tier"), "gold");
  EXPECT_NE(Meta(*updated).resource_version, Meta(*got).resource_version);

  auto list = client_->List(Kind("ResourceClaim"), "default");
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->items.size(), 1u);
  EXPECT_EQ(list->items[0].kind(), "ResourceClaim");
  EXPECT_EQ(Meta(list->items[0]).labels.at("tier"), "gold");
  EXPECT_FALSE(list->resource_version.empty());
  EXPECT_TRUE(list->continue_token.empty());

  ASSERT_TRUE(client_->Delete(Kind("ResourceClaim"), "default", "c1").ok());
  auto gone = client_->Get(Kind("ResourceClaim"), "default", "c1");
  EXPECT_TRUE(client::IsNotFound(gone.status())) << gone.status();
}

TEST_P(ClientTest, PodNodeAndLeaseCrud) {
  auto node = client_->Create(Node("n1"));
  ASSERT_TRUE(node.ok()) << node.status();
  EXPECT_EQ(Meta(*node).namespace_, "");
  // `ns` is ignored for cluster-scoped kinds.
  auto got_node = client_->Get(Kind("Node"), "ignored", "n1");
  ASSERT_TRUE(got_node.ok()) << got_node.status();
  EXPECT_EQ(Meta(*got_node).name, "n1");

  ASSERT_TRUE(client_
                  ->Create(Obj(R"({"apiVersion":"v1","kind":"Namespace",
                                  "metadata":{"name":"team"}})"))
                  .ok());
  auto team_pod = client_->Create(Pod("p1", "team"));
  ASSERT_TRUE(team_pod.ok()) << team_pod.status();
  ASSERT_TRUE(client_->Create(Pod("p2", "default")).ok());
  auto all = client_->List(Kind("Pod"), "");
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->items.size(), 2u);
  auto team = client_->List(Kind("Pod"), "team");
  ASSERT_TRUE(team.ok());
  ASSERT_EQ(team->items.size(), 1u);
  EXPECT_EQ(Meta(team->items[0]).name, "p1");

  api::Lease lease;
  lease.metadata.name = "l1";
  lease.metadata.namespace_ = "kube-system";
  lease.spec.holder_identity = "me";
  lease.spec.lease_duration_seconds = 15;
  lease.spec.renew_time = "2024-01-01T00:00:00.000000Z";
  auto created =
      client_->Create(api::Object{{"coordination.k8s.io/v1", "Lease"}, lease});
  ASSERT_TRUE(created.ok()) << created.status();
  auto got = client_->Get(Kind("Lease"), "kube-system", "l1");
  ASSERT_TRUE(got.ok()) << got.status();
  const auto& l = std::get<api::Lease>(got->value);
  EXPECT_EQ(l.spec.holder_identity, "me");
  EXPECT_EQ(l.spec.lease_duration_seconds, 15);
  EXPECT_EQ(l.spec.renew_time, "2024-01-01T00:00:00.000000Z");
}

TEST_P(ClientTest, UpdateStatusWritesOnlyTheStatus) {
  auto pod = client_->Create(Pod("p"));
  ASSERT_TRUE(pod.ok()) << pod.status();
  api::Object next = *pod;
  std::get<api::Pod>(next.value).status.message = "hello";
  std::get<api::Pod>(next.value).spec.scheduler_name = "ignored";
  // Upstream's pod status strategy keeps the request's labels.
  next.mutable_metadata()->labels["kept"] = "yes";
  auto updated = client_->UpdateStatus(next);
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_EQ(std::get<api::Pod>(updated->value).status.message, "hello");
  EXPECT_NE(std::get<api::Pod>(updated->value).spec.scheduler_name, "ignored");
  EXPECT_EQ(Meta(*updated).labels.at("kept"), "yes");
}

// With drop_managed_fields a write returns what a Get returns, less
// metadata.managedFields (in process: the server's shared typed object).
TEST_P(ClientTest, WritesCanReturnTheObjectWithoutManagedFields) {
  WriteOptions drop;
  drop.field_manager = "tester";
  drop.drop_managed_fields = true;
  auto without_managed_fields = [&](const api::Object& got) {
    api::Object copy = got;
    copy.mutable_metadata()->managed_fields.clear();
    return *api::EncodeObject(copy);
  };
  auto created = client_->Create(Pod("p"), drop);
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_TRUE(Meta(*created).managed_fields.empty());
  auto got = client_->Get(Kind("Pod"), "default", "p");
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_FALSE(Meta(*got).managed_fields.empty());  // the server has them
  EXPECT_EQ(*api::EncodeObject(*created), without_managed_fields(*got));

  api::Object next = *created;
  std::get<api::Pod>(next.value).status.message = "hello";
  auto updated = client_->UpdateStatus(next, drop);
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_EQ(std::get<api::Pod>(updated->value).status.message, "hello");
  EXPECT_TRUE(Meta(*updated).managed_fields.empty());
  got = client_->Get(Kind("Pod"), "default", "p");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*api::EncodeObject(*updated), without_managed_fields(*got));

  // A claim through a scheduler's writes (finalizer, then allocation and
  // reservation in the status) and an event (whose parsed forms the
  // server does not keep): each reply is what a Get returns.
  auto claim = client_->Create(Claim("c"), drop);
  ASSERT_TRUE(claim.ok()) << claim.status();
  auto same_as_get = [&](const api::Object& reply) {
    const api::ObjectMeta& m = Meta(reply);
    auto read = client_->Get(Kind(reply.kind()), m.namespace_, m.name);
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_TRUE(m.managed_fields.empty());
    EXPECT_EQ(*api::EncodeObject(reply), without_managed_fields(*read))
        << reply.kind();
  };
  same_as_get(*claim);
  api::Object with_finalizer = *claim;
  with_finalizer.mutable_metadata()->finalizers.push_back(
      "resource.kubernetes.io/delete-protection");
  auto finalized = client_->Update(with_finalizer, drop);
  ASSERT_TRUE(finalized.ok()) << finalized.status();
  same_as_get(*finalized);
  api::Object reserved = *finalized;
  auto& reserved_status = std::get<api::ResourceClaim>(reserved.value).status;
  reserved_status.allocation.emplace();
  api::DeviceRequestAllocationResult result;
  result.request = "gpu";
  result.driver = "gpu.example.com";
  result.pool = "node-a";
  result.device = "gpu-0";
  reserved_status.allocation->devices.results.push_back(result);
  reserved_status.reserved_for.push_back({"", "pods", "p", "uid-p"});
  auto status = client_->UpdateStatus(reserved, drop);
  ASSERT_TRUE(status.ok()) << status.status();
  ASSERT_EQ(
      std::get<api::ResourceClaim>(status->value).status.reserved_for.size(),
      1u);
  same_as_get(*status);
  auto event = client_->Create(
      Obj(R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"e",
              "namespace":"default"},"involvedObject":{"kind":"Pod",
              "name":"p","namespace":"default"},"reason":"Scheduled",
              "message":"hello","type":"Normal"})"),
      drop);
  ASSERT_TRUE(event.ok()) << event.status();
  same_as_get(*event);

  // Without the option the reply keeps them.
  next = *updated;
  next.mutable_metadata()->labels["kept"] = "yes";
  WriteOptions keep;
  keep.field_manager = "tester";
  auto kept = client_->Update(next, keep);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_FALSE(Meta(*kept).managed_fields.empty());
}

TEST_P(ClientTest, AllFourPatchTypes) {
  ASSERT_TRUE(client_->Create(Claim("c")).ok());
  const api::KindInfo& k = Kind("ResourceClaim");
  auto json = client_->Patch(
      k, "default", "c", PatchType::kJson,
      R"([{"op":"add","path":"/metadata/labels","value":{"a":"1"}}])");
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_EQ(Meta(*json).labels.at("a"), "1");

  auto merge = client_->Patch(k, "default", "c", PatchType::kMerge,
                              R"({"metadata":{"labels":{"b":"2"}}})");
  ASSERT_TRUE(merge.ok()) << merge.status();
  EXPECT_EQ(Meta(*merge).labels,
            (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));

  auto strategic =
      client_->Patch(k, "default", "c", PatchType::kStrategicMerge,
                     R"({"metadata":{"labels":{"a":null,"c":"3"}}})");
  ASSERT_TRUE(strategic.ok()) << strategic.status();
  EXPECT_EQ(Meta(*strategic).labels,
            (std::map<std::string, std::string>{{"b", "2"}, {"c", "3"}}));

  PatchOptions apply_options;
  apply_options.field_manager = "tester";
  auto applied = client_->Patch(k, "default", "c", PatchType::kApply,
                                "apiVersion: resource.k8s.io/v1\n"
                                "kind: ResourceClaim\n"
                                "metadata:\n  name: c\n  annotations:\n"
                                "    owner: tester\n",
                                apply_options);
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_EQ(Meta(*applied).annotations.at("owner"), "tester");
  bool has_manager = false;
  for (const auto& m : Meta(*applied).managed_fields) {
    has_manager |= m.manager == "tester" && m.operation == "Apply";
  }
  EXPECT_TRUE(has_manager);

  // Apply without a field manager is refused by the server.
  auto no_manager =
      client_->Patch(k, "default", "c", PatchType::kApply,
                     "apiVersion: resource.k8s.io/v1\n"
                     "kind: ResourceClaim\nmetadata:\n  name: c\n");
  EXPECT_FALSE(no_manager.ok());

  // A status patch through the subresource.
  ASSERT_TRUE(client_->Create(Pod("p")).ok());
  PatchOptions status_options;
  status_options.subresource = "status";
  auto status =
      client_->Patch(Kind("Pod"), "default", "p", PatchType::kMerge,
                     R"({"status":{"message":"patched"}})", status_options);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(std::get<api::Pod>(status->value).status.message, "patched");
}

TEST_P(ClientTest, PodBindingThroughPostSubresource) {
  ASSERT_TRUE(client_->Create(Pod("p")).ok());
  const Json binding{{"apiVersion", "v1"},
                     {"kind", "Binding"},
                     {"metadata", Json{{"name", "p"}}},
                     {"target", Json{{"kind", "Node"}, {"name", "node1"}}}};
  auto bound =
      client_->PostSubresource(Kind("Pod"), "default", "p", "binding", binding);
  ASSERT_TRUE(bound.ok()) << bound.status();
  EXPECT_EQ((*bound)["status"], "Success");
  auto pod = client_->Get(Kind("Pod"), "default", "p");
  ASSERT_TRUE(pod.ok());
  EXPECT_EQ(std::get<api::Pod>(pod->value).spec.node_name, "node1");

  auto twice =
      client_->PostSubresource(Kind("Pod"), "default", "p", "binding", binding);
  EXPECT_TRUE(IsConflict(twice.status())) << twice.status();
  EXPECT_EQ(
      twice.status().message(),
      "Operation cannot be fulfilled on pods/binding \"p\": pod p is already "
      "assigned to node \"node1\"");
}

TEST_P(ClientTest, ConflictAndRetryOnConflict) {
  auto created = client_->Create(Claim("c"));
  ASSERT_TRUE(created.ok());
  api::Object first = *created;
  first.mutable_metadata()->labels["x"] = "1";
  ASSERT_TRUE(client_->Update(first).ok());
  // The second writer still has the old resourceVersion.
  api::Object stale = *created;
  stale.mutable_metadata()->labels["x"] = "2";
  auto conflict = client_->Update(stale);
  ASSERT_FALSE(conflict.ok());
  EXPECT_TRUE(IsConflict(conflict.status())) << conflict.status();
  EXPECT_EQ(conflict.status().code(), absl::StatusCode::kAborted);
  EXPECT_EQ(Reason(conflict.status()), "Conflict");
  EXPECT_FALSE(client::IsAlreadyExists(conflict.status()));

  int attempts = 0;
  absl::Status st = RetryOnConflict([&]() -> absl::Status {
    ++attempts;
    // The first attempt uses the stale copy; later ones read again.
    api::Object base = stale;
    if (attempts > 1) {
      auto fresh = client_->Get(Kind("ResourceClaim"), "default", "c");
      if (!fresh.ok()) return fresh.status();
      base = *fresh;
    }
    base.mutable_metadata()->labels["x"] = "2";
    return client_->Update(base).status();
  });
  EXPECT_TRUE(st.ok()) << st;
  EXPECT_EQ(attempts, 2);
  auto got = client_->Get(Kind("ResourceClaim"), "default", "c");
  EXPECT_EQ(Meta(*got).labels.at("x"), "2");

  // Always conflicting: gives up after `attempts` tries with the conflict.
  int tries = 0;
  st = RetryOnConflict(
      [&]() -> absl::Status {
        ++tries;
        return client_->Update(stale).status();
      },
      3);
  EXPECT_TRUE(IsConflict(st)) << st;
  EXPECT_EQ(tries, 3);
}

TEST_P(ClientTest, ErrorMapping) {
  auto missing = client_->Get(Kind("ResourceClaim"), "default", "nope");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(client::IsNotFound(missing.status()));
  EXPECT_EQ(Reason(missing.status()), "NotFound");
  EXPECT_EQ(missing.status().message(),
            "resourceclaims.resource.k8s.io \"nope\" not found");
  EXPECT_TRUE(client::IsNotFound(
      client_->Delete(Kind("ResourceClaim"), "default", "nope")));

  ASSERT_TRUE(client_->Create(Claim("c")).ok());
  auto again = client_->Create(Claim("c"));
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(client::IsAlreadyExists(again.status()));
  EXPECT_FALSE(IsConflict(again.status()));
  EXPECT_EQ(again.status().message(),
            "resourceclaims.resource.k8s.io \"c\" already exists");

  auto invalid = client_->Create(Claim("Bad_Name"));
  EXPECT_EQ(invalid.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(IsInvalid(invalid.status())) << invalid.status();
  EXPECT_EQ(Reason(invalid.status()), "Invalid");

  // Errors that are not Status answers have no reason.
  EXPECT_EQ(Reason(absl::UnavailableError("x")), "");
  EXPECT_FALSE(client::IsNotFound(absl::NotFoundError("local")));

  // Preconditions on delete.
  auto c = client_->Get(Kind("ResourceClaim"), "default", "c");
  ASSERT_TRUE(c.ok());
  DeleteOptions wrong_uid;
  wrong_uid.precondition_uid = "not-the-uid";
  EXPECT_TRUE(IsConflict(
      client_->Delete(Kind("ResourceClaim"), "default", "c", wrong_uid)));
  DeleteOptions right;
  right.precondition_uid = Meta(*c).uid;
  right.precondition_resource_version = Meta(*c).resource_version;
  right.propagation_policy = "Background";
  EXPECT_TRUE(
      client_->Delete(Kind("ResourceClaim"), "default", "c", right).ok());

  // An object without a namespace cannot be created.
  EXPECT_EQ(client_->Create(Claim("x", "")).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_P(ClientTest, DryRunDoesNotPersist) {
  WriteOptions dry;
  dry.dry_run = true;
  dry.field_manager = "dry";
  auto created = client_->Create(Claim("c"), dry);
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_TRUE(client::IsNotFound(
      client_->Get(Kind("ResourceClaim"), "default", "c").status()));
}

TEST_P(ClientTest, ListPagingWithContinue) {
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(client_->Create(Claim("c" + std::to_string(i))).ok());
  }
  ListOptions options;
  options.limit = 2;
  std::vector<std::string> names;
  std::set<std::string> versions;
  int pages = 0;
  while (true) {
    auto page = client_->List(Kind("ResourceClaim"), "default", options);
    ASSERT_TRUE(page.ok()) << page.status();
    ++pages;
    EXPECT_LE(page->items.size(), 2u);
    for (const auto& item : page->items) names.push_back(Meta(item).name);
    versions.insert(page->resource_version);
    if (page->continue_token.empty()) break;
    options.continue_token = page->continue_token;
  }
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(names, (std::vector<std::string>{"c0", "c1", "c2", "c3", "c4"}));
  EXPECT_EQ(versions.size(), 1u);  // one snapshot

  ListOptions selected;
  selected.field_selector = "metadata.name=c3";
  auto one = client_->List(Kind("ResourceClaim"), "default", selected);
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_EQ(one->items.size(), 1u);
  EXPECT_EQ(Meta(one->items[0]).name, "c3");
}

TEST_P(ClientTest, LabelSelectorsAreEscaped) {
  api::Object a = Claim("a");
  a.mutable_metadata()->labels["tier"] = "gold";
  api::Object b = Claim("b");
  b.mutable_metadata()->labels["tier"] = "silver";
  ASSERT_TRUE(client_->Create(a).ok());
  ASSERT_TRUE(client_->Create(b).ok());
  ListOptions options;
  options.label_selector = "tier in (gold, bronze)";
  auto list = client_->List(Kind("ResourceClaim"), "default", options);
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->items.size(), 1u);
  EXPECT_EQ(Meta(list->items[0]).name, "a");
}

TEST_P(ClientTest, WatchDeliversEventsAndStopsOnCancel) {
  auto list = client_->List(Kind("ResourceClaim"), "default");
  ASSERT_TRUE(list.ok());
  absl::Mutex mu;
  std::vector<std::pair<std::string, std::string>> events;  // type, name
  CancelFlag cancel{false};
  absl::Status watch_status;
  std::thread watcher([&] {
    WatchOptions options;
    options.resource_version = list->resource_version;
    watch_status = client_->Watch(
        Kind("ResourceClaim"), "default", options,
        [&](const WatchEvent& e) {
          absl::MutexLock lock(&mu);
          if (e.type != "BOOKMARK") {
            events.emplace_back(e.type, Meta(*e.object).name);
          }
          return true;
        },
        cancel);
  });
  auto c = client_->Create(Claim("w"));
  ASSERT_TRUE(c.ok());
  api::Object next = *c;
  next.mutable_metadata()->labels["x"] = "y";
  ASSERT_TRUE(client_->Update(next).ok());
  ASSERT_TRUE(client_->Delete(Kind("ResourceClaim"), "default", "w").ok());
  draplane::testing::Eventually([&] {
    absl::MutexLock lock(&mu);
    return events.size() >= 3;
  });
  const absl::Time cancelled = absl::Now();
  cancel = true;
  watcher.join();
  const absl::Duration latency = absl::Now() - cancelled;
  std::printf("watch cancellation noticed after %s (%s)\n",
              absl::FormatDuration(latency).c_str(),
              GetParam() ? "https" : "in-process");
  EXPECT_TRUE(watch_status.ok()) << watch_status;
  absl::MutexLock lock(&mu);
  EXPECT_EQ(events, (std::vector<std::pair<std::string, std::string>>{
                        {"ADDED", "w"}, {"MODIFIED", "w"}, {"DELETED", "w"}}));
}

TEST_P(ClientTest, WatchEndsWhenTheCallbackSaysSo) {
  CancelFlag cancel{false};
  std::atomic<int> seen{0};
  std::thread watcher([&] {
    WatchOptions options;
    options.resource_version = "0";  // initial ADDED events from the list
    EXPECT_TRUE(client_
                    ->Watch(
                        Kind("Node"), "", options,
                        [&](const WatchEvent& e) {
                          ++seen;
                          return false;
                        },
                        cancel)
                    .ok());
  });
  ASSERT_TRUE(client_->Create(Node("n")).ok());
  watcher.join();
  EXPECT_EQ(seen.load(), 1);
}

TEST_P(ClientTest, WatchFromACompactedVersionIsGone) {
  auto c = client_->Create(Claim("c"));
  ASSERT_TRUE(c.ok());
  const std::string old_rv = Meta(*c).resource_version;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(client_->Create(Claim("d" + std::to_string(i))).ok());
  }
  ASSERT_TRUE(server_.store().Compact(server_.store().Revision()).ok());
  CancelFlag cancel{false};
  absl::Status error;
  WatchOptions options;
  options.resource_version = old_rv;
  absl::Status st = client_->Watch(
      Kind("ResourceClaim"), "default", options,
      [&](const WatchEvent& e) {
        if (e.type == "ERROR") error = e.error;
        return e.type != "ERROR";
      },
      cancel);
  EXPECT_TRUE(st.ok()) << st;
  EXPECT_TRUE(IsGone(error)) << error;
  EXPECT_EQ(error.code(), absl::StatusCode::kOutOfRange);

  // A request the server refuses outright is an error of Watch itself.
  options.resource_version = "not-a-number";
  st = client_->Watch(
      Kind("ResourceClaim"), "default", options,
      [&](const WatchEvent&) { return true; }, cancel);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
  EXPECT_EQ(Reason(st), "BadRequest");
}

INSTANTIATE_TEST_SUITE_P(Transports, ClientTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Https" : "InProcess";
                         });

// In-process watchers of one version get the very same typed object per
// event (decoded once by the server), and it is the object an HTTPS
// watcher decodes from the JSON line, with or without managedFields.
TEST(InProcessWatchTest, WatchersShareOneTypedObjectEqualToTheDecodedLine) {
  TestServer server(true);
  auto https = server.NewClient();
  auto in_process = [&] {
    RestConfig config;
    config.server = "in-process";
    config.bearer_token = server.credentials().admin_token;
    return std::make_unique<Client>(
        NewInProcessTransport(server.InProcessHandler(), config), config);
  };
  auto a = in_process();
  auto b = in_process();
  auto c = in_process();
  auto list = https->List(Kind("ResourceClaim"), "default");
  ASSERT_TRUE(list.ok()) << list.status();

  struct Seen {
    absl::Mutex mu;
    std::vector<std::shared_ptr<const api::Object>> objects;
  };
  CancelFlag cancel{false};
  auto watch = [&](Client* client, bool drop, Seen* seen) {
    return std::thread([&cancel, &list, client, drop, seen] {
      WatchOptions options;
      options.resource_version = list->resource_version;
      options.drop_managed_fields = drop;
      EXPECT_TRUE(client
                      ->Watch(
                          Kind("ResourceClaim"), "default", options,
                          [seen](const WatchEvent& e) {
                            if (e.type == "BOOKMARK") return true;
                            absl::MutexLock lock(&seen->mu);
                            seen->objects.push_back(e.object);
                            return true;
                          },
                          cancel)
                      .ok());
    });
  };
  Seen seen_a, seen_b, seen_c, seen_https, seen_https_all;
  std::vector<std::thread> threads;
  threads.push_back(watch(a.get(), true, &seen_a));
  threads.push_back(watch(b.get(), true, &seen_b));
  threads.push_back(watch(c.get(), false, &seen_c));
  threads.push_back(watch(https.get(), true, &seen_https));
  threads.push_back(watch(https.get(), false, &seen_https_all));
  // The watches start at the list's resourceVersion: they see what follows
  // however late they open.

  auto created = a->Create(Claim("shared"));
  ASSERT_TRUE(created.ok()) << created.status();
  api::Object next = *created;
  next.mutable_metadata()->labels["x"] = "y";
  ASSERT_TRUE(b->Update(next).ok());
  auto all_seen = [](Seen& s) {
    absl::MutexLock lock(&s.mu);
    return s.objects.size() >= 2;
  };
  draplane::testing::Eventually([&] {
    return all_seen(seen_a) && all_seen(seen_b) && all_seen(seen_c) &&
           all_seen(seen_https) && all_seen(seen_https_all);
  });
  cancel = true;
  for (std::thread& t : threads) t.join();

  auto json = [](const api::Object& o) {
    auto encoded = api::EncodeObject(o, o.type.api_version);
    EXPECT_TRUE(encoded.ok()) << encoded.status();
    return encoded.ok() ? api::DumpJson(*encoded) : "";
  };
  for (Seen* s : {&seen_a, &seen_b, &seen_c, &seen_https, &seen_https_all}) {
    ASSERT_EQ(s->objects.size(), 2u);
  }
  for (size_t i = 0; i < 2; ++i) {
    // Shared: one decode per event for the watchers that drop managedFields.
    EXPECT_EQ(seen_a.objects[i].get(), seen_b.objects[i].get());
    EXPECT_NE(seen_a.objects[i].get(), seen_c.objects[i].get());
    EXPECT_TRUE(Meta(*seen_a.objects[i]).managed_fields.empty());
    EXPECT_FALSE(Meta(*seen_c.objects[i]).managed_fields.empty());
    // Exactly what the JSON line decodes to.
    EXPECT_EQ(json(*seen_a.objects[i]), json(*seen_https.objects[i]));
    EXPECT_EQ(json(*seen_c.objects[i]), json(*seen_https_all.objects[i]));
  }
  EXPECT_EQ(Meta(*seen_a.objects[1]).labels.at("x"), "y");
}

// An in-process write hands the server its encoded object unserialised
// (and the server skips re-normalising it): what is stored is what the
// same write over HTTPS stores.
TEST(InProcessWriteTest, StoresWhatTheSameWriteOverHttpsStores) {
  TestServer server(true);
  auto https = server.NewClient();
  RestConfig config;
  config.server = "in-process";
  config.bearer_token = server.credentials().admin_token;
  Client in_process(NewInProcessTransport(server.InProcessHandler(), config),
                    config);
  // The stored bytes, with what differs between two creations masked.
  auto stored = [&](std::string_view kind, std::string_view ns,
                    std::string_view name) {
    const api::KindInfo& k = Kind(kind);
    const std::string key =
        StrCat("/registry/", k.group.empty() ? "core" : k.group, "/",
               k.resource, "/", ns.empty() ? "" : StrCat(ns, "/"), name);
    auto record = server.store().Get(key);
    EXPECT_TRUE(record.ok()) << key << ": " << record.status();
    if (!record.ok()) return std::string();
    Json json = Json::parse(*record->value);
    Json& meta = json["metadata"];
    for (const char* field : {"name", "uid", "creationTimestamp"}) {
      meta[field] = "masked";
    }
    for (Json& m : meta["managedFields"]) m["time"] = "masked";
    return json.dump();
  };
  for (const api::Object& object : {Claim("x"), Pod("x"), Node("x")}) {
    SCOPED_TRACE(object.kind());
    api::Object a = object, b = object;
    a.mutable_metadata()->name = "over-https";
    b.mutable_metadata()->name = "in-process";
    auto ca = https->Create(a);
    auto cb = in_process.Create(b);
    ASSERT_TRUE(ca.ok()) << ca.status();
    ASSERT_TRUE(cb.ok()) << cb.status();
    const std::string ns = Meta(*ca).namespace_;
    EXPECT_EQ(stored(object.kind(), ns, "over-https"),
              stored(object.kind(), ns, "in-process"));
    api::Object ua = *ca, ub = *cb;
    ua.mutable_metadata()->labels["changed"] = "yes";
    ub.mutable_metadata()->labels["changed"] = "yes";
    ASSERT_TRUE(https->Update(ua).ok());
    ASSERT_TRUE(in_process.Update(ub).ok());
    EXPECT_EQ(stored(object.kind(), ns, "over-https"),
              stored(object.kind(), ns, "in-process"));
  }
}

TEST(RateLimiterTest, QpsAndBurstDelayRequests) {
  TestServer server(false);
  RestConfig config = server.Config();
  config.qps = 20;
  config.burst = 1;
  auto client = server.NewClient(config);
  const absl::Time start = absl::Now();
  for (int i = 0; i < 10; ++i) {
    EXPECT_TRUE(
        client::IsNotFound(client->Get(Kind("Node"), "", "n").status()));
  }
  // 1 token at once, then one every 50 ms: 9 waits.
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(400));
}

TEST(RateLimiterTest, ZeroQpsIsUnlimited) {
  TestServer server(false);
  auto client = server.NewClient();
  EXPECT_EQ(client->config().qps, 0);
  for (int i = 0; i < 50; ++i) {
    EXPECT_TRUE(
        client::IsNotFound(client->Get(Kind("Node"), "", "n").status()));
  }
}

TEST(KindTest, FindsServedKinds) {
  EXPECT_EQ(Kind("ResourceClaim").group, "resource.k8s.io");
  EXPECT_EQ(Kind("Lease").resource, "leases");
  EXPECT_FALSE(Kind("Node").namespaced);
  EXPECT_DEATH(Kind("NoSuchKind"), "unknown kind");
}

}  // namespace
}  // namespace draplane::client

// Expected messages from pkg/scheduler/framework/types_test.go
// (TestFitError_Error) and from kube-scheduler 1.34+ FailedScheduling events
// (the DynamicResources PostFilter reason "no new claims to deallocate"
// precedes DefaultPreemption's "preemption: ...").
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scheduler/node_filters/node_filters.h"

namespace draplane::scheduler::node_filters {
namespace {

TEST(FitErrorBuilderTest, PreFilterMessageHidesNodeReasons) {
  FitErrorBuilder b(3);
  b.SetAbsentNodesStatus({"Node(s) failed PreFilter plugin FalsePreFilter"});
  b.SetPreFilterMessage("Node(s) failed PreFilter plugin FalsePreFilter");
  EXPECT_EQ(b.Message(),
            "0/3 nodes are available: Node(s) failed PreFilter plugin "
            "FalsePreFilter.");
}

TEST(FitErrorBuilderTest, OneFilterPluginEmptyPostFilter) {
  FitErrorBuilder b(3);
  for (const char* n : {"node1", "node2", "node3"}) {
    b.SetNodeStatus(n, {"Node(s) failed Filter plugin FalseFilter-1"}, true);
  }
  EXPECT_EQ(b.Message(),
            "0/3 nodes are available: 3 Node(s) failed Filter plugin "
            "FalseFilter-1.");
}

TEST(FitErrorBuilderTest, OneFilterPluginWithPostFilterMessage) {
  FitErrorBuilder b(3);
  for (const char* n : {"node1", "node2", "node3"}) {
    b.SetNodeStatus(n, {"Node(s) failed Filter plugin FalseFilter-1"}, true);
  }
  b.AddPostFilterReason("Error running PostFilter plugin FailedPostFilter");
  EXPECT_EQ(b.Message(),
            "0/3 nodes are available: 3 Node(s) failed Filter plugin "
            "FalseFilter-1. Error running PostFilter plugin FailedPostFilter");
}

TEST(FitErrorBuilderTest, TwoFilterPlugins) {
  FitErrorBuilder b(3);
  b.SetNodeStatus("node1", {"Node(s) failed Filter plugin FalseFilter-1"},
                  true);
  b.SetNodeStatus("node2", {"Node(s) failed Filter plugin FalseFilter-2"},
                  true);
  b.SetNodeStatus("node3", {"Node(s) failed Filter plugin FalseFilter-1"},
                  true);
  EXPECT_EQ(b.Message(),
            "0/3 nodes are available: 1 Node(s) failed Filter plugin "
            "FalseFilter-2, 2 Node(s) failed Filter plugin FalseFilter-1.");
}

TEST(FitErrorBuilderTest, MultipleReasonsPerNodeAndReplacement) {
  FitErrorBuilder b(2);
  b.SetNodeStatus("a", {"node(s) had untolerated taint(s)"}, true);
  b.SetNodeStatus("a", {"Insufficient cpu", "Insufficient memory"}, false);
  b.SetNodeStatus("b", {"Insufficient cpu"}, false);
  EXPECT_EQ(b.Message(),
            "0/2 nodes are available: 1 Insufficient memory, 2 Insufficient "
            "cpu.");
  EXPECT_EQ(b.NumNodesWherePreemptionMightHelp(), 2);
}

TEST(FitErrorBuilderTest, HistogramSortsFormattedStrings) {
  // Go's sort.Strings on "<count> <reason>": "10 ..." < "2 ...".
  FitErrorBuilder b(12);
  for (int i = 0; i < 10; ++i) {
    b.SetNodeStatus("z" + std::to_string(i), {"zzz"}, true);
  }
  b.SetNodeStatus("a", {"aaa"}, true);
  b.SetNodeStatus("b", {"aaa"}, true);
  EXPECT_EQ(b.Message(), "0/12 nodes are available: 10 zzz, 2 aaa.");
}

TEST(FitErrorBuilderTest, AbsentNodesFromPreFilterResult) {
  // NodeAffinity PreFilter restricted the candidates to one node, which its
  // Filter then rejected; the other two were never filtered.
  FitErrorBuilder b(3);
  b.SetAbsentNodesStatus({std::string(kReasonNotInPreFilterNodes)});
  b.SetNodeStatus("node1", {std::string(kReasonNodeAffinity)}, true);
  EXPECT_EQ(b.Message(),
            "0/3 nodes are available: 1 node(s) didn't match Pod's node "
            "affinity/selector, 2 node(s) didn't satisfy plugin(s) "
            "[NodeAffinity].");
  EXPECT_EQ(b.NumNodesWherePreemptionMightHelp(), 0);
}

TEST(FitErrorBuilderTest, NoReasonsAtAll) {
  FitErrorBuilder b(0);
  EXPECT_EQ(b.Message(), "0/0 nodes are available:");
}

TEST(FitErrorBuilderTest, ObservedEventWithPreemptionNotHelpful) {
  // 0/3 nodes: one tainted, two too small for the request (unresolvable).
  FitErrorBuilder b(3);
  b.SetNodeStatus("cp", {"node(s) had untolerated taint(s)"}, true);
  b.SetNodeStatus("w1", {"Insufficient cpu", "Insufficient memory"}, true);
  b.SetNodeStatus("w2", {"Insufficient cpu", "Insufficient memory"}, true);
  b.AddPostFilterReason("no new claims to deallocate");
  b.AddPostFilterReason(NoVictimsPreemptionReason(b, 3));
  EXPECT_EQ(b.Message(),
            "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 "
            "Insufficient cpu, 2 Insufficient memory. no new claims to "
            "deallocate, preemption: 0/3 nodes are available: 3 Preemption "
            "is not helpful for scheduling.");
}

TEST(FitErrorBuilderTest, ObservedEventWithNoVictims) {
  FitErrorBuilder b(6);
  for (int i = 0; i < 3; ++i) {
    b.SetNodeStatus("w" + std::to_string(i),
                    {"node(s) didn't match pod anti-affinity rules"}, false);
    b.SetNodeStatus("m" + std::to_string(i),
                    {"node(s) had untolerated taint(s)"}, true);
  }
  b.AddPostFilterReason("no new claims to deallocate");
  b.AddPostFilterReason(NoVictimsPreemptionReason(b, 6));
  EXPECT_EQ(b.Message(),
            "0/6 nodes are available: 3 node(s) didn't match pod "
            "anti-affinity rules, 3 node(s) had untolerated taint(s). no new "
            "claims to deallocate, preemption: 0/6 nodes are available: 3 No "
            "preemption victims found for incoming pod, 3 Preemption is not "
            "helpful for scheduling.");
}

TEST(FitErrorBuilderTest, AffinityTermsConflict) {
  FitErrorBuilder b(2);
  b.SetAbsentNodesStatus({std::string(kReasonAffinityTermsConflict)});
  b.SetPreFilterMessage(std::string(kReasonAffinityTermsConflict));
  b.AddPostFilterReason(NoVictimsPreemptionReason(b, 2));
  EXPECT_EQ(b.Message(),
            "0/2 nodes are available: pod affinity terms conflict. "
            "preemption: 0/2 nodes are available: 2 Preemption is not "
            "helpful for scheduling.");
}

TEST(FitErrorBuilderTest, EventMessageIsTruncatedTo1024Bytes) {
  FitErrorBuilder b(1);
  b.SetNodeStatus("n", {std::string(2000, 'x')}, true);
  const std::string full = b.Message();
  EXPECT_EQ(full.size(),
            std::string("0/1 nodes are available: 1 ").size() + 2000 + 1);
  const std::string event = b.EventMessage();
  EXPECT_EQ(event.size(), 1024u);
  EXPECT_EQ(event.substr(0, 1020), full.substr(0, 1020));
  EXPECT_EQ(event.substr(1020), " ...");
  EXPECT_EQ(TruncateEventMessage("short"), "short");
  EXPECT_EQ(TruncateEventMessage(std::string(1024, 'y')),
            std::string(1024, 'y'));
}

}  // namespace
}  // namespace draplane::scheduler::node_filters

// Small builders for node_filters tests.
#ifndef DRAPLANE_SCHEDULER_NODE_FILTERS_TEST_UTIL_H_
#define DRAPLANE_SCHEDULER_NODE_FILTERS_TEST_UTIL_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "api/core_types.h"
#include "common/quantity.h"
#include "gtest/gtest.h"
#include "scheduler/node_filters/node_filters.h"

namespace draplane::scheduler::node_filters::testing {

inline Quantity Q(const char* s) { return *Quantity::Parse(s); }

inline api::ResourceList Resources(
    const std::vector<std::pair<std::string, std::string>>& list) {
  api::ResourceList out;
  for (const auto& [k, v] : list) out[k] = Q(v.c_str());
  return out;
}

inline api::Container Container(
    const std::vector<std::pair<std::string, std::string>>& requests = {}) {
  api::Container c;
  c.name = "c";
  c.resources.requests = Resources(requests);
  return c;
}

inline api::Node Node(const std::string& name,
                      std::map<std::string, std::string> labels = {}) {
  api::Node n;
  n.metadata.name = name;
  n.metadata.labels = std::move(labels);
  return n;
}

inline api::Taint Taint(std::string key, std::string value,
                        std::string effect) {
  api::Taint t;
  t.key = std::move(key);
  t.value = std::move(value);
  t.effect = std::move(effect);
  return t;
}

inline api::Toleration Toleration(std::string key, std::string op,
                                  std::string value, std::string effect) {
  api::Toleration t;
  t.key = std::move(key);
  t.operator_ = std::move(op);
  t.value = std::move(value);
  t.effect = std::move(effect);
  return t;
}

inline PodNodeRequirements MustParse(const api::Pod& pod) {
  absl::StatusOr<PodNodeRequirements> r = PodNodeRequirements::Parse(pod);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : PodNodeRequirements();
}

// A pod whose spec.affinity is `affinity_json`.
inline api::Pod PodWithAffinity(const std::string& affinity_json) {
  api::Pod pod;
  pod.spec.affinity = api::Json::parse(affinity_json);
  return pod;
}

// A pod with one container requesting `requests`.
inline api::Pod PodRequesting(
    const std::vector<std::pair<std::string, std::string>>& requests) {
  api::Pod pod;
  pod.spec.containers.push_back(Container(requests));
  return pod;
}

}  // namespace draplane::scheduler::node_filters::testing

#endif  // DRAPLANE_SCHEDULER_NODE_FILTERS_TEST_UTIL_H_

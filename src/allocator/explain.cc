#include "allocator/explain.h"

#include <algorithm>

#include "common/str_cat.h"

namespace draplane::allocator {
namespace {

std::string Plural(int64_t n, const char* what) {
  return StrCat(n, " ", what, n == 1 ? "" : "s");
}

std::string JoinComma(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    StrAppend(&out, i ? ", " : "", items[i]);
  }
  return out;
}

}  // namespace

void Summarize(RequestExplanation& e) {
  std::string s =
      StrCat("request ", e.request, " (class ", e.device_class, ") ");
  if (e.mode == "All") {
    StrAppend(&s, "wants all matching devices");
  } else {
    StrAppend(&s, "needs ", Plural(e.needed, "device"));
  }
  StrAppend(&s, ": the node's pools offer ", e.offered);
  if (!e.incomplete_pools.empty()) {
    StrAppend(&s,
              " (incomplete, being updated: ", JoinComma(e.incomplete_pools),
              ")");
  }
  if (!e.invalid_pools.empty()) {
    StrAppend(&s, " (invalid: ", JoinComma(e.invalid_pools), ")");
  }
  if (e.binding_blocked > 0) {
    StrAppend(&s, "; ", e.binding_blocked,
              " need binding conditions, which are disabled");
  }
  for (const auto& sel : e.selectors) {
    StrAppend(&s, "; ", sel.source, " keeps ", sel.kept);
    if (sel.kept == 0) StrAppend(&s, " (", sel.expression, ")");
  }
  int last = e.selectors.empty() ? e.offered - e.binding_blocked
                                 : e.selectors.back().kept;
  if (e.selected != last) {
    StrAppend(&s, "; per-device node selection keeps ", e.selected);
  }
  if (e.in_use > 0) {
    StrAppend(&s, "; ", e.in_use, " of those ", e.in_use == 1 ? "is" : "are",
              " allocated to other claims");
    if (!e.in_use_by.empty()) StrAppend(&s, " (", JoinComma(e.in_use_by), ")");
  }
  if (e.taint_blocked > 0) {
    StrAppend(&s, "; ", e.taint_blocked,
              " carry taints the request does not tolerate (",
              JoinComma(e.taints), ")");
  }
  if (e.capacity_short > 0) {
    StrAppend(
        &s, "; ", e.capacity_short,
        " lack the requested capacity or their request policy refuses it");
  }
  if (e.counters_short > 0) {
    StrAppend(
        &s, "; ", e.counters_short,
        " need shared counters their pool no longer has (partitions in use)");
  }
  StrAppend(&s, "; ", e.available, " left");
  for (const auto& c : e.constraints) {
    StrAppend(&s, "; ", c.kind, " ", c.attribute, " over them: ");
    std::vector<std::string> parts;
    for (const auto& [value, count] : c.values) {
      parts.push_back(StrCat(value, " (", count, ")"));
    }
    StrAppend(&s, JoinComma(parts));
    if (c.missing > 0) {
      StrAppend(&s, parts.empty() ? "" : ", ", c.missing,
                " without the attribute");
    }
    if (c.values.empty() && c.missing == 0) StrAppend(&s, "no devices");
    if (c.values.empty() && c.missing > 0) {
      StrAppend(&s, ", so no device can satisfy it");
    } else if (c.kind == "matchAttribute") {
      StrAppend(&s, ", at most ", c.usable, " share a value");
    } else {
      StrAppend(&s, ", ", c.usable, " distinct value",
                c.usable == 1 ? "" : "s");
    }
  }
  int usable = e.available;
  for (const auto& c : e.constraints) usable = std::min(usable, c.usable);
  if (e.mode != "All" && usable < e.needed) {
    StrAppend(&s, "; ", e.needed - usable, " short");
  } else if (e.mode == "All" && e.needed == 0) {
    StrAppend(&s, "; \"All\" needs at least one matching device");
  }
  StrAppend(&s, ".");
  e.summary = std::move(s);
}

std::string ClaimSummary(const ClaimExplanation& claim) {
  std::string text = StrCat("claim ", claim.namespace_, "/", claim.name, ": ");
  bool first = true;
  for (const RequestExplanation& r : claim.requests) {
    StrAppend(&text, first ? "" : " ", r.summary);
    first = false;
  }
  if (!claim.combination.empty()) {
    StrAppend(&text, first ? "" : " ", claim.combination);
  }
  return text;
}

api::Json ToJson(const ClaimExplanation& claim) {
  api::Json out = api::Json::object();
  out["namespace"] = claim.namespace_;
  out["name"] = claim.name;
  api::Json requests = api::Json::array();
  for (const RequestExplanation& e : claim.requests) {
    api::Json r = api::Json::object();
    r["request"] = e.request;
    r["deviceClassName"] = e.device_class;
    r["allocationMode"] = e.mode;
    r["needed"] = e.needed;
    r["offered"] = e.offered;
    if (!e.incomplete_pools.empty()) r["incompletePools"] = e.incomplete_pools;
    if (!e.invalid_pools.empty()) r["invalidPools"] = e.invalid_pools;
    if (e.binding_blocked) r["bindingConditionsBlocked"] = e.binding_blocked;
    api::Json selectors = api::Json::array();
    for (const auto& sel : e.selectors) {
      selectors.push_back(api::Json{{"source", sel.source},
                                    {"expression", sel.expression},
                                    {"kept", sel.kept}});
    }
    r["selectors"] = std::move(selectors);
    r["selected"] = e.selected;
    r["inUse"] = e.in_use;
    if (!e.in_use_by.empty()) r["inUseBy"] = e.in_use_by;
    r["taintBlocked"] = e.taint_blocked;
    if (!e.taints.empty()) r["taints"] = e.taints;
    r["capacityShort"] = e.capacity_short;
    r["countersShort"] = e.counters_short;
    r["available"] = e.available;
    if (!e.constraints.empty()) {
      api::Json constraints = api::Json::array();
      for (const auto& c : e.constraints) {
        api::Json values = api::Json::array();
        for (const auto& [value, count] : c.values) {
          values.push_back(api::Json{{"value", value}, {"devices", count}});
        }
        constraints.push_back(api::Json{{"kind", c.kind},
                                        {"attribute", c.attribute},
                                        {"values", std::move(values)},
                                        {"missing", c.missing},
                                        {"usable", c.usable}});
      }
      r["constraints"] = std::move(constraints);
    }
    r["summary"] = e.summary;
    requests.push_back(std::move(r));
  }
  out["requests"] = std::move(requests);
  if (!claim.combination.empty()) out["combination"] = claim.combination;
  return out;
}

}  // namespace draplane::allocator

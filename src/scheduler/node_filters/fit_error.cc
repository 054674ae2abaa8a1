// FitErrorBuilder: upstream framework/types.go FitError.Error().
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "common/str_cat.h"
#include "scheduler/node_filters/node_filters.h"

namespace draplane::scheduler::node_filters {
namespace {

constexpr size_t kNoteLengthLimit = 1024;  // validation.NoteLengthLimit

}  // namespace

void FitErrorBuilder::SetNodeStatus(const std::string& node_name,
                                    std::vector<std::string> reasons,
                                    bool unresolvable) {
  Status& s = nodes_[node_name];
  s.reasons = std::move(reasons);
  s.unresolvable = unresolvable;
}

void FitErrorBuilder::SetAbsentNodesStatus(std::vector<std::string> reasons,
                                           bool unresolvable) {
  absent_.reasons = std::move(reasons);
  absent_.unresolvable = unresolvable;
}

void FitErrorBuilder::SetPreFilterMessage(std::string message) {
  prefilter_message_ = std::move(message);
}

void FitErrorBuilder::AddPostFilterReason(std::string reason) {
  postfilter_reasons_.push_back(std::move(reason));
}

int FitErrorBuilder::NumNodesWherePreemptionMightHelp() const {
  int n = 0;
  for (const auto& [name, s] : nodes_) {
    if (!s.unresolvable) ++n;
  }
  const int absent = num_all_nodes_ - static_cast<int>(nodes_.size());
  if (absent > 0 && !absent_.unresolvable) n += absent;
  return n;
}

std::string FitErrorBuilder::Message() const {
  std::string msg = StrCat("0/", num_all_nodes_, " nodes are available:");
  if (!prefilter_message_.empty()) {
    StrAppend(&msg, " ", prefilter_message_, ".");
  } else {
    std::map<std::string, int> counts;
    for (const auto& [name, s] : nodes_) {
      for (const std::string& reason : s.reasons) ++counts[reason];
    }
    const int absent = num_all_nodes_ - static_cast<int>(nodes_.size());
    if (absent > 0) {
      for (const std::string& reason : absent_.reasons) {
        counts[reason] += absent;
      }
    }
    // Go sorts the formatted "<count> <reason>" strings (sort.Strings), so
    // "10 x" sorts before "2 y".
    std::vector<std::string> histogram;
    for (const auto& [reason, count] : counts) {
      histogram.push_back(StrCat(count, " ", reason));
    }
    std::sort(histogram.begin(), histogram.end());
    if (!histogram.empty()) {
      msg += " ";
      for (size_t i = 0; i < histogram.size(); ++i) {
        StrAppend(&msg, i ? ", " : "", histogram[i]);
      }
      msg += ".";
    }
  }
  if (!postfilter_reasons_.empty()) {
    msg += " ";
    for (size_t i = 0; i < postfilter_reasons_.size(); ++i) {
      StrAppend(&msg, i ? ", " : "", postfilter_reasons_[i]);
    }
  }
  return msg;
}

std::string FitErrorBuilder::EventMessage() const {
  return TruncateEventMessage(Message());
}

std::string NoVictimsPreemptionReason(const FitErrorBuilder& diagnosis,
                                      int num_all_nodes) {
  FitErrorBuilder preemption(num_all_nodes);
  const int might_help = diagnosis.NumNodesWherePreemptionMightHelp();
  for (int i = 0; i < might_help; ++i) {
    preemption.SetNodeStatus(StrCat("node-", i),
                             {std::string(kReasonNoPreemptionVictims)}, true);
  }
  preemption.SetAbsentNodesStatus({std::string(kReasonPreemptionNotHelpful)});
  return StrCat("preemption: ", preemption.Message());
}

std::string TruncateEventMessage(const std::string& message) {
  if (message.size() <= kNoteLengthLimit) return message;
  constexpr std::string_view kSuffix = " ...";
  return StrCat(message.substr(0, kNoteLengthLimit - kSuffix.size()), kSuffix);
}

}  // namespace draplane::scheduler::node_filters

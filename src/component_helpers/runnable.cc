#include "component_helpers/runnable.h"

#include "common/str_cat.h"

namespace draplane::component_helpers {

RunGroup::~RunGroup() { Stop(); }

void RunGroup::Add(std::string name, Runnable* component) {
  components_.emplace_back(std::move(name), component);
}

absl::Status RunGroup::Start(absl::Duration sync_timeout) {
  while (started_ < components_.size()) {
    auto& [name, component] = components_[started_];
    absl::Status s = component->Start(sync_timeout);
    if (!s.ok()) {
      Stop();
      return absl::Status(s.code(), StrCat(name, ": ", s.message()));
    }
    ++started_;
  }
  return absl::OkStatus();
}

void RunGroup::Stop() {
  while (started_ > 0) {
    --started_;
    components_[started_].second->Stop();
  }
}

std::vector<std::string> RunGroup::names() const {
  std::vector<std::string> out;
  out.reserve(components_.size());
  for (const auto& [name, component] : components_) out.push_back(name);
  return out;
}

}  // namespace draplane::component_helpers

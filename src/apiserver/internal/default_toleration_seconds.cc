#include "apiserver/internal/default_toleration_seconds.h"

#include <string>
#include <string_view>

namespace draplane::apiserver::internal {

namespace {

constexpr std::string_view kNotReady = "node.kubernetes.io/not-ready";
constexpr std::string_view kUnreachable = "node.kubernetes.io/unreachable";

class DefaultTolerationSeconds : public AdmissionPlugin {
 public:
  DefaultTolerationSeconds(int64_t not_ready_seconds,
                           int64_t unreachable_seconds)
      : not_ready_seconds_(not_ready_seconds),
        unreachable_seconds_(unreachable_seconds) {}

  std::string_view Name() const override { return "DefaultTolerationSeconds"; }

  bool MayMutate(const AdmissionRequest& request) const override {
    return request.operation == AdmissionRequest::Operation::kCreate &&
           request.kind == "Pod" && request.group.empty() &&
           request.subresource.empty();
  }

  absl::Status Admit(const AdmissionRequest& request,
                     api::Json& object) override {
    if (!MayMutate(request) || !object.is_object()) return absl::OkStatus();
    api::Json& spec = object["spec"];
    if (!spec.is_object()) return absl::OkStatus();  // validation's business
    api::Json& tolerations = spec["tolerations"];
    if (tolerations.is_null()) tolerations = api::Json::array();
    if (!tolerations.is_array()) return absl::OkStatus();
    bool not_ready = false, unreachable = false;
    for (const api::Json& t : tolerations) {
      if (!t.is_object()) continue;
      std::string key = t.value("key", "");
      std::string effect = t.value("effect", "");
      if (!effect.empty() && effect != "NoExecute") continue;
      not_ready |= key.empty() || key == kNotReady;
      unreachable |= key.empty() || key == kUnreachable;
    }
    if (!not_ready) {
      tolerations.push_back({{"key", kNotReady},
                             {"operator", "Exists"},
                             {"effect", "NoExecute"},
                             {"tolerationSeconds", not_ready_seconds_}});
    }
    if (!unreachable) {
      tolerations.push_back({{"key", kUnreachable},
                             {"operator", "Exists"},
                             {"effect", "NoExecute"},
                             {"tolerationSeconds", unreachable_seconds_}});
    }
    if (tolerations.empty()) spec.erase("tolerations");
    return absl::OkStatus();
  }

 private:
  const int64_t not_ready_seconds_;
  const int64_t unreachable_seconds_;
};

}  // namespace

std::shared_ptr<AdmissionPlugin> NewDefaultTolerationSeconds(
    int64_t not_ready_seconds, int64_t unreachable_seconds) {
  return std::make_shared<DefaultTolerationSeconds>(not_ready_seconds,
                                                    unreachable_seconds);
}

}  // namespace draplane::apiserver::internal

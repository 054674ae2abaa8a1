#include "apiserver/internal/default_toleration_seconds.h"

#include <string>
#include <string_view>

namespace draplane::apiserver::internal {

namespace {

constexpr std::string_view kNotReady = "node.kubernetes.io/not-ready";
constexpr std::string_view kUnreachable = "node.kubernetes.io/unreachable";

class DefaultTolerationSeconds : public AdmissionPlugin {
 public:
  std::string_view Name() const override { return "DefaultTolerationSeconds"; }

  absl::Status Admit(const AdmissionRequest& request,
                     api::Json& object) override {
    if (request.operation != AdmissionRequest::Operation::kCreate ||
        request.kind != "Pod" || !request.group.empty() ||
        !request.subresource.empty() || !object.is_object()) {
      return absl::OkStatus();
    }
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
    for (auto [present, key] : {std::pair{not_ready, kNotReady},
                                std::pair{unreachable, kUnreachable}}) {
      if (present) continue;
      tolerations.push_back({{"key", key},
                             {"operator", "Exists"},
                             {"effect", "NoExecute"},
                             {"tolerationSeconds", kDefaultTolerationSeconds}});
    }
    if (tolerations.empty()) spec.erase("tolerations");
    return absl::OkStatus();
  }
};

}  // namespace

std::shared_ptr<AdmissionPlugin> NewDefaultTolerationSeconds() {
  return std::make_shared<DefaultTolerationSeconds>();
}

}  // namespace draplane::apiserver::internal

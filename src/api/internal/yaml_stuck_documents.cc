#include "api/internal/yaml_stuck_documents.h"

#include <sstream>

#include "yaml-cpp/eventhandler.h"
#include "yaml-cpp/parser.h"

namespace draplane::api::internal {
namespace {

// Sees every document start; a start at the position of the previous one
// means the parser consumed nothing in between.
class StuckDocumentDetector : public YAML::EventHandler {
 public:
  bool stuck() const { return stuck_; }
  const YAML::Mark& mark() const { return last_; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (started_ && mark.pos == last_.pos) stuck_ = true;
    started_ = true;
    last_ = mark;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

 private:
  bool started_ = false;
  bool stuck_ = false;
  YAML::Mark last_;
};

}  // namespace

std::optional<YAML::Mark> FindStuckDocument(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  StuckDocumentDetector detector;
  while (parser.HandleNextDocument(detector)) {
    if (detector.stuck()) return detector.mark();
  }
  return std::nullopt;
}

}  // namespace draplane::api::internal

// Arbitrary bytes as a CEL expression: parse, plan against the standard and
// Kubernetes libraries, and evaluate with a cost limit. Any crash, sanitizer
// report, hang or unbounded memory is a bug; errors are expected.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cel/internal/interpreter.h"
#include "cel/internal/kubernetes_library.h"
#include "cel/internal/lists_library.h"
#include "cel/internal/parser.h"
#include "cel/internal/regex_library.h"
#include "cel/internal/standard_library.h"
#include "cel/internal/strings_library.h"
#include "cel/internal/url_library.h"

namespace {

const draplane::cel::internal::FunctionRegistry& Registry() {
  using namespace draplane::cel::internal;
  static const FunctionRegistry* registry = [] {
    auto* r = new FunctionRegistry();
    (void)RegisterStandardFunctions(r);
    (void)RegisterQuantityFunctions(r);
    (void)RegisterSemverFunctions(r);
    (void)RegisterStringsFunctions(r);
    (void)RegisterKubernetesListsFunctions(r);
    (void)RegisterExtListsFunctions(r);
    (void)RegisterSetsFunctions(r);
    (void)RegisterRegexFunctions(r);
    (void)RegisterUrlFunctions(r);
    return r;
  }();
  return *registry;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace draplane::cel::internal;
  std::string_view source(reinterpret_cast<const char*>(data), size);
  auto parsed = Parse(source);
  if (!parsed.ok()) return 0;
  PlanOptions plan_options;
  plan_options.unknown_functions_are_runtime_errors = true;
  auto program = Plan(*parsed->root, Registry(), plan_options);
  if (!program.ok()) return 0;
  MapActivation activation;
  activation.Insert("x", Value::Int(7));
  activation.Insert("s", Value::String("gpu.nvidia.com"));
  EvalOptions eval_options;
  eval_options.cost_limit = 100000;
  EvalResult result = (*program)->Evaluate(activation, eval_options);
  (void)result.value.DebugString();
  return 0;
}

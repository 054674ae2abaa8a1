// Arbitrary bytes as a DRA selector: parse, type-check in the DRA
// environment (the `device` variable, the standard and Kubernetes
// libraries) and estimate the cost, as API validation does. Any crash,
// sanitizer report, hang or unbounded memory is a bug; errors are expected.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cel/internal/checker.h"
#include "cel/internal/checker_declarations.h"
#include "cel/internal/cost_estimator.h"
#include "cel/internal/interpreter.h"
#include "cel/internal/kubernetes_library.h"
#include "cel/internal/parser.h"
#include "cel/internal/standard_library.h"
#include "cel/internal/strings_library.h"

namespace {

using namespace draplane::cel::internal;

const FunctionRegistry& Registry() {
  static const FunctionRegistry* registry = [] {
    auto* r = new FunctionRegistry();
    (void)RegisterStandardFunctions(r);
    (void)RegisterQuantityFunctions(r);
    (void)RegisterSemverFunctions(r);
    (void)RegisterStringsFunctions(r);
    return r;
  }();
  return *registry;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view source(reinterpret_cast<const char*>(data), size);
  auto parsed = Parse(source);
  if (!parsed.ok()) return 0;
  CheckerEnvironment env;
  env.functions = &Registry();
  env.variables.push_back({"device", DraDeviceType()});
  auto checked = Check(*parsed->root, parsed->source, env);
  if (!checked.ok()) return 0;
  (void)checked->output_type.ToString();
  static const SizeEstimator* sizes = NewDraDeviceSizeEstimator().release();
  CostOptions options;
  options.sizes = sizes;
  auto cost = EstimateCost(*parsed->root, *checked, options);
  if (!cost.ok() || cost->min > cost->max) __builtin_trap();
  return 0;
}

// Test support for the checker and cost estimator tests: registries with
// the libraries draplane implements, and stand-ins for the rest of the
// Kubernetes environment. Test-only.
#ifndef DRAPLANE_CEL_INTERNAL_CHECKER_TEST_SUPPORT_H_
#define DRAPLANE_CEL_INTERNAL_CHECKER_TEST_SUPPORT_H_

#include <set>
#include <string>
#include <utility>

#include "cel/internal/checker_declarations.h"
#include "cel/internal/interpreter.h"
#include "cel/internal/kubernetes_library.h"
#include "cel/internal/standard_library.h"
#include "cel/internal/strings_library.h"
#include "common/str_cat.h"
#include "gtest/gtest.h"

namespace draplane::cel::internal {

inline void RegisterProductionLibraries(FunctionRegistry* registry) {
  ASSERT_TRUE(RegisterStandardFunctions(registry).ok());
  ASSERT_TRUE(RegisterQuantityFunctions(registry).ok());
  ASSERT_TRUE(RegisterSemverFunctions(registry).ok());
  ASSERT_TRUE(RegisterStringsFunctions(registry).ok());
}

// Adds a stand-in overload (evaluating to an error) for every declared
// overload the registry lacks, so that the checker sees the whole Kubernetes
// environment.
inline void AddStandInsForDeclaredOverloads(FunctionRegistry* registry) {
  std::set<std::string> registered;
  for (const std::string& name : registry->FunctionNames()) {
    for (const FunctionOverload* o : registry->Overloads(name)) {
      if (const OverloadDecl* d = FindOverloadDecl(name, o->overload_id)) {
        registered.insert(d->id);
      }
    }
  }
  int serial = 0;
  for (const OverloadDecl& d : AllOverloadDecls()) {
    if (IsInterpreterBuiltin(d.function) || registered.count(d.id) > 0) {
      continue;
    }
    FunctionOverload o;
    o.function = d.function;
    o.overload_id = d.id;
    o.receiver_style = d.receiver_style;
    o.params.assign(d.params.size(), ArgType::Any());
    // A unique parameter type keeps the registry from seeing duplicates.
    if (!o.params.empty()) {
      o.params[0] = ArgType::Opaque(StrCat("stand-in-", serial++));
    }
    o.impl = [](absl::Span<const Value>) {
      return Value::Error("not implemented");
    };
    ASSERT_TRUE(registry->Register(std::move(o)).ok()) << d.id;
  }
}

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_CHECKER_TEST_SUPPORT_H_

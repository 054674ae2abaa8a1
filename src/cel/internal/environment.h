// The function libraries of Kubernetes 1.37's CEL base environment
// (k8s.io/apiserver pkg/cel/environment/base.go, StoredExpressions) plus the
// DRA additions (cel.bind is a parser macro), registered into one registry.
//
// Internal to the cel component.
#ifndef DRAPLANE_CEL_INTERNAL_ENVIRONMENT_H_
#define DRAPLANE_CEL_INTERNAL_ENVIRONMENT_H_

#include "absl/status/status.h"
#include "cel/internal/interpreter.h"
#include "cel/internal/parser.h"

namespace draplane::cel::internal {

struct LibraryOptions {
  // Kubernetes Lists library version: 1 in StoredExpressions (1.37), 0 in
  // the NewExpressions environment of a 1.37 API server (compatibility
  // version 1.36), where `includes` exists only through DRA's own
  // IncludesOption with the DRAListTypeAttributes feature.
  int kubernetes_lists_version = 1;
};

// Registers every library of the environment into `registry`.
absl::Status RegisterKubernetesLibraries(FunctionRegistry* registry,
                                         const LibraryOptions& options = {});

// Parser options of the environment: optional syntax, cel.bind and the
// two-variable comprehensions on; back-quoted identifiers off.
ParserOptions KubernetesParserOptions();

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_ENVIRONMENT_H_

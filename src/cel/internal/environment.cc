#include "cel/internal/environment.h"

#include "cel/internal/format_library.h"
#include "cel/internal/kubernetes_library.h"
#include "cel/internal/lists_library.h"
#include "cel/internal/network_library.h"
#include "cel/internal/regex_library.h"
#include "cel/internal/standard_library.h"
#include "cel/internal/strings_library.h"
#include "cel/internal/url_library.h"

namespace draplane::cel::internal {

absl::Status RegisterKubernetesLibraries(FunctionRegistry* registry,
                                         const LibraryOptions& options) {
  for (auto* register_library :
       {&RegisterStandardFunctions, &RegisterQuantityFunctions,
        &RegisterSemverFunctions, &RegisterStringsFunctions,
        &RegisterIPFunctions, &RegisterCIDRFunctions,
        &RegisterExtListsFunctions, &RegisterSetsFunctions,
        &RegisterRegexFunctions, &RegisterUrlFunctions,
        &RegisterFormatFunctions}) {
    if (absl::Status s = register_library(registry); !s.ok()) return s;
  }
  return RegisterKubernetesListsFunctions(registry,
                                          options.kubernetes_lists_version);
}

ParserOptions KubernetesParserOptions() {
  ParserOptions options;
  options.enable_optional_syntax = true;
  options.enable_quoted_identifiers = false;
  options.enable_bind_macro = true;
  options.enable_two_var_comprehensions = true;
  return options;
}

}  // namespace draplane::cel::internal

#include "common/version.h"

#include "common/str_cat.h"

namespace draplane {

std::string_view DraplaneVersion() { return DRAPLANE_VERSION; }

std::string KubernetesGitVersion() {
  return StrCat(kKubernetesVersion, "+draplane.", DraplaneVersion());
}

}  // namespace draplane

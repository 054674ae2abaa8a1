// draplane's version, and the Kubernetes version it reports: the API level
// it serves and implements (Kubernetes 1.37.2) with draplane's own version
// as semver build metadata, as k3s reports "v1.30.2+k3s1".
#ifndef DRAPLANE_COMMON_VERSION_H_
#define DRAPLANE_COMMON_VERSION_H_

#include <string>
#include <string_view>

namespace draplane {

// The Kubernetes release whose API draplane serves and whose components'
// behaviour it matches.
inline constexpr std::string_view kKubernetesVersion = "v1.37.2";
inline constexpr std::string_view kKubernetesMajor = "1";
inline constexpr std::string_view kKubernetesMinor = "37";

// draplane's own version (the CMake project version), e.g. "0.1.0".
std::string_view DraplaneVersion();

// "v1.37.2+draplane.<DraplaneVersion()>": /version's gitVersion, the
// build-info metric, the chart's appVersion.
std::string KubernetesGitVersion();

}  // namespace draplane

#endif  // DRAPLANE_COMMON_VERSION_H_

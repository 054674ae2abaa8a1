// Semantic Versioning 2.0.0 (https://semver.org) as Kubernetes DRA uses it.
//
// Three entry points, matching the three upstream behaviours:
//  - IsValid: DRA API validation of a device's `version` attribute
//    (k8s.io/kubernetes pkg/apis/resource/validation, semverRe), which is
//    exactly the semver.org 2.0.0 grammar: no "v" prefix, no leading zeros in
//    numeric identifiers, numbers of any size.
//  - Parse: CEL's semver(s) / isSemver(s), i.e. github.com/blang/semver/v4
//    Parse: the same grammar, but every number must fit in uint64. Error
//    messages are blang's.
//  - ParseNormalized: CEL's semver(s, true) / isSemver(s, true), i.e.
//    normalizeAndParse in k8s.io/apiserver pkg/cel/library/semverlib.go:
//    strips one leading "v", fills in missing minor/patch with 0 and removes
//    leading zeros, then Parse. No white space is trimmed.
//
// Ordering follows semver.org precedence (blang's Compare): major, minor,
// patch numerically; a pre-release sorts before the release; pre-release
// identifiers compare numerically (numeric < alphanumeric) or by ASCII
// order; a longer identifier list wins a tie. Build metadata is ignored.
#ifndef DRAPLANE_COMMON_SEMVER_H_
#define DRAPLANE_COMMON_SEMVER_H_

#include <compare>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace draplane {

// The detail of the field.Invalid error DRA validation reports for a version
// attribute that IsValid rejects.
inline constexpr std::string_view kSemverValidationDetail =
    "must be a string compatible with semver.org spec 2.0.0";

class Semver {
 public:
  // One dot-separated pre-release identifier: numeric ("1", "0") or
  // alphanumeric ("alpha", "x-1", "0a").
  struct PrereleaseIdentifier {
    bool is_numeric = false;
    uint64_t number = 0;  // set iff is_numeric
    std::string text;     // set iff !is_numeric

    // "12" or "alpha".
    std::string ToString() const;
    // -1, 0, 1: numeric < alphanumeric; numbers by value; text bytewise.
    int Compare(const PrereleaseIdentifier& other) const;
    friend bool operator==(const PrereleaseIdentifier& a,
                           const PrereleaseIdentifier& b) {
      return a.Compare(b) == 0;
    }
  };

  // 0.0.0.
  Semver() = default;
  Semver(uint64_t major, uint64_t minor, uint64_t patch)
      : major_(major), minor_(minor), patch_(patch) {}

  // blang/semver v4 Parse: "MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]".
  // InvalidArgument with blang's message on failure, e.g.
  //   ""        -> "Version string empty"
  //   "1.2"     -> "No Major.Minor.Patch elements found"
  //   "v1.2.3"  -> `Invalid character(s) found in major number "v1"`
  //   "01.2.3"  -> `Major number must not contain leading zeroes "01"`
  //   "1.2.3-01"-> `Numeric PreRelease version must not contain leading
  //                zeroes "01"`
  //   "1.2.3-"  -> "Prerelease is empty"
  //   "1.2.3+"  -> "Build meta data is empty"
  //   "1..3"    -> `strconv.ParseUint: parsing "": invalid syntax`
  //   numbers >= 2^64 -> `strconv.ParseUint: parsing "...": value out of
  //                range`
  // (Quoted values use Go %q quoting; non-ASCII is approximated.)
  static absl::StatusOr<Semver> Parse(std::string_view s);

  // k8s normalizeAndParse: "v1.2" -> 1.2.0, "01.01.01" -> 1.1.1,
  // "1" -> 1.0.0. A one- or two-part version containing '-' or '+' in its
  // last part fails with "short version cannot contain PreRelease/Build meta
  // data"; everything else fails like Parse on the normalized text.
  static absl::StatusOr<Semver> ParseNormalized(std::string_view s);

  // Whether `s` matches the semver.org 2.0.0 regular expression (the one DRA
  // validation uses). Unlike Parse, numbers may exceed uint64.
  static bool IsValid(std::string_view s);

  uint64_t major() const { return major_; }
  uint64_t minor() const { return minor_; }
  uint64_t patch() const { return patch_; }
  const std::vector<PrereleaseIdentifier>& prerelease() const {
    return prerelease_;
  }
  const std::vector<std::string>& build() const { return build_; }

  // -1, 0 or 1 by semver precedence; build metadata is ignored.
  int Compare(const Semver& other) const;

  // blang String(): "1.2.3-alpha.1+build.5".
  std::string ToString() const;

  // Precedence equality: "1.0.0+a" == "1.0.0+b".
  friend bool operator==(const Semver& a, const Semver& b) {
    return a.Compare(b) == 0;
  }
  friend std::weak_ordering operator<=>(const Semver& a, const Semver& b) {
    const int c = a.Compare(b);
    return c < 0   ? std::weak_ordering::less
           : c > 0 ? std::weak_ordering::greater
                   : std::weak_ordering::equivalent;
  }

  // Prints ToString().
  friend std::ostream& operator<<(std::ostream& os, const Semver& v);

 private:
  uint64_t major_ = 0;
  uint64_t minor_ = 0;
  uint64_t patch_ = 0;
  std::vector<PrereleaseIdentifier> prerelease_;
  std::vector<std::string> build_;
};

}  // namespace draplane

#endif  // DRAPLANE_COMMON_SEMVER_H_

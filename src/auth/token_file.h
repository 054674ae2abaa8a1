// kube-apiserver's static token file (--token-auth-file): CSV lines
// `token,user,uid[,"group1,group2"]`, as k8s.io/apiserver's tokenfile.
#ifndef DRAPLANE_AUTH_TOKEN_FILE_H_
#define DRAPLANE_AUTH_TOKEN_FILE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "auth/user_info.h"

namespace draplane::auth {

struct StaticToken {
  std::string token;
  UserInfo user;
};

// Parses the file's `content` (`path` only names it in errors) as Go's
// encoding/csv reads it: fields may be quoted ("" is a quote inside
// quotes, and a quoted field may span lines), a bare quote in an unquoted
// field is an error, blank lines are skipped, CRLF reads as LF. As
// upstream: a record with fewer than 3 fields is an error; a record with
// an empty token is skipped; a later record repeating a token wins; the
// fourth field is split at commas into groups. InvalidArgument naming the
// line for a malformed record.
absl::StatusOr<std::vector<StaticToken>> ParseTokenFile(
    std::string_view content, std::string_view path);

// Reads and parses the file at `path`.
absl::StatusOr<std::vector<StaticToken>> ReadTokenFile(const std::string& path);

}  // namespace draplane::auth

#endif  // DRAPLANE_AUTH_TOKEN_FILE_H_

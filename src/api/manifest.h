// Reading and writing manifest text: JSON (one value, an array, or a
// stream of concatenated values), multi-document YAML, and `kind: List`
// wrappers, as kubectl accepts them.
//
// YAML scalars resolve the way Kubernetes' YAML decoder (sigs.k8s.io/yaml,
// YAML 1.1 rules) resolves them: `yes`/`on` are booleans, `0x1F` is an
// integer, quoted scalars are always strings. Malformed input yields an
// InvalidArgument status whose message starts with "<source>:<line>:<column>:".
// No input crashes the parser: nesting deeper than kMaxNestingDepth is
// rejected, and so is alias expansion past upstream's ratio ("document
// contains excessive aliasing", go-yaml's rule) or past a node budget
// (YamlDecodeLimits).
#ifndef DRAPLANE_API_MANIFEST_H_
#define DRAPLANE_API_MANIFEST_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/meta_types.h"
#include "yaml-cpp/node/node.h"

namespace draplane::api {

inline constexpr int kMaxNestingDepth = 512;
inline constexpr size_t kMaxExpandedNodes = 4'000'000;

// Nodes a decode may make from an opening (below) before it draws on
// the shared nodes: more than go-yaml's aliasing rule needs to judge a
// document made of aliases, and more than most manifests have.
inline constexpr size_t kYamlOpeningNodes = 8192;

// Nodes that YAML decoding may hold at once across the callers sharing
// it (an API server's requests in flight): a decode takes nodes as it
// makes them and gives them back when it returns. Besides `nodes`, up to
// `openings` decodes at once make their first kYamlOpeningNodes from a
// reserve of their own, so small documents are not put off by large ones
// and an alias bomb is refused by the aliasing rule rather than put off;
// a decode that finds no opening free draws on `nodes` from its first
// node. Thread-safe.
class YamlDecodeBudget {
 public:
  explicit YamlDecodeBudget(size_t nodes, int openings = 0)
      : available_(static_cast<int64_t>(nodes)), openings_(openings) {}
  // False, taking nothing, when fewer than `nodes` are left.
  bool Take(size_t nodes);
  void Give(size_t nodes);
  // False, taking nothing, when every opening is in use.
  bool TakeOpening();
  void GiveOpening();

 private:
  std::atomic<int64_t> available_;
  std::atomic<int> openings_;
};

struct YamlDecodeLimits {
  // Nodes one document may decode to, aliases expanded; more is
  // ResourceExhausted "... expands to more than N nodes".
  size_t max_nodes = kMaxExpandedNodes;
  // Shared with other decodes (null: none); when it runs out the decode
  // fails with Unavailable, to be tried again later.
  YamlDecodeBudget* shared = nullptr;
};

// (Its move constructor is noexcept; the check follows api::Json's
// debug-only invariant assertion.)
// NOLINTNEXTLINE(bugprone-exception-escape)
struct ManifestDocument {
  Json json;
  int line = 1;   // 1-based line where the object starts in the source
  int index = 0;  // 0-based position of the object in the stream
};

// Parses a stream of objects. Empty documents (comments only) are skipped;
// a `kind: List` (or `*List` with `items`) contributes its items. Each
// returned document is a JSON object, else an error names its position.
absl::StatusOr<std::vector<ManifestDocument>> ParseManifests(
    std::string_view text, std::string_view source_name = "<input>",
    const YamlDecodeLimits& limits = {});

// As ParseManifests, but a `kind: List` stays one document (for tools
// that rewrite manifests and must give the List back).
absl::StatusOr<std::vector<ManifestDocument>> ParseManifestsKeepingLists(
    std::string_view text, std::string_view source_name = "<input>");

// Loads YAML text with yaml-cpp behind the guards ParseManifests uses:
// nesting depth, block flow indicators, invalid UTF-8 and control
// characters (yaml-cpp passes them through into strings), and the
// documents on which Debian's yaml-cpp 0.7 loops forever. For every
// parser of untrusted YAML (inventories, CDI specs). Errors are
// InvalidArgument "<source>:<line>:<column>: <why>"; yaml-cpp may still
// throw from the returned nodes' conversions (callers catch).
absl::StatusOr<std::vector<YAML::Node>> LoadYamlDocuments(
    std::string_view text, std::string_view source_name = "<input>");

// Parses exactly one JSON value; errors carry line and column.
absl::StatusOr<Json> ParseJsonText(std::string_view text,
                                   std::string_view source_name = "<input>");

// Replaces invalid UTF-8 in `json`'s strings and member names by U+FFFD
// exactly as DumpJson followed by ParseJsonText would, without serialising
// (for JSON handed over in-process in place of text). Valid input is left
// as it is.
void ReplaceInvalidUtf8(Json& json);

// kubectl-style YAML for one object (block style, keys in the given order,
// strings quoted where plain text would read back as another type).
std::string ToYaml(const Json& json);
// Objects separated by "---" lines.
std::string ToYamlStream(const std::vector<Json>& objects);

}  // namespace draplane::api

#endif  // DRAPLANE_API_MANIFEST_H_

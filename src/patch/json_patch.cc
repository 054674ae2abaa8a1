// RFC 6902 JSON Patch, as gopkg.in/evanphx/json-patch.v4 v4.13.0 applies it
// (patch.go: findObject, partialDoc/partialArray, Patch.add ... copy) with
// the apiserver's limits (10000 operations, 3 MiB copied).
//
// v4 stores a null member as a nil node, which most operations treat as
// missing; an nlohmann null plays that part here (JsonNode::null).

#include <algorithm>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "common/go_strconv.h"
#include "common/str_cat.h"
#include "patch/internal/go_values.h"
#include "patch/patch.h"

namespace draplane::patch {
namespace {

constexpr std::string_view kMissing = "missing value";
constexpr std::string_view kInvalidIndex = "invalid index referenced";

absl::Status Fail(std::string message) {
  return absl::FailedPreconditionError(std::move(message));
}

// Go's json type word for a value that cannot be decoded into a Go type.
std::string_view JsonTypeWord(const Json& value) {
  switch (value.type()) {
    case Json::value_t::object:
      return "object";
    case Json::value_t::array:
      return "array";
    case Json::value_t::string:
      return "string";
    case Json::value_t::boolean:
      return "bool";
    case Json::value_t::null:
      return "null";
    default:
      return "number";
  }
}

// strconv.Atoi: optional sign, decimal digits, int64 range.
absl::StatusOr<int64_t> Atoi(std::string_view s) {
  auto syntax_error = [&] {
    return absl::InvalidArgumentError(
        StrCat("strconv.Atoi: parsing ", StrconvQuote(s), ": invalid syntax"));
  };
  std::string_view digits = s;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty()) return syntax_error();
  uint64_t value = 0;
  bool overflow = false;
  for (char c : digits) {
    if (c < '0' || c > '9') return syntax_error();
    if (value > (std::numeric_limits<uint64_t>::max() - 9) / 10) {
      overflow = true;
    } else {
      value = value * 10 + static_cast<uint64_t>(c - '0');
    }
  }
  uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) +
                   (negative ? 1 : 0);
  if (overflow || value > limit) {
    return absl::InvalidArgumentError(StrCat(
        "strconv.Atoi: parsing ", StrconvQuote(s), ": value out of range"));
  }
  if (negative) return static_cast<int64_t>(0 - value);
  return static_cast<int64_t>(value);
}

// RFC 6901 unescaping: "~1" -> "/", "~0" -> "~", in one left-to-right pass.
std::string DecodeKey(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (size_t i = 0; i < key.size(); ++i) {
    if (key[i] == '~' && i + 1 < key.size() &&
        (key[i + 1] == '0' || key[i + 1] == '1')) {
      out.push_back(key[i + 1] == '1' ? '/' : '~');
      ++i;
    } else {
      out.push_back(key[i]);
    }
  }
  return out;
}

// The length of `value` as compact JSON, computed without recursion (values
// may nest kMaxJsonDepth deep).
size_t CompactSize(const Json& value) {
  size_t size = 0;
  std::vector<const Json*> stack = {&value};
  while (!stack.empty()) {
    const Json* node = stack.back();
    stack.pop_back();
    if (node->is_object()) {
      size += 2 + (node->empty() ? 0 : node->size() - 1);  // {} and commas
      for (auto it = node->begin(); it != node->end(); ++it) {
        size += api::DumpJson(Json(it.key())).size() + 1;  // "key":
        stack.push_back(&it.value());
      }
    } else if (node->is_array()) {
      size += 2 + (node->empty() ? 0 : node->size() - 1);
      for (const Json& element : *node) stack.push_back(&element);
    } else {
      size += api::DumpJson(*node).size();
    }
  }
  return size;
}

// A container (object or array) of the document and a key in it.
struct Location {
  Json* container;
  std::string key;  // decoded
  int depth;        // containers from the root down to `container`
};

// partialArray's bounds check of a parsed index, for get/remove (`extra`
// 0) and add (`extra` 1, inserting at the end is allowed); negative indices
// count from the end.
absl::StatusOr<size_t> CheckIndex(const Json& array, int64_t idx,
                                  size_t extra) {
  int64_t size = static_cast<int64_t>(array.size() + extra);
  if (idx >= size || idx < -size) {
    return absl::InvalidArgumentError(
        StrCat("Unable to access invalid index: ", idx, ": ", kInvalidIndex));
  }
  if (idx < 0) idx += size;
  return static_cast<size_t>(idx);
}

absl::StatusOr<size_t> ArrayIndex(const Json& array, std::string_view key,
                                  size_t extra) {
  absl::StatusOr<int64_t> parsed = Atoi(key);
  if (!parsed.ok()) return parsed.status();
  return CheckIndex(array, *parsed, extra);
}

// container.get: the value (nullptr for a missing or null object member,
// which v4 cannot tell apart) or an error for a bad array index.
absl::StatusOr<Json*> Get(Json& container, const std::string& key) {
  if (container.is_object()) {
    auto it = container.find(key);
    if (it == container.end() || it->is_null()) return nullptr;
    return &*it;
  }
  absl::StatusOr<size_t> idx = ArrayIndex(container, key, 0);
  if (!idx.ok()) return idx.status();
  Json& element = container[*idx];
  return element.is_null() ? nullptr : &element;
}

// container.add (object: set the member; array: insert, "-" appends).
absl::Status Add(Json& container, const std::string& key, Json value) {
  if (container.is_object()) {
    container[key] = std::move(value);
    return absl::OkStatus();
  }
  if (key == "-") {
    container.push_back(std::move(value));
    return absl::OkStatus();
  }
  absl::StatusOr<int64_t> parsed = Atoi(key);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        StrCat("value was not a proper array index: '", key,
               "': ", parsed.status().message()));
  }
  absl::StatusOr<size_t> idx = CheckIndex(container, *parsed, 1);
  if (!idx.ok()) return idx.status();
  container.insert(container.begin() + static_cast<std::ptrdiff_t>(*idx),
                   std::move(value));
  return absl::OkStatus();
}

// container.remove.
absl::Status Remove(Json& container, const std::string& key) {
  if (container.is_object()) {
    if (container.erase(key) == 0) {
      return absl::InvalidArgumentError(
          StrCat("Unable to remove nonexistent key: ", key, ": ", kMissing));
    }
    return absl::OkStatus();
  }
  absl::StatusOr<size_t> idx = ArrayIndex(container, key, 0);
  if (!idx.ok()) return idx.status();
  container.erase(*idx);
  return absl::OkStatus();
}

class JsonPatcher {
 public:
  explicit JsonPatcher(Json document)
      : doc_(std::move(document)), depth_bound_(internal::Depth(doc_)) {}

  absl::Status Apply(const Json& op) {
    std::string kind = Kind(op);
    if (kind == "add") return AddOp(op);
    if (kind == "remove") return RemoveOp(op);
    if (kind == "replace") return ReplaceOp(op);
    if (kind == "move") return MoveOp(op);
    if (kind == "test") return TestOp(op);
    if (kind == "copy") return CopyOp(op);
    return Fail(StrCat("Unexpected kind: ", kind));
  }

  Json TakeResult() { return std::move(doc_); }

 private:
  // Operation.Kind: the "op" string, or "unknown".
  static std::string Kind(const Json& op) {
    if (!op.is_object()) return "unknown";
    auto it = op.find("op");
    if (it == op.end() || !it->is_string()) return "unknown";
    return it->get<std::string>();
  }

  // Operation.Path / Operation.From.
  static absl::StatusOr<std::string> StringField(const Json& op,
                                                 const char* name,
                                                 std::string_view missing) {
    auto it = op.find(name);
    if (it == op.end() || it->is_null()) {
      return absl::InvalidArgumentError(StrCat(missing, ": ", kMissing));
    }
    if (!it->is_string()) {
      return absl::InvalidArgumentError(
          StrCat("json: cannot unmarshal ", JsonTypeWord(*it),
                 " into Go value of type string"));
    }
    return it->get<std::string>();
  }
  static absl::StatusOr<std::string> Path(const Json& op) {
    return StringField(op, "path", "operation missing path field");
  }
  static absl::StatusOr<std::string> From(const Json& op) {
    return StringField(op, "from", "operation, missing from field");
  }
  // Operation.value: the value, null when absent (v4 stores both as null).
  static Json Value(const Json& op) {
    auto it = op.find("value");
    return it == op.end() ? Json() : *it;
  }

  // findObject: the container holding the pointer's last token; nullopt
  // when an intermediate token does not lead to an object or array. As in
  // v4, the text before the first "/" is ignored.
  std::optional<Location> Find(std::string_view path) {
    size_t slash = path.find('/');
    if (slash == std::string_view::npos) return std::nullopt;
    path.remove_prefix(slash + 1);
    Json* container = &doc_;
    int depth = 1;
    size_t next;
    while ((next = path.find('/')) != std::string_view::npos) {
      absl::StatusOr<Json*> child =
          Get(*container, DecodeKey(path.substr(0, next)));
      if (!child.ok() || *child == nullptr || !(*child)->is_structured()) {
        return std::nullopt;
      }
      container = *child;
      ++depth;
      path.remove_prefix(next + 1);
    }
    return Location{container, DecodeKey(path), depth};
  }

  // Records that a value of `value_depth` was placed in a container at
  // `container_depth`; fails once the document could nest too deeply.
  absl::Status Grow(int container_depth, int value_depth) {
    depth_bound_ = std::max(depth_bound_, container_depth + value_depth);
    if (depth_bound_ > kMaxJsonDepth) {
      return absl::InvalidArgumentError(
          StrCat("the patched document would nest deeper than ", kMaxJsonDepth,
                 " levels"));
    }
    return absl::OkStatus();
  }

  absl::Status AddOp(const Json& op) {
    absl::StatusOr<std::string> path = Path(op);
    if (!path.ok()) {
      return Fail(StrCat("add operation failed to decode path: ", kMissing));
    }
    std::optional<Location> loc = Find(*path);
    if (!loc) {
      return Fail(
          StrCat("add operation does not apply: doc is missing path: \"", *path,
                 "\": ", kMissing));
    }
    Json value = Value(op);
    if (absl::Status s = Grow(loc->depth, internal::Depth(value)); !s.ok()) {
      return s;
    }
    if (absl::Status s = Add(*loc->container, loc->key, std::move(value));
        !s.ok()) {
      return Fail(
          StrCat("error in add for path: '", *path, "': ", s.message()));
    }
    return absl::OkStatus();
  }

  absl::Status RemoveOp(const Json& op) {
    absl::StatusOr<std::string> path = Path(op);
    if (!path.ok()) {
      return Fail(StrCat("remove operation failed to decode path: ", kMissing));
    }
    std::optional<Location> loc = Find(*path);
    if (!loc) {
      return Fail(
          StrCat("remove operation does not apply: doc is missing path: \"",
                 *path, "\": ", kMissing));
    }
    if (absl::Status s = Remove(*loc->container, loc->key); !s.ok()) {
      return Fail(
          StrCat("error in remove for path: '", *path, "': ", s.message()));
    }
    return absl::OkStatus();
  }

  absl::Status ReplaceOp(const Json& op) {
    absl::StatusOr<std::string> path = Path(op);
    if (!path.ok()) {
      return Fail(StrCat("replace operation failed to decode path: ",
                         path.status().message()));
    }
    if (path->empty()) {
      // The whole document; v4 silently ignores a value that is neither an
      // object nor an array.
      Json value = Value(op);
      if (value.is_structured()) {
        depth_bound_ = internal::Depth(value);
        doc_ = std::move(value);
      }
      return absl::OkStatus();
    }
    std::optional<Location> loc = Find(*path);
    if (!loc) {
      return Fail(StrCat(
          "replace operation does not apply: doc is missing path: ", *path,
          ": ", kMissing));
    }
    Json& container = *loc->container;
    Json value = Value(op);
    if (absl::Status s = Grow(loc->depth, internal::Depth(value)); !s.ok()) {
      return s;
    }
    if (container.is_object()) {
      // v4's partialDoc.get never fails: a missing member is added.
      container[loc->key] = std::move(value);
      return absl::OkStatus();
    }
    absl::StatusOr<size_t> idx = ArrayIndex(container, loc->key, 0);
    if (!idx.ok()) {
      return Fail(StrCat(
          "replace operation does not apply: doc is missing key: ", *path, ": ",
          kMissing));
    }
    container[*idx] = std::move(value);
    return absl::OkStatus();
  }

  absl::Status MoveOp(const Json& op) {
    absl::StatusOr<std::string> from = From(op);
    if (!from.ok()) {
      return Fail(StrCat("move operation failed to decode from: ",
                         from.status().message()));
    }
    std::optional<Location> source = Find(*from);
    if (!source) {
      return Fail(StrCat(
          "move operation does not apply: doc is missing from path: ", *from,
          ": ", kMissing));
    }
    absl::StatusOr<Json*> found = Get(*source->container, source->key);
    if (!found.ok()) {
      return Fail(StrCat("error in move for path: '", source->key,
                         "': ", found.status().message()));
    }
    Json value = *found == nullptr ? Json() : std::move(**found);
    if (absl::Status s = Remove(*source->container, source->key); !s.ok()) {
      return Fail(
          StrCat("error in move for path: '", source->key, "': ", s.message()));
    }
    absl::StatusOr<std::string> path = Path(op);
    if (!path.ok()) {
      return Fail(StrCat("move operation failed to decode path: ",
                         path.status().message()));
    }
    std::optional<Location> target = Find(*path);
    if (!target) {
      return Fail(StrCat(
          "move operation does not apply: doc is missing destination path: ",
          *path, ": ", kMissing));
    }
    if (absl::Status s = Grow(target->depth, internal::Depth(value)); !s.ok()) {
      return s;
    }
    if (absl::Status s = Add(*target->container, target->key, std::move(value));
        !s.ok()) {
      return Fail(
          StrCat("error in move for path: '", *path, "': ", s.message()));
    }
    return absl::OkStatus();
  }

  absl::Status TestOp(const Json& op) {
    absl::StatusOr<std::string> path = Path(op);
    if (!path.ok()) {
      return Fail(StrCat("test operation failed to decode path: ",
                         path.status().message()));
    }
    auto value = op.find("value");
    bool has_value = value != op.end();
    if (path->empty()) {
      if (has_value && internal::GoEqual(doc_, *value)) {
        return absl::OkStatus();
      }
      return Fail(StrCat("testing value ", *path, " failed: test failed"));
    }
    std::optional<Location> loc = Find(*path);
    if (!loc) {
      return Fail(StrCat("test operation does not apply: is missing path: ",
                         *path, ": ", kMissing));
    }
    absl::StatusOr<Json*> found = Get(*loc->container, loc->key);
    if (!found.ok()) {
      return Fail(StrCat("error in test for path: '", *path,
                         "': ", found.status().message()));
    }
    bool equal = false;
    if (*found == nullptr) {
      // A missing or null member equals only an explicit null.
      equal = has_value && value->is_null();
    } else {
      equal = has_value && internal::GoEqual(**found, *value);
    }
    if (equal) return absl::OkStatus();
    return Fail(StrCat("testing value ", *path, " failed: test failed"));
  }

  absl::Status CopyOp(const Json& op) {
    absl::StatusOr<std::string> from = From(op);
    if (!from.ok()) {
      return Fail(StrCat("copy operation failed to decode from: ",
                         from.status().message()));
    }
    std::optional<Location> source = Find(*from);
    if (!source) {
      return Fail(StrCat(
          "copy operation does not apply: doc is missing from path: ", *from,
          ": ", kMissing));
    }
    absl::StatusOr<Json*> found = Get(*source->container, source->key);
    if (!found.ok()) {
      return Fail(StrCat("error in copy for from: '", *from,
                         "': ", found.status().message()));
    }
    absl::StatusOr<std::string> path = Path(op);
    if (!path.ok()) {
      return Fail(StrCat("copy operation failed to decode path: ", kMissing));
    }
    std::optional<Location> target = Find(*path);
    if (!target) {
      return Fail(StrCat(
          "copy operation does not apply: doc is missing destination path: ",
          *path, ": ", kMissing));
    }
    // Copy before `target` is used: adding may move the source.
    Json value = *found == nullptr ? Json() : **found;
    if (*found != nullptr) {
      copied_bytes_ += CompactSize(value);
      if (copied_bytes_ > kMaxJsonPatchCopyBytes) {
        return Fail(StrCat(
            "Unable to complete the copy, the accumulated size increase of "
            "copy is ",
            copied_bytes_, ", exceeding the limit ", kMaxJsonPatchCopyBytes));
      }
    }
    if (absl::Status s = Grow(target->depth, internal::Depth(value)); !s.ok()) {
      return s;
    }
    if (absl::Status s = Add(*target->container, target->key, std::move(value));
        !s.ok()) {
      return Fail(
          StrCat("error while adding value during copy: ", s.message()));
    }
    return absl::OkStatus();
  }

  Json doc_;
  int depth_bound_;
  size_t copied_bytes_ = 0;
};

absl::StatusOr<Json> JsonPatch(const Json& original, const Json& patch) {
  if (patch.is_null()) return original;  // decodes to zero operations
  if (!patch.is_array()) {
    return absl::InvalidArgumentError(
        StrCat("json: cannot unmarshal ", JsonTypeWord(patch),
               " into Go value of type jsonpatch.Patch"));
  }
  for (const Json& op : patch) {
    if (!op.is_object() && !op.is_null()) {
      return absl::InvalidArgumentError(
          StrCat("json: cannot unmarshal ", JsonTypeWord(op),
                 " into Go value of type jsonpatch.Operation"));
    }
  }
  if (patch.size() > kMaxJsonPatchOperations) {
    return absl::ResourceExhaustedError(
        StrCat("The allowed maximum operations in a JSON patch is ",
               kMaxJsonPatchOperations, ", got ", patch.size()));
  }
  if (absl::Status s = internal::CheckDepth(original, patch); !s.ok()) {
    return s;
  }
  if (!original.is_structured()) {
    return Fail(StrCat("json: cannot unmarshal ", JsonTypeWord(original),
                       " into Go value of type jsonpatch.partialDoc"));
  }
  JsonPatcher patcher(original);
  for (const Json& op : patch) {
    if (absl::Status s = patcher.Apply(op); !s.ok()) return s;
  }
  return patcher.TakeResult();
}

}  // namespace

absl::StatusOr<Json> ApplyJsonPatch(const Json& original, const Json& patch) {
  try {
    return JsonPatch(original, patch);
  } catch (const std::exception& e) {
    return absl::InternalError(StrCat("json patch: ", e.what()));
  }
}

}  // namespace draplane::patch

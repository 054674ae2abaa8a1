#include "apiserver/internal/patching.h"

#include "api/manifest.h"
#include "apiserver/internal/api_errors.h"
#include "apiserver/internal/negotiation.h"
#include "common/str_cat.h"
#include "patch/patch.h"

namespace draplane::apiserver::internal {
namespace {

absl::Status Unsupported(bool strategic) {
  return ApiError(
      415, "UnsupportedMediaType",
      StrCat("the body of the request was in an unknown format - accepted "
             "media types include: application/json-patch+json, "
             "application/merge-patch+json, application/apply-patch+yaml",
             strategic ? ", application/strategic-merge-patch+json" : ""));
}

// Maps a patch library error to the answer upstream gives.
absl::Status PatchError(const absl::Status& s) {
  const std::string message(s.message());
  switch (s.code()) {
    case absl::StatusCode::kInvalidArgument:
      return BadRequest(message);
    case absl::StatusCode::kFailedPrecondition:
      return ApiError(422, "Invalid", message);
    case absl::StatusCode::kResourceExhausted:
      return RequestEntityTooLarge(message);
    default:
      return InternalServerError(message);
  }
}

}  // namespace

absl::StatusOr<PatchType> ParsePatchType(const std::string& content_type,
                                         const ResourceInfo& r) {
  const bool strategic =
      patch::PatchSchemaFor(r.group(), r.kind->kind) != nullptr;
  if (content_type == "application/json-patch+json") return PatchType::kJson;
  if (content_type == "application/merge-patch+json") return PatchType::kMerge;
  if (content_type == "application/apply-patch+yaml") return PatchType::kApply;
  if (content_type == "application/strategic-merge-patch+json" && strategic) {
    return PatchType::kStrategic;
  }
  return Unsupported(strategic);
}

absl::StatusOr<api::Json> ApplyPatch(PatchType type, const ResourceInfo& r,
                                     const api::Json& current,
                                     const std::string& body,
                                     const ApplyRequest& apply) {
  api::Json patch_doc;
  if (type == PatchType::kApply) {
    auto docs = api::ParseManifests(body, "apply patch", RequestYamlLimits());
    if (!docs.ok()) return YamlDecodeError(docs.status());
    if (docs->size() != 1) {
      return BadRequest("an apply patch must hold exactly one object");
    }
    return ServerSideApply(r, current, (*docs)[0].json, apply);
  } else {
    auto parsed = api::ParseJsonText(body, "patch");
    if (!parsed.ok()) {
      return BadRequest(
          StrCat("error decoding patch: ", parsed.status().message()));
    }
    patch_doc = *std::move(parsed);
  }
  absl::StatusOr<api::Json> out;
  const patch::PatchSchema* schema =
      patch::PatchSchemaFor(r.group(), r.kind->kind);
  switch (type) {
    case PatchType::kJson:
      out = patch::ApplyJsonPatch(current, patch_doc);
      break;
    case PatchType::kMerge:
      out = patch::ApplyMergePatch(current, patch_doc);
      break;
    case PatchType::kStrategic:
      out = patch::ApplyStrategicMergePatch(current, patch_doc, *schema);
      break;
    case PatchType::kApply:
      break;  // handled above
  }
  if (!out.ok()) return PatchError(out.status());
  return out;
}

}  // namespace draplane::apiserver::internal

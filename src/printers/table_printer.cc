#include "printers/table_printer.h"

#include <cstdint>
#include <exception>
#include <string>

#include "absl/status/status.h"
#include "common/str_cat.h"
#include "printers/internal/json_access.h"
#include "printers/internal/kind_printers.h"

namespace draplane::printers {
namespace {

using api::Json;
using internal::ColumnDefinition;
using internal::KindPrinter;

Json ColumnDefinitionsJson(const KindPrinter& printer) {
  Json columns = Json::array();
  for (const ColumnDefinition& column : printer.columns) {
    columns.push_back(Json{{"name", column.name},
                           {"type", column.type},
                           {"format", column.format},
                           {"description", column.description},
                           {"priority", column.priority}});
  }
  return columns;
}

// rows[].object for `object` (upstream handlers/response.go asTable).
Json RowObject(const Json& object, IncludeObject include) {
  switch (include) {
    case IncludeObject::kObject:
      return object;
    case IncludeObject::kNone:
      return nullptr;
    case IncludeObject::kMetadata:
      break;
  }
  const Json* metadata = internal::Member(&object, "metadata");
  return Json{{"kind", "PartialObjectMetadata"},
              {"apiVersion", "meta.k8s.io/v1"},
              {"metadata", metadata != nullptr && metadata->is_object()
                               ? *metadata
                               : Json::object()}};
}

absl::StatusOr<Json> PrintTableOrThrow(const std::vector<Json>& objects,
                                       std::string_view group,
                                       std::string_view kind,
                                       const TableOptions& options) {
  const KindPrinter* printer = internal::FindKindPrinter(group, kind);
  const bool is_default = printer == nullptr;
  if (is_default) printer = &internal::DefaultPrinter();

  // Upstream's default convertor appends to a nil slice (JSON null when
  // nothing is appended); the kind printers build an empty slice.
  Json rows = is_default && objects.empty() ? Json(nullptr) : Json::array();
  for (size_t i = 0; i < objects.size(); ++i) {
    const Json& object = objects[i];
    if (!object.is_object()) {
      return absl::InvalidArgumentError(
          StrCat("objects[", i, "] is not a JSON object"));
    }
    internal::PrintedRow printed = printer->print_row(object, options.now);
    Json row = Json::object();
    row["cells"] = std::move(printed.cells);
    if (printed.conditions.is_array() && !printed.conditions.empty()) {
      row["conditions"] = std::move(printed.conditions);
    }
    row["object"] = RowObject(object, options.include_object);
    rows.push_back(std::move(row));
  }

  Json metadata = Json::object();
  if (!options.resource_version.empty()) {
    metadata["resourceVersion"] = options.resource_version;
  }
  if (!options.continue_token.empty()) {
    metadata["continue"] = options.continue_token;
  }
  if (options.remaining_item_count.has_value()) {
    metadata["remainingItemCount"] = *options.remaining_item_count;
  }

  Json table = Json::object();
  table["kind"] = "Table";
  table["apiVersion"] = "meta.k8s.io/v1";
  table["metadata"] = std::move(metadata);
  table["columnDefinitions"] =
      options.no_headers ? Json(nullptr) : ColumnDefinitionsJson(*printer);
  table["rows"] = std::move(rows);
  return table;
}

}  // namespace

absl::StatusOr<IncludeObject> ParseIncludeObject(std::string_view value) {
  if (value.empty() || value == "Metadata") return IncludeObject::kMetadata;
  if (value == "Object") return IncludeObject::kObject;
  if (value == "None") return IncludeObject::kNone;
  return absl::InvalidArgumentError(
      StrCat("unrecognized includeObject value: \"", value, "\""));
}

absl::StatusOr<api::Json> PrintTable(const std::vector<api::Json>& objects,
                                     std::string_view group,
                                     std::string_view kind,
                                     const TableOptions& options) {
  try {
    return PrintTableOrThrow(objects, group, kind, options);
  } catch (const std::exception& e) {
    // The printers read JSON without throwing; this is a safety net.
    return absl::InternalError(StrCat("printing a table failed: ", e.what()));
  }
}

bool HasKindColumns(std::string_view group, std::string_view kind) {
  return internal::FindKindPrinter(group, kind) != nullptr;
}

std::string HumanDuration(absl::Duration d) {
  // Go's time.Duration: int64 nanoseconds, saturating.
  const int64_t ns = absl::ToInt64Nanoseconds(d);
  constexpr int64_t kSecond = 1000 * 1000 * 1000;
  constexpr int64_t kMinute = 60 * kSecond;
  constexpr int64_t kHour = 60 * kMinute;
  // Allow a deviation of up to 2 seconds (excluded) for clock skew.
  const int64_t seconds = ns / kSecond;  // Truncates toward zero like Go.
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return StrCat(seconds, "s");
  const int64_t minutes = ns / kMinute;
  if (minutes < 10) {
    const int64_t s = seconds % 60;
    if (s == 0) return StrCat(minutes, "m");
    return StrCat(minutes, "m", s, "s");
  }
  if (minutes < 60 * 3) return StrCat(minutes, "m");
  const int64_t hours = ns / kHour;
  if (hours < 8) {
    const int64_t m = minutes % 60;
    if (m == 0) return StrCat(hours, "h");
    return StrCat(hours, "h", m, "m");
  }
  if (hours < 48) return StrCat(hours, "h");
  if (hours < 24 * 8) {
    const int64_t h = hours % 24;
    if (h == 0) return StrCat(hours / 24, "d");
    return StrCat(hours / 24, "d", h, "h");
  }
  if (hours < 24 * 365 * 2) return StrCat(hours / 24, "d");
  if (hours < 24 * 365 * 8) {
    const int64_t dy = (hours / 24) % 365;
    if (dy == 0) return StrCat(hours / 24 / 365, "y");
    return StrCat(hours / 24 / 365, "y", dy, "d");
  }
  return StrCat(hours / 24 / 365, "y");
}

}  // namespace draplane::printers

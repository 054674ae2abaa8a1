// The per-kind column definitions and row printers behind PrintTable.
#ifndef DRAPLANE_PRINTERS_INTERNAL_KIND_PRINTERS_H_
#define DRAPLANE_PRINTERS_INTERNAL_KIND_PRINTERS_H_

#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "api/meta_types.h"

namespace draplane::printers::internal {

// metav1.TableColumnDefinition.
struct ColumnDefinition {
  std::string_view name;
  std::string_view type;
  std::string_view format;
  std::string_view description;
  int priority = 0;
};

// The printed form of one object: one cell per column (priority-1 cells
// included) and the row conditions (null, or an array of
// metav1.TableRowCondition).
struct PrintedRow {
  api::Json cells = api::Json::array();
  api::Json conditions;
};

// Prints `object` (a JSON object) as of `now`. Never throws.
using RowPrinter = PrintedRow (*)(const api::Json& object, absl::Time now);

struct KindPrinter {
  std::string_view group;
  std::string_view kind;
  std::vector<ColumnDefinition> columns;
  RowPrinter print_row;
};

// The printer of a kind with its own columns; nullptr for other kinds.
const KindPrinter* FindKindPrinter(std::string_view group,
                                   std::string_view kind);

// Upstream's default table convertor (Name, Created At).
const KindPrinter& DefaultPrinter();

}  // namespace draplane::printers::internal

#endif  // DRAPLANE_PRINTERS_INTERNAL_KIND_PRINTERS_H_

// Columns padded the way kubectl prints tables (three spaces between
// columns, upper-case headers given by the caller).
#ifndef DRAPLANE_OPERATOR_TOOLS_INTERNAL_TEXT_TABLE_H_
#define DRAPLANE_OPERATOR_TOOLS_INTERNAL_TEXT_TABLE_H_

#include <algorithm>
#include <string>
#include <vector>

namespace draplane::operator_tools::internal {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) {
    rows_.push_back(std::move(header));
  }
  void AddRow(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  size_t rows() const { return rows_.size() - 1; }

  std::string Render() const {
    std::vector<size_t> width;
    for (const auto& row : rows_) {
      if (width.size() < row.size()) width.resize(row.size(), 0);
      for (size_t i = 0; i < row.size(); ++i) {
        width[i] = std::max(width[i], row[i].size());
      }
    }
    std::string out;
    for (const auto& row : rows_) {
      std::string line;
      for (size_t i = 0; i < row.size(); ++i) {
        line += row[i];
        if (i + 1 < row.size()) {
          line.append(width[i] - row[i].size() + 3, ' ');
        }
      }
      out += line + "\n";
    }
    return out;
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace draplane::operator_tools::internal

#endif  // DRAPLANE_OPERATOR_TOOLS_INTERNAL_TEXT_TABLE_H_

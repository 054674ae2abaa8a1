// Line-level editing of block-style YAML text, for changes that must keep
// the rest of a document (comments, quoting, indentation) as it was.
// Positions are yaml-cpp Marks (0-based line and column). The caller
// checks the edited text by parsing it back; these helpers only refuse
// (return false / nullopt) where a line edit plainly cannot work.
#ifndef DRAPLANE_MIGRATE_INTERNAL_YAML_TEXT_EDITS_H_
#define DRAPLANE_MIGRATE_INTERNAL_YAML_TEXT_EDITS_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace draplane::migrate::internal {

// One document of a YAML stream: the marker line that opened it ("---",
// "--- # note"; empty for a first document without one), with its line
// end, and the text up to the next marker.
struct TextDocument {
  std::string marker;
  std::string body;
  int first_line = 0;  // 0-based line of `body` in the stream
};

// Splits at lines that start with "---" followed by nothing, a space or a
// tab, and at "..." end markers (kept in the previous body). Joining the
// markers and bodies gives the text back.
std::vector<TextDocument> SplitDocuments(std::string_view text);

class LineEditor {
 public:
  explicit LineEditor(std::string_view text);

  int line_count() const { return static_cast<int>(lines_.size()); }
  const std::string& line(int i) const { return lines_[i]; }

  // The lines [begin, end) of the mapping entry whose key starts at
  // (line, column): the key line, then every line indented deeper, and
  // "- " items at the key's own column (a block sequence written at the
  // key's indentation), with blank and comment lines between them.
  // Trailing blank and comment lines are not part of the entry. Nullopt
  // when the key is not the first thing on its line (e.g. "- key: v").
  std::optional<std::pair<int, int>> EntryRange(int line, int column) const;

  // The first of the comment lines directly above `line` (or `line`):
  // where text inserted in front of a key keeps the key's comment with it.
  int AboveComments(int line) const;

  // Whether only spaces precede `column` on `line`.
  bool StartsLine(int line, int column) const;

  // For a block sequence item whose content starts at (line, column): the
  // dash's column, or nullopt if the line does not read "- " there.
  std::optional<int> DashColumn(int line, int column) const;

  void Delete(int begin, int end);
  // Inserts whole lines (without line ends) before `line`
  // (line_count() appends). Insertions at one line keep their call order.
  void Insert(int line, std::vector<std::string> lines);

  // The text with every edit applied. Edits may not overlap except that
  // an insertion may sit at the start of a deleted range (it then comes
  // before what follows the range).
  std::string Apply() const;

 private:
  struct Edit {
    int line;
    int delete_end;  // == line for insertions
    std::vector<std::string> insert;
    int order;
  };
  std::vector<std::string> lines_;
  bool final_newline_ = true;
  std::vector<Edit> edits_;
};

}  // namespace draplane::migrate::internal

#endif  // DRAPLANE_MIGRATE_INTERNAL_YAML_TEXT_EDITS_H_

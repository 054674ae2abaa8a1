#include "migrate/internal/yaml_text_edits.h"

#include <algorithm>

namespace draplane::migrate::internal {
namespace {

bool IsMarker(std::string_view line, std::string_view marker) {
  if (line.substr(0, 3) != marker) return false;
  if (line.size() == 3) return true;
  char c = line[3];
  return c == ' ' || c == '\t' || c == '\r';
}

int Indent(const std::string& line) {
  size_t i = line.find_first_not_of(' ');
  return i == std::string::npos ? -1 : static_cast<int>(i);
}

// Blank, or nothing but a comment after spaces.
bool IsTrivia(const std::string& line) {
  size_t i = line.find_first_not_of(" \t\r");
  return i == std::string::npos || line[i] == '#';
}

}  // namespace

std::vector<TextDocument> SplitDocuments(std::string_view text) {
  std::vector<TextDocument> docs(1);
  size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    size_t next = end == std::string_view::npos ? text.size() : end + 1;
    std::string_view line = text.substr(pos, next - pos);
    std::string_view bare = line;
    if (!bare.empty() && bare.back() == '\n') bare.remove_suffix(1);
    if (IsMarker(bare, "---")) {
      TextDocument doc;
      doc.marker = std::string(line);
      doc.first_line = line_no + 1;
      docs.push_back(std::move(doc));
    } else {
      docs.back().body.append(line);
    }
    pos = next;
    ++line_no;
  }
  return docs;
}

LineEditor::LineEditor(std::string_view text) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) {
      lines_.emplace_back(text.substr(pos));
      final_newline_ = false;
      break;
    }
    lines_.emplace_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
}

bool LineEditor::StartsLine(int line, int column) const {
  if (line < 0 || line >= line_count()) return false;
  const std::string& l = lines_[line];
  if (static_cast<int>(l.size()) < column) return false;
  return l.find_first_not_of(' ') == static_cast<size_t>(column);
}

std::optional<int> LineEditor::DashColumn(int line, int column) const {
  if (line < 0 || line >= line_count()) return std::nullopt;
  const std::string& l = lines_[line];
  int c = column - 1;
  while (c >= 0 && l[c] == ' ') --c;
  if (c < 0 || l[c] != '-') return std::nullopt;
  for (int i = 0; i < c; ++i) {
    if (l[i] != ' ') return std::nullopt;
  }
  return c;
}

std::optional<std::pair<int, int>> LineEditor::EntryRange(int line,
                                                          int column) const {
  if (!StartsLine(line, column)) return std::nullopt;
  int end = line + 1;
  for (int i = line + 1; i < line_count(); ++i) {
    const std::string& l = lines_[i];
    if (IsTrivia(l)) continue;
    int indent = Indent(l);
    bool deeper = indent > column;
    bool same_level_item =
        indent == column && l[indent] == '-' &&
        (l.size() == static_cast<size_t>(indent) + 1 || l[indent + 1] == ' ');
    if (!deeper && !same_level_item) break;
    end = i + 1;
  }
  return std::make_pair(line, end);
}

int LineEditor::AboveComments(int line) const {
  while (line > 0) {
    const std::string& l = lines_[line - 1];
    size_t i = l.find_first_not_of(" \t");
    if (i == std::string::npos || l[i] != '#') break;
    --line;
  }
  return line;
}

void LineEditor::Delete(int begin, int end) {
  edits_.push_back({begin, end, {}, static_cast<int>(edits_.size())});
}

void LineEditor::Insert(int line, std::vector<std::string> lines) {
  edits_.push_back(
      {line, line, std::move(lines), static_cast<int>(edits_.size())});
}

std::string LineEditor::Apply() const {
  std::vector<Edit> edits = edits_;
  // Back to front, so earlier line numbers stay valid; at one line,
  // deletions first, then insertions in reverse call order (each lands in
  // front of the ones applied before it).
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) {
    if (a.line != b.line) return a.line > b.line;
    bool a_delete = a.delete_end > a.line;
    bool b_delete = b.delete_end > b.line;
    if (a_delete != b_delete) return a_delete;
    return a.order > b.order;
  });
  std::vector<std::string> lines = lines_;
  for (const Edit& e : edits) {
    if (e.delete_end > e.line) {
      lines.erase(lines.begin() + e.line, lines.begin() + e.delete_end);
    }
    lines.insert(lines.begin() + e.line, e.insert.begin(), e.insert.end());
  }
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    out += lines[i];
    if (i + 1 < lines.size() || final_newline_) out += '\n';
  }
  return out;
}

}  // namespace draplane::migrate::internal

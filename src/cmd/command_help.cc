#include "cmd/command_help.h"

#include <sstream>
#include <vector>

namespace draplane::cmd {
namespace {

// Words of `text` filled into lines of at most `width` columns (a longer
// word stands alone).
void Fill(const std::string& text, size_t width, std::string& out) {
  std::istringstream words(text);
  std::string word;
  std::string line;
  while (words >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += word;
  }
  if (!line.empty()) out += line + "\n";
}

class WrappingFormatter : public CLI::Formatter {
 public:
  std::string make_option_desc(const CLI::Option* opt) const override {
    const size_t width = kHelpWidth - get_column_width();
    std::string out;
    Fill(CLI::Formatter::make_option_desc(opt), width, out);
    if (!out.empty()) out.pop_back();  // format_help adds the newline
    return out;
  }
};

}  // namespace

std::string WrapHelp(std::string_view text, size_t width) {
  std::string out;
  std::string paragraph;
  auto flush = [&] {
    if (!paragraph.empty()) Fill(paragraph, width, out);
    paragraph.clear();
  };
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) {
      flush();
      out += "\n";
    } else if (line.front() == ' ') {
      flush();
      out += line + "\n";
    } else {
      if (!paragraph.empty()) paragraph += ' ';
      paragraph += line;
    }
  }
  flush();
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

CLI::App* AddCommand(CLI::App& parent, const std::string& name,
                     const std::string& summary, std::string_view details) {
  CLI::App* cmd = parent.add_subcommand(name, summary);
  if (!details.empty()) cmd->footer("\n" + WrapHelp(details, 80));
  return cmd;
}

std::shared_ptr<CLI::Formatter> HelpFormatter() {
  return std::make_shared<WrappingFormatter>();
}

}  // namespace draplane::cmd

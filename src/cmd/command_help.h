// How draplane's commands present their help: a one-line summary in the
// listing of `draplane --help`, the details and examples in the footer of
// `draplane COMMAND --help`, every line at most kHelpWidth columns.
#ifndef DRAPLANE_CMD_COMMAND_HELP_H_
#define DRAPLANE_CMD_COMMAND_HELP_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "CLI/CLI.hpp"

namespace draplane::cmd {

inline constexpr size_t kHelpWidth = 100;

// Adds subcommand `name` to `parent`: `summary` is one line (no period at
// the end, at most 70 columns: the listing starts it at column 30);
// `details` (paragraphs separated by blank lines; lines that start with a
// space, such as examples, kept as written) become the footer of its help,
// wrapped at 80 columns.
CLI::App* AddCommand(CLI::App& parent, const std::string& name,
                     const std::string& summary, std::string_view details);

// `text` with each paragraph's lines joined and wrapped at `width`
// columns; lines that start with a space are kept as they are.
std::string WrapHelp(std::string_view text, size_t width);

// CLI11's formatter with option descriptions wrapped so that no help line
// is wider than kHelpWidth.
std::shared_ptr<CLI::Formatter> HelpFormatter();

}  // namespace draplane::cmd

#endif  // DRAPLANE_CMD_COMMAND_HELP_H_

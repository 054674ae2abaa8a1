// draplane's help: a short listing, one-line summaries, no line wider than
// kHelpWidth, details and examples in each command's own help, and
// completion scripts that follow the command tree.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cmd/command_help.h"
#include "cmd/command_test_util.h"
#include "cmd/commands.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace draplane::cmd {
namespace {

using ::testing::HasSubstr;
using testing_util::RunDraplane;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Every command path below draplane ({"cel", "eval"}, ...).
void Paths(const CLI::App* app, const std::vector<std::string>& prefix,
           std::vector<std::vector<std::string>>& out) {
  for (const CLI::App* sub :
       app->get_subcommands([](const CLI::App*) { return true; })) {
    std::vector<std::string> path = prefix;
    path.push_back(sub->get_name());
    out.push_back(path);
    Paths(sub, path, out);
  }
}

std::vector<std::vector<std::string>> AllCommands() {
  std::ostringstream out, err;
  int code = 0;
  CLI::App app("draplane", "draplane");
  RegisterAll(app, {out, err}, &code);
  std::vector<std::vector<std::string>> paths;
  Paths(&app, {}, paths);
  return paths;
}

TEST(HelpTest, TopLevelHelpIsShortWithOneLineSummaries) {
  testing_util::Result r = RunDraplane({"--help"});
  ASSERT_EQ(r.code, 0);
  std::vector<std::string> lines = Lines(r.out);
  EXPECT_LE(lines.size(), 40u) << r.out;
  for (const std::string& line : lines) {
    EXPECT_LE(line.size(), kHelpWidth) << line;
  }
  for (const auto& path : AllCommands()) {
    if (path.size() != 1) continue;
    // The listing line: two spaces, the name, its summary on the same line.
    bool listed = false;
    for (const std::string& line : lines) {
      listed |=
          line.rfind("  " + path[0] + " ", 0) == 0 &&
          line.find_first_not_of(' ', path[0].size() + 2) != std::string::npos;
    }
    EXPECT_TRUE(listed) << path[0] << " has no one-line summary:\n" << r.out;
  }
}

TEST(HelpTest, EveryCommandsHelpFitsAndLongRunningOnesShowExamples) {
  const std::vector<std::vector<std::string>> paths = AllCommands();
  ASSERT_GE(paths.size(), 18u);
  for (const auto& path : paths) {
    std::vector<std::string> args = path;
    args.push_back("--help");
    testing_util::Result r = RunDraplane(args);
    std::string name;
    for (const std::string& p : path) name += " " + p;
    EXPECT_EQ(r.code, 0) << name;
    for (const std::string& line : Lines(r.out)) {
      EXPECT_LE(line.size(), kHelpWidth) << "draplane" << name << ": " << line;
    }
  }
  for (const char* command : {"server", "scheduler", "controller", "node",
                              "validate", "allocate", "explain", "doctor"}) {
    testing_util::Result r = RunDraplane({command, "--help"});
    EXPECT_THAT(r.out, HasSubstr("Example")) << command;
  }
}

TEST(HelpTest, WrapHelpKeepsIndentedLinesAndWrapsParagraphs) {
  EXPECT_EQ(WrapHelp("one two three four\nfive\n\nExample:\n  keep   this  "
                     "line exactly as it is\n",
                     10),
            "one two\nthree four\nfive\n\nExample:\n  keep   this  line "
            "exactly as it is");
}

// Completes `line` (the words typed so far, the last one being completed)
// with the generated bash script; the candidates, space-separated.
std::string BashComplete(const std::string& script,
                         const std::vector<std::string>& words) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / "draplane_completion.bash";
  std::ofstream(file) << script;
  std::string array;
  for (const std::string& w : words) array += " '" + w + "'";
  const std::string command =
      "bash -c 'source " + file.string() + "; COMP_WORDS=(" + array +
      "); COMP_CWORD=" + std::to_string(words.size() - 1) +
      "; _draplane; echo \"${COMPREPLY[*]}\"'";
  std::string out;
  if (FILE* p = popen(command.c_str(), "r")) {
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    pclose(p);
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

TEST(CompletionTest, BashCompletesCommandsSubcommandsAndFlags) {
  testing_util::Result r = RunDraplane({"completion", "bash"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("complete -o default -F _draplane draplane"));
  EXPECT_EQ(BashComplete(r.out, {"draplane", "ce"}), "cel certs");
  EXPECT_EQ(BashComplete(r.out, {"draplane", "certs", ""}), "rotate -h --help");
  EXPECT_EQ(BashComplete(r.out, {"draplane", "cel", ""}),
            "eval match -h --help");
  EXPECT_EQ(BashComplete(r.out, {"draplane", "scheduler", "--logging-f"}),
            "--logging-format");
  // Flags before a subcommand do not hide it.
  EXPECT_EQ(BashComplete(r.out, {"draplane", "plan", "--help", "m"}), "mig");
}

TEST(CompletionTest, ZshScriptDescribesEveryCommand) {
  testing_util::Result r = RunDraplane({"completion", "zsh"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("#compdef draplane\n", 0), 0u);
  EXPECT_THAT(r.out, HasSubstr("'cel:Debug CEL device selectors"));
  EXPECT_THAT(r.out, HasSubstr("(\" cel eval\")"));
  EXPECT_THAT(r.out, HasSubstr("compdef _draplane draplane"));
  if (std::system("command -v zsh >/dev/null 2>&1") == 0) {
    const std::filesystem::path file =
        std::filesystem::temp_directory_path() / "draplane_completion.zsh";
    std::ofstream(file) << r.out;
    EXPECT_EQ(std::system(("zsh -n " + file.string()).c_str()), 0);
  }
}

TEST(CompletionTest, UnknownShellIsAUsageError) {
  testing_util::Result r = RunDraplane({"completion", "fish"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("fish"));
}

}  // namespace
}  // namespace draplane::cmd

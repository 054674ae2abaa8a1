// `draplane completion bash|zsh`: shell completion scripts generated from
// the command tree itself, so they never fall behind the commands.
#include <string>
#include <vector>

#include "cmd/command_help.h"
#include "cmd/commands.h"

namespace draplane::cmd {
namespace {

// One command of the tree: its path below draplane (" cel eval"), its
// subcommands with their summaries, and its option names.
struct Node {
  std::string path;
  std::vector<std::pair<std::string, std::string>> subcommands;
  std::vector<std::string> options;
};

void Collect(const CLI::App* app, const std::string& path,
             std::vector<Node>& out) {
  Node node;
  node.path = path;
  for (const CLI::App* sub :
       app->get_subcommands([](const CLI::App*) { return true; })) {
    node.subcommands.emplace_back(sub->get_name(), sub->get_description());
  }
  for (const CLI::Option* opt : app->get_options()) {
    for (const std::string& s : opt->get_snames())
      node.options.push_back("-" + s);
    for (const std::string& l : opt->get_lnames())
      node.options.push_back("--" + l);
  }
  out.push_back(node);
  for (const CLI::App* sub :
       app->get_subcommands([](const CLI::App*) { return true; })) {
    Collect(sub, path + " " + sub->get_name(), out);
  }
}

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// Single quotes for the shell.
std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string KnownPaths(const std::vector<Node>& nodes, const char* sep) {
  std::string out;
  for (const Node& n : nodes) {
    if (n.path.empty()) continue;
    out += (out.empty() ? "" : sep) + ("\"" + n.path + "\"");
  }
  return out;
}

std::string Bash(const std::vector<Node>& nodes) {
  std::string s =
      "# bash completion for draplane: source <(draplane completion bash)\n"
      "_draplane() {\n"
      "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" cmdpath=\"\" w i\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    w=\"${COMP_WORDS[i]}\"\n"
      "    case \"$cmdpath $w\" in\n"
      "      " +
      KnownPaths(nodes, "|") +
      ") cmdpath=\"$cmdpath $w\" ;;\n"
      "    esac\n"
      "  done\n"
      "  local words=\"\"\n"
      "  case \"$cmdpath\" in\n";
  for (const Node& n : nodes) {
    std::vector<std::string> words;
    for (const auto& [name, summary] : n.subcommands) words.push_back(name);
    for (const std::string& o : n.options) words.push_back(o);
    s += "    \"" + n.path + "\") words=" + Quote(Join(words)) + " ;;\n";
  }
  s += "  esac\n"
       "  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
       "}\n"
       "complete -o default -F _draplane draplane\n";
  return s;
}

std::string Zsh(const std::vector<Node>& nodes) {
  std::string s =
      "#compdef draplane\n"
      "# zsh completion for draplane: source <(draplane completion zsh)\n"
      "_draplane() {\n"
      "  local cmdpath=\"\" w i\n"
      "  for ((i = 2; i < CURRENT; i++)); do\n"
      "    w=${words[i]}\n"
      "    case \"$cmdpath $w\" in\n"
      "      (" +
      KnownPaths(nodes, "|") +
      ") cmdpath=\"$cmdpath $w\" ;;\n"
      "    esac\n"
      "  done\n"
      "  local -a subcommands options\n"
      "  case \"$cmdpath\" in\n";
  for (const Node& n : nodes) {
    std::vector<std::string> subs;
    for (const auto& [name, summary] : n.subcommands) {
      std::string entry = name;
      entry.append(":").append(summary);
      subs.push_back(Quote(entry));
    }
    std::vector<std::string> opts;
    for (const std::string& o : n.options) opts.push_back(Quote(o));
    s += "    (\"" + n.path + "\") subcommands=(" + Join(subs) + ") options=(" +
         Join(opts) + ") ;;\n";
  }
  s += "  esac\n"
       "  if [[ ${words[CURRENT]} == -* ]]; then\n"
       "    compadd -- $options\n"
       "  elif (( ${#subcommands} )); then\n"
       "    _describe -t commands 'draplane command' subcommands\n"
       "  else\n"
       "    _files\n"
       "  fi\n"
       "}\n"
       "if [[ \"${funcstack[1]}\" == _draplane ]]; then\n"
       "  _draplane \"$@\"\n"
       "else\n"
       "  compdef _draplane draplane\n"
       "fi\n";
  return s;
}

}  // namespace

void RegisterCompletion(CLI::App& app, Streams streams, int* exit_code) {
  auto shell = std::make_shared<std::string>();
  CLI::App* cmd = AddCommand(
      app, "completion", "Print a shell completion script (bash or zsh)",
      "Prints a completion script for draplane's commands and flags.\n\n"
      "Examples:\n"
      "  source <(draplane completion bash)\n"
      "  draplane completion bash > /etc/bash_completion.d/draplane\n"
      "  source <(draplane completion zsh)");
  cmd->add_option("shell", *shell, "bash or zsh")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh"}));
  cmd->callback([cmd, shell, streams, exit_code] {
    const CLI::App* root = cmd;
    while (root->get_parent() != nullptr) root = root->get_parent();
    std::vector<Node> nodes;
    Collect(root, "", nodes);
    streams.out << (*shell == "bash" ? Bash(nodes) : Zsh(nodes));
    *exit_code = 0;
  });
}

}  // namespace draplane::cmd

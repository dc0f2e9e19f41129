#include "cli/common/command_line.h"

#include <iostream>

#include "planner/graph/diagnostic.h"
#include "planner/graph/identifiers.h"

namespace eindecomp::cli {

namespace {

// The subcommand the parser had reached: the innermost one selected.
const CLI::App* selectedCommand(const CLI::App& app) {
  const CLI::App* at = &app;
  while (!at->get_subcommands().empty()) at = at->get_subcommands().front();
  return at;
}

// "einplan gen matrix-chain": the names from the root down to `command`.
std::string commandPath(const CLI::App* command) {
  std::string path;
  for (const CLI::App* at = command; at; at = at->get_parent())
    path = at->get_name() + (path.empty() ? "" : " " + path);
  return path;
}

std::vector<std::string> optionNames(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : command.get_options()) {
    for (const std::string& l : opt->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : opt->get_snames()) names.push_back("-" + s);
  }
  return names;
}

// CLI11's message, unless an argument nobody took looks like an option: then that is the
// mistake to report (a mistyped required option also makes CLI11 say "--devices is
// required"), with the closest option of the subcommand.
std::string usageMessage(const CLI::App& app, const CLI::ParseError& e) {
  const CLI::App* command = selectedCommand(app);
  for (const std::string& extra : command->remaining()) {
    if (extra.size() < 2 || extra[0] != '-') continue;
    const std::string option = extra.substr(0, extra.find('='));
    return "unknown option " + quoted(option) + " for `" + commandPath(command) + "`" +
           didYouMean(option, optionNames(*command));
  }
  // A command of subcommands given none (`einplan`, `einplan gen`): say which there are.
  if (!command->get_subcommands({}).empty()) {
    std::string list;
    for (const std::string& n : subcommandNames(*command)) list += (list.empty() ? "" : ", ") + n;
    return "`" + commandPath(command) + "` needs one of: " + list;
  }
  return e.what();
}

}  // namespace

std::vector<std::string> subcommandNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  return names;
}

void unknownSubcommand(const CLI::App& app, const std::string& word, const std::string& kind,
                       const std::string& kinds) {
  const std::vector<std::string> names = subcommandNames(app);
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  throw InputError({{}, "unknown " + kind + " " + quoted(word) + didYouMean(word, names) + "; " + kinds + ": " + list +
                            " (`" + commandPath(&app) + " --help` says more)"});
}

std::optional<int> parseCommandLine(CLI::App& app, const std::vector<std::string>& args) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    const CLI::App* command = selectedCommand(app);
    std::cerr << formatDiagnostic({{}, usageMessage(app, e)}) << "\nRun `" << commandPath(command)
              << " --help` for its options and examples.\n";
    return static_cast<int>(kExitBadInput);
  }
  return std::nullopt;
}

}  // namespace eindecomp::cli

// einplan: validate, evaluate, plan, cost, compare and explain EinGraphs (SPEC 5).
// `plan` is the default subcommand: `einplan GRAPH -p 8` means `einplan plan GRAPH -p 8`.
#include <set>
#include <string>
#include <vector>

#include "cli/common/run_command.h"
#include "cli/einplan/commands.h"
#include "planner/graph/diagnostic.h"
#include "planner/version.h"

int main(int argc, char** argv) {
  using namespace eindecomp;
  cli::setCommandLine(argc, argv);

  CLI::App app{"einplan: decompose every operation of an EinGraph into p kernel calls (EinDecomp)"};
  app.set_version_flag("--version", std::string("einplan ") + EINDECOMP_VERSION_STRING);
  app.require_subcommand(1);
  int status = kExitOk;
  cli::addCheckCommand(app, status);
  cli::addEvalCommand(app, status);
  cli::addPlanCommands(app, status);
  cli::addGenCommand(app, status);

  // Default subcommand: insert "plan" when the first argument is not a subcommand or a
  // top-level flag.
  std::vector<std::string> args(argv + 1, argv + argc);
  std::set<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) names.insert(sub->get_name());
  if (!args.empty() && !names.count(args[0]) && args[0] != "--help" && args[0] != "-h" &&
      args[0] != "--version")
    args.insert(args.begin(), "plan");
  std::vector<std::string> reversed(args.rbegin(), args.rend());

  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitBadInput;
  }
  return status;
}

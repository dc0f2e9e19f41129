// einplan: validate, evaluate, plan, cost, compare and explain EinGraphs (SPEC 5).
// `plan` is the default subcommand: `einplan GRAPH -p 8` means `einplan plan GRAPH -p 8`.
// A first word that is neither a subcommand nor a file is a mistyped subcommand
// (`einplan chek g.yaml`), reported with a suggestion instead of being planned.
#include <filesystem>
#include <string>
#include <vector>

#include "cli/common/command_line.h"
#include "cli/common/run_command.h"
#include "cli/einplan/commands.h"
#include "planner/graph/diagnostic.h"
#include "planner/version.h"

namespace {

bool hasGraphExtension(std::string word) {
  for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* ext : {".yaml", ".yml", ".json"}) {
    const std::string e(ext);
    if (word.size() >= e.size() && word.compare(word.size() - e.size(), e.size(), e) == 0) return true;
  }
  return false;
}

bool contains(const std::vector<std::string>& names, const std::string& word) {
  for (const auto& n : names)
    if (n == word) return true;
  return false;
}

// The arguments with "plan" inserted where the default subcommand applies: the first
// argument is an option other than --help/--version, "-" (a graph on stdin), an existing
// file or a graph file name. Throws InputError for a word that is none of these, and for
// a word after a subcommand that takes subcommands (gen FAMILY) that names none of them.
std::vector<std::string> withDefaultSubcommand(const CLI::App& app, std::vector<std::string> args) {
  using eindecomp::cli::subcommandNames;
  if (args.empty()) return args;
  const std::string& first = args[0];
  if (first == "--help" || first == "-h" || first == "--version") return args;
  const std::vector<std::string> names = subcommandNames(app);
  if (contains(names, first)) {
    const CLI::App* sub = app.get_subcommand(first);
    if (sub && !sub->get_subcommands({}).empty() && args.size() > 1 && !args[1].empty() && args[1][0] != '-' &&
        !contains(subcommandNames(*sub), args[1]))
      eindecomp::cli::unknownSubcommand(*sub, args[1], "family", "families");
    return args;
  }
  std::error_code ec;
  const bool isOption = first.size() > 1 && first[0] == '-';
  if (!isOption && first != "-" && !std::filesystem::exists(first, ec) && !hasGraphExtension(first))
    eindecomp::cli::unknownSubcommand(app, first, "subcommand", "subcommands");
  args.insert(args.begin(), "plan");
  return args;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace eindecomp;
  cli::setCommandLine(argc, argv);
  cli::tuneAllocatorForLargeGraphs();

  CLI::App app{"einplan: decompose every operation of an EinGraph into p kernel calls (EinDecomp)", "einplan"};
  app.set_version_flag("--version", std::string("einplan ") + EINDECOMP_VERSION_STRING);
  app.require_subcommand(1);
  int status = kExitOk;
  cli::addCheckCommand(app, status);
  cli::addEvalCommand(app, status);
  cli::addPlanCommands(app, status);
  cli::addGenCommand(app, status);
  cli::addImportCommand(app, status);
  cli::addGradCommand(app, status);
  // Set last: subcommands copy their parent's footer when they are added.
  app.footer(
      "plan is the default subcommand: `einplan GRAPH -p 8` is `einplan plan GRAPH -p 8`.\n"
      "Every GRAPH, --plan and --machine may be - (standard input).\n\n"
      "Examples:\n"
      "  einplan gen matrix-chain --scale 1000 -o chain.yaml\n"
      "  einplan check chain.yaml\n"
      "  einplan chain.yaml -p 8 -o plan.json\n"
      "  einplan explain chain.yaml --plan plan.json\n"
      "  einplan eval chain.yaml --seed 7 --outputs ref/\n"
      "  einplan import model.onnx -o model.yaml\n\n"
      "Run `einplan SUBCOMMAND --help` for a subcommand's options and examples; docs/ says more.");

  std::vector<std::string> args;
  const int failed = cli::runCommand([&] {
    args = withDefaultSubcommand(app, std::vector<std::string>(argv + 1, argv + argc));
    return static_cast<int>(kExitOk);
  });
  if (failed) return failed;
  if (const std::optional<int> ended = cli::parseCommandLine(app, args)) return *ended;
  return status;
}

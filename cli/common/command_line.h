// Parsing a command line with CLI11 so that usage errors read like the graph errors: one
// line on stderr, bounded and valid UTF-8 whatever was typed, a suggestion for a
// mistyped subcommand or option (`einplan chek` -> did you mean 'check'?), exit status 2.
// CLI11 does the parsing and prints --help and --version; the messages are made here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace eindecomp::cli {

// Parses `args` (the arguments after the program name) into `app`, which runs the chosen
// subcommand's callback. Returns the exit status when parsing itself ended the command
// (0 after --help or --version, 2 after a usage error, printed on stderr), nothing when
// the command ran.
std::optional<int> parseCommandLine(CLI::App& app, const std::vector<std::string>& args);

// The names of `app`'s subcommands, in the order they were added.
std::vector<std::string> subcommandNames(const CLI::App& app);

// Throws InputError "unknown KIND 'word' (did you mean 'X'?); KINDS: ..." listing `app`'s
// subcommands (kind "subcommand", kinds "subcommands").
[[noreturn]] void unknownSubcommand(const CLI::App& app, const std::string& word, const std::string& kind,
                                    const std::string& kinds);

}  // namespace eindecomp::cli

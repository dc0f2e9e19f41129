// What the planner minimizes (SPEC 3.1, `--objective`): `traffic` (default: bytes that
// cross between ranks, what the emitted program measures), `paper` (the EinDecomp
// paper's cost model of SPEC 3, in elements) or `time` (the estimate from a machine
// file, in picoseconds). Every algorithm's plan is costed under all three; this only
// names them.
#pragma once

#include <string>
#include <vector>

namespace eindecomp {

enum class Objective { Traffic, Paper, Time };

const char* objectiveName(Objective o);            // "traffic" | "paper" | "time"
const std::vector<std::string>& objectiveNames();  // in that order

// "traffic" | "paper" | "time"; InputError (exit 2) otherwise.
Objective parseObjective(const std::string& name);

}  // namespace eindecomp

// The program's tables (einrt/model/tables.h) as the C++ statements of program.cpp's
// makeSpec: every field of einrt's TensorTable and NodeTable, one statement each. The
// one place that writes the tables out: a field added to the tables is written here and
// nowhere else in codegen (the template only places the text).
#pragma once

#include <string>

#include "codegen/lower/rank_program.h"

namespace eindecomp::codegen {

// Statements filling `p.tensors`, `p.nodes` and `p.outputs` of an einrt::program::ProgramSpec `p`.
std::string tablesSource(const RankProgram& program);

// The per-node comment of the emitted tables and README: "i j,j k -> i k (agg sum)".
std::string einsumComment(const NodeProgram& n);

}  // namespace eindecomp::codegen

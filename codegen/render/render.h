// Rendering: RankProgram -> the files of an emitted project, through the ctemplate
// templates in templates/. This unit decides nothing: every value it hands to a template
// is a number, a validated identifier, or text made comment-safe, and all C++ structure
// lives in the templates. The result is kept in memory so the CLI can write the project
// only once everything rendered (nothing half-written).
#pragma once

#include <map>
#include <string>

#include "codegen/lower/rank_program.h"
#include "codegen/render/provenance.h"

namespace eindecomp::codegen {

enum class Backend { Cpu, Cuda, Both };

// Parses "cpu" | "cuda" | "both"; throws InputError otherwise.
Backend parseBackend(const std::string& s);

struct RenderOptions {
  Backend backend = Backend::Cpu;
  std::string templateDir;  // folder holding the *.tpl files
  std::string einrtDir;     // folder holding einrtConfig.cmake, recorded in the build files
  std::string planJson;     // the plan the program was built from, written as plan.json
};

// File name (relative to the project folder) -> contents.
using ProjectFiles = std::map<std::string, std::string>;

ProjectFiles renderProject(const RankProgram& program, const Provenance& provenance, const RenderOptions& options);

// The name of the CUDA executable: NAME_cuda when both backends are built, NAME otherwise.
std::string cudaProgramName(const RankProgram& program, Backend backend);

}  // namespace eindecomp::codegen

#include "codegen/render/render.h"

#include <ctemplate/template.h>
#include <ctemplate/template_cache.h>

#include <algorithm>
#include <map>
#include <cstdio>

#include "codegen/kernels/join_source.h"
#include "codegen/lower/identifiers.h"
#include "codegen/render/tables_source.h"
#include "planner/graph/diagnostic.h"
#include "planner/report/sha256.h"

namespace eindecomp::codegen {

namespace {

template <class Container>
std::string joinedNumbers(const Container& values) {
  std::string s;
  for (const auto& v : values) s += (s.empty() ? "" : ", ") + std::to_string(v);
  return s;
}

const char* boolText(bool b) { return b ? "true" : "false"; }

// The C++ spellings of einrt's vocabulary in emitted source.
const char* realType(DType t) {
  switch (t) {
    case DType::F64: return "double";
    case DType::BF16: return "einrt::bf16";
    case DType::F16: return "einrt::f16";
    case DType::I32: return "int32_t";
    case DType::I64: return "int64_t";
    case DType::F32: break;
  }
  return "float";
}

void setProvenance(ctemplate::TemplateDictionary& d, const Provenance& p) {
  d.SetValue("TOOL_VERSION", p.toolVersion);
  d.SetValue("COMMAND_LINE", commentSafe(p.commandLine));
  d.SetValue("COMMAND_LINE_HTML", htmlCommentSafe(p.commandLine));
  d.SetValue("GRAPH_SHA256", p.graphSha256);
}

// What the templates show of a node: README's table and kernels.cpp's functors (the
// node's tables are written by tablesSource).
// The functor of a node's (join, aggregation); nodes with the same share one (kernels.cpp).
std::string opsKey(const NodeProgram& n) { return n.joinSource + "\n" + reduceName(n.agg); }

void fillOps(ctemplate::TemplateDictionary& project, const RankProgram& p, std::map<std::string, std::string>& identOf) {
  std::map<std::string, std::vector<const NodeProgram*>> users;
  std::vector<std::string> order;
  for (const NodeProgram& n : p.nodes) {
    if (n.indexLabel >= 0) continue;  // einrt's index kernel: no functor
    auto& u = users[opsKey(n)];
    if (u.empty()) order.push_back(opsKey(n));
    u.push_back(&n);
  }
  for (const std::string& key : order) {
    const NodeProgram& first = *users[key].front();
    const std::string ident = "ops" + std::to_string(identOf.size());
    identOf[key] = ident;
    ctemplate::TemplateDictionary& d = *project.AddSectionDictionary("OPS");
    d.SetValue("OPS_IDENT", ident);
    const std::size_t more = users[key].size() - 1;
    d.SetValue("USERS", "node " + commentSafe(first.name) + ": " + einsumComment(first) +
                            (more ? " (and " + std::to_string(more) + " more node" + (more == 1 ? "" : "s") + ")" : ""));
    d.SetValue("JOIN", first.joinSource);
    d.SetValue("COMBINE", aggCombineSource(first.agg));
    d.SetValue("IDENTITY", aggIdentitySource(first.agg));
  }
}

void fillNode(ctemplate::TemplateDictionary& d, const RankProgram& p, const NodeProgram& n, std::size_t index,
              const std::map<std::string, std::string>& identOf) {
  d.SetValue("NAME", n.name);
  d.SetValue("INDEX", std::to_string(index));
  // Mixed precision (SPEC 8): a cast converts in einrt (no kernels); a node of f32 in a
  // bf16 program has f32 kernels (ProgramSpec::wideKernels).
  const bool cast = einrt::model::ProgramTables::isCastNode(p.tensors, n, p.dtype);
  const bool wide = !cast && p.tensors[static_cast<std::size_t>(n.outputTensor)].otherFloatType(p.dtype);
  d.SetValue("KERNELS", wide ? "wideKernels" : "kernels");
  d.SetValue("NODE_REAL", wide ? "float" : "Real");
  if (cast) {
    d.SetValue("NODE_BYTES_PREDICTED", std::to_string(n.bytesPredicted));
    d.SetValue("CALLS", std::to_string(n.callRank.size()));
    d.SetValue("KERNEL_KIND", commentSafe(n.choice.kind));
    d.SetValue("KERNEL_WHY", markdownCellSafe(n.choice.why));
    return;
  }
  if (n.indexLabel < 0) {
    d.SetValue("OPS_IDENT", identOf.at(opsKey(n)));
    d.ShowSection("PLAIN");
  }
  d.SetValue("NODE_BYTES_PREDICTED", std::to_string(n.bytesPredicted));
  d.SetValue("CALLS", std::to_string(n.callRank.size()));
  d.SetValue("KERNEL_KIND", commentSafe(n.choice.kind));
  d.SetValue("KERNEL_WHY", markdownCellSafe(n.choice.why));
  if (!n.gemm && n.indexLabel < 0)
    d.AddSectionDictionary("ELEMENTWISE")->SetValue("REDUCES", boolText(n.reductionLength > 1));
}

std::string programList(const RankProgram& p, Backend b) {
  std::string s;
  if (b != Backend::Cuda) s = p.graphName;
  if (b != Backend::Cpu) s += (s.empty() ? "" : " ") + cudaProgramName(p, b);
  return s;
}

void fillProject(ctemplate::TemplateDictionary& d, const RankProgram& p, const RenderOptions& o) {
  d.SetValue("GRAPH_NAME", p.graphName);
  d.SetValue("DTYPE", dtypeName(p.dtype));
  d.SetValue("REAL_TYPE", realType(p.dtype));
  d.SetIntValue("DEVICES", p.devices);
  d.SetValue("ALGORITHM", isValidIdentifier(p.algorithm) ? p.algorithm : std::string("given"));
  d.SetValue("BYTES_PREDICTED", std::to_string(p.bytesPredicted));
  d.SetValue("INTER_NODE_BYTES_PREDICTED", std::to_string(p.interNodeBytesPredicted));
  d.SetValue("RANKS_PER_NODE", std::to_string(p.ranksPerNode));
  d.SetValue("FLOPS", std::to_string(p.flops));
  d.SetValue("PEAK_BYTES_PREDICTED", joinedNumbers(p.peakBytesPredicted));
  d.SetValue("TILE_WORKSPACE_BYTES", joinedNumbers(p.tileWorkspaceBytes));
  d.SetValue("STAGING_SEND_BYTES", joinedNumbers(p.stagingSendBytes));
  d.SetValue("STAGING_RECV_BYTES", joinedNumbers(p.stagingRecvBytes));
  d.SetIntValue("NODE_COUNT", static_cast<long>(p.nodes.size()));
  d.SetValue("EINRT_DIR", cmakeStringSafe(o.einrtDir));
  d.SetValue("EINRT_DIR_TEXT", markdownCellSafe(o.einrtDir));
  d.SetValue("BACKEND", o.backend == Backend::Cpu ? "cpu" : o.backend == Backend::Cuda ? "cuda" : "both");
  d.SetValue("PROGRAMS", programList(p, o.backend));
  d.SetValue("CUDA_TARGET", cudaProgramName(p, o.backend));
  if (o.backend != Backend::Cuda) d.AddSectionDictionary("PROGRAM")->SetValue("NAME", p.graphName);
  if (o.backend != Backend::Cpu) d.AddSectionDictionary("PROGRAM")->SetValue("NAME", cudaProgramName(p, o.backend));
  if (o.backend != Backend::Cuda) d.ShowSection("CPU");
  if (o.backend != Backend::Cpu) d.ShowSection("CUDA");
  d.SetValue("TABLES", tablesSource(p));
  std::map<std::string, std::string> identOf;
  fillOps(d, p, identOf);
  for (std::size_t i = 0; i < p.nodes.size(); ++i) fillNode(*d.AddSectionDictionary("NODE"), p, p.nodes[i], i, identOf);
}

}  // namespace

Backend parseBackend(const std::string& s) {
  if (s == "cpu") return Backend::Cpu;
  if (s == "cuda") return Backend::Cuda;
  if (s == "both") return Backend::Both;
  throw InputError({{}, "--backend: unknown backend '" + commentSafe(s) + "' (expected cpu, cuda or both)"});
}

std::string cudaProgramName(const RankProgram& program, Backend backend) {
  return backend == Backend::Both ? program.graphName + "_cuda" : program.graphName;
}

ProjectFiles renderProject(const RankProgram& program, const Provenance& provenance, const RenderOptions& options) {
  if (options.backend != Backend::Cpu)
    for (const NodeProgram& n : program.nodes) {
      const std::string backend = "--backend " + std::string(options.backend == Backend::Cuda ? "cuda" : "both");
      if (n.indexLabel >= 0)
        throw InputError({{}, backend + ": node '" + n.name + "' is a " + n.choice.kind + ", and einrt's CUDA backend has no index kernel " +
                                  "yet; use --backend cpu"});
      if (n.spreadOut(0))
        throw InputError({{}, backend + ": node '" + n.name + "' reads a spread window (a strided read's gradient), which einrt's "
                                  "CUDA backend does not run yet; use --backend cpu"});
      if (einrt::model::ProgramTables::isWideningNode(program.tensors, n, program.dtype))
        throw InputError({{}, backend + ": node '" + n.name + "' widens 2-byte operands into f32 (`cast: f32` on a contraction), "
                                  "which einrt's CUDA backend does not run yet; use --backend cpu, or a plan without "
                                  "fused_gradient_casts (gen --strategy ... --no-gradient-fusion)"});
    }
  // A cache of our own (not ctemplate's process-wide default) holding only our templates.
  ctemplate::TemplateCache cache;
  cache.SetTemplateRootDirectory(options.templateDir);
  ctemplate::TemplateDictionary dict("project");
  setProvenance(dict, provenance);
  dict.SetValue("PLAN_SHA256", sha256Hex(options.planJson));
  fillProject(dict, program, options);

  // No file name depends on the graph: a graph name can never overwrite a project file.
  // kernels.cpp depends on the graph only (no plan, no command line), so regenerating a
  // project for another plan leaves it unchanged and make recompiles only the tables.
  std::map<std::string, std::string> files{{"program.cpp", "program.cpp.tpl"},
                                           {"kernels.cpp", "kernels.cpp.tpl"},
                                           {"CMakeLists.txt", "CMakeLists.txt.tpl"},
                                           {"Makefile", "Makefile.tpl"},
                                           {"README.md", "README.md.tpl"}};
  if (options.backend != Backend::Cpu) {
    files["program_cuda.cu"] = "program_cuda.cu.tpl";
    files["kernels_cuda.cu"] = "kernels_cuda.cu.tpl";
  }

  ProjectFiles out;
  for (const auto& [name, tpl] : files) {
    std::string text;
    // Markdown needs its blank lines; in source files they are only left-over section lines.
    const auto strip = name == "README.md" ? ctemplate::DO_NOT_STRIP : ctemplate::STRIP_BLANK_LINES;
    if (!cache.ExpandWithData(tpl, strip, &dict, nullptr, &text))
      throw InputError({{options.templateDir + "/" + tpl, 0, 0}, "cannot load or expand the template"});
    out[name] = std::move(text);
  }
  out["plan.json"] = options.planJson;
  return out;
}

}  // namespace eindecomp::codegen

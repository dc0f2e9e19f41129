// libFuzzer harness for the plan-file reader: any bytes are read as a plan file and,
// when that succeeds, resolved against a fixed two-node graph (as `einplan cost --plan`
// and `eincodegen --plan` do). Both steps either succeed or throw an InputError; other
// exceptions, crashes and sanitizer reports are bugs.
#include <cstddef>
#include <cstdint>
#include <string>

#include "planner/graph/load.h"
#include "planner/report/plan_file.h"

namespace {

const eindecomp::Graph& fixedGraph() {
  static const eindecomp::Graph graph = eindecomp::loadGraphText(
      "name: chain\n"
      "inputs: {A: [8, 12], B: [12, 6], C: [6, 10]}\n"
      "nodes:\n"
      "  - {name: AB, einsum: 'ij,jk->ik', inputs: [A, B]}\n"
      "  - {name: ABC, einsum: 'ik,kl->il', inputs: [AB, C]}\n",
      "fixed.yaml", eindecomp::GraphFormat::Yaml);
  return graph;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const eindecomp::PlanFile plan = eindecomp::parsePlanText(text, "fuzz.plan.yaml");
    // The file's own graph hash, so the fuzzer gets past the hash check to the rest.
    eindecomp::resolvePlanFile(fixedGraph(), plan, plan.devices.value_or(4), plan.graphSha256.value_or(std::string(64, '0')));
  } catch (const eindecomp::InputError&) {
  }
  return 0;
}

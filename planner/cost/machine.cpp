#include "planner/cost/machine.h"

#include <yaml-cpp/yaml.h>

#include "planner/graph/diagnostic.h"

namespace eindecomp {

namespace {

double positiveField(const YAML::Node& root, const std::string& path, const char* key, bool allowZero) {
  const YAML::Node v = root[key];
  if (!v) throw InputError({{path, root.Mark().line + 1, root.Mark().column + 1}, std::string("missing field '") + key + "'"});
  double x;
  try {
    x = v.as<double>();
  } catch (const YAML::Exception&) {
    throw InputError({{path, v.Mark().line + 1, v.Mark().column + 1}, std::string("field '") + key + "' must be a number"});
  }
  if (!(x > 0 || (allowZero && x == 0)))
    throw InputError({{path, v.Mark().line + 1, v.Mark().column + 1},
                      std::string("field '") + key + (allowZero ? "' must not be negative" : "' must be positive")});
  return x;
}

}  // namespace

Machine loadMachineFile(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw InputError({{path, 0, 0}, "cannot read machine file"});
  } catch (const YAML::ParserException& e) {
    throw InputError({{path, e.mark.line + 1, e.mark.column + 1}, "machine file: " + e.msg});
  }
  if (!root.IsMap()) throw InputError({{path, 1, 1}, "machine file must be a map with bandwidth, latency, flops"});
  Machine m;
  m.bandwidthBytesPerSecond = positiveField(root, path, "bandwidth", false);
  m.latencySeconds = positiveField(root, path, "latency", true);
  m.flopsPerSecond = positiveField(root, path, "flops", false);
  return m;
}

double estimatedNodeSeconds(const Machine& m, int64_t bytesMoved, int communicationPhases, int64_t flops,
                            int64_t kernelCalls) {
  const double q = static_cast<double>(kernelCalls);
  return m.latencySeconds * communicationPhases + static_cast<double>(bytesMoved) / (q * m.bandwidthBytesPerSecond) +
         static_cast<double>(flops) / (q * m.flopsPerSecond);
}

}  // namespace eindecomp

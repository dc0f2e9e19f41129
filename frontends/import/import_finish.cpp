// ImportGraph::finish: from the builder's tensors and nodes to an EinGraph — outputs
// named after the model's outputs, dead nodes and unused weights dropped, every name a
// valid identifier, unique, and every changed ONNX name reported.
#include <set>

#include "planner/graph/identifiers.h"
#include "frontends/import/import_graph.h"

namespace eindecomp::onnx_import {

namespace {

// Valid, unique names: the first claim of a name gets it, later ones get _2, _3, ...
class NameTable {
 public:
  std::string claim(const std::string& wanted) {
    const std::string base = identifierFrom(wanted);
    std::string name = base;
    for (int k = 2; used_.count(name); ++k) {
      const std::string suffix = "_" + std::to_string(k);
      name = base.substr(0, std::min(base.size(), kMaxIdentifierLength - suffix.size())) + suffix;
    }
    used_.insert(name);
    return name;
  }

 private:
  std::set<std::string> used_;
};

// Node-local label names: a..z, A..Z, then l52, l53, ...
std::string labelName(std::size_t i) {
  if (i < 26) return std::string(1, static_cast<char>('a' + i));
  if (i < 52) return std::string(1, static_cast<char>('A' + (i - 26)));
  return "l" + std::to_string(i);
}

}  // namespace

ImportGraph::Result ImportGraph::finish(const std::vector<std::pair<std::string, View>>& outputs, DType dtype,
                                        const std::string& graphName) {
  // 1. Each output is the plain layout of a computed tensor of its own, else a copy.
  std::vector<int> outputTensors;
  std::set<int> claimed;
  for (const auto& [onnxName, view] : outputs) {
    const View n = normalized(view);
    // The view's dimensions of size > 1 in the tensor's own order: a reshape at most,
    // which the output's file_shape expresses; otherwise (a permutation, a model input or
    // weight, a tensor another output has) a copy node lays it out.
    std::vector<DimId> seq, own;
    for (const auto& g : n.groups)
      for (const DimId d : g)
        if (dims_[d].size > 1) seq.push_back(d);
    for (const DimId d : tensorLeaves(n.tensor))
      if (dims_[d].size > 1) own.push_back(d);
    int t = n.tensor;
    if (tensors_[t].kind != TensorKind::Computed || claimed.count(t) || seq != own) {
      View leafView;
      leafView.tensor = n.tensor;
      std::vector<int> symbols;
      for (const DimId d : seq) {
        leafView.groups.push_back({d});
        symbols.push_back(static_cast<int>(symbols.size()));
      }
      for (const DimId d : tensorLeaves(n.tensor))
        if (dims_[d].size == 1) leafView.hidden.push_back(d);
      t = einsum({{leafView, symbols}}, symbols, Expr::x(), Reduce::Sum, onnxName).tensor;
    }
    tensors_[t].hint = onnxName;
    tensors_[t].onnxName = onnxName;
    tensors_[t].fileShape = shape(view);
    claimed.insert(t);
    outputTensors.push_back(t);
  }

  // 2. What the outputs need.
  std::vector<bool> liveTensor(tensors_.size(), false), liveNode(nodes_.size(), false);
  std::vector<int> stack(outputTensors.begin(), outputTensors.end());
  while (!stack.empty()) {
    const int t = stack.back();
    stack.pop_back();
    if (liveTensor[t]) continue;
    liveTensor[t] = true;
    const int p = tensors_[t].producer;
    if (p < 0 || liveNode[p]) continue;
    liveNode[p] = true;
    for (const auto& s : nodes_[p].operands) stack.push_back(s.tensor);
  }

  // 3. Names: outputs and model inputs first (users know them), then weights, then the rest.
  Result r;
  r.tied = tied_;
  NameTable table;
  std::vector<std::string> name(tensors_.size());
  auto assign = [&](int t) {
    name[t] = table.claim(tensors_[t].hint);
    if (!tensors_[t].onnxName.empty() && name[t] != tensors_[t].onnxName) r.renamed.emplace_back(tensors_[t].onnxName, name[t]);
  };
  // ONNX names that are valid identifiers are kept: they claim their names before any
  // name that had to be made valid (`a.b` becomes `a_b_2` when the model has an `a_b`).
  for (const bool validFirst : {true, false}) {
    auto take = [&](int t) {
      if (name[t].empty() && isIdentifier(tensors_[t].hint) == validFirst) assign(t);
    };
    for (const int t : outputTensors) take(t);
    for (TensorKind kind : {TensorKind::ModelInput, TensorKind::Weight, TensorKind::Computed})
      for (std::size_t t = 0; t < tensors_.size(); ++t)
        if (liveTensor[t] && tensors_[t].kind == kind) take(static_cast<int>(t));
  }

  Graph& g = r.graph;
  g.name = identifierFrom(graphName.empty() ? "model" : graphName);
  g.dtype = dtype;
  for (TensorKind kind : {TensorKind::ModelInput, TensorKind::Weight})
    for (std::size_t t = 0; t < tensors_.size(); ++t) {
      if (!liveTensor[t] || tensors_[t].kind != kind) continue;
      InputTensor in;
      in.name = name[t];
      in.shape = sizes(tensorLeaves(static_cast<int>(t)));
      if (kind == TensorKind::ModelInput && tensors_[t].fileShape != in.shape) in.fileShape = tensors_[t].fileShape;
      in.indexType = tensors_[t].indexType;
      g.inputs.push_back(in);
      if (kind == TensorKind::Weight) {
        HostTensor value = tensors_[t].value;
        value.shape = in.shape;
        r.weights.emplace(name[t], std::move(value));
      }
    }
  for (std::size_t p = 0; p < nodes_.size(); ++p) {
    if (!liveNode[p]) continue;
    const NodeInfo& info = nodes_[p];
    Node node;
    node.name = name[info.output.tensor];
    std::map<LabelId, std::string> labelNames;
    auto labelsOf = [&](const Slot& s) {
      Labels out;
      for (std::size_t j = 0; j < s.dims.size(); ++j)
        for (const LabelId l : labelLeaves(s.labels[j])) {
          auto [it, fresh] = labelNames.emplace(l, "");
          if (fresh) it->second = labelName(labelNames.size() - 1);
          out.push_back(it->second);
          node.labelSizes[it->second] = labels_[l].size;
        }
      return out;
    };
    for (const Slot& s : info.operands) {
      node.inputs.push_back(name[s.tensor]);
      node.operandLabels.push_back(labelsOf(s));
    }
    NodeWindows windows;
    for (std::size_t k = 0; k < info.operands.size(); ++k) {  // windows (SPEC 8.1): per leaf, its offset
      const Slot& s = info.operands[k];
      if (s.window.empty()) continue;
      windows.offsets.resize(info.operands.size());
      windows.bounds.resize(info.operands.size());
      for (std::size_t j = 0; j < s.dims.size(); ++j) {
        const std::vector<DimId> ls = leaves(s.dims[j]);
        // A window split by a reshape lies on its outer leaf (ImportGraph::syncWindowDim).
        const int64_t inner = groupSize(std::vector<DimId>(ls.begin() + 1, ls.end()));
        for (std::size_t i = 0; i < ls.size(); ++i) {
          windows.offsets[k].push_back(i == 0 && s.window.count(j) ? s.window.at(j) / inner : 0);
          windows.bounds[k].push_back(dims_[ls[i]].size);
        }
      }
      windows.fill = info.fill;
    }
    for (std::size_t k = 0; k < info.operands.size(); ++k) {  // a convolution's taps: one leaf each
      const Slot& s = info.operands[k];
      if (s.taps.empty()) continue;
      windows.taps.resize(info.operands.size());
      windows.dilations.resize(info.operands.size());
      for (std::size_t j = 0; j < s.dims.size(); ++j) {
        const auto tap = s.taps.find(j);
        for (std::size_t i = 0, leafCount = leaves(s.dims[j]).size(); i < leafCount; ++i) {
          const std::vector<LabelId> tapLeaves = tap == s.taps.end() ? std::vector<LabelId>{} : labelLeaves(tap->second.first);
          if (tap != s.taps.end() && (leafCount != 1 || tapLeaves.size() != 1 || !labelNames.count(tapLeaves[0])))
            throw Unsupported("the taps of convolution " + quoted(node.name) + " were split by a later reshape");
          windows.taps[k].push_back(tap == s.taps.end() ? Label{} : labelNames.at(tapLeaves[0]));
          windows.dilations[k].push_back(tap == s.taps.end() ? 0 : tap->second.second);
        }
      }
    }
    for (std::size_t k = 0; k < info.operands.size(); ++k) {  // a strided window's steps: one leaf each
      const Slot& s = info.operands[k];
      if (s.steps.empty()) continue;
      windows.steps.resize(info.operands.size());
      for (std::size_t j = 0; j < s.dims.size(); ++j) {
        const auto step = s.steps.find(j);
        const std::size_t leafCount = leaves(s.dims[j]).size();
        if (step != s.steps.end() && leafCount != 1)
          throw Unsupported("the strided window of node " + quoted(node.name) + " was split by a later reshape");
        for (std::size_t i = 0; i < leafCount; ++i) windows.steps[k].push_back(step == s.steps.end() ? 1 : step->second);
      }
    }
    if (!windows.offsets.empty()) node.windows = std::make_shared<const NodeWindows>(std::move(windows));
    node.outputLabels = labelsOf(info.output);
    node.join = info.join;
    node.agg = info.agg;
    if (!info.indexJoin.empty()) {  // the selected label, one leaf (planner/graph/index_nodes.h)
      const std::vector<LabelId> leaves = labelLeaves(info.selected);
      if (leaves.size() != 1 || !labelNames.count(leaves[0]))
        throw Unsupported("the rows of the Gather making " + quoted(node.name) + " were split by a later reshape");
      node.joinName = info.indexJoin;
      node.indexLabel = labelNames.at(leaves[0]);
    }
    if (claimed.count(info.output.tensor) && tensors_[info.output.tensor].fileShape != outputShape(node))
      node.fileShape = tensors_[info.output.tensor].fileShape;
    g.nodes.push_back(std::move(node));
  }
  for (const int t : outputTensors) g.outputs.push_back(name[t]);
  return r;
}

}  // namespace eindecomp::onnx_import

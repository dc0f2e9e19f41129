// Random EinGraphs for the planner's brute-force tests: matmuls, transposed matmuls,
// elementwise ops, broadcasts, reductions and bias adds over labels sized 2, 3, 4, 6, 8
// or 12; in-trees (every node output feeds at most one operand) or DAGs.
#pragma once

#include <map>
#include <random>
#include <string>
#include <vector>

#include "test_graphs.h"

namespace eindecomp::testing {

struct PoolTensor {
  std::string name;
  std::vector<int64_t> shape;
  bool isNode;
  int uses = 0;
};

struct RandomGraphs {
  std::mt19937 rng;
  int labelCounter = 0;

  int64_t size() {
    static const int64_t sizes[] = {2, 3, 4, 6, 8, 12};
    return sizes[rng() % 6];
  }
  std::map<std::string, int64_t> vocabulary;  // every label made so far (each used by one node)
  std::string label(Graph&, int64_t size) {
    std::string l = "l" + std::to_string(labelCounter++);
    vocabulary[l] = size;
    return l;
  }

  // A graph of `count` nodes; with dag = false every node output feeds at most one operand.
  Graph make(int count, bool dag) {
    Graph g;
    g.name = "random";
    std::vector<PoolTensor> pool;
    int inputs = 0;
    auto takeOrMake = [&](int rank, const std::vector<int64_t>& wanted) -> PoolTensor& {
      // an available node output of the right rank and compatible shape, else a new input
      std::vector<int> options;
      for (std::size_t t = 0; t < pool.size(); ++t) {
        if (!pool[t].isNode || static_cast<int>(pool[t].shape.size()) != rank) continue;
        if (!dag && pool[t].uses > 0) continue;
        bool ok = true;
        for (int k = 0; k < rank; ++k)
          if (wanted[k] > 0 && wanted[k] != pool[t].shape[k]) ok = false;
        if (ok) options.push_back(static_cast<int>(t));
      }
      if (!options.empty() && rng() % 4 != 0) return pool[options[rng() % options.size()]];
      std::vector<int64_t> shape;
      for (int k = 0; k < rank; ++k) shape.push_back(wanted[k] > 0 ? wanted[k] : size());
      pool.push_back({"I" + std::to_string(inputs++), shape, false});
      addInput(g, pool.back().name, shape);
      return pool.back();
    };
    for (int i = 0; i < count; ++i) {
      int kind = static_cast<int>(rng() % 6);
      Node n;
      n.name = "N" + std::to_string(i);
      std::vector<int64_t> outShape;
      auto use = [&](PoolTensor& t, const std::vector<std::string>& labels) {
        n.inputs.push_back(t.name);
        n.operandLabels.push_back(labels);
        ++t.uses;
      };
      if (kind == 0 || kind == 1) {  // matmul ij,jk->ik, or transposed ji,jk->ik
        PoolTensor& x = takeOrMake(2, {0, 0});
        std::string a = label(g, x.shape[kind]), b = label(g, x.shape[1 - kind]);
        use(x, kind == 0 ? Labels{a, b} : Labels{b, a});
        PoolTensor& y = takeOrMake(2, {vocabulary[b], 0});
        std::string c = label(g, y.shape[1]);
        use(y, {b, c});
        n.outputLabels = {a, c};
        n.join = Expr::binary(Expr::Kind::Mul, Expr::x(), Expr::y());
      } else if (kind == 2) {  // elementwise ij,ij->ij (add)
        PoolTensor& x = takeOrMake(2, {0, 0});
        std::string a = label(g, x.shape[0]), b = label(g, x.shape[1]);
        use(x, {a, b});
        PoolTensor& y = takeOrMake(2, {vocabulary[a], vocabulary[b]});
        use(y, {a, b});
        n.outputLabels = {a, b};
        n.join = Expr::binary(Expr::Kind::Add, Expr::x(), Expr::y());
      } else if (kind == 3) {  // broadcast i->ij
        PoolTensor& x = takeOrMake(1, {0});
        std::string a = label(g, x.shape[0]), b = label(g, size());
        use(x, {a});
        n.outputLabels = {a, b};
        n.join = Expr::x();
      } else if (kind == 4) {  // reduction ij->i or ij->j
        PoolTensor& x = takeOrMake(2, {0, 0});
        std::string a = label(g, x.shape[0]), b = label(g, x.shape[1]);
        use(x, {a, b});
        n.outputLabels = {rng() % 2 ? a : b};
        n.join = Expr::x();
      } else {  // bias ij,j->ij
        PoolTensor& x = takeOrMake(2, {0, 0});
        std::string a = label(g, x.shape[0]), b = label(g, x.shape[1]);
        use(x, {a, b});
        PoolTensor& y = takeOrMake(1, {vocabulary[b]});
        use(y, {b});
        n.outputLabels = {a, b};
        n.join = Expr::binary(Expr::Kind::Add, Expr::x(), Expr::y());
      }
      for (const auto& l : n.outputLabels) outShape.push_back(vocabulary[l]);
      for (const auto& l : iterationLabels(n)) n.labelSizes[l] = vocabulary[l];
      g.nodes.push_back(n);
      pool.push_back({n.name, outShape, true});
    }
    return g;
  }
};

inline bool hasMultiConsumer(const Graph& g) {
  std::map<std::string, int> uses;
  for (const Node& n : g.nodes)
    for (const auto& in : n.inputs) ++uses[in];
  for (const Node& n : g.nodes)
    if (uses[n.name] > 1) return true;
  return false;
}

}  // namespace eindecomp::testing

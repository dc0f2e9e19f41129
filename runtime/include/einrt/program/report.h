// The program's report (SPEC 7), printed and, with --report FILE, written as JSON: ranks,
// backend, dtype, gemm_path, iters, threads, time_s, gflops, bytes_sent, bytes_predicted, nodes
// [name, kernel, time_s, bytes_sent, bytes_predicted], check {passed, max_abs_err,
// max_rel_err, tolerance, reference} when --check ran, peak_bytes, peak_bytes_per_rank,
// peak_bytes_predicted, peak_bytes_predicted_per_rank (SPEC 3.2), ranks_per_node and the
// bytes by link: intra_node_bytes, inter_node_bytes and their _predicted (SPEC 9, at the
// top and per node), and the provenance
// (tool version, graph and plan hashes). Files are written whole or not at all.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace einrt::program {

struct NodeReport {
  std::string name;
  std::string kernel;
  double timeS = 0;
  int64_t bytesSent = 0;
  int64_t bytesPredicted = 0;
  int64_t interNodeBytesSent = 0;
  int64_t interNodeBytesPredicted = 0;
};

struct CheckReport {
  bool ran = false;
  bool passed = true;
  double maxAbsErr = 0;
  double maxRelErr = 0;   // max |got - want| / max |want|, over the outputs
  double tolerance = 0;   // the bound the relative error is held to
  std::string reference;  // what it was compared with
};

struct Report {
  std::string program, toolVersion, graphSha256, planSha256;
  int ranks = 1;
  std::string backend, dtype;
  // What multiplied the contractions: "blas", "libxsmm+blas" (the GEMM primitive ran some
  // tiles, gemm.h), "cublas", or for bf16 and f16 on CPUs the
  // low-precision GEMM's name ("onednn"), "f32-blas" (converted to f32 for the BLAS), both
  // joined by '+', or "" when no GEMM ran.
  std::string gemmPath;
  std::string convolutionPath;  // what ran the convolutions (program/convolution.h); "": none
  int iters = 1;
  int threads = 1;
  int coresPerRank = 0;  // the fewest cores any rank's CPU affinity allows (0: unknown)
  double timeS = 0;
  double gflops = 0;
  int64_t bytesSent = 0;
  int64_t bytesPredicted = 0;
  int64_t ranksPerNode = 0;  // how bytes were split by link (the plan's unless --ranks-per-node)
  int64_t interNodeBytesSent = 0;
  int64_t interNodeBytesPredicted = 0;
  std::vector<NodeReport> nodes;
  // High-water marks of the ranks' memory counters over the run, and the plan's figures
  // (empty when the plan predicted none).
  std::vector<int64_t> peakBytesPerRank, peakBytesPredictedPerRank;
  CheckReport check;
};

std::string reportJson(const Report& r);
void printReport(const Report& r);

// Makes sure `path` can be written later (its folder exists or is made, a file can be
// created there) — called before any computation; throws einrt::FileError naming it.
void prepareFileFolder(const std::string& path);
void prepareFolder(const std::string& folder);

// `text` to `path`, whole or not at all (einrt/file_output.h).
void writeFileWhole(const std::string& path, const std::string& text);

}  // namespace einrt::program

#include "einrt/program/report.h"

#include <einrt/file_output.h>

#include <algorithm>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace einrt::program {

namespace {

std::string number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += static_cast<char>(c);
    else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else out += static_cast<char>(c);
  }
  return out + "\"";
}

}  // namespace

static int64_t maxOf(const std::vector<int64_t>& v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }

std::string reportJson(const Report& r) {
  std::string s = "{\n";
  s += "  \"program\": " + quoted(r.program) + ",\n";
  s += "  \"tool\": {\"name\": \"eincodegen\", \"version\": " + quoted(r.toolVersion) + "},\n";
  s += "  \"graph_sha256\": " + quoted(r.graphSha256) + ",\n";
  s += "  \"plan_sha256\": " + quoted(r.planSha256) + ",\n";
  s += "  \"ranks\": " + std::to_string(r.ranks) + ",\n";
  s += "  \"backend\": " + quoted(r.backend) + ",\n";
  s += "  \"dtype\": " + quoted(r.dtype) + ",\n";
  s += "  \"gemm_path\": " + quoted(r.gemmPath) + ",\n";
  if (!r.convolutionPath.empty()) s += "  \"convolution_path\": " + quoted(r.convolutionPath) + ",\n";
  s += "  \"iters\": " + std::to_string(r.iters) + ",\n";
  s += "  \"threads\": " + std::to_string(r.threads) + ",\n";
  s += "  \"cores_per_rank\": " + std::to_string(r.coresPerRank) + ",\n";
  s += "  \"time_s\": " + number(r.timeS) + ",\n";
  s += "  \"gflops\": " + number(r.gflops) + ",\n";
  s += "  \"bytes_sent\": " + std::to_string(r.bytesSent) + ",\n";
  s += "  \"bytes_predicted\": " + std::to_string(r.bytesPredicted) + ",\n";
  s += "  \"ranks_per_node\": " + std::to_string(r.ranksPerNode) + ",\n";
  s += "  \"intra_node_bytes\": " + std::to_string(r.bytesSent - r.interNodeBytesSent) + ",\n";
  s += "  \"inter_node_bytes\": " + std::to_string(r.interNodeBytesSent) + ",\n";
  s += "  \"intra_node_bytes_predicted\": " + std::to_string(r.bytesPredicted - r.interNodeBytesPredicted) + ",\n";
  s += "  \"inter_node_bytes_predicted\": " + std::to_string(r.interNodeBytesPredicted) + ",\n";
  s += "  \"nodes\": [";
  for (std::size_t i = 0; i < r.nodes.size(); ++i) {
    const NodeReport& n = r.nodes[i];
    s += std::string(i ? "," : "") + "\n    {\"name\": " + quoted(n.name) + ", \"kernel\": " + quoted(n.kernel) +
         ", \"time_s\": " + number(n.timeS) + ", \"bytes_sent\": " + std::to_string(n.bytesSent) +
         ", \"bytes_predicted\": " + std::to_string(n.bytesPredicted) +
         ", \"intra_node_bytes\": " + std::to_string(n.bytesSent - n.interNodeBytesSent) +
         ", \"inter_node_bytes\": " + std::to_string(n.interNodeBytesSent) +
         ", \"intra_node_bytes_predicted\": " + std::to_string(n.bytesPredicted - n.interNodeBytesPredicted) +
         ", \"inter_node_bytes_predicted\": " + std::to_string(n.interNodeBytesPredicted) + "}";
  }
  s += r.nodes.empty() ? "]" : "\n  ]";
  auto list = [](const std::vector<int64_t>& v) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
    return out + "]";
  };
  s += ",\n  \"peak_bytes\": " + std::to_string(maxOf(r.peakBytesPerRank));
  s += ",\n  \"peak_bytes_per_rank\": " + list(r.peakBytesPerRank);
  if (!r.peakBytesPredictedPerRank.empty()) {
    s += ",\n  \"peak_bytes_predicted\": " + std::to_string(maxOf(r.peakBytesPredictedPerRank));
    s += ",\n  \"peak_bytes_predicted_per_rank\": " + list(r.peakBytesPredictedPerRank);
  }
  if (r.check.ran)
    s += ",\n  \"check\": {\"passed\": " + std::string(r.check.passed ? "true" : "false") +
         ", \"max_abs_err\": " + number(r.check.maxAbsErr) + ", \"max_rel_err\": " + number(r.check.maxRelErr) +
         ", \"tolerance\": " + number(r.check.tolerance) + ", \"reference\": " + quoted(r.check.reference) + "}";
  s += "\n}\n";
  return s;
}

void printReport(const Report& r) {
  std::printf("%s: %d ranks, backend %s, dtype %s, %d iteration(s), %d thread(s) per rank\n", r.program.c_str(), r.ranks,
              r.backend.c_str(), r.dtype.c_str(), r.iters, r.threads);
  if (!r.gemmPath.empty()) std::printf("GEMMs: %s\n", r.gemmPath.c_str());
  if (!r.convolutionPath.empty()) std::printf("convolutions: %s\n", r.convolutionPath.c_str());
  // Columns as wide as their longest entry, so long node names and kernels stay aligned.
  int nameWidth = 5, kernelWidth = 6;
  for (const NodeReport& n : r.nodes) {
    nameWidth = std::max(nameWidth, static_cast<int>(n.name.size()));
    kernelWidth = std::max(kernelWidth, static_cast<int>(n.kernel.size()));
  }
  auto row = [&](const char* name, const char* kernel, const char* time, const char* sent, const char* predicted) {
    std::printf("%-*s  %-*s  %14s  %16s  %16s\n", nameWidth, name, kernelWidth, kernel, time, sent, predicted);
  };
  auto number = [](const char* format, auto v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return std::string(buf);
  };
  row("node", "kernel", "time_s", "bytes_sent", "bytes_predicted");
  for (const NodeReport& n : r.nodes)
    row(n.name.c_str(), n.kernel.c_str(), number("%.6g", n.timeS).c_str(), number("%lld", static_cast<long long>(n.bytesSent)).c_str(),
        number("%lld", static_cast<long long>(n.bytesPredicted)).c_str());
  row("total", "", number("%.6g", r.timeS).c_str(), number("%lld", static_cast<long long>(r.bytesSent)).c_str(),
      number("%lld", static_cast<long long>(r.bytesPredicted)).c_str());
  std::printf("GFLOP/s: %.4g\n", r.gflops);
  if (r.ranksPerNode > 0 && r.ranksPerNode < r.ranks)
    std::printf("between nodes (%lld ranks per node): %lld bytes, predicted %lld\n", static_cast<long long>(r.ranksPerNode),
                static_cast<long long>(r.interNodeBytesSent), static_cast<long long>(r.interNodeBytesPredicted));
  std::printf("peak memory: %lld bytes (busiest rank)", static_cast<long long>(maxOf(r.peakBytesPerRank)));
  if (!r.peakBytesPredictedPerRank.empty())
    std::printf(", predicted %lld%s", static_cast<long long>(maxOf(r.peakBytesPredictedPerRank)),
                r.peakBytesPerRank == r.peakBytesPredictedPerRank ? " (equal on every rank)" : " (DIFFERS on some rank)");
  std::printf("\n");
  if (r.check.ran)
    std::printf("check: %s against %s (max_abs_err %.3g, max_rel_err %.3g, tolerance %.3g)\n",
                r.check.passed ? "passed" : "FAILED", r.check.reference.c_str(), r.check.maxAbsErr, r.check.maxRelErr,
                r.check.tolerance);
  std::fflush(stdout);
}

void prepareFolder(const std::string& folder) { prepareOutputFolder(folder); }

void prepareFileFolder(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  prepareOutputFolder(parent.empty() ? "." : parent.string());
  if (std::filesystem::is_directory(path)) throw FileError(path, "is a folder, not a file");
}

void writeFileWhole(const std::string& path, const std::string& text) { writeFile(path, text); }

}  // namespace einrt::program

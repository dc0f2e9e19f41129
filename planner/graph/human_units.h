// Human-readable quantities for tables: bytes in binary units (B, KiB, MiB, GiB, TiB)
// and operation counts in decimal units (FLOP, KFLOP, MFLOP, GFLOP, TFLOP, PFLOP), with
// three significant digits. JSON output keeps exact integers; these are only for people.
#pragma once

#include <cstdint>
#include <string>

namespace eindecomp {

std::string formatBytes(int64_t bytes);   // 1536 -> "1.50 KiB"
std::string formatFlops(int64_t flops);   // 2097152 -> "2.10 MFLOP"

}  // namespace eindecomp

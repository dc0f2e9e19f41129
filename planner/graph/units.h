// The one home of units, both ways. Formatting for people (tables, diagnostics): bytes in
// binary units (B, KiB, MiB, ...), operation counts in decimal units (FLOP, kFLOP,
// MFLOP, ...), seconds (ns, us, ms, s), with three significant digits; JSON keeps exact
// numbers. Parsing what people type: byte counts ("64MiB", "2G", "1048576") and the
// quantities of machine files ("12.5 GB/s", "2 us", "1.2 TFLOP/s", or plain numbers in
// the base unit).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace eindecomp {

std::string formatBytes(int64_t bytes);   // 1536 -> "1.50 KiB"
std::string formatFlops(int64_t flops);   // 2097152 -> "2.10 MFLOP"
std::string formatSeconds(double seconds);  // 0.00123 -> "1.23 ms"

// "1048576", "64MiB", "2G", "512 KB", "1.5GiB", "8gib" (K/M/G/T/P = powers of 1000,
// KiB/MiB/GiB/TiB/PiB = of 1024, an optional B, any case; parseQuantity's Bytes): nothing
// when the text is not a positive whole number of bytes that fits 63 bits.
std::optional<int64_t> parseByteCount(const std::string& text);

// The shortest text that reads back to the same double ("0.125", "0.088388347648318447"):
// numbers in join expressions and in csv output.
std::string numberText(double value);

// The whole text as a finite number ("0.05", "1e-3"; no spaces, no unit); nothing otherwise.
// Options check their own ranges.
std::optional<double> parseNumber(const std::string& text);

enum class Quantity { Seconds, Bytes, BytesPerSecond, FlopsPerSecond };

// The one parser of figures people type: a non-negative number (fractions and exponents
// allowed) with an optional unit of its kind, in any case: s ms us ns; B K KB M MB G GB
// T TB P PB KiB MiB GiB TiB PiB; B/s KB/s MB/s GB/s TB/s KiB/s MiB/s GiB/s TiB/s; FLOP/s
// kFLOP/s MFLOP/s GFLOP/s TFLOP/s PFLOP/s. Nothing when the text is not one.
std::optional<double> parseQuantity(const std::string& text, Quantity kind);

// The units parseQuantity accepts for a kind, for messages ("s, ms, us, ns").
std::string quantityUnits(Quantity kind);

}  // namespace eindecomp

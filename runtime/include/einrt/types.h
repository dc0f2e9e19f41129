// Basic vocabulary of einrt, and of the whole toolchain: element types, aggregations,
// memory spaces and what the several holders of one block mean. Plain enums with small
// helpers so that layouts, plans, the planner's graphs and reports, and the code
// generator all speak the same words (the planner includes this header; there is no
// second definition). bf16 and f16 are storage types (SPEC 8): 2 bytes an element in
// tensors, blocks and messages, computed in f32 (einrt/half.h holds their conversions).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace einrt {

// Element type of a tensor: the float types a graph computes in, and the integer types of
// index tensors (a gather's ids: graph inputs only, read as indices, never computed with).
enum class DType { F32, F64, BF16, F16, I32, I64 };

// Aggregation used to combine partial blocks (the EinGraph `agg`).
enum class Reduce { Sum, Max, Min, Prod };

// Where a rank's block buffers live. Cuda buffers are device pointers (one GPU per rank).
enum class MemorySpace { Host, Cuda };

// What several holders of one block mean: copies of the same values (Replicas) or
// partial results still to be combined with the layout's aggregation (Partial).
enum class Holding { Replicas, Partial };

// The graph's types (`dtype:`): what kernels compute in.
inline constexpr DType kAllDTypes[] = {DType::F32, DType::F64, DType::BF16, DType::F16};
// The types an index tensor may have (SPEC 8: `dtype: i32 | i64` on an input).
inline constexpr DType kIndexDTypes[] = {DType::I32, DType::I64};

inline bool isIndexType(DType t) { return t == DType::I32 || t == DType::I64; }

inline std::size_t dtypeSize(DType t) {
  switch (t) {
    case DType::F32: return 4;
    case DType::F64:
    case DType::I64: return 8;
    case DType::BF16:
    case DType::F16: return 2;
    case DType::I32: return 4;
  }
  return 4;
}

// The name in graph files, reports and command lines: "f32" | "f64" | "bf16" | "f16".
inline const char* dtypeName(DType t) {
  switch (t) {
    case DType::F32: return "f32";
    case DType::F64: return "f64";
    case DType::BF16: return "bf16";
    case DType::F16: return "f16";
    case DType::I32: return "i32";
    case DType::I64: return "i64";
  }
  return "?";
}

// A graph type by name (f32, f64, bf16, f16); index types are named apart.
inline std::optional<DType> dtypeFromName(std::string_view name) {
  for (DType t : kAllDTypes)
    if (name == dtypeName(t)) return t;
  return std::nullopt;
}

inline std::optional<DType> indexDTypeFromName(std::string_view name) {
  for (DType t : kIndexDTypes)
    if (name == dtypeName(t)) return t;
  return std::nullopt;
}

// A storage type whose kernels compute in f32 and round each result once.
inline bool isTwoByte(DType t) { return t == DType::BF16 || t == DType::F16; }

// What --check tolerances scale with (SPEC 8): the machine epsilon of f32 and f64, and
// 2^-8 (bf16) and 2^-11 (f16) for the storage types, whose results are rounded once.
inline double dtypeEpsilon(DType t) {
  switch (t) {
    case DType::F32: return 0x1p-23;
    case DType::F64: return 0x1p-52;
    case DType::BF16: return 0x1p-8;
    case DType::F16: return 0x1p-11;
    case DType::I32:
    case DType::I64: return 0;
  }
  return 0x1p-23;
}

inline const char* reduceName(Reduce r) {
  switch (r) {
    case Reduce::Sum: return "sum";
    case Reduce::Max: return "max";
    case Reduce::Min: return "min";
    case Reduce::Prod: return "prod";
  }
  return "?";
}

inline const char* memorySpaceName(MemorySpace m) { return m == MemorySpace::Host ? "host" : "cuda"; }

}  // namespace einrt

// Basic vocabulary of einrt: element types, aggregations, memory spaces and what the
// several holders of one block mean. Plain enums with small helpers so that layouts,
// plans and the code generator all speak the same words.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace einrt {

// Element type of a tensor; einrt moves f32 and f64 data.
enum class DType { F32, F64 };

// Aggregation used to combine partial blocks (the EinGraph `agg`).
enum class Reduce { Sum, Max, Min, Prod };

// Where a rank's block buffers live. Cuda buffers are device pointers (one GPU per rank).
enum class MemorySpace { Host, Cuda };

// What several holders of one block mean: copies of the same values (Replicas) or
// partial results still to be combined with the layout's aggregation (Partial).
enum class Holding { Replicas, Partial };

inline std::size_t dtypeSize(DType t) { return t == DType::F32 ? 4 : 8; }

inline std::string_view dtypeName(DType t) { return t == DType::F32 ? "f32" : "f64"; }

inline std::string_view reduceName(Reduce r) {
  switch (r) {
    case Reduce::Sum: return "sum";
    case Reduce::Max: return "max";
    case Reduce::Min: return "min";
    case Reduce::Prod: return "prod";
  }
  return "?";
}

inline std::string_view memorySpaceName(MemorySpace m) {
  return m == MemorySpace::Host ? "host" : "cuda";
}

}  // namespace einrt

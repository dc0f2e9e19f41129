// einrt's window onto device memory (a GPU per rank): the few operations the collectives
// and the program executor need on buffers that live there. The core library
// (einrt::einrt) contains no device code and needs no GPU toolkit, so CPU programs link it
// alone; a program that keeps its tensors on GPUs also links einrt::cuda and hands
// einrt::cudaDevice() (einrt/cuda_device.h) to the collectives (RedistributeOptions::device)
// and to the executor. Every function throws std::runtime_error naming the failed call.
#pragma once

#include <cstddef>
#include <cstdint>

#include "einrt/types.h"

namespace einrt {

namespace detail {
struct CopyOp;  // a batch of box copies (the collectives' pack, unpack and combine steps)
}

namespace program {
struct GemmCall;
struct Permutation;
}  // namespace program

struct DeviceOps {
  const char* name = "";
  void* (*allocate)(std::size_t bytes) = nullptr;
  void (*release)(void* p) = nullptr;
  void* (*allocatePinned)(std::size_t bytes) = nullptr;  // host memory the device copies fast
  void (*releasePinned)(void* p) = nullptr;
  void (*copyToHost)(void* host, const void* device, std::size_t bytes) = nullptr;
  void (*copyToDevice)(void* device, const void* host, std::size_t bytes) = nullptr;
  void (*synchronize)() = nullptr;
  void (*runCopies)(const detail::CopyOp* ops, std::size_t count, DType dtype) = nullptr;
  void (*gemm)(const program::GemmCall& call, DType dtype, const void* A, const void* B, void* C, double alpha,
               double beta) = nullptr;
  void (*permute)(const program::Permutation& p, DType dtype, const void* src, void* dst, bool accumulate) = nullptr;
  void (*fill)(void* p, std::size_t count, DType dtype, double value) = nullptr;
};

}  // namespace einrt

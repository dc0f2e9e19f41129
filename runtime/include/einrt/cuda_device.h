// The CUDA device operations (einrt::cuda, built where a CUDA toolkit is found): box copies
// as kernels, device and pinned memory, cuBLAS GEMMs, permutations and fills on the
// current GPU (one per rank). A program that keeps tensors on GPUs links einrt::cuda and
// passes cudaDevice() to the collectives and the executor (device.h).
#pragma once

#include "einrt/device.h"

namespace einrt {

const DeviceOps& cudaDevice();

}  // namespace einrt

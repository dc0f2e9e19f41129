// Tensors to and from `.npy` files through einrt/npy.h: the reference evaluator's
// values in the format NumPy and the emitted programs read and write. Problems with a
// file are thrown as einrt::NpyError, whose message names the file.
#pragma once

#include <string>
#include <vector>

#include "frontends/eval/tensor.h"

namespace eindecomp {

// The complete .npy file contents of `t` (`<f4` for F32, `<f8` for F64, C order).
std::string encodeTensorNpy(const Tensor& t);

// Reads PATH, which must hold `shape`: float32 or float64 data in C or Fortran order,
// converted to `dtype` with a note on stderr where the file's float type differs.
Tensor readTensorNpy(const std::string& path, DType dtype, const std::vector<int64_t>& shape);

}  // namespace eindecomp

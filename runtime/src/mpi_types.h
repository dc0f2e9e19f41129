// The MPI datatype and reduction operation of an element type. f32 and f64 are MPI's own;
// bf16 and f16 (SPEC 8) travel as 2-byte elements of a committed contiguous type, and
// the reducing collectives (MPI_Reduce_scatter, MPI_Allreduce) combine them with
// user-defined operations that compute in f32 and round once — MPI has no 2-byte floats
// (MPI 4.0 names none; Open MPI's are extensions). Created on first use, after MPI_Init.
#pragma once

#include <mpi.h>

#include "box_copy.h"
#include "einrt/types.h"

namespace einrt::detail {

MPI_Datatype mpiType(DType t);
MPI_Op mpiOp(CombineOp op, DType t);

}  // namespace einrt::detail

#include "mpi_types.h"

#include <mutex>

#include "einrt/half.h"

namespace einrt::detail {

namespace {

template <class T, CombineOp Op>
void reduce2(void* in, void* inout, int* len, MPI_Datatype*) {
  const T* a = static_cast<const T*>(in);
  T* b = static_cast<T*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = combine(Op, b[i], a[i]);
}

// The four aggregations' operations for one 2-byte type, in opIndex order.
template <class T>
void makeOps(MPI_Op (&ops)[4]) {
  MPI_Op_create(&reduce2<T, CombineOp::Sum>, 1, &ops[0]);
  MPI_Op_create(&reduce2<T, CombineOp::Max>, 1, &ops[1]);
  MPI_Op_create(&reduce2<T, CombineOp::Min>, 1, &ops[2]);
  MPI_Op_create(&reduce2<T, CombineOp::Prod>, 1, &ops[3]);
}

struct TwoByte {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Op ops[2][4] = {};  // [bf16, f16][sum, max, min, prod]
};

const TwoByte& twoByte() {
  static TwoByte t;
  static std::once_flag once;
  std::call_once(once, [] {
    MPI_Type_contiguous(2, MPI_BYTE, &t.type);
    MPI_Type_commit(&t.type);
    makeOps<bf16>(t.ops[0]);
    makeOps<f16>(t.ops[1]);
  });
  return t;
}

int opIndex(CombineOp op) {
  switch (op) {
    case CombineOp::Max: return 1;
    case CombineOp::Min: return 2;
    case CombineOp::Prod: return 3;
    default: return 0;
  }
}

}  // namespace

MPI_Datatype mpiType(DType t) {
  switch (t) {
    case DType::F32: return MPI_FLOAT;
    case DType::F64: return MPI_DOUBLE;
    case DType::BF16:
    case DType::F16: return twoByte().type;
    case DType::I32: return MPI_INT32_T;
    case DType::I64: return MPI_INT64_T;
  }
  return MPI_FLOAT;
}

MPI_Op mpiOp(CombineOp op, DType t) {
  if (isTwoByte(t)) return twoByte().ops[t == DType::BF16 ? 0 : 1][opIndex(op)];
  switch (op) {
    case CombineOp::Max: return MPI_MAX;
    case CombineOp::Min: return MPI_MIN;
    case CombineOp::Prod: return MPI_PROD;
    default: return MPI_SUM;
  }
}

}  // namespace einrt::detail

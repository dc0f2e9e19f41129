// oneDNN's matmul as the GEMM of bf16 and f16 programs on CPUs (SPEC 8): 2-byte operands,
// f32 accumulation, alpha as an output scale and beta as a sum post-op, the result
// rounded once; oneDNN picks AMX, avx512_bf16 or avx512_fp16 kernels where the processor
// has them (and says it cannot where it has none, which sends the call the f32 way).
// Lives in the optional library einrt::dnnl, built where oneDNN (Debian's libdnnl-dev) is
// found; an emitted program built with it calls useOneDnnGemm() before it runs, so the
// choice is made once, by the program's build (einrt_add_program, EINRT_WITH_ONEDNN).
#pragma once

namespace einrt::program {

// Makes oneDNN the low-precision GEMM of this process (gemm.h setLowPrecisionGemm) and
// its convolution provider (convolution.h setConvolution: dnnl_convolution.cpp).
void useOneDnnGemm();
void useOneDnnConvolution();

}  // namespace einrt::program

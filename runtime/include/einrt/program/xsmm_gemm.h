// LIBXSMM's JIT-generated small-GEMM kernels as einrt's GEMM primitive (gemm.h): the tiles
// of small and skinny contractions (tensor networks, attention heads) run through kernels
// generated for their exact shape and this processor's vector instructions (AVX2,
// AVX-512), f32 and f64. Lives in the optional library einrt::xsmm, built where LIBXSMM
// (Debian's libxsmm-dev) is found; an emitted program built with it calls
// useLibxsmmGemm() before it runs (einrt_add_program, EINRT_WITH_LIBXSMM), and
// einrt-calibrate measures through it, so the choice is made once, by the build.
#pragma once

namespace einrt::program {

// Makes LIBXSMM the GEMM primitive of this process (gemm.h setGemmPrimitive).
void useLibxsmmGemm();

}  // namespace einrt::program

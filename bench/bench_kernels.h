// `distgnn bench kernels`: the dense products of a GNN's input layer (a tall
// x of node features times a narrow weight), on the skinny kernels at every
// SIMD level this CPU has and on BLAS (torch::matmul), 1 thread. The baseline,
// measured in the same run, is a memcpy of x: each product reads x once, so
// "x memcpys" near 1 means the kernel runs at memory speed; "vs torch" is the
// time over BLAS's (or torch's own dropout). Default shape:
// DGL's benchmark batch (86k input nodes, 100 features, hidden 16).
// Prints a table and, last, one JSON line.
#pragma once

#include <cstdint>

#include "common/base/status.h"

namespace dg {

// x is rows x in, the weight in x out; the median of `reps` timed runs.
Status BenchKernels(int64_t rows, int64_t in, int64_t out, int reps);

}  // namespace dg

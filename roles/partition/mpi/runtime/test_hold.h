// A test-only hook: the environment variable DISTGNN_TEST_HOLD=
// "POINT:SECONDS[:RANK]" (several joined by ',') holds each rank that reaches
// POINT (only rank RANK when given) outside MPI for SECONDS, as a computation
// of that length would. The tests of the progress deadline
// (test/partition/test_mpi_liveness.cpp) set how long a rank computes instead
// of racing the machine with a graph large enough to outlast the deadline.
// Points: "scotch" (right before SCOTCH_dgraphPart) and "rank-0" (rank 0,
// inside OnRankZero's computation of the parts of the whole graph or of the
// cluster graph). Unset (every real run): no hold.
#pragma once

namespace dg::mpi {

void TestHold(const char* point, int rank);

}  // namespace dg::mpi

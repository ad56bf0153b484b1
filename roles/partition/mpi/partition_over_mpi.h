// The partitioner across machines (docs/partitioning.md, "Partitioning
// across machines"), one rank per machine under mpirun: `distgnn partition
// --mpi`, whose flags cmd/partition_flags.h parses into a PartitionSpec.
//
// Each rank reads its rows of the edge list, the ranks normalize and
// partition it together (graph/graph.h), and each part is written by the rank
// that serves it (output/output.h) into a staging directory renamed into place at
// the end (runtime/stage.h). Progress lines come from rank 0; a failing rank's
// message names its rank and host, and every rank exits non-zero.
#pragma once

#include "common/base/status.h"
#include "config/partition_spec.h"
#include "roles/partition/mpi/runtime/exchange.h"

namespace dg::mpi {

// Runs on every rank of r (collective); spec.mpi is true, its flags checked.
Status PartitionOverMpi(const Rank& r, const PartitionSpec& spec);

}  // namespace dg::mpi

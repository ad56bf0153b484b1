// The one flag table of `distgnn partition`, with and without --mpi: the
// single-machine command (cmd_partition.cpp) and the partitioner across
// machines (mpi/mpi_partition_main.cpp, the executable `partition --mpi`
// runs) both parse their argv here into a PartitionSpec
// (config/partition_spec.h), whose rules say which flags go with which mode.
#pragma once

#include "cmd/cli.h"
#include "config/partition_spec.h"

namespace dg {

// Parses argv (argv[0] names the command) into *spec with spec->mpi = mpi
// (a "--mpi" in argv is accepted and means the same). On --help prints the
// table when print_help and returns NotFound("help"), as cli::Parse does.
Status ParsePartitionFlags(int argc, char** argv, bool mpi, bool print_help, PartitionSpec* spec);

}  // namespace dg

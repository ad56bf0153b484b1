// distgnn-mpi-partition: the executable `distgnn partition --mpi` runs under
// mpirun (a small binary of its own, so that distgnn never links MPI). Its
// flags are `distgnn partition`'s table (cmd/partition_flags.h); the work is
// roles/partition/mpi/partition_over_mpi.h. Rank 0 prints the help and a
// flag's error; an error of the run is printed by the rank that met it
// (runtime/exchange.h, Agree). Every rank exits non-zero on an error.
#include <mpi.h>

#include <vector>

#include "cmd/partition_flags.h"
#include "roles/partition/mpi/partition_over_mpi.h"
#include "roles/partition/mpi/runtime/watchdog.h"

int main(int argc, char** argv) {
  // PT-Scotch may run threads that call MPI (Debian builds it with pthreads).
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  const dg::mpi::Rank r = dg::mpi::WorldRank();
  const char* command = "distgnn partition --mpi";
  std::vector<char*> args(argv, argv + argc);  // usage lines name the command the user typed
  args[0] = const_cast<char*>(command);
  dg::PartitionSpec spec;
  dg::Status st = dg::ParsePartitionFlags(argc, args.data(), /*mpi=*/true, /*print_help=*/r.rank == 0, &spec);
  const bool help = st.code() == dg::Status::Code::kNotFound && st.message() == "help";
  if (r.rank == 0) dg::cli::ExitCode(command, st);  // a flag's error, once
  if (st.ok()) {
    dg::mpi::StartWatchdog(r, spec.progress_timeout);
    st = dg::mpi::PartitionOverMpi(r, spec);  // its errors are printed by the rank that met them (Agree)
  }
  MPI_Finalize();
  return st.ok() || help ? 0 : 1;
}

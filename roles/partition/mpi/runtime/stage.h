// The output directory of a distributed run, written whole or not at all on
// every machine. All ranks write into OUT's hidden sibling `.NAME.tmp-mpi-T`
// (T: rank 0's pid and start time, the same on every rank). Ranks that see
// the same file system find each other through marker files in it; the lowest
// such rank is that storage's leader: it writes the files every copy of the
// output has (NAME.json, orig_nids.npy, orig_eids.npy) and, once every rank
// has written everything, renames the directory into place. On storage shared
// by all ranks that is one OUT; with each host's own disks every host gets an
// OUT with NAME.json and the parts it serves.
//
// Nothing half-written is left: a failed run removes the staging directory,
// and SIGTERM/SIGINT (what mpirun sends every rank when one dies) removes it
// before exiting (a forked `rm -rf`, async-signal-safe).
#pragma once

#include <string>

#include "common/base/status.h"
#include "roles/partition/mpi/runtime/exchange.h"

namespace dg::mpi {

// A second directory (the rank's scratch) the signal handler also removes.
void RemoveOnSignal(const std::string& scratch_dir);

// Removes the uncommitted staging directory and the scratch directory now
// (the progress watchdog before it aborts, runtime/watchdog.h).
void RemoveStageAndScratch();

class SharedStage {
 public:
  SharedStage() = default;
  ~SharedStage();
  SharedStage(const SharedStage&) = delete;
  SharedStage& operator=(const SharedStage&) = delete;

  // Collective. Refuses an existing OUT without force (on every rank).
  Status Create(const Rank& r, const std::string& out_dir, bool force);
  const std::string& path() const { return tmp_; }
  bool leader() const { return leader_; }
  // Collective, after Agree on the writes: leaders move the staging directory to OUT.
  Status Commit(const Rank& r);

 private:
  std::string tmp_, out_;
  bool leader_ = false, force_ = false, committed_ = false;
};

}  // namespace dg::mpi

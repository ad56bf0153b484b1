// NAME.json's "checksums" for a distributed run (common/storage/partition_checksum.h):
// every rank hashes the part directories it wrote, in parallel, with the
// single-machine RecordChecksums; rank 0 hashes the shared files (its storage
// has them: rank 0 always leads its storage, runtime/stage.h) and gathers the
// ranks' digests, so `partition verify` checks an MPI partition as one written
// on one machine. Keys are paths relative to OUT, as there.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "roles/partition/mpi/runtime/exchange.h"

namespace dg::mpi {

// Collective. root: the staging directory; part_dirs and shared_files
// relative to it (shared files are read on rank 0 only). Fills *checksums on
// rank 0 (other ranks: left empty).
Status GatherChecksums(const Rank& r, const std::string& root, const std::vector<std::string>& part_dirs,
                       const std::vector<std::string>& shared_files, std::map<std::string, std::string>* checksums);

}  // namespace dg::mpi

#include "roles/partition/mpi/output/checksums.h"

#include <sstream>

#include "common/storage/partition_checksum.h"

namespace dg::mpi {

namespace {

// This rank's digests as "path\tdigest\n" lines.
Status HashMine(const Rank& r, const std::string& root, const std::vector<std::string>& part_dirs,
                const std::vector<std::string>& shared_files, std::string* lines) {
  for (const std::string& dir : part_dirs) {
    PartitionConfig part;  // RecordChecksums' keys are relative to the part's directory
    DG_RETURN_IF_ERROR(RecordChecksums(root + "/" + dir, "", &part));
    for (const auto& [file, digest] : part.checksums) *lines += dir + "/" + file + "\t" + digest + "\n";
  }
  if (r.rank != 0) return Status::OK();
  for (const std::string& file : shared_files) {
    DG_ASSIGN_OR_RETURN(std::string digest, FileSha256(root + "/" + file));
    *lines += file + "\t" + digest + "\n";
  }
  return Status::OK();
}

}  // namespace

Status GatherChecksums(const Rank& r, const std::string& root, const std::vector<std::string>& part_dirs,
                       const std::vector<std::string>& shared_files, std::map<std::string, std::string>* checksums) {
  std::string lines;
  const Status st = HashMine(r, root, part_dirs, shared_files, &lines);
  if (!st.ok()) lines.clear();  // still take part in the gather
  const int n = static_cast<int>(lines.size());
  std::vector<int> sizes(r.size), displ(r.size, 0);
  MPI_Gather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, r.comm);
  std::string all;
  if (r.rank == 0) {
    for (int q = 1; q < r.size; ++q) displ[q] = displ[q - 1] + sizes[q - 1];
    all.resize(static_cast<size_t>(displ[r.size - 1] + sizes[r.size - 1]));
  }
  MPI_Gatherv(lines.data(), n, MPI_CHAR, all.data(), sizes.data(), displ.data(), MPI_CHAR, 0, r.comm);
  std::istringstream in(all);
  for (std::string line; std::getline(in, line);) {
    const size_t tab = line.find('\t');
    if (tab != std::string::npos) (*checksums)[line.substr(0, tab)] = line.substr(tab + 1);
  }
  return st;
}

}  // namespace dg::mpi

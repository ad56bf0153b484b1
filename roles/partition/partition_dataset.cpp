// distgnn partition on one machine: a user's graph -> partitions on disk
// (docs/formats.md), composed as an input (dataset_kinds.h: plain, OGB, typed,
// merged types) x an engine (engines.h: in memory, out of core; METIS, random
// or the stream inside each) x the writers both engines share
// (partition_output.h), so both write the same bytes.
//
// Every user mistake is one line and a non-zero exit, and nothing is written:
// the flags are checked in config/ before anything runs, the input before
// partitioning, and the output appears only by a final rename.
#include <filesystem>

#include "common/storage/ogb_dataset.h"
#include "common/storage/typed_dataset.h"
#include "roles/partition/dataset_kinds.h"
#include "roles/partition/partition_dataset.h"

namespace dg {

Status PartitionDataset(const PartitionSpec& spec) {
  const PartitionOptions opts{spec, stdout};
  std::error_code ec;
  if (std::filesystem::exists(spec.out, ec) && !spec.force)
    return Status::AlreadyExists("output " + spec.out + " exists (use --force to replace it)");
  const bool ogb = spec.format == InputFormat::kOgb;
  if (ogb && IsOgbHeterogeneous(spec.dataset)) return PartitionOgbTypedDataset(opts);
  if (!ogb && !spec.dataset.empty() && IsTypedDatasetDir(spec.dataset)) return PartitionTypedDataset(opts);
  return PartitionPlainDataset(opts);
}

}  // namespace dg

// Checksums of a partition's files (NAME.json's "checksums", docs/formats.md).
//
// `distgnn partition` hashes every file it wrote (SHA-256, OpenSSL's libcrypto;
// about 1.5 GB/s per core with the SHA extensions) when it commits the output,
// and records the digests in NAME.json keyed by path relative to the json's
// folder. VerifyChecksums re-reads the files and compares: `partition verify`,
// `copy` and `--verify-checksums` on a server use it. A config without
// checksums (written before they existed) verifies as "absent".
#pragma once

#include <cstdint>
#include <string>

#include "common/base/status.h"
#include "common/storage/partition.h"

namespace dg {

// Lowercase hex SHA-256 of a file's bytes; *bytes (if given) gets its size.
Result<std::string> FileSha256(const std::string& path, int64_t* bytes = nullptr);

// Hashes every regular file under dir (recursively) except the file named
// json_name, into cfg->checksums (keys relative to dir, '/'-separated). Files
// already recorded keep their digest (so a writer that adds files to a
// committed partition, e.g. --edge-split, hashes only those).
Status RecordChecksums(const std::string& dir, const std::string& json_name, PartitionConfig* cfg);

struct ChecksumReport {
  int files = 0;  // files hashed and matched
  int64_t bytes = 0;
  double seconds = 0;
};

// Checks the recorded digests of part `part`'s files (keys under its dir), or
// of every recorded file with part = -1. A missing file or a different digest
// is Corruption naming the file. Nothing recorded: OK with files = 0.
Result<ChecksumReport> VerifyChecksums(const PartitionConfig& cfg, int part);

}  // namespace dg

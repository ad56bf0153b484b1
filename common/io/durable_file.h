// FsyncPath: makes a written file or a directory's entries durable (fsync of
// an fd opened read-only; works for both). Step checkpoints fsync every file,
// then the directory, before a rename makes them visible, then the parent.
//
// MakeEmptyDir: `tmp` removed with what it holds (a crashed attempt's) and
// created empty, to be written and then given to ReplaceDirDurably.
//
// ReplaceDirDurably: that sequence for a directory written as `tmp`: every
// file of `tmp` and `tmp` itself fsynced, `dir` (a sibling) removed, `tmp`
// renamed to `dir`, the parent fsynced.
//
// WriteStepTag / ReadStepTag: DIR/step.txt, the global step a copy of the
// training state was taken at (the best epoch's learnt rows); NotFound when
// DIR holds none.
#pragma once

#include <cstdint>
#include <string>

#include "common/base/status.h"

namespace dg {

Status FsyncPath(const std::string& path);
Status MakeEmptyDir(const std::string& tmp);
Status ReplaceDirDurably(const std::string& tmp, const std::string& dir);
Status WriteStepTag(const std::string& dir, uint64_t step);
Result<uint64_t> ReadStepTag(const std::string& dir);

}  // namespace dg

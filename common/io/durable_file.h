// FsyncPath: makes a written file or a directory's entries durable (fsync of
// an fd opened read-only; works for both). Step checkpoints fsync every file,
// then the directory, before a rename makes them visible, then the parent.
#pragma once

#include <string>

#include "common/base/status.h"

namespace dg {

Status FsyncPath(const std::string& path);

}  // namespace dg

// Records parked in a file while a stage that does not read them runs, so
// their memory is free meanwhile: a rank's edge list waits on disk while
// PT-Scotch, whose copies of the graph are the assignment's largest memory,
// partitions.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include "common/base/status.h"

namespace dg::mpi {

Status WriteSpillFile(const std::string& path, const void* data, size_t bytes);
// Reads exactly `bytes` back and removes the file.
Status ReadSpillFile(const std::string& path, void* data, size_t bytes);

// Writes *v to path, then empties it and frees its memory.
template <typename T>
Status Spill(const std::string& path, std::vector<T>* v) {
  static_assert(std::is_trivially_copyable<T>::value, "records are written as bytes");
  DG_RETURN_IF_ERROR(WriteSpillFile(path, v->data(), v->size() * sizeof(T)));
  std::vector<T>().swap(*v);
  return Status::OK();
}

// Reads back the `count` records Spill wrote to path.
template <typename T>
Status Unspill(const std::string& path, size_t count, std::vector<T>* v) {
  v->resize(count);
  return ReadSpillFile(path, v->data(), count * sizeof(T));
}

}  // namespace dg::mpi

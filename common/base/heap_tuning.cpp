#include "common/base/heap_tuning.h"

#include <malloc.h>

namespace dg {

void KeepFreedMemory() {
  mallopt(M_MMAP_MAX, 0);                   // large blocks from the heap, not mmap
  mallopt(M_TRIM_THRESHOLD, 1 << 30);       // never give back less than 1 GB of free top
  mallopt(M_TOP_PAD, 64 << 20);             // grow the heap in 64 MB steps
}

}  // namespace dg

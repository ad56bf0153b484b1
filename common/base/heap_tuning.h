// Keeps freed memory in the process instead of returning it to the kernel.
//
// Every training step allocates and frees batch-sized buffers (features of
// tens of MB, activations, gradients, frames). glibc serves buffers above its
// mmap threshold with fresh pages, and each page costs a fault on first
// touch: filling a new 34 MB buffer took ~15 ms here against ~3 ms for reused
// memory. With this, large blocks come from the heap and stay mapped after
// free, so the next step reuses them. Peak RSS is unchanged; RSS simply no
// longer drops between steps. Call once at process start, before threads.
#pragma once

namespace dg {

void KeepFreedMemory();

}  // namespace dg

// Peak resident memory per stage of a run. The kernel's high-water mark
// (VmHWM) is read at the end of each stage and then reset through
// /proc/self/clear_refs, so each stage reports its own peak and the stage
// that dominates a rank's memory is visible; Peak() is the largest of them.
#pragma once

#include <cstdint>

namespace dg::mpi {

class StagePeaks {
 public:
  // This process's peak RSS in bytes since the previous call (or its start),
  // then resets the mark. Where the reset is refused the marks accumulate,
  // so a stage reports the peak of the run so far.
  int64_t EndStage();
  // The largest stage peak so far.
  int64_t Peak() const { return peak_; }

 private:
  int64_t peak_ = 0;
};

}  // namespace dg::mpi

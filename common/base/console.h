// A calm terminal: whether a stream is an interactive terminal, and the one-line
// progress bar that `train-local` and `launch` redraw in place at a terminal.
// Without a terminal nothing here emits control characters.
#pragma once

#include <cstdint>
#include <string>

namespace dg {

// isatty(fd) and TERM is not "dumb"; DISTGNN_NO_TTY=1 forces false.
bool IsTerminal(int fd);

// "epoch 3/60 [#########.........] 12/40  loss 0.4321  8.1 steps/s  ETA 3s"
// (epochs <= 0: "epoch 3"; steps <= 0: no bar).
std::string ProgressBar(int64_t epoch, int64_t epochs, int64_t step, int64_t steps, double loss,
                        double steps_per_second, double eta_seconds);

// "42s", "3m05s", "1h02m".
std::string ShortDuration(double seconds);

// ANSI: carriage return + erase line (only ever written to a terminal).
inline constexpr const char* kClearLine = "\r\033[K";

}  // namespace dg

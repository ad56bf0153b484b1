// ConsoleView: what `distgnn launch` shows at the console (a calm terminal).
//
// Every process line still goes to its log file (the launcher does that); the
// console gets:
//   - the launcher's own lines ("launch: ...");
//   - warnings and errors of any process, as "[machine/role/index] line";
//   - trainer 0's progress: at a terminal one progress bar redrawn in place,
//     and one summary line per epoch ("epoch N: loss ... val_acc ..."; with more
//     than 12 epochs the first, the last and every ceil(epochs/10)-th stay on
//     screen, the others only replace the bar; all are in trainer 0's log);
//     without a terminal the same summary lines as plain text, no control characters;
// With `verbose`, every line of every process, prefixed.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace dg {

class ConsoleView {
 public:
  ConsoleView(bool verbose, bool tty, int epochs, FILE* out = stdout);
  // A line of process `label`; `lead` = trainer 0.
  void ProcessLine(const std::string& label, bool lead, const std::string& line);
  // The launcher's own line (printed as is, after clearing the progress bar).
  void Say(const std::string& line);
  // Clears a progress bar still on screen.
  void Finish();

  // Does this log line report a warning or an error?
  static bool IsProblem(const std::string& line);

 private:
  void Print(const std::string& text);
  bool KeepSummary(int64_t epoch) const;

  bool verbose_, tty_;
  int epochs_;
  FILE* out_;
  bool bar_on_screen_ = false;
};

}  // namespace dg

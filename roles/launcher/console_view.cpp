#include "roles/launcher/console_view.h"

#include <cinttypes>
#include <cstdlib>
#include <cstring>

#include "common/base/console.h"

namespace dg {
namespace {

// The message of a spdlog line "[time] [role rank] level: message" ("" if not one).
std::string Message(const std::string& line, const char* level) {
  const std::string key = std::string("] ") + level + ": ";
  auto pos = line.find(key);
  return pos == std::string::npos ? "" : line.substr(pos + key.size());
}

}  // namespace

ConsoleView::ConsoleView(bool verbose, bool tty, int epochs, FILE* out)
    : verbose_(verbose), tty_(tty), epochs_(epochs), out_(out) {}

bool ConsoleView::IsProblem(const std::string& line) {
  for (const char* k : {"] warning: ", "] error: ", "] critical: ", ": error: ", "Traceback", "terminate called",
                        "Segmentation fault", "Aborted", "FATAL", "WARNING"})
    if (line.find(k) != std::string::npos) return true;
  return false;
}

void ConsoleView::Print(const std::string& text) {
  if (tty_ && bar_on_screen_) std::fputs(kClearLine, out_);
  bar_on_screen_ = false;
  std::fprintf(out_, "%s\n", text.c_str());
  std::fflush(out_);
}

void ConsoleView::Say(const std::string& line) { Print(line); }

void ConsoleView::Finish() {
  if (tty_ && bar_on_screen_) {
    std::fputs(kClearLine, out_);
    std::fflush(out_);
  }
  bar_on_screen_ = false;
}

bool ConsoleView::KeepSummary(int64_t epoch) const {
  if (epochs_ <= 12) return true;
  const int stride = (epochs_ + 9) / 10;
  return epoch == 1 || epoch == epochs_ || epoch % stride == 0;
}

void ConsoleView::ProcessLine(const std::string& label, bool lead, const std::string& line) {
  if (verbose_) {
    Print("[" + label + "] " + line);
    return;
  }
  if (IsProblem(line)) {
    Print("[" + label + "] " + line);
    return;
  }
  if (!lead) return;
  const std::string msg = Message(line, "info");
  if (msg.empty()) return;
  long long epoch = 0, step = 0, steps = 0;
  double loss = 0, acc = 0, sps = 0, wait = 0, eta = 0;
  if (std::sscanf(msg.c_str(), "epoch %lld step %lld/%lld loss %lf acc %lf %lf steps/s wait %lf%% ETA %lfs", &epoch,
                  &step, &steps, &loss, &acc, &sps, &wait, &eta) == 8) {
    if (!tty_) return;  // plain output: summaries only
    std::fputs((kClearLine + ProgressBar(epoch, epochs_, step, steps, loss, sps, eta)).c_str(), out_);
    std::fflush(out_);
    bar_on_screen_ = true;
    return;
  }
  if (std::sscanf(msg.c_str(), "epoch %lld: loss %lf", &epoch, &loss) == 2) {
    if (KeepSummary(epoch)) {
      Print(msg);
    } else if (tty_) {
      std::fputs((kClearLine + msg).c_str(), out_);
      std::fflush(out_);
      bar_on_screen_ = true;
    }
    return;
  }
  // Trainer 0's other milestones.
  for (const char* k : {"layer-wise inference", "resuming after epoch", "--resume"})
    if (msg.find(k) != std::string::npos) Print(msg);
}

}  // namespace dg

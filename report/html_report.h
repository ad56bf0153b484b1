// The run report: one self-contained HTML page about a run directory.
//
// Sections: summary (best epoch, accuracies, time, throughput), plots (loss,
// train/val/test accuracy, epoch time per trainer, per-step time split per
// epoch and per trainer, throughput, peak RSS per process), tables (trainers,
// processes' peak RSS, partition statistics: edge cut, halo ratios, balance),
// the per-epoch metrics, and the job config. Plots are gnuplot SVGs inlined
// into the page; without gnuplot the page says so and keeps the tables. No
// scripts, no external resources: it opens offline.
#pragma once

#include <string>

#include "common/base/status.h"
#include "report/run_data.h"

namespace dg {

// Which gnuplot draws the plots: the one FindGnuplot finds ($DISTGNN_GNUPLOT
// or `gnuplot` on PATH), none (tables only: `distgnn report --no-plots`), or
// the binary at ReportOptions::gnuplot_path.
enum class GnuplotChoice { kFind, kNone, kPath };

struct ReportOptions {
  GnuplotChoice gnuplot = GnuplotChoice::kFind;
  std::string gnuplot_path;  // with kPath: the gnuplot binary to run
};

std::string BuildReportHtml(const RunData& run, const ReportOptions& options = {});

// Loads RUN_DIR, writes the page to out_path ("" = RUN_DIR/report.html) and
// returns the path written.
Result<std::string> WriteRunReport(const std::string& run_dir, const std::string& out_path = "",
                                   const ReportOptions& options = {});

}  // namespace dg

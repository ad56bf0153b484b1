// `distgnn report RUN_DIR [-o FILE.html]`: one self-contained HTML page about a
// run (report/html_report.h); default RUN_DIR/report.html. Prints its path.
#include <cstdio>

#include "cmd/cli.h"
#include "report/html_report.h"

namespace dg {

int RunReport(int argc, char** argv) {
  namespace po = cli::po;
  std::string run_dir, out;
  bool no_plots = false;
  po::options_description desc("distgnn report RUN_DIR [options]");
  desc.add_options()("help,h", "show this help")
      ("run-dir", po::value(&run_dir)->required(), "the run directory (output_dir/job, or train-local --out)")
      ("output,o", po::value(&out), "the HTML file (default RUN_DIR/report.html)")
      ("no-plots", po::bool_switch(&no_plots), "tables only (no gnuplot)");
  po::positional_options_description pos;
  pos.add("run-dir", 1);
  po::variables_map vm;
  Status st = cli::Parse(desc, argc, argv, &vm, &pos);
  if (!st.ok()) return cli::ExitCode(argv[0], st);
  ReportOptions o;
  if (no_plots) o.gnuplot = GnuplotChoice::kNone;
  auto path = WriteRunReport(run_dir, out, o);
  if (!path.ok()) return cli::ExitCode(argv[0], path.status());
  std::printf("report: %s\n", path->c_str());
  return 0;
}

}  // namespace dg

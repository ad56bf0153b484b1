#include "report/html_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "report/gnuplot.h"

namespace dg {
namespace fs = std::filesystem;
namespace {

std::string Esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string F(double v, int prec = 4) {
  if (v < 0 || std::isnan(v)) return "–";
  char b[64];
  std::snprintf(b, sizeof(b), "%.*f", prec, v);
  return b;
}

std::string D(double v) {  // data file value; "?" = missing
  if (v < 0 || std::isnan(v)) return "?";
  char b[64];
  std::snprintf(b, sizeof(b), "%.6g", v);
  return b;
}

const char* kCss = R"(
body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;margin:24px auto;max-width:1400px;color:#222;background:#fafafa}
h1{font-size:22px;margin-bottom:4px} h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ccc;padding-bottom:4px}
.sub{color:#666;font-size:13px} .note{background:#fff3cd;border:1px solid #e0c36c;padding:8px 12px;margin:12px 0}
table{border-collapse:collapse;font-size:13px;margin:8px 0;background:#fff}
th,td{border:1px solid #ddd;padding:4px 10px;text-align:right} th{background:#f0f0f0} td.l,th.l{text-align:left}
.plots{display:flex;flex-wrap:wrap;gap:12px} figure{margin:0;background:#fff;border:1px solid #ddd;padding:6px}
figcaption{font-size:12px;color:#555;max-width:640px} pre{background:#fff;border:1px solid #ddd;padding:10px;font-size:12px;overflow:auto}
)";

struct Plotter {
  std::string gnuplot;
  std::vector<std::string> errors;
  std::string figures;

  void Add(const std::string& caption, const std::string& script, const std::map<std::string, std::string>& data,
           int w = 640, int h = 320) {
    if (gnuplot.empty()) return;
    auto svg = RenderSvg(gnuplot, "set datafile missing '?'\n" + script, data, w, h);
    if (!svg.ok()) {
      errors.push_back(caption + ": " + svg.status().message());
      return;
    }
    figures += "<figure>" + *svg + "<figcaption>" + Esc(caption) + "</figcaption></figure>\n";
  }
};

// The gnuplot command the options choose; "" = no plots.
std::string GnuplotCommand(const ReportOptions& options) {
  switch (options.gnuplot) {
    case GnuplotChoice::kNone: return "";
    case GnuplotChoice::kPath: return options.gnuplot_path;
    case GnuplotChoice::kFind: break;
  }
  return FindGnuplot();
}

std::string Row(const std::vector<std::string>& cells, bool header = false, size_t left_cols = 1) {
  std::string r = "<tr>";
  for (size_t i = 0; i < cells.size(); ++i) {
    const char* tag = header ? "th" : "td";
    r += std::string("<") + tag + (i < left_cols ? " class=\"l\"" : "") + ">" + cells[i] + "</" + tag + ">";
  }
  return r + "</tr>\n";
}

double Balance(const std::vector<PartRow>& parts, long PartRow::*field) {
  if (parts.empty()) return -1;
  double sum = 0, mx = 0;
  for (const auto& p : parts) sum += p.*field, mx = std::max<double>(mx, p.*field);
  return sum > 0 ? mx / (sum / parts.size()) : -1;
}

// ---- plots

void AddEpochPlots(const RunData& run, Plotter* plot_ptr) {
  Plotter& plot = *plot_ptr;
  const auto& E = run.epochs;
  const auto& phases = StepPhases();
  if (E.empty()) return;
  std::string loss, acc, split, thr;
  split = "epoch";
  for (const auto& p : phases) split += " " + p;
  split += "\n";
  for (const auto& e : E) {
    loss += std::to_string(e.epoch) + " " + D(e.loss) + "\n";
    acc += std::to_string(e.epoch) + " " + D(e.train_acc) + " " + D(e.val_acc) + " " + D(e.test_acc) + "\n";
    split += std::to_string(e.epoch);
    for (const auto& p : phases) split += " " + D(e.step_ms.count(p) ? e.step_ms.at(p) : 0);
    split += "\n";
    thr += std::to_string(e.epoch) + " " + D(e.seconds > 0 && e.seeds > 0 ? e.seeds / e.seconds : -1) + " " +
           D(e.seconds > 0 ? e.steps / e.seconds : -1) + "\n";
  }
  plot.Add("Training loss per epoch (mean over all trainers' steps)",
           "set xlabel 'epoch'\nset ylabel 'loss'\nplot 'loss.dat' using 1:2 with linespoints pt 7 ps 0.4 lw 2 "
           "lc rgb '#1f77b4' title 'loss'",
           {{"loss.dat", loss}});
  plot.Add("Accuracy per epoch (train: over the epoch's batches; val/test: evaluation after the epoch)",
           "set xlabel 'epoch'\nset ylabel 'accuracy'\nset yrange [0:1]\n"
           "plot 'acc.dat' using 1:2 with lines lw 2 lc rgb '#2ca02c' title 'train', "
           "'' using 1:3 with lines lw 2 lc rgb '#ff7f0e' title 'val', "
           "'' using 1:4 with lines lw 2 lc rgb '#d62728' title 'test'",
           {{"acc.dat", acc}});
  plot.Add("Per-step time split of trainer 0 per epoch, ms. sample, gather and transfer are the batch makers' "
           "time per batch (samplers, overlapped with training); forward to wait are the trainer's.",
           "set style data histograms\nset style histogram rowstacked\nset style fill solid 0.85 border -1\n"
           "set boxwidth 0.8\nset xlabel 'epoch'\nset ylabel 'ms per step'\nset xtics rotate by -45 font ',8'\n"
           "stride = " + std::to_string(std::max<size_t>(1, E.size() / 15)) + "\n"
           "plot for [i=2:9] 'split.dat' using i:xtic(int(column(0)) % stride == 0 ? stringcolumn(1) : '') "
           "title columnheader(i)",
           {{"split.dat", split}}, 760, 340);
  plot.Add("Throughput per epoch: training seeds/s (all trainers) and steps/s (trainer 0)",
           "set xlabel 'epoch'\nset ylabel 'seeds/s'\nset y2label 'steps/s'\nset ytics nomirror\nset y2tics\n"
           "plot 'thr.dat' using 1:2 axes x1y1 with lines lw 2 lc rgb '#9467bd' title 'seeds/s', "
           "'' using 1:3 axes x1y2 with lines lw 2 lc rgb '#8c564b' title 'steps/s'",
           {{"thr.dat", thr}});
}

void AddTrainerPlots(const RunData& run, Plotter* plot_ptr) {
  Plotter& plot = *plot_ptr;
  const auto& phases = StepPhases();
  if (run.trainers.empty()) return;
  std::string times, tsplit = "trainer";
  for (const auto& p : phases) tsplit += " " + p;
  tsplit += "\n";
  size_t n = 0;
  for (const auto& t : run.trainers) n = std::max(n, t.epoch_seconds.size());
  for (size_t i = 0; i < n; ++i) {
    times += std::to_string(i + 1);
    for (const auto& t : run.trainers) times += " " + (i < t.epoch_seconds.size() ? D(t.epoch_seconds[i]) : "?");
    times += "\n";
  }
  for (const auto& t : run.trainers) {
    tsplit += "trainer-" + std::to_string(t.rank);
    for (const auto& p : phases) tsplit += " " + D(t.step_ms.count(p) ? t.step_ms.at(p) : 0);
    tsplit += "\n";
  }
  std::string titles;
  for (size_t i = 0; i < run.trainers.size(); ++i)
    titles += std::string(i ? ", " : "") + "'times.dat' using 1:" + std::to_string(i + 2) +
              " with lines lw 2 title 'trainer " + std::to_string(run.trainers[i].rank) + "'";
  plot.Add("Epoch time per trainer, seconds (training only)",
           "set xlabel 'epoch'\nset ylabel 'seconds'\nset yrange [0:*]\nplot " + titles, {{"times.dat", times}});
  plot.Add("Per-step time split per trainer (whole run), ms",
           "set style data histograms\nset style histogram rowstacked\nset style fill solid 0.85 border -1\n"
           "set boxwidth 0.6\nset ylabel 'ms per step'\nset yrange [0:*]\n"
           "plot for [i=2:9] 'tsplit.dat' using i:xtic(1) title columnheader(i)",
           {{"tsplit.dat", tsplit}});
}

void AddRssPlot(const RunData& run, Plotter* plot) {
  if (run.rss.empty()) return;
  std::string rss;
  for (const auto& r : run.rss) rss += r.process + " " + D(r.mb) + "\n";
  plot->Add("Peak RSS per process, MB (mmap'd partition pages count in every process that touched them)",
            "set style fill solid 0.8 border -1\nset boxwidth 0.6\nset ylabel 'MB'\nset yrange [0:*]\n"
            "set xtics rotate by -30 font ',9'\nunset key\n"
            "plot 'rss.dat' using 0:2:xtic(1) with boxes lc rgb '#17becf'",
            {{"rss.dat", rss}});
}

// ---- page sections

void WriteHeader(const RunData& run, const std::string& job, std::ostringstream& h) {
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
    << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
    << "<title>distgnn run report: " << Esc(job) << "</title><style>" << kCss << "</style></head><body>\n";
  h << "<h1>distgnn run report: " << Esc(job) << "</h1>\n<div class=\"sub\">" << Esc(run.run_dir);
  for (const char* k : {"kind", "started", "job_id"})
    if (run.run_info.count(k)) h << " · " << k << " " << Esc(run.run_info.at(k));
  h << "</div>\n";
}

void WriteSummary(const RunData& run, std::ostringstream& h) {
  const auto& E = run.epochs;
  double total_s = 0, steps = 0, seeds = 0;
  for (const auto& e : E) total_s += e.seconds, steps += e.steps, seeds += e.seeds;
  h << "<h2>Summary</h2>\n<table>\n";
  auto kv = [&](const std::string& k, const std::string& v) { h << Row({Esc(k), v}); };
  kv("epochs", std::to_string(E.size()));
  if (run.has_final) {
    kv("best validation epoch", std::to_string(run.best_epoch));
    kv("best validation accuracy", F(run.best_val_acc));
    kv("test accuracy (best-validation model)", F(run.final_test_acc));
    if (!run.select_by.empty()) kv("model chosen by", run.select_by);
    if (run.last_evaluated_epoch > 0)
      kv("test accuracy of the last evaluated epoch (" + std::to_string(run.last_evaluated_epoch) + ")",
         F(run.last_test_acc));
  } else {
    kv("final line", "missing (the run did not finish)");
  }
  if (!E.empty()) {
    kv("training time (sum of epochs)", F(total_s, 2) + " s");
    kv("mean epoch time", F(total_s / E.size(), 3) + " s");
    kv("steps/s (trainer 0)", F(total_s > 0 ? steps / total_s : -1, 1));
    if (seeds > 0) kv("seeds/s (all trainers)", F(seeds / total_s, 0));
  }
  if (!run.trainers.empty()) kv("trainers", std::to_string(run.trainers.size()));
  h << "</table>\n";
}

void WriteRestarts(const RunData& run, std::ostringstream& h) {
  if (!run.restarts.empty()) {
    auto step = [](int64_t v) { return v >= 0 ? std::to_string(v) : std::string("?"); };
    h << "<h2>Restarts</h2>\n<table>\n" << Row({"when", "what was lost", "wait for machines", "reached step",
                                                 "resumed step", "steps redone"}, true, 2);
    for (const RestartRow& r : run.restarts)
      h << Row({Esc(r.when), Esc(r.failure), F(r.wait_seconds, 1) + " s", step(r.reached_step), step(r.resumed_step),
                step(r.steps_redone)}, false, 2);
    h << "</table>\n";
  }
}

void WritePlots(const RunData& run, const Plotter& plot, std::ostringstream& h) {
  h << "<h2>Plots</h2>\n";
  if (plot.gnuplot.empty())
    h << "<p class=\"note\">gnuplot was not found, so this report has no plots "
         "(install it with <code>apt-get install gnuplot-nox</code> and run <code>distgnn report "
      << Esc(run.run_dir) << "</code> again). The tables below have every number.</p>\n";
  for (const auto& e : plot.errors) h << "<p class=\"note\">plot failed: " << Esc(e) << "</p>\n";
  h << "<div class=\"plots\">\n" << plot.figures << "</div>\n";
}

void WriteTrainers(const RunData& run, std::ostringstream& h) {
  const auto& phases = StepPhases();
  if (!run.trainers.empty()) {
    h << "<h2>Trainers</h2>\n<table>\n";
    std::vector<std::string> head{"trainer", "steps", "mean epoch s", "wait fraction"};
    for (const auto& p : phases) head.push_back(p + " ms");
    h << Row(head, true);
    for (const auto& t : run.trainers) {
      double sum = 0;
      for (double s : t.epoch_seconds) sum += s;
      std::vector<std::string> r{std::to_string(t.rank), std::to_string(t.steps),
                                 F(t.epoch_seconds.empty() ? -1 : sum / t.epoch_seconds.size(), 3),
                                 F(t.wait_fraction, 3)};
      for (const auto& p : phases) r.push_back(F(t.step_ms.count(p) ? t.step_ms.at(p) : 0, 2));
      h << Row(r);
    }
    h << "</table>\n";
  }
  h << "<h2>Processes: peak RSS</h2>\n";
  if (run.rss.empty()) {
    h << "<p>No <code>peak RSS</code> lines in " << Esc(run.run_dir) << "/logs/.</p>\n";
  } else {
    h << "<table>\n" << Row({"process (machine-role-index)", "peak RSS MB"}, true);
    for (const auto& r : run.rss) h << Row({Esc(r.process), F(r.mb, 1)});
    h << "</table>\n";
  }
}

void WriteTransfers(const RunData& run, std::ostringstream& h) {
  const auto& E = run.epochs;
  bool has_cache = false;
  for (const auto& e : E) has_cache = has_cache || e.cache_rows >= 0;
  if (has_cache) {
    h << "<h2>Feature cache (trainer 0)</h2>\n<table>\n"
      << Row({"epoch", "rows held", "MB", "hits", "misses", "hit rate", "MB not sent"}, true);
    for (const auto& e : E) {
      if (e.cache_rows < 0) continue;
      h << Row({std::to_string(e.epoch), std::to_string(e.cache_rows), F(e.cache_mb, 1), std::to_string(e.cache_hits),
                std::to_string(e.cache_misses), F(e.cache_hit_rate, 3), F(e.cache_bytes_saved / 1048576.0, 1)});
    }
    h << "</table>\n";
  }
  if (!run.message_bytes.empty()) {
    h << "<h2>Bytes per message type</h2>\n<p>Each process's frames over its life, header included "
         "(its last <code>bytes by message</code> log line).</p>\n<table>\n"
      << Row({"process", "message", "MB sent", "MB received"}, true, 2);
    for (const auto& p : run.message_bytes)
      for (const auto& c : p.counts)
        h << Row({Esc(p.process), Esc(c.type), F(c.sent / 1048576.0, 2), F(c.received / 1048576.0, 2)}, false, 2);
    h << "</table>\n";
  }
}

void WritePartition(const RunData& run, std::ostringstream& h) {
  h << "<h2>Partition</h2>\n";
  if (!run.has_partition) {
    h << "<p>No partition statistics (train-local, or the partition json named in run.json is not readable).</p>\n";
  } else {
    const auto& p = run.partition;
    h << "<p>" << Esc(p.path) << ": graph " << Esc(p.graph_name) << ", " << p.num_nodes << " nodes, " << p.num_edges
      << " edges, " << p.parts.size() << " parts (" << Esc(p.method) << ")";
    if (p.edge_cut >= 0)
      h << "; edge cut " << p.edge_cut << " (" << F(p.num_edges ? 100.0 * p.edge_cut / p.num_edges : -1, 1)
        << " % of edges)";
    h << "; balance (max / mean): nodes " << F(Balance(p.parts, &PartRow::nodes), 3) << ", edges "
      << F(Balance(p.parts, &PartRow::edges), 3) << ", train nodes " << F(Balance(p.parts, &PartRow::train), 3)
      << ".</p>\n<table>\n"
      << Row({"part", "nodes", "edges", "train nodes", "halo nodes", "halo ratio"}, true);
    for (const auto& r : p.parts)
      h << Row({std::to_string(r.part), std::to_string(r.nodes), std::to_string(r.edges), std::to_string(r.train),
                std::to_string(r.halo), F(r.nodes ? double(r.halo) / r.nodes : -1, 3)});
    h << "</table>\n";
  }
}

void WriteEpochsAndConfig(const RunData& run, std::ostringstream& h) {
  const auto& E = run.epochs;
  const auto& phases = StepPhases();
  if (!E.empty()) {
    h << "<h2>Per epoch</h2>\n<details><summary>" << E.size() << " epochs</summary>\n<table>\n";
    std::vector<std::string> head{"epoch", "loss", "train acc", "val acc", "test acc", "seconds", "wait", "steps",
                                  "seeds"};
    for (const auto& p : phases) head.push_back(p + " ms");
    h << Row(head, true);
    for (const auto& e : E) {
      std::vector<std::string> r{std::to_string(e.epoch), F(e.loss), F(e.train_acc), F(e.val_acc), F(e.test_acc),
                                 F(e.seconds, 3), F(e.wait_fraction, 3), std::to_string(e.steps),
                                 std::to_string(e.seeds)};
      for (const auto& p : phases) r.push_back(F(e.step_ms.count(p) ? e.step_ms.at(p) : 0, 2));
      h << Row(r);
    }
    h << "</table></details>\n";
  }
  h << "<h2>Job config</h2>\n";
  if (run.config_text.empty()) h << "<p>No job.yaml or command line recorded in the run directory.</p>\n";
  else h << "<pre>" << Esc(run.config_text) << "</pre>\n";
  h << "<p class=\"sub\">Written by <code>distgnn report</code>.</p>\n</body></html>\n";
}

}  // namespace

std::string BuildReportHtml(const RunData& run, const ReportOptions& options) {
  Plotter plot;
  plot.gnuplot = GnuplotCommand(options);
  AddEpochPlots(run, &plot);
  AddTrainerPlots(run, &plot);
  AddRssPlot(run, &plot);
  const std::string job =
      run.run_info.count("job") ? run.run_info.at("job") : fs::path(run.run_dir).filename().string();
  std::ostringstream h;
  WriteHeader(run, job, h);
  WriteSummary(run, h);
  WriteRestarts(run, h);
  WritePlots(run, plot, h);
  WriteTrainers(run, h);
  WriteTransfers(run, h);
  WritePartition(run, h);
  WriteEpochsAndConfig(run, h);
  return h.str();
}

Result<std::string> WriteRunReport(const std::string& run_dir, const std::string& out_path,
                                   const ReportOptions& options) {
  DG_ASSIGN_OR_RETURN(RunData run, LoadRunData(run_dir));
  const std::string path = out_path.empty() ? run_dir + "/report.html" : out_path;
  const std::string html = BuildReportHtml(run, options);
  std::ofstream f(path + ".tmp");
  f << html;
  f.close();
  if (!f) return Status::IOError("write " + path + " failed");
  std::error_code ec;
  fs::rename(path + ".tmp", path, ec);
  if (ec) return Status::IOError("rename to " + path + ": " + ec.message());
  return path;
}

}  // namespace dg

// `distgnn launch FILE [--set key=value ...] [--mode infer] [--resume]`: flags of
// the launcher (roles/launcher/launch.h).
#include <cstdio>

#include "cmd/cli.h"
#include "roles/launcher/launch.h"

namespace dg {

int RunLaunch(int argc, char** argv) {
  namespace po = cli::po;
  LaunchJobOptions o;
  po::options_description desc(
      "distgnn launch FILE [options]\n\nEvery process it starts holds a lease on this launcher (--lease; docs/network.md) "
      "and stops within network.peer_timeout_seconds once the launcher is gone, cut off or frozen");
  desc.add_options()("help,h", "show this help")
      ("mode", po::value(&o.mode)->default_value("train"),
       "train | infer: layer-wise inference of train.model over all nodes (servers and trainers only)")
      ("resume", "trainers continue from trainer 0's last complete checkpoint (RUN_DIR/checkpoints/step-N, else "
                 "RUN_DIR/checkpoint.pt; e.g. with --set train.epochs=N)")
      ("requeue", "when SIGTERM stops the job with a checkpoint inside a Slurm job, `scontrol requeue` it "
                  "(the batch script runs again; give it --resume)")
      ("max-restarts", po::value(&o.max_restarts)->default_value(-1),
       "when a process or host is lost, relaunch the job from its last complete checkpoint up to K times "
       "(default: the YAML's restart.max, 0 when absent)")
      ("config", po::value(&o.config)->required(), "the job YAML")
      ("set", po::value(&o.sets)->composing(), "override one key, e.g. --set train.epochs=3 (repeatable)")
      ("server-timeout", po::value(&o.settings.server_timeout_s)->default_value(60),
       "seconds for every server to accept connections")
      ("grace", po::value(&o.settings.grace_s)->default_value(5), "seconds between SIGTERM and SIGKILL")
      ("scheduler", po::value<std::string>(),
       "direct | slurm: how each process is started (= --set scheduler=NAME; default: slurm for machines: "
       "{from: slurm}, else here or over ssh as each machine says)")
      ("metrics-port", po::value(&o.metrics_port), "every process serves Prometheus /metrics from this base port (= --set ports.metrics=N)")
      ("verbose,v", "echo every line of every process (default: trainer 0's progress and every warning/error)")
      ("quiet", "do not echo process output (it still goes to the log files)")
      ("dry-run", "print the plan and exit");
  po::positional_options_description pos;
  pos.add("config", 1);
  po::variables_map vm;
  Status st = cli::Parse(desc, argc, argv, &vm, &pos);
  if (!st.ok()) return cli::ExitCode(argv[0], st);
  if (vm.count("scheduler")) o.sets.push_back("scheduler=" + vm["scheduler"].as<std::string>());
  o.resume = vm.count("resume") > 0;
  o.requeue = vm.count("requeue") > 0;
  o.metrics_port_given = vm.count("metrics-port") > 0;
  o.dry_run = vm.count("dry-run") > 0;
  o.settings.echo = !vm.count("quiet");
  o.settings.verbose = vm.count("verbose") > 0;
  return LaunchJob(o, argv[0]);
}

}  // namespace dg

// Shared command-line plumbing for the subcommands in cmd/.
//
// Every subcommand is `int RunX(int argc, char** argv)`: argv[0] names the
// subcommand ("distgnn partition"), the rest are its flags. A user mistake
// (unknown flag, missing value, failed Status) prints one line
// "distgnn <sub>: error: ..." and returns a non-zero exit code.
#pragma once

#include <boost/program_options.hpp>
#include <string>

#include "common/base/status.h"

namespace dg::cli {

namespace po = boost::program_options;

// Parses argv against desc. On --help prints usage and returns NotFound("help")
// (the caller exits 0 via ExitCode); a parse error becomes InvalidArgument
// naming the flag.
Status Parse(const po::options_description& desc, int argc, char** argv, po::variables_map* vm,
             const po::positional_options_description* positional = nullptr);

// Prints a failed status as one line and returns 1; ok (or help) returns 0; a
// Stopped status (SIGTERM, state saved) prints "COMMAND: stopped: ..." and
// returns kExitPreempted (roles/job/role_args.h).
int ExitCode(const std::string& command, const Status& status);

// Splits "10,25" into ints; error names the flag.
Result<std::vector<int>> ParseIntList(const std::string& flag, const std::string& text);

}  // namespace dg::cli

// Subcommand entry points (one file each in cmd/; those in cmd/torch/ are in
// libdistgnn_torch.so, reached through cmd/torch_commands.h).
namespace dg {
int RunGenerate(int argc, char** argv);       // cmd_generate.cpp
int RunPartition(int argc, char** argv);      // cmd_partition.cpp
int RunModel(int argc, char** argv);          // torch/cmd_model.cpp ("model export")
int RunTrainLocal(int argc, char** argv);     // torch/cmd_train_local.cpp
int RunServerRole(int argc, char** argv);     // cmd_server.cpp
int RunSamplerRole(int argc, char** argv);    // cmd_sampler.cpp
int RunTrainerRole(int argc, char** argv);    // torch/cmd_trainer.cpp
int RunLaunch(int argc, char** argv);         // cmd_launch.cpp
int RunPropagate(int argc, char** argv);      // cmd_propagate.cpp
int RunConfig(int argc, char** argv);         // cmd_config.cpp ("config check")
int RunCopy(int argc, char** argv);           // cmd_copy.cpp
int RunBenchRpc(int argc, char** argv);       // cmd_bench_rpc.cpp
int RunBenchTrain(int argc, char** argv);     // torch/cmd_bench_train.cpp
int RunBenchKernels(int argc, char** argv);   // torch/cmd_bench_kernels.cpp
int RunReport(int argc, char** argv);         // cmd_report.cpp
int RunStatus(int argc, char** argv);         // cmd_status.cpp
int RunCerts(int argc, char** argv);          // cmd_certs.cpp ("certs init|issue")
}  // namespace dg

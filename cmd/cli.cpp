#include "cmd/cli.h"

#include <cstdio>
#include <iostream>
#include <sstream>

#include "roles/job/role_args.h"

namespace dg::cli {

Status Parse(const po::options_description& desc, int argc, char** argv, po::variables_map* vm,
             const po::positional_options_description* positional) {
  try {
    po::command_line_parser parser(argc, argv);
    parser.options(desc);
    if (positional) parser.positional(*positional);
    po::store(parser.run(), *vm);
    if (vm->count("help")) {
      std::cout << "usage: " << argv[0] << " [options]\n" << desc << "\n";
      return Status::NotFound("help");
    }
    po::notify(*vm);
  } catch (const po::error& e) {
    return Status::InvalidArgument(std::string(e.what()) + " (see " + argv[0] + " --help)");
  }
  return Status::OK();
}

int ExitCode(const std::string& command, const Status& status) {
  if (status.ok() || (status.code() == Status::Code::kNotFound && status.message() == "help"))
    return 0;
  if (status.code() == Status::Code::kStopped) {  // SIGTERM with the state saved: not a failure
    std::fprintf(stderr, "%s: stopped: %s\n", command.c_str(), status.message().c_str());
    return kExitPreempted;
  }
  std::fprintf(stderr, "%s: error: %s\n", command.c_str(), status.ToString().c_str());
  return 1;
}

Result<std::vector<int>> ParseIntList(const std::string& flag, const std::string& text) {
  std::vector<int> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      size_t used = 0;
      int v = std::stoi(item, &used);
      if (used != item.size()) throw std::invalid_argument(item);
      out.push_back(v);
    } catch (const std::exception&) {
      return Status::InvalidArgument(flag + ": '" + item + "' in '" + text + "' is not an integer");
    }
  }
  if (out.empty()) return Status::InvalidArgument(flag + ": empty list");
  return out;
}

}  // namespace dg::cli

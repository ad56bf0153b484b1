// HoldLaunchLease (roles/job/role_args.h): the role's side of the job lease.
#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "roles/job/role_args.h"
#include "common/net/job_lease.h"

namespace dg {

void HoldLaunchLease(const RoleArgs& args, const JobConfig& job, const std::string& role_name) {
  if (args.lease.empty()) return;
  LeaseHolder::Options o;
  Status st = ParseLeaseAddress(args.lease, &o.host, &o.port);
  if (!st.ok()) {  // the launcher wrote it: a bad one is a bug, not a reason to run unleashed
    spdlog::error("{}; exiting", st.message());
    spdlog::default_logger()->flush();
    _exit(2);
  }
  // With TLS on the lease is TLS too (this process's certificate): never a plaintext one.
  if (job.tls.enabled && !job.tls.context) {
    spdlog::error("--lease {}: tls is on but this process's TLS identity is not loaded; exiting", args.lease);
    spdlog::default_logger()->flush();
    _exit(2);
  }
  o.tls = job.tls.context;
  o.token = job.token;
  o.job_id = args.job_id;
  o.holder_id = role_name + "/" + std::to_string(args.machine) + "/" + std::to_string(args.index);
  o.timeout_seconds = job.peer_timeout_seconds > 0 ? job.peer_timeout_seconds : 10.0;
  // Lives as long as the process; the lease ends only with the process or the launcher.
  static std::unique_ptr<LeaseHolder> holder = LeaseHolder::Start(o, [](const std::string& why) {
    spdlog::error("lease lost: {}; stopping this process", why);
    spdlog::default_logger()->flush();
    // SIGINT, not SIGTERM: SIGTERM asks trainers for a checkpoint and servers
    // to serve their trainers a while longer; without a launcher, stop now.
    kill(getpid(), SIGINT);
    std::this_thread::sleep_for(std::chrono::seconds(1));
    spdlog::error("still running 1 s after SIGINT; exiting now");
    spdlog::default_logger()->flush();
    std::fflush(nullptr);
    _exit(75);
  });
}

}  // namespace dg

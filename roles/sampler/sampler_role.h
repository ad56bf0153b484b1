// The sampler role (`distgnn --role sampler`): serve one trainer with
// mini-batches built from the job's servers (sampler_role.cpp says which
// trainer and which rank).
#pragma once

#include "common/base/status.h"
#include "roles/job/role_args.h"

namespace dg {

struct SamplerProcessOptions {
  RoleArgs role;
  int threads = 0;  // batch-building threads; 0 = this machine's cores / samplers per machine
};

Status RunSamplerProcess(const SamplerProcessOptions& options);

}  // namespace dg

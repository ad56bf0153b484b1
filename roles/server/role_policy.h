// Least privilege between roles: which requests a graph server
// accepts from each role named in an authenticated HELLO. Every request type
// has an Access in the handler table (handler_table.cpp):
//
//   kRead   PULL, SAMPLE_NEIGHBORS, IN_DEGREES, METADATA, STATS, PULL_AGGREGATE,
//           PULL_BLOCK, SAMPLE_BLOCK
//   kWrite  PUSH, INIT_TENSOR, SPARSE_UPDATE, BARRIER, SAVE_TENSOR, CHECKPOINT
//   kStop   SHUTDOWN
//
//   sampler (and any role not listed)  kRead
//   trainer, launcher                  everything
//   client (tools, tests, benchmarks)  everything but kStop
//
// The role is the dialer's claim, proven only as far as the cluster token:
// this keeps a compromised or buggy sampler from writing or stopping servers,
// not a token holder from claiming another role. A refusal names the role and
// the message: "sampler 3 may not send PUSH (samplers only read)".
#pragma once

#include <cstdint>
#include <string>

#include "common/base/status.h"

namespace dg {

enum class Access : uint8_t { kRead, kWrite, kStop };

Status CheckRoleAllows(const std::string& role, int32_t rank, uint16_t type, Access access);

}  // namespace dg

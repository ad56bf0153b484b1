#include "roles/server/role_policy.h"

#include "common/net/protocol.h"

namespace dg {

Status CheckRoleAllows(const std::string& role, int32_t rank, uint16_t type, Access access) {
  const std::string who = role + " " + std::to_string(rank);
  if (role == kRoleTrainer || role == "launcher") return Status::OK();
  if (role == kRoleClient) {
    if (access == Access::kStop) {
      return Status::InvalidArgument(who + " may not send " + MsgTypeName(type) +
                                     " (only the launcher or a trainer may)");
    }
    return Status::OK();
  }
  if (access == Access::kRead) return Status::OK();
  return Status::InvalidArgument(who + " may not send " + MsgTypeName(type) + " (" +
                                 (role == kRoleSampler ? std::string("samplers only read")
                                                       : "role '" + role + "' may only read") +
                                 ": PULL, SAMPLE_NEIGHBORS, IN_DEGREES, METADATA, STATS, PULL_AGGREGATE, PULL_BLOCK, SAMPLE_BLOCK)");
}

}  // namespace dg

#include "roles/server/role_policy.h"

#include "common/net/protocol.h"

namespace dg {
namespace {

bool IsRead(MsgType t) {
  return t == MsgType::kPull || t == MsgType::kSampleNeighbors || t == MsgType::kInDegrees ||
         t == MsgType::kMetadata || t == MsgType::kStats || t == MsgType::kPullAggregate ||
         t == MsgType::kPullBlock || t == MsgType::kSampleBlock;
}

}  // namespace

Status CheckRoleAllows(const std::string& role, int32_t rank, uint16_t type) {
  const MsgType t = static_cast<MsgType>(type);
  const std::string who = role + " " + std::to_string(rank);
  if (role == kRoleTrainer || role == "launcher") return Status::OK();
  if (role == kRoleClient) {
    if (t == MsgType::kShutdown) {
      return Status::InvalidArgument(who + " may not send SHUTDOWN (only the launcher or a trainer may)");
    }
    return Status::OK();
  }
  if (IsRead(t)) return Status::OK();
  return Status::InvalidArgument(who + " may not send " + MsgTypeName(type) + " (" +
                                 (role == kRoleSampler ? std::string("samplers only read")
                                                       : "role '" + role + "' may only read") +
                                 ": PULL, SAMPLE_NEIGHBORS, IN_DEGREES, METADATA, STATS, PULL_AGGREGATE, PULL_BLOCK, SAMPLE_BLOCK)");
}

}  // namespace dg

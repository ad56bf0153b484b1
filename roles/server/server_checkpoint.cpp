// CHECKPOINT: step checkpoints of a server's mutable tensors (DistEmbedding
// tables and their sparse optimizer state), <partition dir>/checkpoints/step-N/,
// and the best epoch's copy, <partition dir>/checkpoints/best/.
//
// Save writes step-N.tmp/ (PartitionStore::SaveCheckpoint), fsyncs every file
// and the directory, renames it to step-N (replacing an earlier step-N: a
// restarted job redoes the same step with the same values), fsyncs
// checkpoints/, and only then answers; so a crash leaves either the whole
// directory or none. Older step directories beyond `keep` below N are
// removed; those above N (a crashed attempt's, never made complete by
// trainer 0's manifest) are left to be replaced. Load puts step-N back.
// Keep best writes best/ the same way, with the request's step in
// best/step.txt; restore best puts best/ back when its step is the one asked
// for (another is InvalidArgument: the copy is another run's).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <functional>

#include "common/io/durable_file.h"
#include "common/net/messages.h"
#include "roles/server/graph_server.h"
#include "roles/server/handler_table.h"

namespace dg {
namespace {

namespace fs = std::filesystem;

// step-N directories under `root` by step (".tmp" ones excluded).
std::vector<std::pair<uint64_t, fs::path>> StepDirs(const fs::path& root) {
  std::vector<std::pair<uint64_t, fs::path>> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("step-", 0) != 0 || n.find('.') != std::string::npos) continue;
    try {
      out.emplace_back(std::stoull(n.substr(5)), e.path());
    } catch (const std::exception&) {
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

Status LoadStep(PartitionStore& store, int part, const fs::path& dir, uint64_t step) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return Status::NotFound("CHECKPOINT: partition " + std::to_string(part) + " has no step checkpoint " +
                            std::to_string(step) + " (" + dir.string() + ")");
  std::vector<std::string> loaded;
  DG_RETURN_IF_ERROR(store.LoadCheckpoint(dir.string(), &loaded));
  spdlog::info("loaded step checkpoint {} ({} mutable tensors) from {}", step, loaded.size(), dir.string());
  return Status::OK();
}

// root/NAME.tmp written (the mutable tensors and `extra` files), fsynced,
// renamed to root/NAME.
Status SaveDurableDir(const PartitionStore& store, const fs::path& root, const std::string& name,
                      const std::function<Status(const fs::path&)>& extra = nullptr) {
  const fs::path dir = root / name, tmp = root / (name + ".tmp");
  DG_RETURN_IF_ERROR(MakeEmptyDir(tmp.string()));
  std::vector<std::string> saved;
  DG_RETURN_IF_ERROR(store.SaveCheckpoint(tmp.string(), &saved));
  if (extra) DG_RETURN_IF_ERROR(extra(tmp));
  DG_RETURN_IF_ERROR(ReplaceDirDurably(tmp.string(), dir.string()));
  spdlog::debug("saved {} ({} mutable tensors) to {}", name, saved.size(), dir.string());
  return Status::OK();
}

// step-N written durably; then the rotation.
Status SaveStep(const PartitionStore& store, const fs::path& root, uint64_t step, uint32_t keep) {
  DG_RETURN_IF_ERROR(SaveDurableDir(store, root, "step-" + std::to_string(step)));
  // Rotation: the newest `keep` directories below this step stay.
  std::error_code ec;
  std::vector<std::pair<uint64_t, fs::path>> older;
  for (auto& sd : StepDirs(root))
    if (sd.first < step) older.push_back(sd);
  for (size_t i = 0; i + keep < older.size(); ++i) fs::remove_all(older[i].second, ec);
  return Status::OK();
}

Status KeepBest(const PartitionStore& store, const fs::path& root, uint64_t step) {
  return SaveDurableDir(store, root, "best", [step](const fs::path& tmp) { return WriteStepTag(tmp.string(), step); });
}

Status RestoreBest(PartitionStore& store, int part, const fs::path& root, uint64_t step) {
  const fs::path dir = root / "best";
  const Result<uint64_t> kept_or = ReadStepTag(dir.string());
  if (!kept_or.ok())
    return Status::NotFound("CHECKPOINT: partition " + std::to_string(part) + " has no best epoch's copy (" +
                            dir.string() + ")");
  const uint64_t kept = *kept_or;
  if (kept != step)
    return Status::InvalidArgument("CHECKPOINT: partition " + std::to_string(part) + "'s best copy " +
                                      dir.string() + " is of step " + std::to_string(kept) + ", not " +
                                      std::to_string(step));
  std::vector<std::string> loaded;
  DG_RETURN_IF_ERROR(store.LoadCheckpoint(dir.string(), &loaded));
  spdlog::info("restored the best epoch's mutable tensors (step {}, {} tensors) from {}", step, loaded.size(),
               dir.string());
  return Status::OK();
}

}  // namespace

Result<Answer> HandleCheckpoint(ServerContext& ctx, const Call& call) {
  DG_ASSIGN_OR_RETURN(CheckpointRequest req, DecodeCheckpoint(call.frame));
  if (!ctx.store.holds_mutable())
    return Status::InvalidArgument("CHECKPOINT: mutable tensors live on server index 0 of partition " +
                                   std::to_string(ctx.options.part));
  const fs::path root = fs::path(ctx.part_dir) / "checkpoints";
  switch (req.action) {
    case CheckpointAction::kSave: DG_RETURN_IF_ERROR(SaveStep(ctx.store, root, req.step, req.keep)); break;
    case CheckpointAction::kLoad:
      DG_RETURN_IF_ERROR(LoadStep(ctx.store, ctx.options.part, root / ("step-" + std::to_string(req.step)), req.step));
      break;
    case CheckpointAction::kKeepBest: DG_RETURN_IF_ERROR(KeepBest(ctx.store, root, req.step)); break;
    case CheckpointAction::kRestoreBest:
      DG_RETURN_IF_ERROR(RestoreBest(ctx.store, ctx.options.part, root, req.step));
      break;
  }
  return Answer(BufferList());
}

}  // namespace dg

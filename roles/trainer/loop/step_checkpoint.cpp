#include "roles/trainer/loop/step_checkpoint.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

#include "common/client/dist_graph_client.h"
#include "common/io/durable_file.h"
#include "common/net/codec.h"
#include "common/net/messages.h"

namespace dg {
namespace {

namespace fs = std::filesystem;

std::string StepDir(const std::string& run_dir, int64_t step) {
  return run_dir + "/checkpoints/step-" + std::to_string(step);
}

struct StepDirEntry {
  int64_t step;
  fs::path path;
  bool complete;  // has manifest.json
};

std::vector<StepDirEntry> ListStepDirs(const std::string& run_dir) {
  std::vector<StepDirEntry> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(run_dir + "/checkpoints", ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("step-", 0) != 0 || n.find('.') != std::string::npos) continue;
    try {
      out.push_back({std::stoll(n.substr(5)), e.path(), fs::exists(e.path() / "manifest.json", ec)});
    } catch (const std::exception&) {
    }
  }
  std::sort(out.begin(), out.end(), [](const StepDirEntry& a, const StepDirEntry& b) { return a.step < b.step; });
  return out;
}

// `req` to every partition's index-0 server; the first error, once all answered.
Status SendCheckpoint(DistGraphClient* client, const CheckpointRequest& req) {
  const auto deadline = client->CallDeadline();
  std::vector<std::shared_ptr<PendingCall>> calls;
  for (int p = 0; p < client->num_parts(); ++p) {
    Encoder e;
    EncodeCheckpoint(&e, req);
    calls.push_back(client->StartRequest(p, MsgType::kCheckpoint, e.Finish(), /*mutable_holder=*/true));
  }
  Status first;
  for (auto& c : calls) {
    auto f = c->Wait(deadline);
    if (!f.ok() && first.ok()) first = f.status();
  }
  return first;
}

}  // namespace

Status ServerCheckpoint(DistGraphClient* client, bool load, int64_t step, int keep) {
  CheckpointRequest req;
  req.action = load ? CheckpointAction::kLoad : CheckpointAction::kSave;
  req.step = static_cast<uint64_t>(step);
  req.keep = static_cast<uint32_t>(std::max(0, keep));
  return SendCheckpoint(client, req);
}

Status ServerBest(DistGraphClient* client, bool restore, int64_t step) {
  CheckpointRequest req;
  req.action = restore ? CheckpointAction::kRestoreBest : CheckpointAction::kKeepBest;
  req.step = static_cast<uint64_t>(step);
  return SendCheckpoint(client, req);
}

std::string StepDirTmp(const std::string& run_dir, int64_t step) {
  const std::string tmp = StepDir(run_dir, step) + ".tmp";
  std::error_code ec;
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp, ec);
  return tmp;
}

Status PublishStepDir(const std::string& run_dir, int64_t step, int keep, const std::string& manifest_json) {
  const std::string root = run_dir + "/checkpoints", tmp = StepDir(run_dir, step) + ".tmp",
                    dir = StepDir(run_dir, step);
  std::error_code ec;
  DG_RETURN_IF_ERROR(ReplaceDirDurably(tmp, dir));
  const std::string manifest = dir + "/manifest.json";
  {
    std::ofstream out(manifest + ".tmp", std::ios::trunc);
    out << "{" << manifest_json << "}\n";
    out.flush();
    if (!out) return Status::IOError("write " + manifest + ".tmp failed");
  }
  DG_RETURN_IF_ERROR(FsyncPath(manifest + ".tmp"));
  fs::rename(manifest + ".tmp", manifest, ec);
  if (ec) return Status::IOError("rename " + manifest + ".tmp: " + ec.message());
  DG_RETURN_IF_ERROR(FsyncPath(dir));
  DG_RETURN_IF_ERROR(FsyncPath(root));
  // Rotation: the newest `keep` complete ones stay; incomplete ones below N go.
  std::vector<StepDirEntry> dirs = ListStepDirs(run_dir);
  int complete_seen = 0;
  for (auto it = dirs.rbegin(); it != dirs.rend(); ++it) {
    if (it->step > step) continue;  // a crashed attempt's: replaced when its step comes again
    if (it->complete && complete_seen++ < std::max(1, keep)) continue;
    fs::remove_all(it->path, ec);
  }
  return Status::OK();
}

StepCheckpointRef LatestStepCheckpoint(const std::string& run_dir) {
  StepCheckpointRef ref;
  for (const StepDirEntry& e : ListStepDirs(run_dir))
    if (e.complete) ref = {e.step, e.path.string()};
  return ref;
}

}  // namespace dg

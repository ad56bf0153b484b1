#include "roles/launcher/copy_plan.h"

#include <filesystem>
#include <set>

#include "roles/launcher/launch_plan.h"
#include "config/partition_summary.h"

namespace dg {

namespace fs = std::filesystem;

namespace {

Result<CopyItem> Item(const JobConfig& cfg, const std::string& key, const std::string& path, bool dir) {
  std::error_code ec;
  bool exists = dir ? fs::is_directory(path, ec) : fs::is_regular_file(path, ec);
  if (!exists)
    return Status::NotFound(cfg.path + ": " + key + ": " + (dir ? "folder " : "file ") + path + " does not exist");
  fs::path rel = fs::path(path).lexically_normal().lexically_relative(cfg.base_dir);
  if (rel.empty() || *rel.begin() == "..")
    return Status::InvalidArgument(cfg.path + ": " + key + ": " + path +
                                   " lies outside the config's folder " + cfg.base_dir +
                                   "; copy mirrors paths relative to it, so move it inside");
  return CopyItem{fs::path(path).lexically_normal().string(), rel.string(), dir};
}

std::string RemotePath(const std::string& workspace, const std::string& rel) {
  std::string ws = workspace;
  while (ws.size() > 1 && ws.back() == '/') ws.pop_back();
  return rel.empty() || rel == "." ? ws : ws + "/" + rel;
}

// A remote path for the shell: a leading ~/ stays unquoted so it expands.
std::string ShellPath(const std::string& path) {
  return path.rfind("~/", 0) == 0 ? "~/" + ShellQuote(path.substr(2)) : ShellQuote(path);
}

// With tls on and certificates in tls.dir: the CA certificate and machine m's
// own certificates and keys (server, trainer, sampler; no other machine's
// key). A machine with its own tls_dir has its files placed by its admin.
Status AddTlsItems(const JobConfig& cfg, int m, std::vector<CopyItem>* items, std::vector<std::string>* keys) {
  if (!cfg.tls.enabled || cfg.tls.throwaway || !cfg.machines[m].tls_dir.empty()) return Status::OK();
  DG_ASSIGN_OR_RETURN(CopyItem ca, Item(cfg, "tls.ca", cfg.tls.ca, false));
  items->push_back(ca);
  for (const char* role : {"server", "trainer", "sampler"}) {
    const TlsFiles f = cfg.TlsFilesFor(role, m);
    DG_ASSIGN_OR_RETURN(CopyItem cert, Item(cfg, "tls.dir (" + std::string(role) + " certificate)", f.cert, false));
    DG_ASSIGN_OR_RETURN(CopyItem key, Item(cfg, "tls.dir (" + std::string(role) + " key)", f.key, false));
    items->push_back(cert);
    items->push_back(key);
    keys->push_back(key.relative);
  }
  return Status::OK();
}

}  // namespace

Result<std::vector<MachineCopy>> BuildCopyPlan(const JobConfig& cfg, bool use_rsync) {
  DG_ASSIGN_OR_RETURN(PartitionSummary parts, ReadPartitionSummary(cfg.partition));
  std::vector<MachineCopy> out;
  for (int m = 0; m < cfg.num_machines(); ++m) {
    const MachineConfig& mc = cfg.machines[m];
    MachineCopy mcp;
    mcp.machine = m;
    mcp.target = mc.ssh;
    if (mc.ssh.empty()) {
      mcp.note = "local machine: nothing to copy";
      out.push_back(mcp);
      continue;
    }
    if (mc.workspace.empty()) {
      mcp.note = "no workspace: assumed to share this filesystem, nothing to copy";
      out.push_back(mcp);
      continue;
    }
    mcp.workspace = mc.workspace;
    const std::string p = "machines[" + std::to_string(m) + "]";
    DG_ASSIGN_OR_RETURN(CopyItem c, Item(cfg, "config", cfg.path, false));
    DG_ASSIGN_OR_RETURN(CopyItem j, Item(cfg, "partition", cfg.partition, false));
    mcp.items = {c, j};
    for (const std::string& orig : {parts.orig_nids, parts.orig_eids}) {
      if (orig.empty()) continue;
      std::string path = (fs::path(parts.base_dir) / orig).lexically_normal().string();
      std::error_code ec;
      if (!fs::exists(path, ec)) continue;  // optional arrays
      DG_ASSIGN_OR_RETURN(CopyItem o, Item(cfg, "partition (" + orig + ")", path, false));
      mcp.items.push_back(o);
    }
    std::string part_dir = (fs::path(parts.base_dir) / parts.part_dirs[m]).lexically_normal().string();
    DG_ASSIGN_OR_RETURN(CopyItem d, Item(cfg, "partition part " + std::to_string(m), part_dir, true));
    DG_ASSIGN_OR_RETURN(CopyItem model, Item(cfg, "train.model", cfg.train.model, false));
    mcp.items.push_back(d);
    mcp.items.push_back(model);
    std::vector<std::string> keys;
    DG_RETURN_IF_ERROR(AddTlsItems(cfg, m, &mcp.items, &keys));

    // mkdir -p of every parent folder under the workspace.
    std::set<std::string> dirs{RemotePath(mc.workspace, "")};
    for (const auto& it : mcp.items) dirs.insert(RemotePath(mc.workspace, fs::path(it.relative).parent_path().string()));
    std::string mkdir = "mkdir -p";
    for (const auto& d2 : dirs) mkdir += " " + ShellPath(d2);
    std::vector<std::string> ssh = SshPrefix(mc);
    std::vector<std::string> mk = ssh;
    mk.push_back(mkdir);
    mcp.commands.push_back(mk);

    std::vector<std::string> ssh_opts(ssh.begin(), ssh.end() - 1);  // without the target
    if (use_rsync) {
      std::vector<std::string> r{"rsync", "-a", "--relative", "-e", ShellJoin(ssh_opts)};
      for (const auto& it : mcp.items) r.push_back(cfg.base_dir + "/./" + it.relative);
      r.push_back(mc.ssh + ":" + RemotePath(mc.workspace, "") + "/");
      mcp.commands.push_back(r);
    } else {
      for (const auto& it : mcp.items) {
        std::vector<std::string> s{"scp", "-q", "-r", "-o", "BatchMode=yes"};
        for (const auto& o : mc.ssh_options) s.insert(s.end(), {"-o", o});
        if (mc.ssh_port != 22) s.insert(s.end(), {"-P", std::to_string(mc.ssh_port)});
        if (!mc.ssh_key.empty()) s.insert(s.end(), {"-i", mc.ssh_key});
        s.push_back(it.local);
        s.push_back(mc.ssh + ":" + RemotePath(mc.workspace, fs::path(it.relative).parent_path().string()) + "/");
        mcp.commands.push_back(s);
      }
    }
    if (!keys.empty()) {  // private keys readable by their owner only, however they were copied
      std::string chmod = "chmod 600";
      for (const auto& k : keys) chmod += " " + ShellPath(RemotePath(mc.workspace, k));
      mcp.commands.push_back(ssh);
      mcp.commands.back().push_back(chmod);
    }
    // The same check as `partition verify --part m`, on that machine, through the same ssh.
    mcp.verify = ssh;
    mcp.verify.push_back("cd " + ShellPath(RemotePath(mc.workspace, "")) + " && " +
                         ShellQuote(mc.binary.empty() ? "distgnn" : mc.binary) + " partition verify " +
                         ShellQuote(j.relative) + " --part " + std::to_string(m));
    out.push_back(mcp);
  }
  return out;
}

}  // namespace dg

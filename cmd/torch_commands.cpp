#include "cmd/torch_commands.h"

#include <dlfcn.h>

#include <cstdio>
#include <filesystem>
#include <system_error>

namespace dg {
namespace {

constexpr char kLibrary[] = "libdistgnn_torch.so";

// The folder of the running executable (symlinks resolved), where the build
// and an installation put the library.
std::string ExecutableFolder() {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : self.parent_path().string();
}

}  // namespace

CommandEntry LoadTorchCommand(const std::string& name) {
  const std::string path = ExecutableFolder() + "/" + kLibrary;
  // RTLD_LAZY: functions bind on first call, as for an executable's own libraries.
  static void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (!handle) {
    std::fprintf(stderr, "distgnn %s: error: cannot load %s (it belongs beside the distgnn executable): %s\n",
                 name.c_str(), path.c_str(), dlerror());
    return nullptr;
  }
  auto table = reinterpret_cast<CommandEntry (*)(const char*)>(dlsym(handle, "dg_torch_command"));
  CommandEntry entry = table ? table(name.c_str()) : nullptr;
  if (!entry)
    std::fprintf(stderr, "distgnn %s: error: %s has no command '%s' (a library of another distgnn version?)\n",
                 name.c_str(), path.c_str(), name.c_str());
  return entry;
}

}  // namespace dg

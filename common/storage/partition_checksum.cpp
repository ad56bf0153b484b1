#include "common/storage/partition_checksum.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <vector>

namespace dg {

namespace fs = std::filesystem;

Result<std::string> FileSha256(const std::string& path, int64_t* bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno(path + ": cannot open", errno);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) {
    ::close(fd);
    return Status::Internal("SHA-256: cannot initialise libcrypto's digest");
  }
  std::vector<unsigned char> buf(size_t(4) << 20);
  int64_t total = 0;
  for (;;) {
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return Status::FromErrno(path + ": read", err);
    }
    if (n == 0) break;
    EVP_DigestUpdate(ctx.get(), buf.data(), static_cast<size_t>(n));
    total += n;
  }
  ::close(fd);
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx.get(), md, &len);
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < len; ++i) {
    hex += kHex[md[i] >> 4];
    hex += kHex[md[i] & 15];
  }
  if (bytes) *bytes = total;
  return hex;
}

Status RecordChecksums(const std::string& dir, const std::string& json_name, PartitionConfig* cfg) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const std::string rel = it->path().lexically_relative(dir).generic_string();
    if (rel == json_name || cfg->checksums.count(rel)) continue;
    DG_ASSIGN_OR_RETURN(cfg->checksums[rel], FileSha256(it->path().string()));
  }
  if (ec) return Status::IOError("list " + dir + ": " + ec.message());
  return Status::OK();
}

Result<ChecksumReport> VerifyChecksums(const PartitionConfig& cfg, int part) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string prefix = part < 0 ? "" : cfg.parts[part].dir + "/";
  ChecksumReport report;
  for (const auto& [file, want] : cfg.checksums) {
    if (file.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string path = cfg.base_dir + "/" + file;
    int64_t bytes = 0;
    auto got = FileSha256(path, &bytes);
    if (!got.ok()) return Status::Corruption(got.status().message() + " (" + cfg.path + " records its checksum)");
    if (*got != want)
      return Status::Corruption(path + ": SHA-256 " + *got + ", " + cfg.path + " records " + want +
                                ": the file changed after it was partitioned");
    ++report.files;
    report.bytes += bytes;
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report;
}

}  // namespace dg

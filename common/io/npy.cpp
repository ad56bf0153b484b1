#include "common/io/npy.h"

#include <algorithm>
#include <cstdlib>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <limits>

#include "common/io/gzip_reader.h"

namespace dg {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

// ---- header parsing: a tiny reader for the Python dict literal NumPy writes,
// e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (2708, 1433), }

struct HeaderParser {
  const std::string& s;
  size_t i = 0;

  void SkipSpace() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  }
  bool Eat(char c) {
    SkipSpace();
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  bool String(std::string* out) {
    SkipSpace();
    if (i >= s.size() || (s[i] != '\'' && s[i] != '"')) return false;
    char q = s[i++];
    size_t start = i;
    while (i < s.size() && s[i] != q) ++i;
    if (i >= s.size()) return false;
    *out = s.substr(start, i - start);
    ++i;
    return true;
  }
  bool Word(std::string* out) {
    SkipSpace();
    size_t start = i;
    while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
    *out = s.substr(start, i - start);
    return !out->empty();
  }
  bool Shape(std::vector<int64_t>* shape) {
    if (!Eat('(')) return false;
    shape->clear();
    for (;;) {
      if (Eat(')')) return true;
      SkipSpace();
      size_t start = i;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      if (start == i || i - start > 18) return false;
      shape->push_back(std::stoll(s.substr(start, i - start)));
      if (Eat(',')) continue;
      if (Eat(')')) return true;
      return false;
    }
  }
};

struct Header {
  DType dtype;
  std::vector<int64_t> shape;
  size_t data_offset = 0;  // bytes from the start of the file
};

Status HeaderError(const std::string& path, const std::string& what) {
  return Status::Corruption(path + ": malformed .npy header: " + what);
}

Result<DType> ParseDescr(const std::string& path, const std::string& descr) {
  if (descr.size() < 2) return HeaderError(path, "bad dtype '" + descr + "'");
  char order = descr[0];
  std::string code = descr.substr(1);
  if (order != '<' && order != '>' && order != '|' && order != '=') {
    order = '|';
    code = descr;
  }
  if (code.find('O') != std::string::npos)
    return Status::Unsupported(path + ": object dtype ('" + descr + "') is not supported");
  DType t;
  if (code == "f4") t = DType::kFloat32;
  else if (code == "f8") t = DType::kFloat64;
  else if (code == "i8") t = DType::kInt64;
  else if (code == "i4") t = DType::kInt32;
  else if (code == "i1") t = DType::kInt8;
  else if (code == "u1") t = DType::kUInt8;
  else if (code == "b1") t = DType::kBool;
  else
    return Status::Unsupported(path + ": dtype '" + descr +
                               "' is not supported (float32, float64, int64, int32, int8, uint8, bool)");
  if (order == '>' && DTypeSize(t) > 1)
    return Status::Unsupported(path + ": big-endian dtype '" + descr +
                               "' is not supported (convert with arr.astype('<" + code + "'))");
  return t;
}

const char* Descr(DType t) {
  switch (t) {
    case DType::kFloat32: return "<f4";
    case DType::kFloat64: return "<f8";
    case DType::kInt64: return "<i8";
    case DType::kInt32: return "<i4";
    case DType::kInt8: return "|i1";
    case DType::kUInt8: return "|u1";
    case DType::kBool: return "|b1";
  }
  return "?";
}

// Parses the preamble + header from the first `avail` bytes of a file. If more
// bytes are needed, sets *need to the total required and returns OK with
// need > avail.
Status ParseHeader(const std::string& path, const unsigned char* p, size_t avail, Header* h,
                   size_t* need) {
  *need = 0;
  if (avail < kMagicLen + 4) {
    *need = kMagicLen + 4;
    return Status::OK();
  }
  if (std::memcmp(p, kMagic, kMagicLen) != 0) {
    if (p[0] == 0x1f && p[1] == 0x8b)
      return Status::InvalidArgument(path + ": is gzip-compressed; it cannot be mmap'd (use NpyRead)");
    return Status::Corruption(path + ": not a .npy file (bad magic)");
  }
  int major = p[6];
  size_t header_len, prefix;
  if (major == 1) {
    header_len = p[8] | (p[9] << 8);
    prefix = 10;
  } else if (major == 2 || major == 3) {
    if (avail < 12) {
      *need = 12;
      return Status::OK();
    }
    header_len = static_cast<size_t>(p[8]) | (static_cast<size_t>(p[9]) << 8) |
                 (static_cast<size_t>(p[10]) << 16) | (static_cast<size_t>(p[11]) << 24);
    prefix = 12;
  } else {
    return Status::Unsupported(path + ": .npy format version " + std::to_string(major) + "." +
                               std::to_string(p[7]) + " is not supported (1.0, 2.0, 3.0)");
  }
  // NumPy's own headers are a few hundred bytes; a bigger claim is corrupt
  // (and must not make a reader allocate gigabytes first).
  constexpr size_t kMaxHeaderLen = size_t(1) << 20;
  if (header_len > kMaxHeaderLen)
    return HeaderError(path, "header of " + std::to_string(header_len) + " bytes (at most " +
                                 std::to_string(kMaxHeaderLen) + ")");
  if (avail < prefix + header_len) {
    *need = prefix + header_len;
    return Status::OK();
  }
  std::string text(reinterpret_cast<const char*>(p + prefix), header_len);
  HeaderParser hp{text};
  if (!hp.Eat('{')) return HeaderError(path, "expected '{'");
  bool have_descr = false, have_order = false, have_shape = false;
  std::string descr;
  for (;;) {
    if (hp.Eat('}')) break;
    std::string key;
    if (!hp.String(&key)) return HeaderError(path, "expected a quoted key");
    if (!hp.Eat(':')) return HeaderError(path, "expected ':' after '" + key + "'");
    if (key == "descr") {
      if (!hp.String(&descr)) {
        hp.SkipSpace();
        if (hp.i < text.size() && text[hp.i] == '[')
          return Status::Unsupported(path + ": structured dtypes are not supported");
        return HeaderError(path, "descr is not a string");
      }
      have_descr = true;
    } else if (key == "fortran_order") {
      std::string w;
      if (!hp.Word(&w) || (w != "True" && w != "False"))
        return HeaderError(path, "fortran_order is not True/False");
      if (w == "True")
        return Status::Unsupported(path + ": Fortran-order arrays are not supported "
                                          "(save with np.ascontiguousarray)");
      have_order = true;
    } else if (key == "shape") {
      if (!hp.Shape(&h->shape)) return HeaderError(path, "shape is not a tuple of integers");
      have_shape = true;
    } else {
      return HeaderError(path, "unexpected key '" + key + "'");
    }
    if (hp.Eat(',')) continue;
    if (hp.Eat('}')) break;
    return HeaderError(path, "expected ',' or '}'");
  }
  if (!have_descr || !have_order || !have_shape)
    return HeaderError(path, "missing descr, fortran_order or shape");
  DG_ASSIGN_OR_RETURN(h->dtype, ParseDescr(path, descr));
  // Guard against absurd shapes before multiplying.
  unsigned __int128 total = DTypeSize(h->dtype);
  for (int64_t d : h->shape) {
    total *= static_cast<unsigned __int128>(d);
    if (total > (static_cast<unsigned __int128>(1) << 62))
      return HeaderError(path, "shape too large");
  }
  h->data_offset = prefix + header_len;
  return Status::OK();
}

Status TruncatedError(const std::string& path, size_t expected, size_t have) {
  return Status::Corruption(path + ": truncated .npy data: expected " + std::to_string(expected) +
                            " bytes, found " + std::to_string(have));
}

std::string ShapeTuple(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

// The full preamble+header, padded so the data starts at a multiple of 64.
std::string BuildHeader(DType dtype, const std::vector<int64_t>& shape) {
  std::string dict = std::string("{'descr': '") + Descr(dtype) +
                     "', 'fortran_order': False, 'shape': " + ShapeTuple(shape) + ", }";
  for (int version : {1, 2}) {
    size_t prefix = version == 1 ? 10 : 12;
    size_t total = prefix + dict.size() + 1;  // + '\n'
    size_t padded = (total + 63) / 64 * 64;
    size_t header_len = padded - prefix;
    if (version == 1 && header_len > 65535) continue;
    std::string out(kMagic, kMagicLen);
    out.push_back(static_cast<char>(version));
    out.push_back(0);
    for (size_t b = 0; b < prefix - 8; ++b) out.push_back(static_cast<char>((header_len >> (8 * b)) & 0xff));
    out += dict;
    out.append(padded - total, ' ');
    out.push_back('\n');
    return out;
  }
  return std::string();  // unreachable
}

}  // namespace

Result<Array> NpyMap(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno("open " + path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return Status::FromErrno("stat " + path, e);
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return Status::IOError("open " + path + ": is a directory");
  }
  size_t size = static_cast<size_t>(st.st_size);
  if (size < kMagicLen + 4) {
    ::close(fd);
    return Status::Corruption(path + ": too short for a .npy file (" + std::to_string(size) + " bytes)");
  }
  void* base = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  int e = errno;
  ::close(fd);  // the mapping keeps the file open
  if (base == MAP_FAILED) return Status::FromErrno("mmap " + path, e);
  std::shared_ptr<void> holder(base, [size](void* p) { ::munmap(p, size); });

  Header h;
  size_t need = 0;
  DG_RETURN_IF_ERROR(ParseHeader(path, static_cast<const unsigned char*>(base), size, &h, &need));
  if (need > size) return HeaderError(path, "file ends inside the header");
  Array a;
  a.dtype = h.dtype;
  a.shape = h.shape;
  size_t nbytes = a.nbytes();
  if (size - h.data_offset < nbytes) return TruncatedError(path, nbytes, size - h.data_offset);
  a.data = static_cast<char*>(base) + h.data_offset;
  a.holder = std::move(holder);
  return a;
}

Result<Array> NpyRead(const std::string& path) {
  GzipFile f;
  DG_RETURN_IF_ERROR(f.Open(path));
  std::string buf;
  size_t need = kMagicLen + 4;
  Header h;
  for (;;) {
    size_t have = buf.size();
    buf.resize(need);
    size_t got = 0;
    DG_RETURN_IF_ERROR(f.Read(&buf[have], need - have, &got));
    buf.resize(have + got);
    if (got < need - have) {
      if (buf.size() >= 2 && static_cast<unsigned char>(buf[0]) != 0x93)
        return Status::Corruption(path + ": not a .npy file (bad magic)");
      return HeaderError(path, "file ends inside the header");
    }
    DG_RETURN_IF_ERROR(ParseHeader(path, reinterpret_cast<const unsigned char*>(buf.data()),
                                   buf.size(), &h, &need));
    if (need <= buf.size()) break;
  }
  // The header's shape is only a claim: memory grows with the data actually
  // read (from 1 MiB, doubling), so a short or corrupt file never allocates
  // its claim (and a fuzzer's every input does not pay for 64 MiB).
  Array a;
  a.dtype = h.dtype;
  a.shape = h.shape;
  const size_t nbytes = a.nbytes();
  constexpr size_t kStep = size_t(1) << 20;
  size_t cap = 0, got = 0;
  void* data = nullptr;
  std::shared_ptr<void> holder;
  while (got < nbytes) {
    if (got == cap) {
      size_t next = std::min(nbytes, cap == 0 ? std::min(nbytes, kStep) : cap * 2);
      void* p = std::realloc(data, next);
      if (!p) {
        std::free(data);
        return Status::ResourceExhausted(path + ": out of memory reading " + std::to_string(nbytes) + " bytes");
      }
      data = p;
      cap = next;
    }
    size_t n = 0;
    Status st = f.Read(static_cast<char*>(data) + got, cap - got, &n);
    if (!st.ok()) {
      std::free(data);
      return st;
    }
    if (n == 0) break;
    got += n;
  }
  if (got < nbytes) {
    std::free(data);
    return TruncatedError(path, nbytes, got);
  }
  if (!data) data = std::malloc(1);
  a.data = data;
  a.holder = std::shared_ptr<void>(data, [](void* q) { std::free(q); });
  return a;
}

Result<Array> NpyLoad(const std::string& path) {
  bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  if (gz || IsGzipFile(path)) return NpyRead(path);
  return NpyMap(path);
}

Status NpyWrite(const std::string& path, const Array& array) {
  NpyWriter w;
  DG_RETURN_IF_ERROR(w.Open(path, array.dtype, array.shape));
  DG_RETURN_IF_ERROR(w.Append(array.data, array.nbytes()));
  return w.Finish();
}

// ---- NpyWriter

NpyWriter::~NpyWriter() {
  if (file_) {
    std::fclose(file_);
    ::unlink(tmp_path_.c_str());
  }
}

Status NpyWriter::Open(const std::string& path, DType dtype, const std::vector<int64_t>& shape) {
  if (file_) return Status::Internal("NpyWriter::Open called twice (" + path + ")");
  for (int64_t d : shape)
    if (d < 0) return Status::InvalidArgument(path + ": negative dimension in shape");
  path_ = path;
  tmp_path_ = path + ".tmp";
  file_ = std::fopen(tmp_path_.c_str(), "wb");
  if (!file_) return Status::FromErrno("create " + tmp_path_, errno);
  std::setvbuf(file_, nullptr, _IOFBF, 1 << 20);
  std::string header = BuildHeader(dtype, shape);
  if (std::fwrite(header.data(), 1, header.size(), file_) != header.size())
    return Status::FromErrno("write " + tmp_path_, errno);
  expected_ = DTypeSize(dtype);
  for (int64_t d : shape) expected_ *= static_cast<size_t>(d);
  written_ = 0;
  return Status::OK();
}

Status NpyWriter::Append(const void* data, size_t nbytes) {
  if (!file_) return Status::Internal("NpyWriter::Append without Open (" + path_ + ")");
  if (written_ + nbytes > expected_)
    return Status::Internal(path_ + ": NpyWriter got more bytes than the shape holds");
  if (nbytes && std::fwrite(data, 1, nbytes, file_) != nbytes)
    return Status::FromErrno("write " + tmp_path_, errno);
  written_ += nbytes;
  return Status::OK();
}

Status NpyWriter::Finish() {
  if (!file_) return Status::Internal("NpyWriter::Finish without Open (" + path_ + ")");
  if (written_ != expected_)
    return Status::Internal(path_ + ": NpyWriter finished with " + std::to_string(written_) +
                            " of " + std::to_string(expected_) + " bytes");
  std::FILE* f = file_;
  file_ = nullptr;
  bool ok = std::fflush(f) == 0;
  int e = errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    e = errno;
  }
  if (!ok) {
    ::unlink(tmp_path_.c_str());
    return Status::FromErrno("write " + tmp_path_, e);
  }
  if (std::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
    e = errno;
    ::unlink(tmp_path_.c_str());
    return Status::FromErrno("rename " + tmp_path_ + " -> " + path_, e);
  }
  return Status::OK();
}

}  // namespace dg

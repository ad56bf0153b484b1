// .npy reader/writer: round trips for every dtype and shape, hand-written
// v1/v2/v3 headers, and every malformed-input error naming the file.
#include <zlib.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>

#include "common/io/npy.h"
#include "test/support/test_support.h"

using namespace dg;

namespace {

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string ReadBytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void Gzip(const std::string& in, const std::string& out) {
  std::string data = ReadBytes(in);
  gzFile gz = gzopen(out.c_str(), "wb");
  REQUIRE(gz != nullptr);
  REQUIRE(gzwrite(gz, data.data(), static_cast<unsigned>(data.size())) == static_cast<int>(data.size()));
  gzclose(gz);
}

// A .npy file with the given header dict and version, and `data` bytes after it.
std::string NpyBytes(int version, const std::string& dict, const std::string& data) {
  size_t prefix = version == 1 ? 10 : 12;
  std::string h = dict;
  while ((prefix + h.size() + 1) % 64 != 0) h.push_back(' ');
  h.push_back('\n');
  std::string out("\x93NUMPY", 6);
  out.push_back(static_cast<char>(version));
  out.push_back(0);
  for (size_t b = 0; b < prefix - 8; ++b) out.push_back(static_cast<char>((h.size() >> (8 * b)) & 0xff));
  return out + h + data;
}

Array Filled(DType t, std::vector<int64_t> shape) {
  Array a = Array::Zeros(t, shape);
  unsigned char* p = static_cast<unsigned char*>(a.data);
  for (size_t i = 0; i < a.nbytes(); ++i) p[i] = static_cast<unsigned char>(i * 37 + 11);
  if (t == DType::kBool)
    for (size_t i = 0; i < a.nbytes(); ++i) p[i] &= 1;
  return a;
}

bool SameArray(const Array& a, const Array& b) {
  return a.dtype == b.dtype && a.shape == b.shape && a.nbytes() == b.nbytes() &&
         (a.nbytes() == 0 || std::memcmp(a.data, b.data, a.nbytes()) == 0);
}

}  // namespace

TEST_CASE("npy round trip for every dtype and shape (map, read, gzip)", "[npy]") {
  test::TempDir tmp;
  std::vector<std::vector<int64_t>> shapes = {{7}, {3, 5}, {2, 3, 4}, {0}, {0, 5}, {4, 0}, {1}};
  for (DType t : {DType::kFloat32, DType::kFloat64, DType::kInt64, DType::kInt32, DType::kInt8,
                  DType::kUInt8, DType::kBool}) {
    for (const auto& shape : shapes) {
      INFO(DTypeName(t) << " " << shape.size() << "-D");
      Array a = Filled(t, shape);
      std::string path = tmp / "a.npy";
      REQUIRE(NpyWrite(path, a).ok());
      // Header is padded so data is 64-byte aligned.
      std::string bytes = ReadBytes(path);
      REQUIRE((bytes.size() - a.nbytes()) % 64 == 0);
      auto m = NpyMap(path);
      REQUIRE(m.ok());
      CHECK(SameArray(*m, a));
      auto r = NpyRead(path);
      REQUIRE(r.ok());
      CHECK(SameArray(*r, a));
      Gzip(path, tmp / "a.npy.gz");
      auto g = NpyLoad(tmp / "a.npy.gz");
      REQUIRE(g.ok());
      CHECK(SameArray(*g, a));
      auto l = NpyLoad(path);
      REQUIRE(l.ok());
      CHECK(SameArray(*l, a));
    }
  }
}

TEST_CASE("npy scalar (0-d) round trip and no temp file left", "[npy]") {
  test::TempDir tmp;
  Array a = Filled(DType::kFloat64, {});
  REQUIRE(NpyWrite(tmp / "s.npy", a).ok());
  auto m = NpyMap(tmp / "s.npy");
  REQUIRE(m.ok());
  CHECK(m->shape.empty());
  CHECK(SameArray(*m, a));
  std::ifstream tmpfile(tmp / "s.npy.tmp");
  CHECK(!tmpfile.good());
}

TEST_CASE("npy headers v1, v2, v3 written by hand are read", "[npy]") {
  test::TempDir tmp;
  std::string data(6 * 4, '\0');
  for (int i = 0; i < 6; ++i) {
    float f = static_cast<float>(i) + 0.5f;
    std::memcpy(&data[i * 4], &f, 4);
  }
  for (int v : {1, 2, 3}) {
    std::string path = tmp / ("v" + std::to_string(v) + ".npy");
    // Also odd spacing and double quotes, which are valid Python literals.
    WriteBytes(path, NpyBytes(v, "{\"descr\":'<f4' ,'fortran_order':False,'shape':(2,3)}", data));
    for (auto res : {NpyMap(path), NpyRead(path)}) {
      REQUIRE(res.ok());
      CHECK(res->dtype == DType::kFloat32);
      CHECK(res->shape == std::vector<int64_t>{2, 3});
      CHECK(res->as<float>()[5] == 5.5f);
    }
  }
  // '|' and '=' byte orders for one-byte and native types.
  WriteBytes(tmp / "u8.npy", NpyBytes(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }", "abc"));
  auto u8 = NpyMap(tmp / "u8.npy");
  REQUIRE(u8.ok());
  CHECK(u8->dtype == DType::kUInt8);
}

TEST_CASE("npy writer switches to v2 when the header does not fit v1", "[npy]") {
  test::TempDir tmp;
  // 30000 dims of size 1: the shape tuple alone is ~90 KB, beyond v1's 64 KB.
  std::vector<int64_t> shape(30000, 1);
  Array a = Filled(DType::kInt8, shape);
  REQUIRE(NpyWrite(tmp / "big.npy", a).ok());
  std::string bytes = ReadBytes(tmp / "big.npy");
  CHECK(bytes[6] == 2);
  auto m = NpyMap(tmp / "big.npy");
  REQUIRE(m.ok());
  CHECK(m->shape.size() == 30000);
}

TEST_CASE("npy malformed files are rejected with the file named", "[npy]") {
  test::TempDir tmp;
  struct Case {
    std::string name, bytes, expect;
    std::string expect_read = "";  // what NpyRead says, if it differs from NpyMap
  };
  std::string d8(8, '\0');
  std::vector<Case> cases = {
      {"fortran.npy", NpyBytes(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", d8), "Fortran"},
      {"bigendian.npy", NpyBytes(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", d8), "big-endian"},
      {"object.npy", NpyBytes(1, "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", d8), "object"},
      {"truncated.npy", NpyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", d8), "truncated"},
      {"f16.npy", NpyBytes(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }", d8), "not supported"},
      {"noshape.npy", NpyBytes(1, "{'descr': '<f4', 'fortran_order': False, }", d8), "missing"},
      {"badshape.npy", NpyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }", d8), "shape"},
      {"nobrace.npy", NpyBytes(1, "'descr': '<f4'", d8), "malformed"},
      {"magic.npy", std::string("NOTNPY") + std::string(100, 'x'), "magic"},
      {"short.npy", std::string("\x93NUMPY\x01\x00", 8), "too short for a .npy file (8 bytes)",
       "file ends inside the header"},
      {"cut_header.npy", NpyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", "").substr(0, 30), "header"},
      {"version9.npy", std::string("\x93NUMPY\x09\x00\x10\x00", 10) + std::string(16, ' '), "version"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    std::string path = tmp / c.name;
    WriteBytes(path, c.bytes);
    for (bool read : {false, true}) {
      auto res = read ? NpyRead(path) : NpyMap(path);
      const std::string& expect = read && !c.expect_read.empty() ? c.expect_read : c.expect;
      REQUIRE(!expect.empty());
      REQUIRE(!res.ok());
      INFO((read ? "NpyRead: " : "NpyMap: ") << res.status().message());
      CHECK(res.status().message().find(path) != std::string::npos);
      CHECK(res.status().message().find(expect) != std::string::npos);
    }
  }
  auto missing = NpyLoad(tmp / "nope.npy");
  REQUIRE(!missing.ok());
  CHECK(missing.status().message().find("nope.npy") != std::string::npos);
}

TEST_CASE("NpyWriter streams rows and refuses a short or long write", "[npy]") {
  test::TempDir tmp;
  {
    NpyWriter w;
    REQUIRE(w.Open(tmp / "s.npy", DType::kInt64, {4, 2}).ok());
    for (int64_t r = 0; r < 4; ++r) {
      int64_t row[2] = {r, r * 10};
      REQUIRE(w.Append(row, sizeof(row)).ok());
    }
    int64_t extra = 1;
    CHECK(!w.Append(&extra, 8).ok());
    REQUIRE(w.Finish().ok());
  }
  auto m = NpyMap(tmp / "s.npy");
  REQUIRE(m.ok());
  CHECK(m->as<int64_t>()[7] == 30);
  {
    NpyWriter w;
    REQUIRE(w.Open(tmp / "short.npy", DType::kInt64, {4}).ok());
    int64_t one = 1;
    REQUIRE(w.Append(&one, 8).ok());
    CHECK(!w.Finish().ok());
  }
  CHECK(!std::ifstream(tmp / "short.npy").good());
  CHECK(!std::ifstream(tmp / "short.npy.tmp").good());
  {
    NpyWriter w;  // abandoned: the temp file is removed, nothing appears
    REQUIRE(w.Open(tmp / "abandoned.npy", DType::kInt8, {4}).ok());
  }
  CHECK(!std::ifstream(tmp / "abandoned.npy").good());
  CHECK(!std::ifstream(tmp / "abandoned.npy.tmp").good());
}

TEST_CASE("Cora features.npy.gz loads transparently", "[npy][cora]") {
  auto f = NpyLoad(test::CoraDir() + "/features.npy.gz");
  REQUIRE(f.ok());
  CHECK(f->dtype == DType::kFloat32);
  CHECK(f->shape == std::vector<int64_t>{2708, 1433});
  double sum = 0;
  for (int64_t i = 0; i < f->numel(); ++i) sum += f->as<float>()[i];
  CHECK(sum == 49216.0);  // binary bag of words: number of non-zeros (README)
  auto l = NpyMap(test::CoraDir() + "/labels.npy");
  REQUIRE(l.ok());
  CHECK(l->dtype == DType::kInt64);
  auto s = NpyMap(test::CoraDir() + "/split.npy");
  REQUIRE(s.ok());
  CHECK(s->dtype == DType::kInt8);
}

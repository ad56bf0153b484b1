#include "common/storage/row_l1.h"

#include <cmath>
#include <filesystem>
#include <numeric>

#include "common/io/npy.h"
#include "common/storage/typed_dataset.h"

namespace dg {

namespace {

template <typename T>
double RowL1(const void* data, int64_t row, int64_t width) {
  const T* r = static_cast<const T*>(data) + row * width;
  double s = 0;
  for (int64_t j = 0; j < width; ++j) s += std::fabs(static_cast<double>(r[j]));
  return s;
}

double RowL1Of(const Array& m, int64_t row) {
  const int64_t w = m.row_elems();
  switch (m.dtype) {
    case DType::kFloat32: return RowL1<float>(m.data, row, w);
    case DType::kFloat64: return RowL1<double>(m.data, row, w);
    case DType::kInt64: return RowL1<int64_t>(m.data, row, w);
    case DType::kInt32: return RowL1<int32_t>(m.data, row, w);
    case DType::kInt8: return RowL1<int8_t>(m.data, row, w);
    case DType::kUInt8: return RowL1<uint8_t>(m.data, row, w);
    case DType::kBool: return RowL1<uint8_t>(m.data, row, w);
  }
  return 0;
}

}  // namespace

std::vector<int64_t> EvenlySpacedIds(int64_t n, int64_t count) {
  std::vector<int64_t> ids;
  if (n <= 0 || count <= 0) return ids;
  if (n <= count) {
    ids.resize(static_cast<size_t>(n));
    std::iota(ids.begin(), ids.end(), int64_t{0});
    return ids;
  }
  ids.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) ids.push_back(static_cast<int64_t>((static_cast<__int128>(i) * n) / count));
  return ids;
}

void RowL1Mean::Add(const Array& matrix, const std::vector<int64_t>& ids) {
  if (matrix.shape.size() != 2) return;
  for (int64_t id : ids) {
    if (id < 0 || id >= matrix.rows()) continue;
    const double l1 = RowL1Of(matrix, id);
    if (l1 == 0) continue;
    sum += l1;
    ++rows;
  }
}

void RowL1Mean::AddAll(const Array& matrix) { Add(matrix, EvenlySpacedIds(matrix.rows(), matrix.rows())); }

std::optional<double> RowL1Mean::Mean() const {
  if (rows == 0) return std::nullopt;
  return sum / static_cast<double>(rows);
}

}  // namespace dg

namespace dg {

namespace {

Status AddFeatureFile(const std::string& path, int64_t sample_rows, RowL1Mean* mean) {
  DG_ASSIGN_OR_RETURN(Array m, NpyLoad(path));
  mean->Add(m, EvenlySpacedIds(m.rows(), sample_rows));
  return Status::OK();
}

}  // namespace

Result<std::optional<double>> DatasetRowL1(const std::string& dir, int64_t sample_rows) {
  RowL1Mean mean;
  if (IsTypedDatasetDir(dir)) {
    DG_ASSIGN_OR_RETURN(TypedDataset meta, ReadTypedMeta(dir));
    for (const auto& t : meta.node_types) {
      const auto files = TypedNodeFiles(dir, t.name);
      auto it = files.find("features");
      if (it != files.end()) DG_RETURN_IF_ERROR(AddFeatureFile(it->second, sample_rows, &mean));
    }
    return mean.Mean();
  }
  for (const char* name : {"/features.npy", "/features.npy.gz"}) {
    if (!std::filesystem::exists(dir + name)) continue;
    DG_RETURN_IF_ERROR(AddFeatureFile(dir + name, sample_rows, &mean));
    break;
  }
  return mean.Mean();
}

}  // namespace dg

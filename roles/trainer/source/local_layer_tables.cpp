// LayerTables in this process (layer_tables.h): train-local's, one float32
// [N, D] array per table.
#include <cstring>
#include <map>

#include "roles/trainer/source/layer_tables.h"

namespace dg {
namespace {

class LocalLayerTables : public LayerTables {
 public:
  explicit LocalLayerTables(int64_t num_nodes) : num_nodes_(num_nodes) {}

  Status Write(const std::string& name, const std::vector<int64_t>& ids, const Array& rows) override {
    if (rows.dtype != DType::kFloat32 || rows.shape.size() != 2 || rows.rows() != static_cast<int64_t>(ids.size()))
      return Status::Internal("layer table " + name + ": rows must be float32 [ids, D], got " + rows.ShapeString());
    Array& t = tables_[name];
    if (!t.data || t.shape[1] != rows.shape[1]) {
      DG_ASSIGN_OR_RETURN(t, Array::TryZeros(DType::kFloat32, {num_nodes_, rows.shape[1]}, "layer table " + name));
    }
    const size_t rb = t.row_bytes();
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] < 0 || ids[i] >= num_nodes_) return Status::Internal("layer table " + name + ": id out of range");
      std::memcpy(t.as<uint8_t>() + ids[i] * rb, rows.as<uint8_t>() + i * rb, rb);
    }
    return Status::OK();
  }

  Result<Array> Read(const std::string& name, const std::vector<int64_t>& ids) override {
    auto it = tables_.find(name);
    if (it == tables_.end()) return Status::Internal("layer table " + name + " read before it was written");
    const Array& t = it->second;
    for (int64_t id : ids)
      if (id < 0 || id >= num_nodes_) return Status::Internal("layer table " + name + ": id out of range");
    DG_ASSIGN_OR_RETURN(Array out, Array::TryUninitialized(DType::kFloat32,
                                                           {static_cast<int64_t>(ids.size()), t.shape[1]},
                                                           "rows of layer table " + name));
    GatherRowBytes(t.data, t.row_bytes(), ids.data(), ids.size(), 0, out.data, nullptr);
    return out;
  }

  Status EndLayer(const std::string& /*name*/) override { return Status::OK(); }  // one trainer

 private:
  int64_t num_nodes_;
  std::map<std::string, Array> tables_;
};

}  // namespace

std::unique_ptr<LayerTables> MakeLocalLayerTables(int64_t num_nodes) {
  return std::make_unique<LocalLayerTables>(num_nodes);
}

}  // namespace dg

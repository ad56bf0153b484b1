// LayerTables on the servers (layer_tables.h): a job's, one scratch
// DistTensor per table, each partition holding its own nodes' rows.
#include <set>

#include "common/client/dist_graph_client.h"
#include "roles/trainer/source/layer_tables.h"

namespace dg {
namespace {

class DistLayerTables : public LayerTables {
 public:
  DistLayerTables(DistGraphClient* client, int world) : client_(client), world_(world) {}

  Status Write(const std::string& name, const std::vector<int64_t>& ids, const Array& rows) override {
    if (rows.dtype != DType::kFloat32 || rows.shape.size() != 2)
      return Status::Internal("layer table " + name + ": rows must be float32 [ids, D], got " + rows.ShapeString());
    if (!made_.count(name)) {  // every trainer makes it the same way: INIT_TENSOR keeps an existing one
      InitTensorSpec spec;
      spec.name = name;
      spec.shape = {client_->num_nodes(), rows.shape[1]};
      spec.scratch = true;
      DG_RETURN_IF_ERROR(client_->InitTensor(spec));
      made_.insert(name);
    }
    return client_->Push(name, ids, rows, PushMode::kOverwrite);
  }

  Result<Array> Read(const std::string& name, const std::vector<int64_t>& ids) override {
    return client_->Pull(name, ids);
  }

  Status EndLayer(const std::string& name) override {
    return client_->Barrier(name, static_cast<uint32_t>(world_));
  }

 private:
  DistGraphClient* client_;
  int world_;
  std::set<std::string> made_;
};

class BarrierLayerTables : public LayerTables {
 public:
  BarrierLayerTables(LayerTables* tables, std::function<Status()> barrier)
      : tables_(tables), barrier_(std::move(barrier)) {}
  Status Write(const std::string& name, const std::vector<int64_t>& ids, const Array& rows) override {
    return tables_->Write(name, ids, rows);
  }
  Result<Array> Read(const std::string& name, const std::vector<int64_t>& ids) override {
    return tables_->Read(name, ids);
  }
  Status EndLayer(const std::string& /*name*/) override { return barrier_(); }

 private:
  LayerTables* tables_;
  std::function<Status()> barrier_;
};

}  // namespace

std::unique_ptr<LayerTables> MakeDistLayerTables(DistGraphClient* client, int world) {
  return std::make_unique<DistLayerTables>(client, world);
}

std::unique_ptr<LayerTables> EndLayersAt(LayerTables* tables, std::function<Status()> barrier) {
  return std::make_unique<BarrierLayerTables>(tables, std::move(barrier));
}

}  // namespace dg

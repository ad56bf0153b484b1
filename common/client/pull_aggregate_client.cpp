// DistGraphClient's side of PULL_AGGREGATE (common/net/pull_aggregate.h) and
// its byte counter.
#include <algorithm>
#include <cstring>

#include "common/client/dist_graph_client.h"
#include "common/net/messages.h"
#include "common/net/pull_aggregate.h"

namespace dg {

namespace {

template <typename T>
void AddInto(T* acc, const T* rows, size_t n, int64_t elems, const int64_t* pos) {
  for (size_t i = 0; i < n; ++i) {
    T* a = acc + pos[i] * elems;
    const T* r = rows + i * elems;
    for (int64_t j = 0; j < elems; ++j) a[j] += r[j];
  }
}

template <typename T>
void DivideRows(T* rows, const int64_t* counts, size_t n, int64_t elems) {
  for (size_t i = 0; i < n; ++i) {
    if (counts[i] <= 1) continue;  // 0: stays 0; 1: unchanged
    const T inv = T(1) / static_cast<T>(counts[i]);
    for (int64_t j = 0; j < elems; ++j) rows[i * elems + j] *= inv;
  }
}

}  // namespace

uint64_t DistGraphClient::network_bytes() const {
  uint64_t total = 0;
  for (const auto& part : channels_)
    for (const auto& ch : part) total += ch->bytes();
  return total;
}

Result<Array> DistGraphClient::PullAggregate(const std::string& name, const int64_t* ids, size_t n, AggregateOp op,
                                             std::vector<int64_t>* degrees) {
  DG_RETURN_IF_ERROR(CheckTensorName("PullAggregate", name));
  DG_ASSIGN_OR_RETURN(TensorMeta meta, NodeTensorMeta(name));
  if (meta.dtype != DType::kFloat32 && meta.dtype != DType::kFloat64)
    return Status::InvalidArgument("PullAggregate '" + name + "': aggregation needs a float32 or float64 tensor, this one is " +
                                   DTypeName(meta.dtype));
  const int64_t N = config_.num_nodes;
  for (size_t i = 0; i < n; ++i)
    if (ids[i] < 0 || ids[i] >= N)
      return Status::InvalidArgument("PullAggregate '" + name + "': node id " + std::to_string(ids[i]) +
                                     " (at position " + std::to_string(i) + ") is not in [0, " + std::to_string(N) + ")");
  const bool is_mutable = meta.kind == TensorKind::kMutableNode;
  std::vector<int64_t> shape = meta.shape;
  shape[0] = static_cast<int64_t>(n);
  Array out = Array::Zeros(meta.dtype, shape);
  std::vector<int64_t> total(n, 0);
  if (n > 0) {
    auto all = std::make_shared<std::vector<int64_t>>(ids, ids + n);
    std::vector<int64_t> identity(n);
    for (size_t i = 0; i < n; ++i) identity[i] = static_cast<int64_t>(i);
    const size_t chunk = static_cast<size_t>(std::max<int64_t>(1, options_.max_ids_per_request));
    const auto deadline = Deadline();
    struct Call {
      std::shared_ptr<PendingCall> call;
      size_t off, n;
    };
    std::vector<Call> calls;
    for (int p = 0; p < config_.num_parts; ++p) {
      for (size_t off = 0; off < n; off += chunk) {
        const size_t m = std::min(chunk, n - off);
        Array slice;
        slice.dtype = DType::kInt64;
        slice.shape = {static_cast<int64_t>(m)};
        slice.data = all->data() + off;
        slice.holder = all;
        Encoder e;
        EncodePullAggregate(&e, name, slice);
        calls.push_back({Channel(p, is_mutable)->Start(MsgType::kPullAggregate, e.Finish()), off, m});
      }
    }
    const int64_t elems = out.row_elems();
    Status first_error;
    for (Call& c : calls) {  // partition order: the sums are added in a fixed order
      auto f = c.call->Wait(deadline);
      if (!f.ok()) {
        if (first_error.ok()) first_error = f.status();
        continue;
      }
      Decoder d = f->decoder("PULL_AGGREGATE reply");
      Array counts = d.Ids();
      Array sums = d.ArrayView();
      Status st = d.Finish();
      if (st.ok() && (counts.rows() != static_cast<int64_t>(c.n) || sums.dtype != out.dtype ||
                      sums.rows() != static_cast<int64_t>(c.n) || sums.row_elems() != elems)) {
        st = Status::Protocol("PULL_AGGREGATE '" + name + "' reply has counts " + counts.ShapeString() + " and " +
                              DTypeName(sums.dtype) + " " + sums.ShapeString() + ", expected " + std::to_string(c.n) +
                              " rows of " + DTypeName(out.dtype));
      }
      if (!st.ok()) {
        if (first_error.ok()) first_error = st;
        continue;
      }
      const int64_t* cn = counts.as<int64_t>();
      for (size_t i = 0; i < c.n; ++i) total[c.off + i] += cn[i];
      if (out.dtype == DType::kFloat32)
        AddInto(out.as<float>(), sums.as<float>(), c.n, elems, identity.data() + c.off);
      else
        AddInto(out.as<double>(), sums.as<double>(), c.n, elems, identity.data() + c.off);
    }
    if (!first_error.ok()) return first_error;
    if (op == AggregateOp::kMean) {
      if (out.dtype == DType::kFloat32) DivideRows(out.as<float>(), total.data(), n, elems);
      else DivideRows(out.as<double>(), total.data(), n, elems);
    }
  }
  if (degrees) *degrees = std::move(total);
  return out;
}

}  // namespace dg

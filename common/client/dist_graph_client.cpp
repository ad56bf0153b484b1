#include "common/client/dist_graph_client.h"
#include "common/client/feature_cache.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>

namespace dg {
namespace {

std::string ServerName(const std::string& host, int port, int part, int index) {
  return host + ":" + std::to_string(port) + " (server, partition " + std::to_string(part) + ", index " +
         std::to_string(index) + ")";
}

// A request in flight and the caller positions of its ids. With `head`
// set, its reply rows were asked to land straight in the output
// (consecutive positions from pos[0]) and `head` is the reply's expected head.
struct Sent {
  std::shared_ptr<PendingCall> call;
  const int64_t* pos = nullptr;
  size_t n = 0;
  std::string head;
};

// Runs of at least this many consecutive caller positions are received
// straight into the output; shorter ones are copied row by row from the reply
// (a request per few rows would cost more than the copy).
constexpr size_t kMinDirectRows = 64;

// Length of the run of consecutive positions starting at pos[0], at most max.
size_t RunLength(const int64_t* pos, size_t n, size_t max) {
  size_t r = 1;
  while (r < n && r < max && pos[r] == pos[0] + static_cast<int64_t>(r)) ++r;
  return r;
}

// Cuts positions [0, n) into requests of at most `chunk` ids: a run of
// >= kMinDirectRows consecutive positions (or a whole chunk of them, when
// chunks are smaller) is one request (direct = true); the rows between such
// runs are grouped into the others.
struct Chunk {
  size_t off, n;
  bool direct;
};
std::vector<Chunk> ChunkByRuns(const int64_t* pos, size_t n, size_t chunk) {
  std::vector<Chunk> out;
  size_t off = 0;
  while (off < n) {
    const size_t run = RunLength(pos + off, n - off, chunk);
    if (run >= std::min(kMinDirectRows, chunk)) {
      out.push_back({off, run, true});
      off += run;
      continue;
    }
    size_t end = off;
    while (end < n && end - off < chunk) {
      const size_t r = RunLength(pos + end, n - end, kMinDirectRows);
      if (r >= kMinDirectRows) break;
      end = std::min(end + r, off + chunk);
    }
    out.push_back({off, end - off, false});
    off = end;
  }
  return out;
}

// ids[off, off+m) as an Array that keeps the whole vector alive: a request
// may still sit in a send queue after its caller gave up (deadline).
Array IdsSlice(const std::shared_ptr<std::vector<int64_t>>& ids, size_t off, size_t m) {
  Array a;
  a.dtype = DType::kInt64;
  a.shape = {static_cast<int64_t>(m)};
  a.data = ids->data() + off;
  a.holder = ids;
  return a;
}

}  // namespace

Result<std::unique_ptr<DistGraphClient>> DistGraphClient::Connect(const PartitionConfig& config,
                                                                  const std::vector<ServerEndpoints>& servers,
                                                                  const std::string& token,
                                                                  const std::string& role, int rank,
                                                                  const ClientOptions& options) {
  std::unique_ptr<DistGraphClient> c(new DistGraphClient());
  c->config_ = config;
  c->book_ = PartitionBook(config.node_map);
  c->options_ = options;
  if (static_cast<int>(servers.size()) != config.num_parts) {
    return Status::InvalidArgument("client: " + std::to_string(servers.size()) + " server lists for " +
                                   std::to_string(config.num_parts) + " partitions of " + config.path);
  }
  c->work_ = std::make_unique<asio::executor_work_guard<asio::io_context::executor_type>>(c->io_.get_executor());
  for (int i = 0; i < std::max(1, options.io_threads); ++i) c->io_threads_.emplace_back([p = c.get()] { p->io_.run(); });

  Hello hello;
  hello.role = role;
  hello.rank = rank;
  hello.graph_name = config.graph_name;
  hello.token = token;
  ConnectionOptions co = options.connection;
  c->channels_.resize(config.num_parts);
  for (int p = 0; p < config.num_parts; ++p) {
    if (servers[p].ports.empty()) {
      return Status::InvalidArgument("client: no server ports for partition " + std::to_string(p));
    }
    for (size_t i = 0; i < servers[p].ports.size(); ++i) {
      std::string name = ServerName(servers[p].host, servers[p].ports[i], p, static_cast<int>(i));
      DG_ASSIGN_OR_RETURN(auto ch, RpcChannel::Dial(c->io_, servers[p].host, servers[p].ports[i], hello, co,
                                                    options.connect_timeout_seconds, name));
      if (ch->welcome().rank != p || ch->welcome().index != static_cast<int>(i)) {
        return Status::InvalidArgument("client: " + name + " says it is partition " +
                                       std::to_string(ch->welcome().rank) + " index " +
                                       std::to_string(ch->welcome().index) + ": check the ports");
      }
      c->channels_[p].push_back(std::move(ch));
    }
  }
  c->local_.resize(config.num_parts);
  if (!options.disable_local_shortcut) {
    for (int p : options.local_partitions) {
      if (p < 0 || p >= config.num_parts) {
        return Status::InvalidArgument("client: local partition " + std::to_string(p) + " does not exist");
      }
      DG_ASSIGN_OR_RETURN(LocalPartition lp, OpenLocalPartition(config, p));
      DG_RETURN_IF_ERROR(ValidatePartitionStructure(lp, config.PartDir(p)));
      c->local_[p] = std::make_unique<PartitionStore>(config, std::move(lp), /*holds_mutable=*/false);
    }
  }
  return c;
}

DistGraphClient::~DistGraphClient() {
  for (auto& part : channels_)
    for (auto& ch : part) ch->Close();
  channels_.clear();
  if (work_) work_->reset();
  io_.stop();
  for (auto& t : io_threads_) t.join();
}

std::chrono::steady_clock::time_point DistGraphClient::Deadline(double seconds) const {
  if (seconds < 0) seconds = options_.deadline_seconds;
  return std::chrono::steady_clock::now() + std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6));
}

std::shared_ptr<RpcChannel> DistGraphClient::Channel(int part, bool mutable_tensor) {
  const auto& list = channels_[part];
  if (mutable_tensor || list.size() == 1) return list[0];
  return list[round_robin_.fetch_add(1, std::memory_order_relaxed) % list.size()];
}

Status DistGraphClient::SplitByOwner(const char* what, const int64_t* ids, size_t n,
                                     std::vector<Piece>* pieces, bool keep_empty) const {
  const int parts = config_.num_parts;
  std::vector<Piece> by_part(parts);
  for (int p = 0; p < parts; ++p) by_part[p].part = p;
  const int64_t N = config_.num_nodes;
  for (size_t i = 0; i < n; ++i) {
    int64_t id = ids[i];
    if (id < 0 || id >= N) {
      return Status::InvalidArgument(std::string(what) + ": node id " + std::to_string(id) + " (at position " +
                                     std::to_string(i) + ") is outside [0, " + std::to_string(N) + ")");
    }
    Piece& pc = by_part[book_.Owner(id)];
    pc.ids->push_back(id);
    pc.pos.push_back(static_cast<int64_t>(i));
  }
  for (auto& pc : by_part)
    if (keep_empty || !pc.ids->empty()) pieces->push_back(std::move(pc));
  return Status::OK();
}

Result<Array> DistGraphClient::GatherPieceRows(const Piece& pc, const Array& rows) {
  if (pc.ids->size() == static_cast<size_t>(rows.rows()) && rows.holder) return rows;  // one owner: zero copy
  std::vector<int64_t> shape = rows.shape;
  shape[0] = static_cast<int64_t>(pc.ids->size());
  DG_ASSIGN_OR_RETURN(Array out, Array::TryUninitialized(rows.dtype, shape, "rows for partition " +
                                                                               std::to_string(pc.part)));
  GatherRowBytes(rows.data, rows.row_bytes(), pc.pos.data(), pc.ids->size(), 0, out.data, nullptr);
  return out;
}

Status DistGraphClient::WaitAll(std::vector<std::shared_ptr<PendingCall>>& calls,
                                std::chrono::steady_clock::time_point deadline) {
  Status first_error;
  for (auto& c : calls) {
    auto f = c->Wait(deadline);
    if (!f.ok() && first_error.ok()) first_error = f.status();
  }
  return first_error;
}

Status DistGraphClient::SplitEdges(const std::vector<int64_t>& eids, std::vector<Piece>* pieces) const {
  const int parts = config_.num_parts;
  std::vector<Piece> by_part(parts);
  for (int p = 0; p < parts; ++p) by_part[p].part = p;
  const auto& em = config_.edge_map;
  for (size_t i = 0; i < eids.size(); ++i) {
    int64_t id = eids[i];
    if (id < 0 || id >= config_.num_edges) {
      return Status::InvalidArgument("PullEdges: edge id " + std::to_string(id) + " (at position " +
                                     std::to_string(i) + ") is outside [0, " + std::to_string(config_.num_edges) + ")");
    }
    int p = static_cast<int>(std::upper_bound(em.begin(), em.end(), id) - em.begin()) - 1;
    by_part[p].ids->push_back(id);
    by_part[p].pos.push_back(static_cast<int64_t>(i));
  }
  for (auto& pc : by_part)
    if (!pc.ids->empty()) pieces->push_back(std::move(pc));
  return Status::OK();
}

Result<TensorMeta> DistGraphClient::NodeTensorMeta(const std::string& name) {
  auto it = config_.node_data.find(name);
  if (it != config_.node_data.end()) return TensorMeta{name, TensorKind::kNode, it->second.dtype, it->second.shape};
  {
    std::lock_guard<std::mutex> l(meta_mu_);
    auto m = mutable_meta_.find(name);
    if (m != mutable_meta_.end()) return m->second;
  }
  // Someone else created it: ask partition 0's holder of mutable tensors.
  auto f = channels_[0][0]->Call(MsgType::kMetadata, BufferList(), options_.deadline_seconds);
  if (!f.ok()) return f.status();
  DG_ASSIGN_OR_RETURN(MetadataReply meta, DecodeMetadataReply(*f));
  std::lock_guard<std::mutex> l(meta_mu_);
  for (const TensorMeta& t : meta.tensors)
    if (t.kind == TensorKind::kMutableNode) mutable_meta_[t.name] = t;
  auto m = mutable_meta_.find(name);
  if (m == mutable_meta_.end()) return Status::NotFound("unknown node tensor '" + name + "'");
  return m->second;
}

Result<Array> DistGraphClient::Pull(const std::string& name, const int64_t* ids, size_t n) {
  if (feature_cache_ && feature_cache_->name() == name) return PullThroughCache(*feature_cache_, this, ids, n);
  return PullImpl(TensorKind::kNode, name, ids, n);
}

Result<Array> DistGraphClient::PullEdges(const std::string& name, const std::vector<int64_t>& eids) {
  return PullImpl(TensorKind::kEdge, name, eids.data(), eids.size());
}

Result<Array> DistGraphClient::PullImpl(TensorKind kind, const std::string& name, const int64_t* ids, size_t n) {
  TensorMeta meta;
  if (kind == TensorKind::kEdge) {
    auto it = config_.edge_data.find(name);
    if (it == config_.edge_data.end()) return Status::NotFound("PullEdges: unknown edge tensor '" + name + "'");
    meta = TensorMeta{name, kind, it->second.dtype, it->second.shape};
  } else {
    DG_ASSIGN_OR_RETURN(meta, NodeTensorMeta(name));
  }
  const bool is_mutable = meta.kind == TensorKind::kMutableNode;
  std::vector<int64_t> shape = meta.shape;
  shape[0] = static_cast<int64_t>(n);
  DG_ASSIGN_OR_RETURN(Array out, Array::TryUninitialized(meta.dtype, shape, "PULL '" + name + "'"));
  if (n == 0) return out;
  const size_t rb = out.row_bytes();
  uint8_t* dst = static_cast<uint8_t*>(out.data);

  std::vector<Piece> pieces;
  if (kind == TensorKind::kEdge) {
    DG_RETURN_IF_ERROR(SplitEdges(std::vector<int64_t>(ids, ids + n), &pieces));
  } else {
    DG_RETURN_IF_ERROR(SplitByOwner("Pull", ids, n, &pieces));
  }
  const auto deadline = Deadline();
  const size_t chunk = static_cast<size_t>(std::max<int64_t>(1, options_.max_ids_per_request));
  std::vector<Sent> sent;
  for (const Piece& pc : pieces) {
    if (is_local(pc.part) && !is_mutable) continue;
    for (const Chunk& c : ChunkByRuns(pc.pos.data(), pc.pos.size(), chunk)) {
      Encoder e;
      EncodePull(&e, kind == TensorKind::kEdge ? TensorKind::kEdge : TensorKind::kNode, name,
                 IdsSlice(pc.ids, c.off, c.n));
      Sent s;
      s.pos = pc.pos.data() + c.off;
      s.n = c.n;
      PayloadSink sink;
      if (c.direct) {
        std::vector<int64_t> reply_shape = shape;
        reply_shape[0] = static_cast<int64_t>(c.n);
        s.head = Encoder::ArrayHead(meta.dtype, reply_shape);
        sink.head_bytes = s.head.size();
        sink.body = dst + s.pos[0] * rb;
        sink.body_bytes = c.n * rb;
        sink.keep_alive = out.holder;
      }
      s.call = Channel(pc.part, is_mutable)->Start(MsgType::kPull, e.Finish(), std::move(sink));
      sent.push_back(std::move(s));
    }
  }
  // Local partitions: straight from the mmap into the output, same code as the server.
  for (const Piece& pc : pieces) {
    if (!is_local(pc.part) || is_mutable) continue;
    DG_RETURN_IF_ERROR(local_[pc.part]->GatherRows(kind, name, pc.ids->data(), pc.ids->size(), dst, pc.pos.data()));
  }
  Status first_error;
  for (Sent& s : sent) {
    auto f = s.call->Wait(deadline);
    if (!f.ok()) {
      if (first_error.ok()) first_error = f.status();
      continue;
    }
    if (f->sunk_bytes > 0) {  // the rows are in place already; check what the server said they are
      if (f->size == s.head.size() && std::memcmp(f->data, s.head.data(), s.head.size()) == 0) {
        rows_in_place_.fetch_add(s.n, std::memory_order_relaxed);
      } else if (first_error.ok()) {
        first_error = Status::Protocol("PULL '" + name + "' reply does not describe " + std::to_string(s.n) +
                                       " rows of " + DTypeName(out.dtype));
      }
      continue;
    }
    Decoder d = f->decoder("PULL reply");
    Array rows = d.ArrayView();
    Status st = d.Finish();
    if (st.ok() && (rows.dtype != out.dtype || rows.rows() != static_cast<int64_t>(s.n) || rows.row_bytes() != rb)) {
      st = Status::Protocol("PULL '" + name + "' reply has " + DTypeName(rows.dtype) + " " + rows.ShapeString() +
                            ", expected " + std::to_string(s.n) + " rows of " + DTypeName(out.dtype));
    }
    if (!st.ok()) {
      if (first_error.ok()) first_error = st;
      continue;
    }
    const uint8_t* src = static_cast<const uint8_t*>(rows.data);
    for (size_t i = 0; i < s.n; ++i) std::memcpy(dst + s.pos[i] * rb, src + i * rb, rb);
  }
  if (!first_error.ok()) return first_error;
  return out;
}

Status DistGraphClient::Push(const std::string& name, const std::vector<int64_t>& ids, const Array& rows,
                             PushMode mode) {
  if (rows.rows() != static_cast<int64_t>(ids.size()) || rows.shape.empty()) {
    return Status::InvalidArgument("Push '" + name + "': " + std::to_string(ids.size()) + " ids but rows are " +
                                   rows.ShapeString());
  }
  if (ids.empty()) return Status::OK();
  std::vector<Piece> pieces;
  DG_RETURN_IF_ERROR(SplitByOwner("Push", ids.data(), ids.size(), &pieces));
  const auto deadline = Deadline();
  std::vector<std::shared_ptr<PendingCall>> calls;
  for (const Piece& pc : pieces) {
    Encoder e;
    DG_ASSIGN_OR_RETURN(Array piece_rows, GatherPieceRows(pc, rows));
    EncodePush(&e, name, mode, IdsSlice(pc.ids, 0, pc.ids->size()), piece_rows);
    calls.push_back(Channel(pc.part, true)->Start(MsgType::kPush, e.Finish()));
  }
  return WaitAll(calls, deadline);
}

// One partition's share of a SAMPLE_NEIGHBORS call: a reply frame, or the
// partition store's result for a machine-local partition.
struct DistGraphClient::SamplePart {
  const int64_t* pos;  // caller positions of the seeds
  size_t n;
  std::shared_ptr<PendingCall> call;
  SampleResult local;  // when answered from the mmap
  Array counts, src, eids, etypes;
  Frame frame;
};

namespace {

// Every count >= 0, adding up to the sources sent, an edge id per source when
// asked for, and (typed) a uint8 edge type per source; else the copy into
// place would read past the reply.
Status CheckSampleReply(size_t seeds, const Array& counts, const Array& src, const Array& eids, const Array* etypes,
                        bool edge_ids) {
  int64_t total = 0;
  bool counts_ok = counts.numel() == static_cast<int64_t>(seeds);
  for (int64_t i = 0; counts_ok && i < counts.numel(); ++i) {
    const int64_t c = counts.as<int64_t>()[i];
    counts_ok = c >= 0 && c <= src.numel() - total;
    total += counts_ok ? c : 0;
  }
  if (!counts_ok || total != src.numel() || eids.numel() != (edge_ids ? src.numel() : 0))
    return Status::Protocol("SAMPLE_NEIGHBORS reply has " + std::to_string(counts.numel()) + " counts for " +
                            std::to_string(seeds) + " seeds, " + std::to_string(src.numel()) + " sources and " +
                            std::to_string(eids.numel()) + " edge ids: they do not match");
  if (etypes && (etypes->dtype != DType::kUInt8 || etypes->numel() != src.numel()))
    return Status::Protocol("SAMPLE_NEIGHBORS reply has " + std::to_string(etypes->numel()) + " " +
                            DTypeName(etypes->dtype) + " edge types for " + std::to_string(src.numel()) +
                            " sources (expected uint8, one per source)");
  return Status::OK();
}

}  // namespace

void DistGraphClient::StartSampleRequests(const std::vector<Piece>& pieces, const SampleSpec& spec,
                                          std::vector<SamplePart>* parts) {
  const size_t chunk = static_cast<size_t>(std::max<int64_t>(1, options_.max_ids_per_request));
  for (const Piece& pc : pieces) {
    if (is_local(pc.part)) continue;
    for (size_t off = 0; off < pc.ids->size(); off += chunk) {
      const size_t m = std::min(chunk, pc.ids->size() - off);
      Encoder e;
      EncodeSample(&e, IdsSlice(pc.ids, off, m), spec);
      SamplePart p;
      p.pos = pc.pos.data() + off;
      p.n = m;
      p.call = Channel(pc.part, false)->Start(MsgType::kSampleNeighbors, e.Finish());
      parts->push_back(std::move(p));
    }
  }
}

Status DistGraphClient::SampleLocalParts(const std::vector<Piece>& pieces, const SampleSpec& spec,
                                         std::vector<SamplePart>* parts) {
  for (const Piece& pc : pieces) {
    if (!is_local(pc.part)) continue;
    SamplePart p;
    p.pos = pc.pos.data();
    p.n = pc.ids->size();
    DG_RETURN_IF_ERROR(local_[pc.part]->Sample(pc.ids->data(), pc.ids->size(), spec, &p.local));
    if (spec.typed()) {
      p.etypes.dtype = DType::kUInt8;
      p.etypes.shape = {static_cast<int64_t>(p.local.etypes.size())};
      p.etypes.data = p.local.etypes.data();
    }
    p.counts = IdsView(p.local.counts.data(), p.local.counts.size());
    p.src = IdsView(p.local.src.data(), p.local.src.size());
    p.eids = IdsView(p.local.eids.data(), p.local.eids.size());
    parts->push_back(std::move(p));
  }
  return Status::OK();
}

namespace {

// Waits for a remote part's reply and checks it.
template <typename Part>
Status ReceiveSamplePart(Part* p, const SampleSpec& spec, std::chrono::steady_clock::time_point deadline) {
  DG_ASSIGN_OR_RETURN(p->frame, p->call->Wait(deadline));
  Decoder d = p->frame.decoder("SAMPLE_NEIGHBORS reply");
  p->counts = d.Ids();
  p->src = d.Ids();
  p->eids = d.Ids();
  if (spec.typed()) p->etypes = d.ArrayView();
  DG_RETURN_IF_ERROR(d.Finish());
  return CheckSampleReply(p->n, p->counts, p->src, p->eids, spec.typed() ? &p->etypes : nullptr, spec.edge_ids);
}

// Counts into caller order, prefix sums, then each part's runs into place.
template <typename Part>
SampledEdges MergeSampleParts(const std::vector<Part>& parts, size_t n, const SampleSpec& spec) {
  SampledEdges out;
  out.offsets.assign(n + 1, 0);
  for (const Part& p : parts) {
    const int64_t* c = p.counts.template as<int64_t>();
    for (size_t i = 0; i < p.n; ++i) out.offsets[p.pos[i] + 1] = c[i];
  }
  for (size_t i = 0; i < n; ++i) out.offsets[i + 1] += out.offsets[i];
  const bool typed = spec.typed();
  out.src.resize(out.offsets[n]);
  if (spec.edge_ids) out.eids.resize(out.offsets[n]);
  if (typed) out.etypes.resize(out.offsets[n]);
  for (const Part& p : parts) {
    const int64_t* c = p.counts.template as<int64_t>();
    const int64_t* s = p.src.template as<int64_t>();
    const int64_t* e = p.eids.template as<int64_t>();
    const uint8_t* t = typed ? p.etypes.template as<uint8_t>() : nullptr;
    int64_t run = 0;
    for (size_t i = 0; i < p.n; ++i) {
      const int64_t at = out.offsets[p.pos[i]];
      std::memcpy(out.src.data() + at, s + run, c[i] * sizeof(int64_t));
      if (spec.edge_ids) std::memcpy(out.eids.data() + at, e + run, c[i] * sizeof(int64_t));
      if (typed) std::memcpy(out.etypes.data() + at, t + run, c[i]);
      run += c[i];
    }
  }
  return out;
}

}  // namespace

Result<SampledEdges> DistGraphClient::SampleNeighbors(const int64_t* seeds, size_t n, const SampleSpec& spec) {
  if (n == 0) {
    SampledEdges out;
    out.offsets.assign(1, 0);
    return out;
  }
  std::vector<Piece> pieces;
  DG_RETURN_IF_ERROR(SplitByOwner("SampleNeighbors", seeds, n, &pieces));
  const auto deadline = Deadline();
  std::vector<SamplePart> parts;
  StartSampleRequests(pieces, spec, &parts);
  DG_RETURN_IF_ERROR(SampleLocalParts(pieces, spec, &parts));
  Status first_error;
  for (SamplePart& p : parts) {
    if (!p.call) continue;
    Status st = ReceiveSamplePart(&p, spec, deadline);
    if (!st.ok() && first_error.ok()) first_error = st;
  }
  if (!first_error.ok()) return first_error;
  return MergeSampleParts(parts, n, spec);
}

Result<std::vector<int64_t>> DistGraphClient::InDegrees(const std::vector<int64_t>& ids) {
  std::vector<int64_t> out(ids.size());
  if (ids.empty()) return out;
  std::vector<Piece> pieces;
  DG_RETURN_IF_ERROR(SplitByOwner("InDegrees", ids.data(), ids.size(), &pieces));
  const auto deadline = Deadline();
  std::vector<Sent> sent;
  for (const Piece& pc : pieces) {
    if (is_local(pc.part)) {
      DG_RETURN_IF_ERROR(local_[pc.part]->InDegrees(pc.ids->data(), pc.ids->size(), out.data(), pc.pos.data()));
      continue;
    }
    Encoder e;
    EncodeInDegrees(&e, IdsSlice(pc.ids, 0, pc.ids->size()));
    Sent s;
    s.call = Channel(pc.part, false)->Start(MsgType::kInDegrees, e.Finish());
    s.pos = pc.pos.data();
    s.n = pc.ids->size();
    sent.push_back(std::move(s));
  }
  Status first_error;
  for (Sent& s : sent) {
    auto f = s.call->Wait(deadline);
    Status st = f.status();
    Array deg;
    if (f.ok()) {
      Decoder d = f->decoder("IN_DEGREES reply");
      deg = d.Ids();
      st = d.Finish();
      if (st.ok() && deg.numel() != static_cast<int64_t>(s.n)) st = Status::Protocol("IN_DEGREES reply: wrong length");
    }
    if (!st.ok()) {
      if (first_error.ok()) first_error = st;
      continue;
    }
    for (size_t i = 0; i < s.n; ++i) out[s.pos[i]] = deg.as<int64_t>()[i];
  }
  if (!first_error.ok()) return first_error;
  return out;
}

Status DistGraphClient::InitTensor(const InitTensorSpec& spec) {
  const auto deadline = Deadline();
  std::vector<std::shared_ptr<PendingCall>> calls;
  for (int p = 0; p < config_.num_parts; ++p) {
    Encoder e;
    EncodeInitTensor(&e, spec);
    calls.push_back(Channel(p, true)->Start(MsgType::kInitTensor, e.Finish()));
  }
  DG_RETURN_IF_ERROR(WaitAll(calls, deadline));
  std::lock_guard<std::mutex> l(meta_mu_);
  mutable_meta_[spec.name] = TensorMeta{spec.name, TensorKind::kMutableNode, spec.dtype, spec.shape};
  return Status::OK();
}

Status DistGraphClient::SaveTensor(const std::string& name) {
  const auto deadline = Deadline();
  std::vector<std::shared_ptr<PendingCall>> calls;
  for (int p = 0; p < config_.num_parts; ++p) {
    Encoder e;
    EncodeSaveTensor(&e, name);
    calls.push_back(Channel(p, true)->Start(MsgType::kSaveTensor, e.Finish()));
  }
  return WaitAll(calls, deadline);
}

Status DistGraphClient::SparseUpdate(const std::string& name, const SparseOptimizerSpec& opt, uint64_t step,
                                     uint32_t contributors, uint32_t rank, const std::vector<int64_t>& ids,
                                     const Array& grads) {
  if (grads.dtype != DType::kFloat32 || grads.shape.empty() || grads.rows() != static_cast<int64_t>(ids.size())) {
    return Status::InvalidArgument("SparseUpdate '" + name + "': " + std::to_string(ids.size()) +
                                   " ids need float32 grads [" + std::to_string(ids.size()) + ", ...], got " +
                                   DTypeName(grads.dtype) + " " + grads.ShapeString());
  }
  std::vector<Piece> pieces;
  DG_RETURN_IF_ERROR(SplitByOwner("SparseUpdate", ids.data(), ids.size(), &pieces, /*keep_empty=*/true));
  const auto deadline = Deadline();
  std::vector<std::shared_ptr<PendingCall>> calls;
  for (const Piece& pc : pieces) {
    SparseUpdateRequest r;
    r.name = name;
    r.optimizer = opt;
    r.step = step;
    r.contributors = contributors;
    r.rank = rank;
    r.ids = IdsSlice(pc.ids, 0, pc.ids->size());
    DG_ASSIGN_OR_RETURN(r.grads, GatherPieceRows(pc, grads));
    Encoder e;
    EncodeSparseUpdate(&e, r);
    calls.push_back(Channel(pc.part, true)->Start(MsgType::kSparseUpdate, e.Finish()));
  }
  return WaitAll(calls, deadline);
}

Status DistGraphClient::Barrier(const std::string& name, uint32_t participants, double timeout_s) {
  Encoder e;
  EncodeBarrier(&e, BarrierRequest{name, participants});
  auto f = channels_[0][0]->Start(MsgType::kBarrier, e.Finish())->Wait(Deadline(timeout_s));
  return f.status();
}

Result<std::vector<MetadataReply>> DistGraphClient::Metadata() {
  std::vector<MetadataReply> out;
  for (int p = 0; p < config_.num_parts; ++p) {
    auto f = channels_[p][0]->Call(MsgType::kMetadata, BufferList(), options_.deadline_seconds);
    if (!f.ok()) return f.status();
    DG_ASSIGN_OR_RETURN(MetadataReply m, DecodeMetadataReply(*f));
    out.push_back(std::move(m));
  }
  return out;
}

Result<StatsReply> DistGraphClient::Stats(int part, int index) {
  if (part < 0 || part >= config_.num_parts || index < 0 || index >= (int)channels_[part].size()) {
    return Status::InvalidArgument("Stats: no server " + std::to_string(part) + "/" + std::to_string(index));
  }
  auto f = channels_[part][index]->Call(MsgType::kStats, BufferList(), options_.deadline_seconds);
  if (!f.ok()) return f.status();
  return DecodeStatsReply(*f);
}

Status DistGraphClient::Shutdown(int part, int index) {
  if (part < 0 || part >= config_.num_parts || index < 0 || index >= (int)channels_[part].size()) {
    return Status::InvalidArgument("Shutdown: no server " + std::to_string(part) + "/" + std::to_string(index));
  }
  return channels_[part][index]->Call(MsgType::kShutdown, BufferList(), options_.deadline_seconds).status();
}

Status DistGraphClient::ShutdownAll() {
  Status first_error;
  for (int p = 0; p < config_.num_parts; ++p)
    for (int i = 0; i < (int)channels_[p].size(); ++i) {
      Status st = Shutdown(p, i);
      if (!st.ok() && first_error.ok()) first_error = st;
    }
  return first_error;
}

}  // namespace dg

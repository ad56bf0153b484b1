// GraphServer::MetricsText: what the server's /metrics endpoint serves.
//   distgnn_server_info{part,index,graph}            1
//   distgnn_server_uptime_seconds, distgnn_server_connections (open),
//   distgnn_server_connections_total (accepted), distgnn_server_inflight_requests
//   distgnn_server_requests_total{type} ... request_duration_seconds{type} (RequestStats)
//   distgnn_server_tensor_elements{name,kind,dtype}, distgnn_server_tensor_bytes{...}
//   distgnn_message_bytes_total{type,direction} (every frame, common/net/message_bytes.h)
//   distgnn_process_* (RSS, peak RSS)
#include "roles/server/graph_server.h"

#include "common/net/message_bytes.h"
#include "common/net/prometheus.h"

namespace dg {

std::string GraphServer::MetricsText() {
  PromText out;
  const double uptime = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  size_t open = 0;
  uint64_t total = 0;
  {
    std::lock_guard<std::mutex> l(mu_);
    open = sessions_.size();
    total = total_connections_;
  }
  out.Gauge("distgnn_server_info", "This server: partition, index on it, graph.", 1,
            {{"part", std::to_string(options_.part)},
             {"index", std::to_string(options_.index)},
             {"graph", config_.graph_name}});
  out.Gauge("distgnn_server_uptime_seconds", "Seconds since the server started.", uptime);
  out.Gauge("distgnn_server_connections", "Open client connections.", double(open));
  out.Counter("distgnn_server_connections_total", "Client connections accepted.", double(total));
  out.Gauge("distgnn_server_inflight_requests", "Requests being executed.", double(inflight_.load()));
  stats_.WritePrometheus(&out);
  WriteMessageBytesMetrics(&out);
  for (const auto& t : store_->ListTensors()) {
    int64_t elems = 1;
    for (int64_t d : t.shape) elems *= d;
    const PromText::Labels l{{"name", t.name}, {"kind", TensorKindName(t.kind)}, {"dtype", DTypeName(t.dtype)}};
    out.Gauge("distgnn_server_tensor_elements", "Elements of a tensor this server serves (global shape).",
              double(elems), l);
    out.Gauge("distgnn_server_tensor_bytes", "Bytes of a tensor this server serves (global shape).",
              double(elems) * double(DTypeSize(t.dtype)), l);
  }
  AddProcessMetrics(&out, uptime);
  return out.str();
}

}  // namespace dg

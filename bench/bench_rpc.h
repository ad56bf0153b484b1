// `distgnn bench rpc`: data-plane throughput, measured in one run against a
// ceiling measured in the same run.
//
//  1. socket: a raw loopback Asio socket blast (one writer thread, one reader
//     thread, 4 MiB writes) -- the ceiling.
//  2. pull: PULL of 100-dim float32 rows, 10k random ids per call, over the
//     socket (local shortcut off), 1 and 4 client threads.
//  3. sparse: SPARSE_UPDATE (sparse_adagrad, W = 1, 10k random ids per call,
//     one request per call) on a float32 [nodes, 64] and [nodes, 128] mutable
//     tensor, in rows/s, against PULL rows/s of the same tensor in the same run.
//  4. sample: SAMPLE_NEIGHBORS on a synthetic power-law graph, fanout 10 and
//     25, against a server with --threads 1, as sampled edges/s per server thread.
//
// Servers are child processes of this one: fork + exec of /proc/self/exe
// `--role server` on 127.0.0.1 with an ephemeral port; they get SHUTDOWN at the end.
// Prints a table and, last, one JSON line.
#pragma once

#include <cstdint>
#include <string>

#include "common/base/status.h"

namespace dg {

struct BenchRpcOptions {
  int64_t nodes = 200000;         // feature table rows for PULL
  int64_t feat_dim = 100;         // float32 features per row
  int64_t ids_per_call = 10000;   // random ids per PULL
  int64_t sample_nodes = 200000;  // power-law graph for SAMPLE_NEIGHBORS
  int64_t sample_edges = 4000000;
  int64_t batch = 1000;           // seeds per SAMPLE_NEIGHBORS call
  double seconds = 3.0;           // per measurement
  int server_threads = 2;         // threads of the PULL server
  std::string workdir;            // where the graphs go; "" = a temp dir
};

Status BenchRpc(const BenchRpcOptions& options);

}  // namespace dg

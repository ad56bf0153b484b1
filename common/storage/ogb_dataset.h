// OGB's node property datasets read as they are downloaded (`--format ogb`),
// no conversion step (docs/formats.md, "OGB datasets"):
//
// Homogeneous (ogbn-products, ogbn-arxiv, ...), into a Dataset:
//   raw/edge.csv.gz              "src,dst" per line
//   raw/num-node-list.csv.gz     the node count (optional: else node-feat rows, else max id + 1)
//   raw/node-feat.csv.gz         F comma-separated floats per node   -> features float32 [N, F]
//   raw/node-label.csv.gz        one label per node (nan = none)     -> labels int64 [N] (-1 = none)
//   split/<name>/{train,valid,test}.csv.gz   one node id per line   -> split int8 [N]
//
// Heterogeneous (ogbn-mag), into a TypedDataset:
//   raw/num-node-dict.csv.gz     header "type,type,..." then the counts (node type order)
//   raw/relations/<src>___<rel>___<dst>/edge.csv.gz   (edge types in name order)
//   raw/node-feat/<type>/node-feat.csv.gz, raw/node-label/<type>/node-label.csv.gz
//   split/<name>/<type>/{train,valid,test}.csv.gz
// The target is the type with labels; num_classes = 1 + its largest label.
// split/ must hold one split directory (OGB ships one per dataset). Every
// error names the file (and line).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "common/base/status.h"
#include "common/io/csv_reader.h"
#include "common/storage/dataset.h"
#include "common/storage/typed_dataset.h"

namespace dg {

// True if dir is OGB's heterogeneous layout (raw/num-node-dict.csv.gz).
bool IsOgbHeterogeneous(const std::string& dir);

// Edges as in the files (opts applied: undirected, self loops, duplicates).
Result<Dataset> LoadOgbDataset(const std::string& dir, const EdgeListOptions& opts);
Result<TypedDataset> LoadOgbTypedDataset(const std::string& dir, const TypedLoadOptions& opts);

// The pieces both readers share with the streamed one (roles/partition/
// ogb_input.h), which writes the node files into .npy files a chunk at a time.

// "<base>.csv.gz", or "<base>.csv" if only that exists.
std::string OgbCsvPath(const std::string& base);
bool OgbFileExists(const std::string& path);
// The count on line 1 of num-node-list / num-edge-list (first field).
Result<int64_t> ReadOgbCount(const std::string& path);
// DIR/split/<name> if DIR/split holds one split, "" if none; an error if several.
Result<std::string> OgbSplitDir(const std::string& dir);
// The sorted subdirectory names of dir.
std::vector<std::string> OgbSubDirs(const std::string& dir);

// fn(row, values, F) per line of a node-feat CSV; every line has line 1's F
// values (else an error naming file:line). *rows = the lines read. With a
// range (common/io/csv_reader.h), only its rows are parsed (and line 1, for
// F) and *rows counts the lines up to where the read stopped.
using OgbFeatureFn = std::function<Status(int64_t row, const double* values, int64_t f)>;
Status ForEachOgbFeatureRow(const std::string& path, const OgbFeatureFn& fn, int64_t* rows, CsvRowRange range = {});
// fn(label) per line of a node-label CSV (nan -> -1). *rows = the lines read
// (with a range: as ForEachOgbFeatureRow).
Status ForEachOgbLabel(const std::string& path, const std::function<Status(int64_t)>& fn, int64_t* rows,
                       CsvRowRange range = {});
// The number of feature values per row of a node-feat CSV (line 1's), 0 when empty.
Result<int64_t> OgbFeatureWidth(const std::string& path);
// Fills split[0, n) from split_dir/{train,valid,test}.csv.gz (0, 1, 2; others
// untouched); ids outside [0, n) are an error naming file:line. With shares > 1
// each file's lines are counted (not parsed) and only share `share` of them,
// lines [share L / shares, (share+1) L / shares), is parsed: a rank of a
// distributed run fills the ids of its lines (a later file's value is the
// larger, so the ranks' arrays combine by maximum into the whole one).
Status FillOgbSplit(const std::string& split_dir, int64_t n, int8_t* split, int share = 0, int shares = 1);
// The split as int8 [n] (-1 = in none), filled by FillOgbSplit.
Result<Array> ReadOgbSplit(const std::string& split_dir, int64_t n, int share = 0, int shares = 1);
// The typed layout without its edges or arrays: node types with their counts
// (num-node-dict order), edge types in relation directory name order.
Result<TypedDataset> ReadOgbTypedMeta(const std::string& dir);
// raw/relations/<src>___<rel>___<dst>/edge.csv.gz of an edge type.
std::string OgbEdgeFile(const std::string& dir, const EdgeTypeData& et);
// raw/<what>/<type>/<what>.csv.gz (what: node-feat, node-label).
std::string OgbTypeFile(const std::string& dir, const std::string& type, const std::string& what);
// The target type: the one with labels (an error if two have), else the first
// with a directory in split ("" = none).
Result<std::string> OgbTypedTarget(const std::string& dir, const TypedDataset& meta, const std::string& split);
// "<path>: R rows, expected N (one per node)" when rows != expected (expected >= 0).
Status CheckOgbRows(const std::string& path, int64_t rows, int64_t expected, const std::string& what);

}  // namespace dg

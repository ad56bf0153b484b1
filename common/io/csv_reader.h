// Numeric CSV files, plain or gzip (OGB's raw/*.csv.gz): one row per line,
// fields separated by ',', no quoting. Values are parsed as doubles ("nan"
// allowed: OGB marks unlabeled nodes so); an empty line is a row of zero
// fields. Errors name file:line and the bad field.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/base/status.h"

namespace dg {

// fn(row, values, n) for each data row (0-based, after skip_lines lines).
using CsvRowFn = std::function<Status(int64_t row, const double* values, int64_t n)>;
Status ForEachCsvRow(const std::string& path, int skip_lines, const CsvRowFn& fn);

// Data rows [first, end) of a file: the rows before `first` are counted, not
// parsed (the gzip stream is still inflated up to them), and the read stops
// after row end - 1, so ranks of a distributed run each parse their own rows.
// *seen = the data rows of the file up to where the read stopped (all of them
// when it read to the end). Errors name the file's line, as ForEachCsvRow.
struct CsvRowRange {
  int64_t first = 0;
  int64_t end = INT64_MAX;
};
Status ForEachCsvRowIn(const std::string& path, int skip_lines, CsvRowRange range, const CsvRowFn& fn,
                       int64_t* seen);
// Share `share` of `shares` of n rows: [share n / shares, (share+1) n / shares).
CsvRowRange ShareOfRows(int share, int shares, int64_t n);
// The data rows of a file (after skip_lines lines), counted, not parsed.
Result<int64_t> CountCsvRows(const std::string& path, int skip_lines = 0);

// The lines of a small text file (plain or gzip), without their '\n' / "\r\n".
Result<std::vector<std::string>> ReadTextLines(const std::string& path);

}  // namespace dg

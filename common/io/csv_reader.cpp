#include "common/io/csv_reader.h"

#include <charconv>
#include <cstring>

#include "common/io/gzip_reader.h"

namespace dg {

namespace {

// Parses the fields of one line [p, end) into *out.
Status ParseLine(const std::string& path, int64_t line, const char* p, const char* end, std::vector<double>* out) {
  out->clear();
  if (end > p && end[-1] == '\r') --end;
  if (p == end) return Status::OK();
  while (true) {
    const char* comma = static_cast<const char*>(std::memchr(p, ',', end - p));
    const char* fe = comma ? comma : end;
    const char* a = p;
    const char* b = fe;
    while (a < b && (*a == ' ' || *a == '\t')) ++a;
    while (b > a && (b[-1] == ' ' || b[-1] == '\t')) --b;
    if (a < b && *a == '+') ++a;
    double v = 0;
    auto [ptr, ec] = std::from_chars(a, b, v);
    if (a == b || ec != std::errc() || ptr != b)
      return Status::InvalidArgument(path + ":" + std::to_string(line) + ": field " + std::to_string(out->size() + 1) +
                                     " '" + std::string(p, fe) + "' is not a number");
    out->push_back(v);
    if (!comma) break;
    p = comma + 1;
  }
  return Status::OK();
}

}  // namespace

Status ForEachCsvRow(const std::string& path, int skip_lines, const CsvRowFn& fn) {
  int64_t seen = 0;
  return ForEachCsvRowIn(path, skip_lines, CsvRowRange{}, fn, &seen);
}

Status ForEachCsvRowIn(const std::string& path, int skip_lines, CsvRowRange range, const CsvRowFn& fn,
                       int64_t* seen) {
  GzipFile f;
  DG_RETURN_IF_ERROR(f.Open(path));
  constexpr size_t kBlock = 8 << 20;
  std::vector<char> buf;
  std::vector<double> values;
  int64_t line = 0, row = 0;
  bool eof = false;
  while (!eof && row < range.end) {
    const size_t have = buf.size();
    buf.resize(have + kBlock);
    size_t got = 0;
    DG_RETURN_IF_ERROR(f.Read(buf.data() + have, kBlock, &got));
    buf.resize(have + got);
    eof = got < kBlock;
    const char* p = buf.data();
    const char* end = buf.data() + buf.size();
    while (p < end && row < range.end) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
      if (!nl && !eof) break;  // an incomplete line: read more
      const char* le = nl ? nl : end;
      ++line;
      if (line > skip_lines) {
        if (row >= range.first) {
          DG_RETURN_IF_ERROR(ParseLine(path, line, p, le, &values));
          DG_RETURN_IF_ERROR(fn(row, values.data(), static_cast<int64_t>(values.size())));
        }
        ++row;
      }
      p = nl ? nl + 1 : end;
    }
    buf.erase(buf.begin(), buf.begin() + (p - buf.data()));
  }
  *seen = row;
  return Status::OK();
}

CsvRowRange ShareOfRows(int share, int shares, int64_t n) {
  return {static_cast<int64_t>((static_cast<__int128>(share) * n) / shares),
          static_cast<int64_t>((static_cast<__int128>(share + 1) * n) / shares)};
}

Result<int64_t> CountCsvRows(const std::string& path, int skip_lines) {
  int64_t seen = 0;
  DG_RETURN_IF_ERROR(ForEachCsvRowIn(path, skip_lines, CsvRowRange{INT64_MAX, INT64_MAX},
                                     [](int64_t, const double*, int64_t) { return Status::OK(); }, &seen));
  return seen;
}

Result<std::vector<std::string>> ReadTextLines(const std::string& path) {
  DG_ASSIGN_OR_RETURN(std::vector<char> bytes, ReadWholeFile(path));
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t i = 0; i <= bytes.size(); ++i) {
    if (i == bytes.size() || bytes[i] == '\n') {
      if (i == bytes.size() && start == i) break;
      std::string l(bytes.data() + start, bytes.data() + i);
      if (!l.empty() && l.back() == '\r') l.pop_back();
      lines.push_back(std::move(l));
      start = i + 1;
    }
  }
  return lines;
}

}  // namespace dg

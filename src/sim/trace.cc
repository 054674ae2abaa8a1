#include "sim/trace.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "absl/strings/numbers.h"
#include "common/str_cat.h"

namespace draplane::sim {

namespace {

// One CSV line split at commas (the trace has no quoted fields; a quote
// is refused rather than misread).
absl::StatusOr<std::vector<std::string_view>> SplitLine(
    std::string_view line, std::string_view where) {
  if (line.find('"') != std::string_view::npos) {
    return absl::InvalidArgumentError(
        StrCat(where, ": quoted CSV fields are not supported"));
  }
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    if (comma == std::string_view::npos) {
      fields.push_back(line.substr(start));
      break;
    }
    fields.push_back(line.substr(start, comma - start));
    start = comma + 1;
  }
  return fields;
}

// The rows of a CSV text with named columns.
class Table {
 public:
  static absl::StatusOr<Table> Parse(std::string_view text,
                                     std::string_view file,
                                     const std::vector<std::string>& required) {
    Table t;
    t.file_ = std::string(file);
    size_t pos = 0;
    int line_no = 0;
    while (pos <= text.size()) {
      size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      std::string_view line = text.substr(pos, end - pos);
      pos = end + 1;
      ++line_no;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.empty()) {
        if (pos > text.size()) break;
        continue;
      }
      std::string where = StrCat(file, ":", line_no);
      absl::StatusOr<std::vector<std::string_view>> fields =
          SplitLine(line, where);
      if (!fields.ok()) return fields.status();
      if (t.columns_.empty()) {
        for (size_t i = 0; i < fields->size(); ++i) {
          t.columns_[std::string((*fields)[i])] = i;
        }
        for (const std::string& name : required) {
          if (t.columns_.count(name) == 0) {
            return absl::InvalidArgumentError(
                StrCat(where, ": missing column \"", name, "\""));
          }
        }
        t.width_ = fields->size();
        continue;
      }
      if (fields->size() != t.width_) {
        return absl::InvalidArgumentError(StrCat(
            where, ": ", fields->size(), " fields, the header has ", t.width_));
      }
      t.rows_.push_back(Row{
          line_no, std::vector<std::string>(fields->begin(), fields->end())});
    }
    if (t.columns_.empty()) {
      return absl::InvalidArgumentError(StrCat(file, ": empty file"));
    }
    return t;
  }

  struct Row {
    int line = 0;
    std::vector<std::string> fields;
  };
  const std::vector<Row>& rows() const { return rows_; }
  bool Has(const std::string& column) const {
    return columns_.count(column) > 0;
  }
  const std::string& Field(const Row& row, const std::string& column) const {
    return row.fields[columns_.at(column)];
  }
  std::string Where(const Row& row) const {
    return StrCat(file_, ":", row.line);
  }
  absl::StatusOr<int64_t> Int(const Row& row, const std::string& column) const {
    const std::string& text = Field(row, column);
    int64_t v = 0;
    if (!absl::SimpleAtoi(absl::string_view(text.data(), text.size()), &v) ||
        v < 0) {
      return absl::InvalidArgumentError(
          StrCat(Where(row), ": column ", column, ": \"", text,
                 "\" is not a non-negative integer"));
    }
    return v;
  }

 private:
  std::string file_;
  std::map<std::string, size_t> columns_;
  size_t width_ = 0;
  std::vector<Row> rows_;
};

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(StrCat(path, ": cannot open"));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

absl::StatusOr<std::vector<TraceNode>> ParseNodeList(std::string_view text,
                                                     std::string_view file) {
  absl::StatusOr<Table> table = Table::Parse(
      text, file, {"sn", "cpu_milli", "memory_mib", "gpu", "model"});
  if (!table.ok()) return table.status();
  std::vector<TraceNode> nodes;
  std::set<std::string> names;
  for (const Table::Row& row : table->rows()) {
    TraceNode n;
    n.name = table->Field(row, "sn");
    auto cpu = table->Int(row, "cpu_milli");
    auto mem = table->Int(row, "memory_mib");
    auto gpu = table->Int(row, "gpu");
    for (const auto* v : {&cpu, &mem, &gpu}) {
      if (!v->ok()) return v->status();
    }
    n.cpu_milli = *cpu;
    n.memory_mib = *mem;
    n.gpus = static_cast<int>(*gpu);
    n.model = table->Field(row, "model");
    if (n.name.empty()) {
      return absl::InvalidArgumentError(
          StrCat(table->Where(row), ": column sn: empty node name"));
    }
    if (n.gpus > 0 && n.model.empty()) {
      return absl::InvalidArgumentError(StrCat(
          table->Where(row), ": node ", n.name, " has GPUs but no model"));
    }
    if (!names.insert(n.name).second) {
      return absl::InvalidArgumentError(
          StrCat(table->Where(row), ": duplicate node ", n.name));
    }
    nodes.push_back(std::move(n));
  }
  return nodes;
}

absl::StatusOr<std::vector<TracePod>> ParsePodList(std::string_view text,
                                                   std::string_view file) {
  absl::StatusOr<Table> table = Table::Parse(
      text, file, {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"});
  if (!table.ok()) return table.status();
  const bool has_spec = table->Has("gpu_spec");
  std::vector<TracePod> pods;
  for (const Table::Row& row : table->rows()) {
    TracePod p;
    p.name = table->Field(row, "name");
    auto cpu = table->Int(row, "cpu_milli");
    auto mem = table->Int(row, "memory_mib");
    auto gpus = table->Int(row, "num_gpu");
    auto milli = table->Int(row, "gpu_milli");
    for (const auto* v : {&cpu, &mem, &gpus, &milli}) {
      if (!v->ok()) return v->status();
    }
    p.cpu_milli = *cpu;
    p.memory_mib = *mem;
    p.num_gpu = static_cast<int>(*gpus);
    p.gpu_milli = *milli;
    const std::string where = table->Where(row);
    if (p.gpu_milli > 1000) {
      return absl::InvalidArgumentError(
          StrCat(where, ": column gpu_milli: ", p.gpu_milli, " is above 1000"));
    }
    if (p.num_gpu > 0 && p.gpu_milli == 0) {
      return absl::InvalidArgumentError(StrCat(where, ": pod ", p.name,
                                               " asks for ", p.num_gpu,
                                               " GPUs with gpu_milli 0"));
    }
    if (p.num_gpu == 0 && p.gpu_milli != 0) {
      p.gpu_milli = 0;  // a share of no GPU asks for nothing
    }
    if (p.num_gpu > 1 && p.gpu_milli < 1000) {
      return absl::InvalidArgumentError(StrCat(
          where, ": pod ", p.name, " shares (gpu_milli ", p.gpu_milli,
          ") across ", p.num_gpu, " GPUs; only single-GPU pods may share"));
    }
    if (has_spec) {
      std::string spec = table->Field(row, "gpu_spec");
      size_t start = 0;
      while (!spec.empty() && start <= spec.size()) {
        size_t bar = spec.find('|', start);
        if (bar == std::string::npos) bar = spec.size();
        std::string model = spec.substr(start, bar - start);
        if (!model.empty()) p.gpu_spec.push_back(model);
        start = bar + 1;
      }
      std::sort(p.gpu_spec.begin(), p.gpu_spec.end());
      p.gpu_spec.erase(std::unique(p.gpu_spec.begin(), p.gpu_spec.end()),
                       p.gpu_spec.end());
    }
    pods.push_back(std::move(p));
  }
  return pods;
}

absl::StatusOr<std::vector<TraceNode>> LoadNodeList(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  return ParseNodeList(*text, path);
}

absl::StatusOr<std::vector<TracePod>> LoadPodList(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  return ParsePodList(*text, path);
}

}  // namespace draplane::sim

#include "auth/token_file.h"

#include <fstream>
#include <map>
#include <sstream>
#include <utility>

#include "common/str_cat.h"
#include "common/str_split.h"

namespace draplane::auth {
namespace {

// One CSV record from `in` at `pos` (advanced past it), Go encoding/csv's
// rules; `line` counts the lines read so far.
absl::StatusOr<std::vector<std::string>> ReadRecord(std::string_view in,
                                                    size_t& pos, int& line,
                                                    std::string_view path) {
  std::vector<std::string> fields;
  std::string field;
  const int start_line = line;
  bool quoted = false;  // inside a quoted field
  bool field_start = true;
  while (pos < in.size()) {
    char c = in[pos++];
    if (c == '\r' && pos < in.size() && in[pos] == '\n') continue;
    if (quoted) {
      if (c == '"') {
        if (pos < in.size() && in[pos] == '"') {
          field += '"';
          ++pos;
        } else {
          quoted = false;
          if (pos < in.size() && in[pos] != ',' && in[pos] != '\n' &&
              in[pos] != '\r') {
            return absl::InvalidArgumentError(
                StrCat(path, ": line ", line,
                       ": extraneous or missing \" in "
                       "quoted-field"));
          }
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    if (c == '"') {
      if (!field_start) {
        return absl::InvalidArgumentError(
            StrCat(path, ": line ", line, ": bare \" in non-quoted-field"));
      }
      quoted = true;
      field_start = false;
      continue;
    }
    if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
      field_start = true;
      continue;
    }
    if (c == '\n') {
      ++line;
      break;
    }
    field += c;
    field_start = false;
  }
  if (quoted) {
    return absl::InvalidArgumentError(StrCat(path, ": line ", start_line,
                                             ": extraneous or missing \" in "
                                             "quoted-field"));
  }
  fields.push_back(std::move(field));
  return fields;
}

}  // namespace

absl::StatusOr<std::vector<StaticToken>> ParseTokenFile(
    std::string_view content, std::string_view path) {
  std::vector<StaticToken> tokens;
  std::map<std::string, size_t, std::less<>> index;
  size_t pos = 0;
  int line = 1;
  while (pos < content.size()) {
    const int record_line = line;
    // Blank lines are no records.
    if (content[pos] == '\n' ||
        (content[pos] == '\r' && pos + 1 < content.size() &&
         content[pos + 1] == '\n')) {
      pos += content[pos] == '\n' ? 1 : 2;
      ++line;
      continue;
    }
    absl::StatusOr<std::vector<std::string>> record =
        ReadRecord(content, pos, line, path);
    if (!record.ok()) return record.status();
    if (record->size() < 3) {
      return absl::InvalidArgumentError(
          StrCat("token file '", path,
                 "' must have at least 3 columns "
                 "(token, user name, user uid), found ",
                 record->size(), " (line ", record_line, ")"));
    }
    if ((*record)[0].empty()) continue;
    StaticToken t;
    t.token = (*record)[0];
    t.user.name = (*record)[1];
    t.user.uid = (*record)[2];
    if (record->size() >= 4) {
      for (std::string_view group : StrSplit((*record)[3], ',')) {
        t.user.groups.emplace_back(group);
      }
    }
    auto [it, inserted] = index.emplace(t.token, tokens.size());
    if (inserted) {
      tokens.push_back(std::move(t));
    } else {
      tokens[it->second] = std::move(t);
    }
  }
  return tokens;
}

absl::StatusOr<std::vector<StaticToken>> ReadTokenFile(
    const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(StrCat("cannot read token file '", path, "'"));
  }
  std::ostringstream content;
  content << in.rdbuf();
  return ParseTokenFile(content.str(), path);
}

}  // namespace draplane::auth

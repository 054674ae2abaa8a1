// DebugString: cel-go's parser debug format of an expression tree
// (parser/unparser_test and debug.ToDebugString), with node ids and,
// optionally, positions.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "cel/internal/ast.h"
#include "cel/internal/parser.h"
#include "common/str_cat.h"

namespace draplane::cel::internal {
namespace {

void AppendEscaped(std::string_view s, bool bytes, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        *out += "\\\"";
        continue;
      case '\\':
        *out += "\\\\";
        continue;
      case '\n':
        *out += "\\n";
        continue;
      case '\r':
        *out += "\\r";
        continue;
      case '\t':
        *out += "\\t";
        continue;
      default:
        break;
    }
    if (c < 0x20 || c == 0x7F || (bytes && c >= 0x80)) {
      *out += "\\x";
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 0xF]);
    } else {
      out->push_back(ch);
    }
  }
}

class DebugPrinter {
 public:
  explicit DebugPrinter(bool with_positions) : positions_(with_positions) {}

  void Print(const Expr& e, std::string* out) {
    std::visit([&](const auto& kind) { PrintKind(e, kind, out); }, e.kind);
  }

 private:
  void Id(const Expr& e, std::string* out) {
    StrAppend(out, "#", e.id);
    if (positions_) StrAppend(out, "@", e.position);
  }
  void EntryId(int64_t id, int32_t position, std::string* out) {
    StrAppend(out, "@", id);
    if (positions_) StrAppend(out, "@", position);
  }
  void PrintOrNull(const ExprPtr& e, std::string* out) {
    if (e == nullptr) {
      *out += "<null>";
    } else {
      Print(*e, out);
    }
  }

  void PrintKind(const Expr& e, const ConstExpr& c, std::string* out) {
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, NullValue>) {
            *out += "null";
          } else if constexpr (std::is_same_v<T, bool>) {
            *out += v ? "true" : "false";
          } else if constexpr (std::is_same_v<T, int64_t>) {
            StrAppend(out, v);
          } else if constexpr (std::is_same_v<T, uint64_t>) {
            StrAppend(out, v, "u");
          } else if constexpr (std::is_same_v<T, double>) {
            char buf[64];
            auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), v);
            std::string s(buf, ptr);
            if (s.find_first_of(".en") == std::string::npos) s += ".0";
            *out += s;
          } else if constexpr (std::is_same_v<T, std::string>) {
            *out += "\"";
            AppendEscaped(v, false, out);
            *out += "\"";
          } else {
            *out += "b\"";
            AppendEscaped(v.bytes, true, out);
            *out += "\"";
          }
        },
        c.value);
    Id(e, out);
  }
  void PrintKind(const Expr& e, const IdentExpr& i, std::string* out) {
    *out += i.name;
    Id(e, out);
  }
  void PrintKind(const Expr& e, const SelectExpr& s, std::string* out) {
    if (s.test_only) *out += "has(";
    PrintOrNull(s.operand, out);
    StrAppend(out, ".", s.field);
    if (s.test_only) *out += ")";
    Id(e, out);
  }
  void PrintKind(const Expr& e, const CallExpr& c, std::string* out) {
    if (c.target != nullptr) {
      PrintOrNull(c.target, out);
      *out += ".";
    }
    StrAppend(out, "(", c.function);
    for (const ExprPtr& arg : c.args) {
      *out += " ";
      PrintOrNull(arg, out);
    }
    *out += ")";
    Id(e, out);
  }
  void PrintKind(const Expr& e, const ListExpr& l, std::string* out) {
    *out += "[";
    for (size_t i = 0; i < l.elements.size(); ++i) {
      if (i > 0) *out += " ";
      if (std::find(l.optional_indices.begin(), l.optional_indices.end(),
                    static_cast<int32_t>(i)) != l.optional_indices.end()) {
        *out += "?";
      }
      PrintOrNull(l.elements[i], out);
    }
    *out += "]";
    Id(e, out);
  }
  void PrintKind(const Expr& e, const MapExpr& m, std::string* out) {
    *out += "{";
    for (size_t i = 0; i < m.entries.size(); ++i) {
      const MapEntry& entry = m.entries[i];
      if (i > 0) *out += " ";
      if (entry.optional) *out += "?";
      PrintOrNull(entry.key, out);
      *out += ":";
      PrintOrNull(entry.value, out);
      EntryId(entry.id, entry.position, out);
    }
    *out += "}";
    Id(e, out);
  }
  void PrintKind(const Expr& e, const StructExpr& s, std::string* out) {
    StrAppend(out, s.message_name, "{");
    for (size_t i = 0; i < s.fields.size(); ++i) {
      const StructField& field = s.fields[i];
      if (i > 0) *out += " ";
      if (field.optional) *out += "?";
      StrAppend(out, field.field, ":");
      PrintOrNull(field.value, out);
      EntryId(field.id, field.position, out);
    }
    *out += "}";
    Id(e, out);
  }
  void PrintKind(const Expr& e, const ComprehensionExpr& c, std::string* out) {
    StrAppend(out, "(fold ", c.iter_var);
    if (!c.iter_var2.empty()) StrAppend(out, ",", c.iter_var2);
    *out += " ";
    PrintOrNull(c.iter_range, out);
    StrAppend(out, " ", c.accu_var, " ");
    PrintOrNull(c.accu_init, out);
    *out += " ";
    PrintOrNull(c.loop_condition, out);
    *out += " ";
    PrintOrNull(c.loop_step, out);
    *out += " ";
    PrintOrNull(c.result, out);
    *out += ")";
    Id(e, out);
  }

  bool positions_;
};

}  // namespace

std::string DebugString(const Expr& expr, bool with_positions) {
  std::string out;
  DebugPrinter(with_positions).Print(expr, &out);
  return out;
}

}  // namespace draplane::cel::internal

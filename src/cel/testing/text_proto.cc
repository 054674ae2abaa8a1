#include "cel/testing/text_proto.h"

#include <cctype>

#include "common/str_cat.h"

namespace draplane::cel::testing {

const TextProtoField* TextProtoMessage::Find(std::string_view name) const {
  for (const auto& f : fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::vector<const TextProtoField*> TextProtoMessage::FindAll(
    std::string_view name) const {
  std::vector<const TextProtoField*> out;
  for (const auto& f : fields) {
    if (f.name == name) out.push_back(&f);
  }
  return out;
}

const TextProtoMessage* TextProtoMessage::Message(std::string_view name) const {
  const TextProtoField* f = Find(name);
  return f != nullptr ? f->message.get() : nullptr;
}

std::optional<std::string> TextProtoMessage::Scalar(
    std::string_view name) const {
  const TextProtoField* f = Find(name);
  if (f == nullptr || f->message != nullptr) return std::nullopt;
  return f->text;
}

namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  absl::StatusOr<TextProtoMessage> ParseDocument() {
    TextProtoMessage msg;
    if (auto s = ParseFields(msg, '\0'); !s.ok()) return s;
    return msg;
  }

 private:
  absl::Status Error(std::string_view what) {
    int line = 1, col = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    return absl::InvalidArgumentError(
        StrCat("textproto:", line, ":", col, ": ", what));
  }

  void SkipSpace() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        ++pos_;
      } else {
        return;
      }
    }
  }

  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  static bool IsNameChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  }

  absl::StatusOr<std::string> ParseName() {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == '[') {
      size_t end = text_.find(']', pos_);
      if (end == std::string_view::npos) return Error("unterminated [name]");
      std::string name(text_.substr(pos_, end - pos_ + 1));
      pos_ = end + 1;
      return name;
    }
    size_t start = pos_;
    while (pos_ < text_.size() && IsNameChar(text_[pos_])) ++pos_;
    if (start == pos_) return Error("expected a field name");
    return std::string(text_.substr(start, pos_ - start));
  }

  // Fields until `close` ('}' or '>'), or end of input when close == 0.
  absl::Status ParseFields(TextProtoMessage& msg, char close) {
    while (true) {
      SkipSpace();
      if (pos_ >= text_.size()) {
        if (close == '\0') return absl::OkStatus();
        return Error("unexpected end of input");
      }
      if (close != '\0' && text_[pos_] == close) {
        ++pos_;
        return absl::OkStatus();
      }
      auto name = ParseName();
      if (!name.ok()) return name.status();
      bool colon = Consume(':');
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == '[' && colon) {
        ++pos_;  // list syntax: name: [v, v, ...]
        if (!Consume(']')) {
          while (true) {
            if (auto s = ParseValue(msg, *name); !s.ok()) return s;
            if (Consume(']')) break;
            if (!Consume(',')) return Error("expected ',' or ']'");
          }
        }
      } else if (auto s = ParseValue(msg, *name); !s.ok()) {
        return s;
      }
      // Optional separators.
      if (!Consume(',')) Consume(';');
    }
  }

  absl::Status ParseValue(TextProtoMessage& msg, const std::string& name) {
    SkipSpace();
    if (pos_ >= text_.size()) return Error("expected a value");
    TextProtoField field;
    field.name = name;
    char c = text_[pos_];
    if (c == '{' || c == '<') {
      ++pos_;
      if (++depth_ > 100) return Error("nesting too deep");
      field.message = std::make_unique<TextProtoMessage>();
      if (auto s = ParseFields(*field.message, c == '{' ? '}' : '>'); !s.ok()) {
        return s;
      }
      --depth_;
    } else if (c == '"' || c == '\'') {
      field.is_string = true;
      // Adjacent literals concatenate.
      while (pos_ < text_.size() &&
             (text_[pos_] == '"' || text_[pos_] == '\'')) {
        if (auto s = ParseString(field.text); !s.ok()) return s;
        SkipSpace();
      }
    } else {
      size_t start = pos_;
      while (pos_ < text_.size() &&
             (IsNameChar(text_[pos_]) || text_[pos_] == '-' ||
              text_[pos_] == '+' || text_[pos_] == '.')) {
        ++pos_;
      }
      if (start == pos_) return Error("expected a value");
      field.text = std::string(text_.substr(start, pos_ - start));
    }
    msg.fields.push_back(std::move(field));
    return absl::OkStatus();
  }

  static int HexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  static void AppendUtf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  // C-style escapes as protobuf's text format defines them; \x and octal
  // escapes produce raw bytes, \u and \U produce UTF-8.
  absl::Status ParseString(std::string& out) {
    char quote = text_[pos_++];
    while (true) {
      if (pos_ >= text_.size() || text_[pos_] == '\n') {
        return Error("unterminated string");
      }
      char c = text_[pos_++];
      if (c == quote) return absl::OkStatus();
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) return Error("unterminated escape");
      char e = text_[pos_++];
      switch (e) {
        case 'a':
          out += '\a';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'v':
          out += '\v';
          break;
        case '?':
          out += '?';
          break;
        case '\\':
          out += '\\';
          break;
        case '\'':
          out += '\'';
          break;
        case '"':
          out += '"';
          break;
        case 'x':
        case 'X': {
          int v = 0, n = 0;
          while (n < 2 && pos_ < text_.size() && HexValue(text_[pos_]) >= 0) {
            v = v * 16 + HexValue(text_[pos_++]);
            ++n;
          }
          if (n == 0) return Error("bad \\x escape");
          out += static_cast<char>(v);
          break;
        }
        case 'u':
        case 'U': {
          int len = e == 'u' ? 4 : 8;
          uint32_t v = 0;
          for (int i = 0; i < len; ++i) {
            if (pos_ >= text_.size() || HexValue(text_[pos_]) < 0) {
              return Error("bad unicode escape");
            }
            v = v * 16 + HexValue(text_[pos_++]);
          }
          AppendUtf8(out, v);
          break;
        }
        default:
          if (e >= '0' && e <= '7') {
            int v = e - '0', n = 1;
            while (n < 3 && pos_ < text_.size() && text_[pos_] >= '0' &&
                   text_[pos_] <= '7') {
              v = v * 8 + (text_[pos_++] - '0');
              ++n;
            }
            out += static_cast<char>(v);
          } else {
            return Error(StrCat("unknown escape \\", std::string(1, e)));
          }
      }
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

absl::StatusOr<TextProtoMessage> ParseTextProto(std::string_view text) {
  return Parser(text).ParseDocument();
}

}  // namespace draplane::cel::testing

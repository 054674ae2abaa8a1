#include "protobuf/internal/go_json.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "common/go_strconv.h"
#include "common/quantity.h"
#include "common/str_cat.h"
#include "go_json.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/unknown_field_set.h"
#include "protobuf/internal/go_time.h"

namespace draplane::protobuf::internal {
namespace {

namespace gp = ::google::protobuf;
using gp::FieldDescriptor;

// A JSON path ("spec.containers[0].env[1]") kept while walking a message,
// for error messages.
class JsonPath {
 public:
  // Restores the path to what it was at construction when destroyed.
  class Mark {
   public:
    explicit Mark(JsonPath& path) : path_(path), size_(path.text_.size()) {}
    ~Mark() { path_.text_.resize(size_); }
    Mark(const Mark&) = delete;
    Mark& operator=(const Mark&) = delete;

   private:
    JsonPath& path_;
    size_t size_;
  };

  void Field(std::string_view name) {
    if (!text_.empty()) text_ += '.';
    text_ += name;
  }
  void Index(int index) { StrAppend(&text_, "[", index, "]"); }
  void Key(std::string_view key) {
    StrAppend(&text_, "[", ValidUtf8LikeGo(key), "]");
  }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

std::string_view WireTypeName(gp::UnknownField::Type type) {
  switch (type) {
    case gp::UnknownField::TYPE_VARINT:
      return "varint";
    case gp::UnknownField::TYPE_FIXED32:
      return "fixed32";
    case gp::UnknownField::TYPE_FIXED64:
      return "fixed64";
    case gp::UnknownField::TYPE_LENGTH_DELIMITED:
      return "length-delimited";
    case gp::UnknownField::TYPE_GROUP:
      return "group";
  }
  return "unknown";
}

std::string_view WireTypeName(const FieldDescriptor& field) {
  if (field.is_packable() && field.is_repeated()) {
    return "varint or length-delimited";
  }
  switch (field.type()) {
    case FieldDescriptor::TYPE_STRING:
    case FieldDescriptor::TYPE_BYTES:
    case FieldDescriptor::TYPE_MESSAGE:
      return "length-delimited";
    case FieldDescriptor::TYPE_DOUBLE:
    case FieldDescriptor::TYPE_FIXED64:
    case FieldDescriptor::TYPE_SFIXED64:
      return "fixed64";
    case FieldDescriptor::TYPE_FLOAT:
    case FieldDescriptor::TYPE_FIXED32:
    case FieldDescriptor::TYPE_SFIXED32:
      return "fixed32";
    default:
      return "varint";
  }
}

bool IsInline(const FieldDescriptor& field) {
  return field.options().GetExtension(kube::inline_);
}

class UnknownFieldChecker {
 public:
  absl::Status Check(const gp::Message& message) {
    const gp::Reflection& reflection = *message.GetReflection();
    const gp::Descriptor& descriptor = *message.GetDescriptor();
    const gp::UnknownFieldSet& unknown = reflection.GetUnknownFields(message);
    if (!unknown.empty())
      return UnknownFieldError(descriptor, unknown.field(0));
    std::vector<const FieldDescriptor*> fields;
    reflection.ListFields(message, &fields);
    for (const FieldDescriptor* field : fields) {
      if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
      JsonPath::Mark mark(path_);
      if (!IsInline(*field)) path_.Field(field->json_name());
      if (field->is_map()) {
        const FieldDescriptor& key = *field->message_type()->map_key();
        const FieldDescriptor& value = *field->message_type()->map_value();
        for (int i = 0; i < reflection.FieldSize(message, field); ++i) {
          const gp::Message& entry =
              reflection.GetRepeatedMessage(message, field, i);
          const gp::Reflection& entry_reflection = *entry.GetReflection();
          JsonPath::Mark entry_mark(path_);
          path_.Key(entry_reflection.GetString(entry, &key));
          const gp::UnknownFieldSet& unknown =
              entry_reflection.GetUnknownFields(entry);
          if (!unknown.empty()) {
            return UnknownFieldError(*entry.GetDescriptor(), unknown.field(0));
          }
          if (value.cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
          absl::Status status =
              Check(entry_reflection.GetMessage(entry, &value));
          if (!status.ok()) return status;
        }
      } else if (field->is_repeated()) {
        for (int i = 0; i < reflection.FieldSize(message, field); ++i) {
          JsonPath::Mark element_mark(path_);
          path_.Index(i);
          absl::Status status =
              Check(reflection.GetRepeatedMessage(message, field, i));
          if (!status.ok()) return status;
        }
      } else {
        absl::Status status = Check(reflection.GetMessage(message, field));
        if (!status.ok()) return status;
      }
    }
    return absl::OkStatus();
  }

 private:
  absl::Status UnknownFieldError(const gp::Descriptor& descriptor,
                                 const gp::UnknownField& unknown) {
    std::string where = GoTypeName(descriptor);
    if (!path_.text().empty()) StrAppend(&where, " at ", path_.text());
    if (const FieldDescriptor* known =
            descriptor.FindFieldByNumber(unknown.number())) {
      return absl::InvalidArgumentError(
          StrCat("field ", unknown.number(), " (", known->name(), ") of ",
                 where, " has wire type ", WireTypeName(unknown.type()),
                 ", expected ", WireTypeName(*known)));
    }
    return absl::InvalidArgumentError(
        StrCat("unknown field ", unknown.number(), " (wire type ",
               WireTypeName(unknown.type()), ") in ", where,
               ": draplane does not know this field of the protobuf "
               "encoding and would lose it"));
  }

  JsonPath path_;
};

class GoJsonWriter {
 public:
  absl::Status AppendFields(const gp::Message& message, api::Json* object) {
    const gp::Descriptor& descriptor = *message.GetDescriptor();
    const gp::Reflection& reflection = *message.GetReflection();
    for (int i = 0; i < descriptor.field_count(); ++i) {
      const FieldDescriptor& field = *descriptor.field(i);
      const gp::FieldOptions& options = field.options();
      const bool omitempty = options.GetExtension(kube::omitempty);
      const bool omitzero = options.GetExtension(kube::omitzero);
      const bool pointer = options.GetExtension(kube::pointer);
      const std::string& name = field.json_name();
      JsonPath::Mark mark(path_);

      if (options.GetExtension(kube::inline_)) {
        // An embedded struct: its fields go into this object. A nil
        // embedded pointer contributes nothing.
        if (pointer && !reflection.HasField(message, &field)) continue;
        absl::Status status =
            AppendFields(reflection.GetMessage(message, &field), object);
        if (!status.ok()) return status;
        continue;
      }
      path_.Field(name);

      if (field.is_repeated()) {
        // A slice or map decoded from zero elements is nil: omitted with
        // omitempty or omitzero, null without.
        if (reflection.FieldSize(message, &field) == 0) {
          if (!omitempty && !omitzero) (*object)[name] = nullptr;
          continue;
        }
        absl::StatusOr<api::Json> value = field.is_map()
                                              ? MapValue(message, field)
                                              : ArrayValue(message, field);
        if (!value.ok()) return value.status();
        (*object)[name] = *std::move(value);
        continue;
      }

      if (pointer && !reflection.HasField(message, &field)) {
        // A nil pointer: null unless omitempty/omitzero.
        if (!omitempty && !omitzero) (*object)[name] = nullptr;
        continue;
      }
      if (field.cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        // A struct is written even when absent from the wire (as its zero
        // value): encoding/json ignores omitempty on structs.
        const gp::Message& sub = reflection.GetMessage(message, &field);
        if (omitzero && !pointer && IsGoZero(sub)) continue;
        absl::StatusOr<api::Json> value = MessageValue(sub);
        if (!value.ok()) return value.status();
        (*object)[name] = *std::move(value);
        continue;
      }
      if (!pointer && (omitempty || omitzero) && IsZeroScalar(message, field)) {
        continue;
      }
      absl::StatusOr<api::Json> value = ScalarValue(message, field, -1);
      if (!value.ok()) return value.status();
      (*object)[name] = *std::move(value);
    }
    return absl::OkStatus();
  }

 private:
  absl::Status Error(std::string_view message) const {
    if (path_.text().empty()) {
      return absl::InvalidArgumentError(std::string(message));
    }
    return absl::InvalidArgumentError(StrCat(path_.text(), ": ", message));
  }

  absl::StatusOr<api::Json> MessageValue(const gp::Message& message) {
    switch (
        message.GetDescriptor()->options().GetExtension(kube::json_format)) {
      case kube::STRUCT:
        break;
      case kube::TIME:
        return TimeValue(message, TimePrecision::kSeconds);
      case kube::MICRO_TIME:
        return TimeValue(message, TimePrecision::kMicros);
      case kube::QUANTITY:
        return QuantityValue(message);
      case kube::INT_OR_STRING:
        return IntOrStringValue(message);
      case kube::FIELDS_V1:
        return FieldsV1Value(message);
      case kube::STRING_LIST:
        return StringListValue(message);
    }
    api::Json object = api::Json::object();
    if (absl::Status status = AppendFields(message, &object); !status.ok()) {
      return status;
    }
    return object;
  }

  absl::StatusOr<api::Json> ArrayValue(const gp::Message& message,
                                       const FieldDescriptor& field) {
    const gp::Reflection& reflection = *message.GetReflection();
    api::Json array = api::Json::array();
    const int size = reflection.FieldSize(message, &field);
    for (int i = 0; i < size; ++i) {
      JsonPath::Mark mark(path_);
      path_.Index(i);
      absl::StatusOr<api::Json> value =
          field.cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE
              ? MessageValue(reflection.GetRepeatedMessage(message, &field, i))
              : ScalarValue(message, field, i);
      if (!value.ok()) return value.status();
      array.push_back(*std::move(value));
    }
    return array;
  }

  // encoding/json writes map keys sorted by their bytes.
  absl::StatusOr<api::Json> MapValue(const gp::Message& message,
                                     const FieldDescriptor& field) {
    const gp::Reflection& reflection = *message.GetReflection();
    const FieldDescriptor& key_field = *field.message_type()->map_key();
    const FieldDescriptor& value_field = *field.message_type()->map_value();
    std::vector<std::pair<std::string, const gp::Message*>> entries;
    const int size = reflection.FieldSize(message, &field);
    entries.reserve(size);
    for (int i = 0; i < size; ++i) {
      const gp::Message& entry =
          reflection.GetRepeatedMessage(message, &field, i);
      entries.emplace_back(entry.GetReflection()->GetString(entry, &key_field),
                           &entry);
    }
    std::stable_sort(
        entries.begin(), entries.end(),
        [](const auto& a, const auto& b) { return a.first < b.first; });
    api::Json object = api::Json::object();
    for (const auto& [key, entry] : entries) {
      JsonPath::Mark mark(path_);
      path_.Key(key);
      absl::StatusOr<api::Json> value =
          value_field.cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE
              ? MessageValue(
                    entry->GetReflection()->GetMessage(*entry, &value_field))
              : ScalarValue(*entry, value_field, -1);
      if (!value.ok()) return value.status();
      object[ValidUtf8LikeGo(key)] = *std::move(value);
    }
    return object;
  }

  // The element at `index` of a repeated field, or the singular field's
  // value when index < 0.
  absl::StatusOr<api::Json> ScalarValue(const gp::Message& message,
                                        const FieldDescriptor& field,
                                        int index) {
    const gp::Reflection& r = *message.GetReflection();
    const bool repeated = index >= 0;
    switch (field.cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        return api::Json(static_cast<int64_t>(
            repeated ? r.GetRepeatedInt32(message, &field, index)
                     : r.GetInt32(message, &field)));
      case FieldDescriptor::CPPTYPE_INT64:
        return api::Json(repeated ? r.GetRepeatedInt64(message, &field, index)
                                  : r.GetInt64(message, &field));
      case FieldDescriptor::CPPTYPE_BOOL:
        return api::Json(repeated ? r.GetRepeatedBool(message, &field, index)
                                  : r.GetBool(message, &field));
      case FieldDescriptor::CPPTYPE_STRING: {
        std::string scratch;
        const std::string& value =
            repeated
                ? r.GetRepeatedStringReference(message, &field, index, &scratch)
                : r.GetStringReference(message, &field, &scratch);
        if (field.type() == FieldDescriptor::TYPE_BYTES) {
          // []byte: standard base64. A bytes field present on the wire
          // decodes to a non-nil slice even when empty ("").
          if (!repeated && !r.HasField(message, &field)) return api::Json();
          return api::Json(absl::Base64Escape(value));
        }
        return api::Json(ValidUtf8LikeGo(value));
      }
      default:
        // kube_proto_gen emits no other scalar types.
        return absl::InternalError(StrCat("unsupported protobuf field type ",
                                          field.type_name(), " for ",
                                          field.full_name()));
    }
  }

  static bool IsZeroScalar(const gp::Message& message,
                           const FieldDescriptor& field) {
    const gp::Reflection& r = *message.GetReflection();
    switch (field.cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        return r.GetInt32(message, &field) == 0;
      case FieldDescriptor::CPPTYPE_INT64:
        return r.GetInt64(message, &field) == 0;
      case FieldDescriptor::CPPTYPE_BOOL:
        return !r.GetBool(message, &field);
      case FieldDescriptor::CPPTYPE_STRING: {
        std::string scratch;
        return r.GetStringReference(message, &field, &scratch).empty();
      }
      default:
        return false;
    }
  }

  // Go's omitzero test: a time is zero when IsZero() says so; any other
  // struct when every field holds its zero value.
  static bool IsGoZero(const gp::Message& message) {
    const kube::JsonFormat format =
        message.GetDescriptor()->options().GetExtension(kube::json_format);
    if (format == kube::TIME || format == kube::MICRO_TIME) {
      std::optional<std::pair<int64_t, int32_t>> time = TimeFields(message);
      if (!time) return true;
      absl::StatusOr<std::optional<std::string>> text =
          FormatGoTime(time->first, time->second,
                       format == kube::TIME ? TimePrecision::kSeconds
                                            : TimePrecision::kMicros);
      return text.ok() && !text->has_value();
    }
    const gp::Descriptor& descriptor = *message.GetDescriptor();
    const gp::Reflection& r = *message.GetReflection();
    for (int i = 0; i < descriptor.field_count(); ++i) {
      const FieldDescriptor& field = *descriptor.field(i);
      if (field.is_repeated()) {
        if (r.FieldSize(message, &field) != 0) return false;
      } else if (field.cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        if (r.HasField(message, &field) &&
            !IsGoZero(r.GetMessage(message, &field))) {
          return false;
        }
      } else if (field.options().GetExtension(kube::pointer)) {
        if (r.HasField(message, &field)) return false;
      } else if (!IsZeroScalar(message, field)) {
        return false;
      }
    }
    return true;
  }

  // seconds and nanos of a Time/MicroTime, or nullopt when the message was
  // empty on the wire (Unmarshal of zero bytes gives the zero time).
  static std::optional<std::pair<int64_t, int32_t>> TimeFields(
      const gp::Message& message) {
    const gp::Descriptor& d = *message.GetDescriptor();
    const gp::Reflection& r = *message.GetReflection();
    const FieldDescriptor* seconds = d.FindFieldByNumber(1);
    const FieldDescriptor* nanos = d.FindFieldByNumber(2);
    if (!r.HasField(message, seconds) && !r.HasField(message, nanos)) {
      return std::nullopt;
    }
    return std::make_pair(r.GetInt64(message, seconds),
                          r.GetInt32(message, nanos));
  }

  absl::StatusOr<api::Json> TimeValue(const gp::Message& message,
                                      TimePrecision precision) {
    std::optional<std::pair<int64_t, int32_t>> time = TimeFields(message);
    if (!time) return api::Json();
    absl::StatusOr<std::optional<std::string>> text =
        FormatGoTime(time->first, time->second, precision);
    if (!text.ok()) return Error(ToStd(text.status().message()));
    if (!text->has_value()) return api::Json();
    return api::Json(**std::move(text));
  }

  // resource.Quantity's Unmarshal parses the string (ParseQuantity) and
  // MarshalJSON writes the canonical form; an absent string is the zero
  // quantity, "0".
  absl::StatusOr<api::Json> QuantityValue(const gp::Message& message) {
    const FieldDescriptor* string_field =
        message.GetDescriptor()->FindFieldByNumber(1);
    const gp::Reflection& r = *message.GetReflection();
    if (!r.HasField(message, string_field)) return api::Json("0");
    std::string scratch;
    absl::StatusOr<Quantity> quantity =
        Quantity::Parse(r.GetStringReference(message, string_field, &scratch));
    if (!quantity.ok()) return Error(ToStd(quantity.status().message()));
    return api::Json(quantity->ToString());
  }

  absl::StatusOr<api::Json> IntOrStringValue(const gp::Message& message) {
    const gp::Descriptor& d = *message.GetDescriptor();
    const gp::Reflection& r = *message.GetReflection();
    const int64_t type = r.GetInt64(message, d.FindFieldByNumber(1));
    if (type == 0) {
      return api::Json(
          static_cast<int64_t>(r.GetInt32(message, d.FindFieldByNumber(2))));
    }
    if (type == 1) {
      std::string scratch;
      return api::Json(ValidUtf8LikeGo(
          r.GetStringReference(message, d.FindFieldByNumber(3), &scratch)));
    }
    // intstr.IntOrString.MarshalJSON fails the same way.
    return Error(StrCat("impossible IntOrString.Type ", type));
  }

  // metav1.FieldsV1.MarshalJSON: null when empty, else the raw bytes, which
  // encoding/json requires to be valid JSON. Raw CBOR (first byte a CBOR
  // map, tag or null) is what upstream converts; draplane does not.
  absl::StatusOr<api::Json> FieldsV1Value(const gp::Message& message) {
    const FieldDescriptor* raw_field =
        message.GetDescriptor()->FindFieldByNumber(1);
    std::string scratch;
    const std::string& raw = message.GetReflection()->GetStringReference(
        message, raw_field, &scratch);
    if (raw.empty()) return api::Json();
    const auto first = static_cast<unsigned char>(raw[0]);
    if (first == 0xf6 || (first >= 0xa0 && first <= 0xbf) ||
        (first >= 0xc6 && first <= 0xdb)) {
      return Error("fieldsV1 in CBOR is not supported");
    }
    api::Json parsed =
        api::Json::parse(raw, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) return Error("fieldsV1 is not valid JSON");
    return parsed;
  }

  // A named []string (ExtraValue): the items, [] when there are none.
  static api::Json StringListValue(const gp::Message& message) {
    const FieldDescriptor* items_field =
        message.GetDescriptor()->FindFieldByNumber(1);
    const gp::Reflection& r = *message.GetReflection();
    api::Json array = api::Json::array();
    const int size = r.FieldSize(message, items_field);
    std::string scratch;
    for (int i = 0; i < size; ++i) {
      array.push_back(ValidUtf8LikeGo(
          r.GetRepeatedStringReference(message, items_field, i, &scratch)));
    }
    return array;
  }

  JsonPath path_;
};

}  // namespace

std::string ValidUtf8LikeGo(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      out += s[i++];
      continue;
    }
    char32_t rune;
    const size_t width = DecodeRune(s, i, &rune);
    if (width == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.substr(i, width));
      i += width;
    }
  }
  return out;
}

std::string GoTypeName(const gp::Descriptor& descriptor) {
  const std::string& go_type = descriptor.options().GetExtension(kube::go_type);
  return go_type.empty() ? descriptor.full_name() : go_type;
}

absl::Status CheckNoUnknownFields(const gp::Message& message) {
  return UnknownFieldChecker().Check(message);
}

absl::Status AppendGoJsonFields(const gp::Message& message, api::Json* object) {
  return GoJsonWriter().AppendFields(message, object);
}

}  // namespace draplane::protobuf::internal

#include "api/device_attribute.h"

#include <cstring>
#include <limits>
#include <utility>

namespace draplane::api {

static_assert(sizeof(DeviceAttribute) == 16);

namespace {

template <class T>
T Load(const unsigned char* bytes) {
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  return value;
}

template <class T>
void Store(unsigned char* bytes, T value) {
  std::memcpy(bytes, &value, sizeof(T));
}

template <class T>
const std::vector<T>& EmptyList() {
  static const std::vector<T>* const empty = new std::vector<T>();
  return *empty;
}

}  // namespace

DeviceAttribute DeviceAttribute::Int(int64_t value) {
  DeviceAttribute a;
  a.rep_ = Rep::kInt;
  Store(a.bytes_, value);
  return a;
}

DeviceAttribute DeviceAttribute::Bool(bool value) {
  DeviceAttribute a;
  a.rep_ = Rep::kBool;
  a.bytes_[0] = value ? 1 : 0;
  return a;
}

DeviceAttribute DeviceAttribute::String(std::string_view value) {
  DeviceAttribute a;
  a.SetText(Rep::kInlineString, Rep::kHeapString, value);
  return a;
}

DeviceAttribute DeviceAttribute::Version(std::string_view value) {
  DeviceAttribute a;
  a.SetText(Rep::kInlineVersion, Rep::kHeapVersion, value);
  return a;
}

void DeviceAttribute::SetText(Rep inline_rep, Rep heap_rep,
                              std::string_view text) {
  if (text.size() <= kInline) {
    rep_ = inline_rep;
    std::memcpy(bytes_, text.data(), text.size());
    bytes_[kInline] = static_cast<unsigned char>(text.size());
    return;
  }
  rep_ = heap_rep;
  char* data = new char[text.size()];
  std::memcpy(data, text.data(), text.size());
  Store(bytes_, data);
  Store(bytes_ + 8, static_cast<uint32_t>(text.size()));
}

DeviceAttribute DeviceAttribute::FromFields(DeviceAttributeFields f) {
  const int scalars = f.int_value.has_value() + f.bool_value.has_value() +
                      f.string_value.has_value() + f.version_value.has_value();
  const bool lists = !f.ints.empty() || !f.bools.empty() ||
                     !f.strings.empty() || !f.versions.empty();
  // Texts whose size does not fit the 32-bit heap form (never valid) stay
  // in the general form.
  constexpr size_t kMaxText = std::numeric_limits<uint32_t>::max();
  const bool long_text =
      (f.string_value && f.string_value->size() > kMaxText) ||
      (f.version_value && f.version_value->size() > kMaxText);
  DeviceAttribute a;
  if (scalars == 1 && !lists && !long_text) {
    if (f.int_value) return Int(*f.int_value);
    if (f.bool_value) return Bool(*f.bool_value);
    if (f.string_value) return String(*f.string_value);
    return Version(*f.version_value);
  }
  if (scalars == 0 && !lists) return a;
  f.ints.shrink_to_fit();
  f.bools.shrink_to_fit();
  f.strings.shrink_to_fit();
  f.versions.shrink_to_fit();
  a.rep_ = Rep::kFields;
  Store(a.bytes_, new DeviceAttributeFields(std::move(f)));
  return a;
}

DeviceAttributeFields DeviceAttribute::ToFields() const {
  if (rep_ == Rep::kFields) return *fields();
  DeviceAttributeFields f;
  f.int_value = int_value();
  f.bool_value = bool_value();
  if (auto s = string_value()) f.string_value.emplace(*s);
  if (auto v = version_value()) f.version_value.emplace(*v);
  return f;
}

const DeviceAttributeFields* DeviceAttribute::fields() const {
  return rep_ == Rep::kFields ? Load<DeviceAttributeFields*>(bytes_) : nullptr;
}

void DeviceAttribute::CopyFrom(const DeviceAttribute& other) {
  switch (other.rep_) {
    case Rep::kHeapString:
    case Rep::kHeapVersion:
      SetText(other.rep_ == Rep::kHeapString ? Rep::kInlineString
                                             : Rep::kInlineVersion,
              other.rep_,
              std::string_view(Load<const char*>(other.bytes_),
                               Load<uint32_t>(other.bytes_ + 8)));
      return;
    case Rep::kFields:
      rep_ = Rep::kFields;
      Store(bytes_, new DeviceAttributeFields(*other.fields()));
      return;
    default:
      std::memcpy(bytes_, other.bytes_, sizeof(bytes_));
      rep_ = other.rep_;
      return;
  }
}

void DeviceAttribute::Release() {
  switch (rep_) {
    case Rep::kHeapString:
    case Rep::kHeapVersion:
      delete[] Load<char*>(bytes_);
      break;
    case Rep::kFields:
      delete Load<DeviceAttributeFields*>(bytes_);
      break;
    default:
      break;
  }
  rep_ = Rep::kNone;
  std::memset(bytes_, 0, sizeof(bytes_));
}

DeviceAttribute::DeviceAttribute(const DeviceAttribute& other) {
  CopyFrom(other);
}

DeviceAttribute::DeviceAttribute(DeviceAttribute&& other) noexcept {
  std::memcpy(bytes_, other.bytes_, sizeof(bytes_));
  rep_ = other.rep_;
  other.rep_ = Rep::kNone;
  std::memset(other.bytes_, 0, sizeof(other.bytes_));
}

DeviceAttribute& DeviceAttribute::operator=(const DeviceAttribute& other) {
  if (this != &other) {
    Release();
    CopyFrom(other);
  }
  return *this;
}

DeviceAttribute& DeviceAttribute::operator=(DeviceAttribute&& other) noexcept {
  if (this != &other) {
    Release();
    std::memcpy(bytes_, other.bytes_, sizeof(bytes_));
    rep_ = other.rep_;
    other.rep_ = Rep::kNone;
    std::memset(other.bytes_, 0, sizeof(other.bytes_));
  }
  return *this;
}

DeviceAttribute::~DeviceAttribute() { Release(); }

std::optional<int64_t> DeviceAttribute::int_value() const {
  if (rep_ == Rep::kInt) return Load<int64_t>(bytes_);
  if (rep_ == Rep::kFields) return fields()->int_value;
  return std::nullopt;
}

std::optional<bool> DeviceAttribute::bool_value() const {
  if (rep_ == Rep::kBool) return bytes_[0] != 0;
  if (rep_ == Rep::kFields) return fields()->bool_value;
  return std::nullopt;
}

std::optional<std::string_view> DeviceAttribute::Text(Rep inline_rep,
                                                      Rep heap_rep) const {
  if (rep_ == inline_rep) {
    return std::string_view(reinterpret_cast<const char*>(bytes_),
                            bytes_[kInline]);
  }
  if (rep_ == heap_rep) {
    return std::string_view(Load<const char*>(bytes_),
                            Load<uint32_t>(bytes_ + 8));
  }
  return std::nullopt;
}

std::optional<std::string_view> DeviceAttribute::string_value() const {
  if (rep_ == Rep::kFields) {
    const auto& v = fields()->string_value;
    return v ? std::optional<std::string_view>(*v) : std::nullopt;
  }
  return Text(Rep::kInlineString, Rep::kHeapString);
}

std::optional<std::string_view> DeviceAttribute::version_value() const {
  if (rep_ == Rep::kFields) {
    const auto& v = fields()->version_value;
    return v ? std::optional<std::string_view>(*v) : std::nullopt;
  }
  return Text(Rep::kInlineVersion, Rep::kHeapVersion);
}

const std::vector<int64_t>& DeviceAttribute::ints() const {
  return rep_ == Rep::kFields ? fields()->ints : EmptyList<int64_t>();
}

const std::vector<bool>& DeviceAttribute::bools() const {
  return rep_ == Rep::kFields ? fields()->bools : EmptyList<bool>();
}

const std::vector<std::string>& DeviceAttribute::strings() const {
  return rep_ == Rep::kFields ? fields()->strings : EmptyList<std::string>();
}

const std::vector<std::string>& DeviceAttribute::versions() const {
  return rep_ == Rep::kFields ? fields()->versions : EmptyList<std::string>();
}

bool operator==(const DeviceAttribute& a, const DeviceAttribute& b) {
  if (a.rep_ == DeviceAttribute::Rep::kFields ||
      b.rep_ == DeviceAttribute::Rep::kFields) {
    return a.ToFields() == b.ToFields();
  }
  return a.int_value() == b.int_value() && a.bool_value() == b.bool_value() &&
         a.string_value() == b.string_value() &&
         a.version_value() == b.version_value();
}

}  // namespace draplane::api

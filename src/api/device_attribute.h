// A ResourceSlice device's attribute value (resource/v1 DeviceAttribute),
// in two forms:
//  - DeviceAttributeFields: upstream's struct member by member (each member
//    may be set, as in a decoded but not yet validated object). The JSON
//    codec reads and writes attributes through it.
//  - DeviceAttribute: what Device::attributes holds. 16 bytes: one int,
//    bool, string or version (strings of up to 14 bytes inline, longer ones
//    in one allocation of their size); any other combination (the list
//    forms of DRAListTypeAttributes, several members set, as invalid
//    objects have) is kept as DeviceAttributeFields on the heap. Both forms
//    describe the same values: FromFields(a.ToFields()) == a and
//    FromFields(f).ToFields() == f, except that an empty list reads as an
//    unset one (as before: JSON omits both).
#ifndef DRAPLANE_API_DEVICE_ATTRIBUTE_H_
#define DRAPLANE_API_DEVICE_ATTRIBUTE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace draplane::api {

// Exactly one member is set in a valid attribute. The list forms are the
// DRAListTypeAttributes (1.36 alpha) extension.
struct DeviceAttributeFields {
  std::optional<int64_t> int_value;
  std::optional<bool> bool_value;
  std::optional<std::string> string_value;
  std::optional<std::string> version_value;
  std::vector<int64_t> ints;
  std::vector<bool> bools;
  std::vector<std::string> strings;
  std::vector<std::string> versions;

  friend bool operator==(const DeviceAttributeFields&,
                         const DeviceAttributeFields&) = default;
};

class DeviceAttribute {
 public:
  // No member set (invalid, like upstream's zero DeviceAttribute).
  DeviceAttribute() = default;
  static DeviceAttribute Int(int64_t value);
  static DeviceAttribute Bool(bool value);
  static DeviceAttribute String(std::string_view value);
  static DeviceAttribute Version(std::string_view value);
  // Any combination of members. Empty lists count as unset.
  static DeviceAttribute FromFields(DeviceAttributeFields fields);
  DeviceAttributeFields ToFields() const;

  DeviceAttribute(const DeviceAttribute& other);
  DeviceAttribute(DeviceAttribute&& other) noexcept;
  DeviceAttribute& operator=(const DeviceAttribute& other);
  DeviceAttribute& operator=(DeviceAttribute&& other) noexcept;
  ~DeviceAttribute();

  // Upstream's members; unset ones are nullopt or empty. The string views
  // point into this attribute.
  std::optional<int64_t> int_value() const;
  std::optional<bool> bool_value() const;
  std::optional<std::string_view> string_value() const;
  std::optional<std::string_view> version_value() const;
  const std::vector<int64_t>& ints() const;
  const std::vector<bool>& bools() const;
  const std::vector<std::string>& strings() const;
  const std::vector<std::string>& versions() const;

  friend bool operator==(const DeviceAttribute& a, const DeviceAttribute& b);

 private:
  enum class Rep : uint8_t {
    kNone,
    kInt,            // int64 in bytes_[0, 8)
    kBool,           // bytes_[0]
    kInlineString,   // text in bytes_[0, size), size in bytes_[kInline]
    kHeapString,     // char* in bytes_[0, 8), uint32 size in bytes_[8, 12)
    kInlineVersion,  // as kInlineString
    kHeapVersion,    // as kHeapString
    kFields,         // DeviceAttributeFields* in bytes_[0, 8)
  };
  static constexpr size_t kInline = 14;

  void SetText(Rep inline_rep, Rep heap_rep, std::string_view text);
  std::optional<std::string_view> Text(Rep inline_rep, Rep heap_rep) const;
  const DeviceAttributeFields* fields() const;
  void CopyFrom(const DeviceAttribute& other);
  void Release();

  alignas(8) unsigned char bytes_[kInline + 1] = {};
  Rep rep_ = Rep::kNone;
};

}  // namespace draplane::api

#endif  // DRAPLANE_API_DEVICE_ATTRIBUTE_H_

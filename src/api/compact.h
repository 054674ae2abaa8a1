// Compact value containers for the object model, used where a type is held
// once per device of every ResourceSlice (and so once per published device
// in a scheduler's cache):
//
//   FlatMap<K, V>     a map kept as a sorted vector: 24 bytes plus one
//                     allocation, instead of std::map's 48 bytes plus one
//                     node of 32 bytes of overhead per entry;
//   Box<T>            a T kept on the heap and allocated on first write
//                     (8 bytes; reads of an unallocated box see T{});
//   OptionalBox<T>    a std::optional<T> kept on the heap (8 bytes).
//
// All three have value semantics (copies are deep, == compares values) and
// the part of the std::map / std::optional interface the object model uses.
// The JSON codec (internal/json_mapping.h) treats FlatMap like std::map,
// OptionalBox like std::optional and Box<T> like T.
#ifndef DRAPLANE_API_COMPACT_H_
#define DRAPLANE_API_COMPACT_H_

#include <algorithm>
#include <concepts>
#include <initializer_list>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace draplane::api {

// A map with unique keys kept sorted in one vector. Lookups are binary
// searches taking anything comparable with Key (std::string_view, const
// char* for string keys); iteration is in key order, like std::map.
// Unlike std::map, inserting or erasing invalidates iterators and
// references to other entries, and entries are std::pair<Key, V>: a key
// must not be changed through an iterator.
template <class Key, class V>
class FlatMap {
 public:
  using key_type = Key;
  using mapped_type = V;
  using value_type = std::pair<Key, V>;
  using iterator = typename std::vector<value_type>::iterator;
  using const_iterator = typename std::vector<value_type>::const_iterator;
  using size_type = size_t;

  FlatMap() = default;
  // Like std::map: of entries with equal keys the first is kept.
  FlatMap(std::initializer_list<value_type> entries) {
    entries_.reserve(entries.size());
    for (const value_type& e : entries) insert(e);
  }

  iterator begin() { return entries_.begin(); }
  iterator end() { return entries_.end(); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  const_iterator cbegin() const { return entries_.begin(); }
  const_iterator cend() const { return entries_.end(); }

  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  void clear() { entries_.clear(); }
  // Room for `n` entries without reallocating (decoders know the count).
  void reserve(size_t n) { entries_.reserve(n); }

  template <class K>
  iterator find(const K& key) {
    auto it = LowerBound(key);
    return it != entries_.end() && !(key < it->first) ? it : entries_.end();
  }
  template <class K>
  const_iterator find(const K& key) const {
    auto it = LowerBound(key);
    return it != entries_.end() && !(key < it->first) ? it : entries_.end();
  }
  template <class K>
  bool contains(const K& key) const {
    return find(key) != end();
  }
  template <class K>
  size_t count(const K& key) const {
    return contains(key) ? 1 : 0;
  }
  // Throws std::out_of_range when the key is absent, like std::map::at.
  template <class K>
  V& at(const K& key) {
    auto it = find(key);
    if (it == end()) throw std::out_of_range("FlatMap::at: no such key");
    return it->second;
  }
  template <class K>
  const V& at(const K& key) const {
    auto it = find(key);
    if (it == end()) throw std::out_of_range("FlatMap::at: no such key");
    return it->second;
  }

  // The value of `key`, inserted value-initialised when absent.
  V& operator[](const Key& key) { return try_emplace(key).first->second; }
  V& operator[](Key&& key) { return try_emplace(std::move(key)).first->second; }

  // Inserts `entry` unless its key is present; returns the entry with that
  // key and whether it was inserted.
  std::pair<iterator, bool> insert(value_type entry) {
    auto it = LowerBound(entry.first);
    if (it != entries_.end() && !(entry.first < it->first)) return {it, false};
    return {entries_.insert(it, std::move(entry)), true};
  }
  template <class... Args>
  std::pair<iterator, bool> emplace(Args&&... args) {
    return insert(value_type(std::forward<Args>(args)...));
  }
  template <class... Args>
  std::pair<iterator, bool> try_emplace(Key key, Args&&... args) {
    auto it = LowerBound(key);
    if (it != entries_.end() && !(key < it->first)) return {it, false};
    return {
        entries_.emplace(it, std::piecewise_construct,
                         std::forward_as_tuple(std::move(key)),
                         std::forward_as_tuple(std::forward<Args>(args)...)),
        true};
  }
  template <class M>
  std::pair<iterator, bool> insert_or_assign(Key key, M&& value) {
    auto [it, inserted] = try_emplace(std::move(key), std::forward<M>(value));
    if (!inserted) it->second = std::forward<M>(value);
    return {it, inserted};
  }

  template <class K>
  requires(!std::is_convertible_v<const K&, const_iterator>) size_t
      erase(const K& key) {
    auto it = find(key);
    if (it == end()) return 0;
    entries_.erase(it);
    return 1;
  }
  iterator erase(const_iterator pos) { return entries_.erase(pos); }

  friend bool operator==(const FlatMap& a, const FlatMap& b) {
    return a.entries_ == b.entries_;
  }

 private:
  template <class K>
  iterator LowerBound(const K& key) {
    return std::lower_bound(
        entries_.begin(), entries_.end(), key,
        [](const value_type& e, const K& k) { return e.first < k; });
  }
  template <class K>
  const_iterator LowerBound(const K& key) const {
    return std::lower_bound(
        entries_.begin(), entries_.end(), key,
        [](const value_type& e, const K& k) { return e.first < k; });
  }

  std::vector<value_type> entries_;  // sorted by key, keys unique
};

namespace compact_internal {

// A unique_ptr whose copies copy the pointee (the storage of Box and
// OptionalBox, which then copy and move like the T they stand for).
template <class T>
class ClonePtr : public std::unique_ptr<T> {
 public:
  ClonePtr() = default;
  ClonePtr(std::unique_ptr<T> p) noexcept  // NOLINT: takes ownership
      : std::unique_ptr<T>(std::move(p)) {}
  ClonePtr(const ClonePtr& other)
      : std::unique_ptr<T>(other ? std::make_unique<T>(*other) : nullptr) {}
  ClonePtr(ClonePtr&&) noexcept = default;
  ClonePtr& operator=(const ClonePtr& other) {
    if (this != &other) *this = ClonePtr(other);
    return *this;
  }
  ClonePtr& operator=(ClonePtr&&) noexcept = default;
};

}  // namespace compact_internal

// A T on the heap, allocated by the first Mutable() (or assignment of a
// T): for a large member that is usually left at its default. Reading an
// unallocated box sees a default-constructed T (one shared, immutable
// instance per type).
template <class T>
class Box {
 public:
  using value_type = T;

  Box() = default;
  Box(T value)  // NOLINT: implicit like the T it stands for
      : value_(std::make_unique<T>(std::move(value))) {}
  Box& operator=(T value) {
    Mutable() = std::move(value);
    return *this;
  }

  const T& operator*() const { return value_ ? *value_ : Default(); }
  const T* operator->() const { return &**this; }
  // The T, allocated (value-initialised) if it was not.
  T& Mutable() {
    if (!value_) value_ = std::make_unique<T>();
    return *value_;
  }
  // Whether the T is allocated (it may still equal T{}).
  bool allocated() const { return value_ != nullptr; }
  // Back to the default T, freeing it.
  void reset() { value_.reset(); }

  friend bool operator==(const Box& a,
                         const Box& b) requires std::equality_comparable<T> {
    return *a == *b;
  }

 private:
  static const T& Default() {
    static const T* const value = new T();
    return *value;
  }

  compact_internal::ClonePtr<T> value_;
};

// A std::optional<T> whose T lives on the heap: 8 bytes instead of
// sizeof(T) + alignment for an optional member that is usually unset.
template <class T>
class OptionalBox {
 public:
  using value_type = T;

  OptionalBox() = default;
  OptionalBox(std::nullopt_t) {}  // NOLINT: like std::optional
  OptionalBox(T value)            // NOLINT: like std::optional
      : value_(std::make_unique<T>(std::move(value))) {}
  OptionalBox& operator=(std::nullopt_t) {
    value_.reset();
    return *this;
  }
  OptionalBox& operator=(T value) {
    if (value_) {
      *value_ = std::move(value);
    } else {
      value_ = std::make_unique<T>(std::move(value));
    }
    return *this;
  }

  bool has_value() const { return value_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  // REQUIRES: has_value().
  const T& operator*() const { return *value_; }
  T& operator*() { return *value_; }
  const T* operator->() const { return value_.get(); }
  T* operator->() { return value_.get(); }
  // Throws std::bad_optional_access when empty, like std::optional.
  const T& value() const {
    if (!value_) throw std::bad_optional_access();
    return *value_;
  }
  T& value() {
    if (!value_) throw std::bad_optional_access();
    return *value_;
  }

  template <class... Args>
  T& emplace(Args&&... args) {
    value_ = std::make_unique<T>(std::forward<Args>(args)...);
    return *value_;
  }
  void reset() { value_.reset(); }

  friend bool operator==(const OptionalBox& a, const OptionalBox& b) requires
      std::equality_comparable<T> {
    if (a.has_value() != b.has_value()) return false;
    return !a.has_value() || *a == *b;
  }

 private:
  compact_internal::ClonePtr<T> value_;
};

}  // namespace draplane::api

#endif  // DRAPLANE_API_COMPACT_H_

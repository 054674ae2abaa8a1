// The process's logger: what components report about their own work
// (failed writes they will retry, lost leases, throttled requests), on
// stderr, in Kubernetes' formats. Product output a command prints for its
// user (results, "serving on ...") goes to the command's streams instead.
//
// Formats, as Kubernetes components write them:
//   text (klog's structured text, the default):
//     I1204 19:11:26.123456   12345 node_agent.cc:273] "Heartbeat failed"
//     node="gpu-1" err="UNAVAILABLE: ..." severity letter (I, W, E, F), month
//     and day, wall-clock time with microseconds, the OS thread id
//     right-aligned in 7 columns, the source file's base name and line, the
//     quoted message and key="value" pairs (strings quoted as Go's
//     strconv.Quote, numbers and booleans bare). Unlike klog, a string value
//     with a newline stays on one line (escaped), so one record is always one
//     line.
//   json (k8s.io/component-base/logs/json):
//     {"ts":1733339486.123456,"caller":"node_agent/node_agent.cc:273","msg":"Heartbeat
//     failed","v":0,"node":"gpu-1","err":"..."} ts in seconds since the epoch;
//     caller as folder/file:line; "v" on info and warning records, none on
//     errors.
//
// Verbosity (-v N): Info and Warning always pass, V(n).Info only when n <=
// the configured verbosity. Every function here is thread-safe.
//
// Usage:
//   logging::Info("Published ResourceSlices", {{"node", name}, {"count", n}});
//   logging::Error("Writing an event failed", {{"err", status}});
//   if (logging::V(4)) logging::V(4).Info("Queue state", {{"len", len}});
#ifndef DRAPLANE_LOGGING_LOG_H_
#define DRAPLANE_LOGGING_LOG_H_

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace draplane::logging {

enum class Format { kText, kJson };

struct Options {
  Format format = Format::kText;
  // -v: V(n).Info is written when n <= verbosity.
  int verbosity = 0;
};

// Replaces the process's logging options. Records being written meanwhile
// use either the old or the new options.
void Configure(const Options& options);
Options CurrentOptions();

// "text" or "json" (component-base's --logging-format values); anything
// else is InvalidArgument naming the accepted values.
absl::StatusOr<Format> ParseFormat(std::string_view name);

// A log message and the place it was logged from: built implicitly from the
// message text at the call site. (__builtin_FILE/LINE rather than
// std::source_location, which clang 14 with libstdc++ lacks.)
struct Message {
  Message(const char* text, const char* file = __builtin_FILE(),
          int line = __builtin_LINE())
      : text(text), file(file), line(line) {}
  Message(std::string_view text, const char* file = __builtin_FILE(),
          int line = __builtin_LINE())
      : text(text), file(file), line(line) {}
  Message(const std::string& text, const char* file = __builtin_FILE(),
          int line = __builtin_LINE())
      : text(text), file(file), line(line) {}

  std::string_view text;
  const char* file;
  int line;
};

// One value of a key/value pair, already formatted.
class Value {
 public:
  Value(const char* s) : text_(s), quoted_(true) {}
  // std::string, std::string_view, absl::string_view: quoted.
  template <class S>
  requires requires(const S& s) {
    { s.data() } -> std::convertible_to<const char*>;
    { s.size() } -> std::convertible_to<size_t>;
  }
  Value(const S& s) : text_(s.data(), s.size()), quoted_(true) {}
  Value(bool b) : text_(b ? "true" : "false"), quoted_(false) {}
  template <class T>
  requires(std::is_integral_v<T> && !std::is_same_v<T, bool>) Value(T n)
      : text_(std::to_string(n)), quoted_(false) {}
  Value(double d);
  // The status's ToString() ("NOT_FOUND: ..."), quoted.
  Value(const absl::Status& status);
  // absl::FormatDuration's form ("1.5s", "2m30s"), as Go's Duration
  // prints, quoted.
  Value(absl::Duration d);

  const std::string& text() const { return text_; }
  bool quoted() const { return quoted_; }

 private:
  std::string text_;
  bool quoted_;
};

struct Field {
  Field(std::string_view key, Value value)
      : key(key), value(std::move(value)) {}
  std::string_view key;
  Value value;
};
using Fields = std::initializer_list<Field>;

void Info(Message message, Fields fields = {});
void Warning(Message message, Fields fields = {});
void Error(Message message, Fields fields = {});
// An impossible state: logs the record (severity F) and aborts the
// process. For invariants whose failure would corrupt data if the process
// went on; never for bad input from a user, a file or the network.
[[noreturn]] void Fatal(Message message, Fields fields = {});

// klog's V(n): Info records written only at verbosity n or more.
class Verbose {
 public:
  explicit Verbose(int level);
  explicit operator bool() const { return enabled_; }
  void Info(Message message, Fields fields = {}) const;

 private:
  int level_;
  bool enabled_;
};
inline Verbose V(int level) { return Verbose(level); }

// One record as text, exactly as the given format writes it (without the
// newline); `now` and `thread_id` fill the header.
enum class Severity { kInfo, kWarning, kError, kFatal };
std::string FormatRecord(Format format, Severity severity, int verbosity,
                         absl::Time now, int64_t thread_id,
                         const Message& message, Fields fields);

// For tests: while one is alive, records go to it instead of stderr (the
// most recent capture wins). Thread-safe.
class ScopedCapture {
 public:
  ScopedCapture();
  ~ScopedCapture();
  ScopedCapture(const ScopedCapture&) = delete;
  ScopedCapture& operator=(const ScopedCapture&) = delete;

  // The records written so far, one line each.
  std::vector<std::string> Lines() const;

  class Sink;

 private:
  std::shared_ptr<Sink> sink_;
  std::shared_ptr<Sink> previous_;
};

}  // namespace draplane::logging

#endif  // DRAPLANE_LOGGING_LOG_H_

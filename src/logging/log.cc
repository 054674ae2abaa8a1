#include "logging/log.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/go_strconv.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "spdlog/logger.h"
#include "spdlog/sinks/base_sink.h"
#include "spdlog/sinks/stdout_sinks.h"

namespace draplane::logging {

// Collects records for a ScopedCapture. spdlog's sinks lock a std::mutex
// of their own (a third-party adapter's lock, outside the annotations).
class ScopedCapture::Sink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  std::vector<std::string> Lines() {
    std::lock_guard<std::mutex> lock(mutex_);
    return lines_;
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    lines_.emplace_back(msg.payload.data(), msg.payload.size());
  }
  void flush_() override {}

 private:
  std::vector<std::string> lines_;  // guarded by base_sink's mutex_
};

namespace {

// The process's state. Options are read on every call without a lock;
// the sink under `sink_mu`.
struct State {
  std::atomic<int> verbosity{0};
  std::atomic<Format> format{Format::kText};
  absl::Mutex sink_mu;
  std::shared_ptr<spdlog::logger> stderr_logger;
  std::shared_ptr<ScopedCapture::Sink> capture ABSL_GUARDED_BY(sink_mu);
};

State& GetState() {
  static State* state = [] {
    auto* s = new State();
    s->stderr_logger = std::make_shared<spdlog::logger>(
        "draplane", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    s->stderr_logger->set_pattern("%v");
    s->stderr_logger->set_level(spdlog::level::trace);
    s->stderr_logger->flush_on(spdlog::level::trace);
    return s;
  }();
  return *state;
}

int64_t ThreadId() { return static_cast<int64_t>(::syscall(SYS_gettid)); }

std::string_view BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// component-base's JSON caller: the last folder and the file.
std::string_view ShortPath(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return path;
  size_t before = path.rfind('/', slash - 1);
  return before == std::string_view::npos ? path : path.substr(before + 1);
}

char SeverityLetter(Severity severity) {
  switch (severity) {
    case Severity::kInfo:
      return 'I';
    case Severity::kWarning:
      return 'W';
    case Severity::kError:
      return 'E';
    case Severity::kFatal:
      return 'F';
  }
  return '?';
}

// A JSON string literal; bytes that are not UTF-8 become U+FFFD.
void AppendJsonString(std::string& out, std::string_view s) {
  out += nlohmann::json(std::string(s))
             .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void Write(Severity severity, int verbosity, const Message& message,
           Fields fields) {
  State& state = GetState();
  std::string line =
      FormatRecord(state.format.load(std::memory_order_relaxed), severity,
                   verbosity, absl::Now(), ThreadId(), message, fields);
  absl::MutexLock lock(&state.sink_mu);
  if (state.capture != nullptr) {
    state.capture->log(spdlog::details::log_msg(spdlog::string_view_t(),
                                                spdlog::level::info, line));
    return;
  }
  state.stderr_logger->info(line);
}

}  // namespace

Value::Value(double d) : text_(fmt::format("{}", d)), quoted_(false) {}

Value::Value(const absl::Status& status)
    : text_(status.ToString()), quoted_(true) {}

Value::Value(absl::Duration d)
    : text_(absl::FormatDuration(d)), quoted_(true) {}

void Configure(const Options& options) {
  State& state = GetState();
  state.verbosity.store(options.verbosity, std::memory_order_relaxed);
  state.format.store(options.format, std::memory_order_relaxed);
}

Options CurrentOptions() {
  State& state = GetState();
  Options options;
  options.verbosity = state.verbosity.load(std::memory_order_relaxed);
  options.format = state.format.load(std::memory_order_relaxed);
  return options;
}

absl::StatusOr<Format> ParseFormat(std::string_view name) {
  if (name == "text") return Format::kText;
  if (name == "json") return Format::kJson;
  return absl::InvalidArgumentError(
      fmt::format("unsupported log format \"{}\": the formats are "
                  "\"text\" and \"json\"",
                  name));
}

std::string FormatRecord(Format format, Severity severity, int verbosity,
                         absl::Time now, int64_t thread_id,
                         const Message& message, Fields fields) {
  std::string out;
  if (format == Format::kJson) {
    int64_t micros = absl::ToUnixMicros(now);
    out = fmt::format("{{\"ts\":{}.{:06d},\"caller\":", micros / 1000000,
                      micros % 1000000);
    AppendJsonString(
        out, fmt::format("{}:{}", ShortPath(message.file), message.line));
    out += ",\"msg\":";
    AppendJsonString(out, message.text);
    if (severity == Severity::kInfo || severity == Severity::kWarning) {
      out += fmt::format(",\"v\":{}", verbosity);
    }
    for (const Field& f : fields) {
      out.push_back(',');
      AppendJsonString(out, f.key);
      out.push_back(':');
      if (f.value.quoted()) {
        AppendJsonString(out, f.value.text());
      } else {
        out += f.value.text();
      }
    }
    out.push_back('}');
    return out;
  }
  absl::TimeZone utc = absl::UTCTimeZone();
  absl::CivilSecond civil = absl::ToCivilSecond(now, utc);
  int64_t micros = absl::ToInt64Microseconds(now - absl::FromCivil(civil, utc));
  out = fmt::format("{}{:02d}{:02d} {:02d}:{:02d}:{:02d}.{:06d} {:7d} {}:{}] ",
                    SeverityLetter(severity), civil.month(), civil.day(),
                    civil.hour(), civil.minute(), civil.second(), micros,
                    thread_id, BaseName(message.file), message.line);
  out += StrconvQuote(message.text);
  for (const Field& f : fields) {
    out.push_back(' ');
    out.append(f.key);
    out.push_back('=');
    out += f.value.quoted() ? StrconvQuote(f.value.text()) : f.value.text();
  }
  return out;
}

void Info(Message message, Fields fields) {
  Write(Severity::kInfo, 0, message, fields);
}

void Warning(Message message, Fields fields) {
  Write(Severity::kWarning, 0, message, fields);
}

void Error(Message message, Fields fields) {
  Write(Severity::kError, 0, message, fields);
}

void Fatal(Message message, Fields fields) {
  Write(Severity::kFatal, 0, message, fields);
  std::abort();
}

Verbose::Verbose(int level)
    : level_(level),
      enabled_(level <= GetState().verbosity.load(std::memory_order_relaxed)) {}

void Verbose::Info(Message message, Fields fields) const {
  if (enabled_) Write(Severity::kInfo, level_, message, fields);
}

ScopedCapture::ScopedCapture() : sink_(std::make_shared<Sink>()) {
  State& state = GetState();
  absl::MutexLock lock(&state.sink_mu);
  previous_ = std::move(state.capture);
  state.capture = sink_;
}

ScopedCapture::~ScopedCapture() {
  State& state = GetState();
  absl::MutexLock lock(&state.sink_mu);
  if (state.capture == sink_) state.capture = std::move(previous_);
}

std::vector<std::string> ScopedCapture::Lines() const { return sink_->Lines(); }

}  // namespace draplane::logging

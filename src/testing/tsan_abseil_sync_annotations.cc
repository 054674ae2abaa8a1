// ThreadSanitizer annotations for Debian's abseil, linked into every test
// binary of the `tsan` preset (DRAPLANE_TSAN).
//
// Debian's libabsl_synchronization is not built with -fsanitize=thread, so
// ThreadSanitizer cannot see absl::Mutex, absl::CondVar or
// absl::Notification synchronise: every field guarded by an absl::Mutex
// would be reported as a race. This file defines those classes' out-of-line
// members in the test binary, where they take precedence over the shared
// library's (ELF symbol interposition, also for the library's own calls:
// the binaries link with -rdynamic), and each forwards to the library's
// definition (dlsym RTLD_NEXT) inside the annotations abseil's own
// mutex.cc makes when it is built with ThreadSanitizer
// (__tsan_mutex_pre_lock / post_lock / pre_unlock / post_unlock, with the
// read, try and failed flags; memory accesses between a pre and a post
// call, such as conditions evaluated inside the library, are ignored as in
// abseil's TSan build). A condition-variable wait is an unlock and a lock
// of its mutex; Notify is a release on the notification's flag, which a
// notified wait acquires, and so does HasBeenNotified's acquire load of the
// flag (inline, so instrumented).
//
// The library symbols are looked up by their mangled names in Debian 12's
// abseil (inline namespace absl::debian3); a name that cannot be found
// aborts the test at its first use, saying which.
#include <dlfcn.h>
#include <sanitizer/tsan_interface.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

// ThreadSanitizer's dynamic annotations (its runtime defines them).
extern "C" {
void AnnotateIgnoreReadsBegin(const char* file, int line);
void AnnotateIgnoreReadsEnd(const char* file, int line);
void AnnotateIgnoreWritesBegin(const char* file, int line);
void AnnotateIgnoreWritesEnd(const char* file, int line);
}

namespace {

template <typename F>
F Real(const char* mangled) {
  void* f = dlsym(RTLD_NEXT, mangled);
  if (f == nullptr) {
    std::fprintf(stderr,
                 "tsan_abseil_sync_annotations: %s not found in abseil\n",
                 mangled);
    std::abort();
  }
  return reinterpret_cast<F>(f);
}

// Depth of wrappers on this thread: the library's calls to its own
// interposed functions (AwaitWithTimeout calls AwaitWithDeadline,
// Notification locks its mutex) forward without annotating again.
thread_local int wrapper_depth = 0;
struct InWrapper {
  InWrapper() { ++wrapper_depth; }
  ~InWrapper() { --wrapper_depth; }
  InWrapper(const InWrapper&) = delete;
  InWrapper& operator=(const InWrapper&) = delete;
};

// Declares `real`, the library's definition, and forwards to it at once
// when called from inside another wrapper.
#define DRAPLANE_REAL(type, mangled, ...)          \
  static const auto real = Real<type>(mangled);    \
  if (wrapper_depth > 0) return real(__VA_ARGS__); \
  const InWrapper in_wrapper

using MutexFn = void (*)(absl::Mutex*);
using MutexBoolFn = bool (*)(absl::Mutex*);
using MutexCondFn = void (*)(absl::Mutex*, const absl::Condition&);
using MutexCondDurationFn = bool (*)(absl::Mutex*, const absl::Condition&,
                                     absl::Duration);
using MutexCondTimeFn = bool (*)(absl::Mutex*, const absl::Condition&,
                                 absl::Time);

void Lock(void* mu, unsigned flags) { __tsan_mutex_pre_lock(mu, flags); }
void Locked(void* mu, unsigned flags) { __tsan_mutex_post_lock(mu, flags, 0); }
void Unlock(void* mu, unsigned flags) { __tsan_mutex_pre_unlock(mu, flags); }
void Unlocked(void* mu, unsigned flags) { __tsan_mutex_post_unlock(mu, flags); }

// The mutex `mu` is released and taken again around `wait` (held before
// and after, as by a condition wait).
template <typename Wait>
auto Reacquiring(void* mu, unsigned flags, Wait wait) {
  Unlock(mu, flags);
  Unlocked(mu, flags);
  Lock(mu, flags);
  auto result = wait();
  Locked(mu, flags);
  return result;
}

// Where Notify releases and a notified check acquires: the notification's
// flag, which follows its mutex.
const void* NotificationFlag(const absl::Notification* n) {
  static_assert(sizeof(absl::Notification) == 2 * sizeof(absl::Mutex),
                "absl::Notification is not {Mutex, atomic<bool>}");
  return reinterpret_cast<const char*>(n) + sizeof(absl::Mutex);
}

}  // namespace

namespace absl {

Mutex::~Mutex() {
  static const auto real = Real<MutexFn>("_ZN4absl7debian35MutexD2Ev");
  __tsan_mutex_destroy(this, 0);
  // The library's destructor updates its deadlock-detection graph under
  // its own (uninstrumented) spin lock: not this program's accesses.
  AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
  AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
  real(this);
  AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
  AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
}

void Mutex::Lock() {
  DRAPLANE_REAL(MutexFn, "_ZN4absl7debian35Mutex4LockEv", this);
  ::Lock(this, 0);
  real(this);
  Locked(this, 0);
}

void Mutex::ReaderLock() {
  DRAPLANE_REAL(MutexFn, "_ZN4absl7debian35Mutex10ReaderLockEv", this);
  ::Lock(this, __tsan_mutex_read_lock);
  real(this);
  Locked(this, __tsan_mutex_read_lock);
}

bool Mutex::TryLock() {
  DRAPLANE_REAL(MutexBoolFn, "_ZN4absl7debian35Mutex7TryLockEv", this);
  ::Lock(this, __tsan_mutex_try_lock);
  const bool locked = real(this);
  Locked(this,
         __tsan_mutex_try_lock | (locked ? 0 : __tsan_mutex_try_lock_failed));
  return locked;
}

bool Mutex::ReaderTryLock() {
  DRAPLANE_REAL(MutexBoolFn, "_ZN4absl7debian35Mutex13ReaderTryLockEv", this);
  const unsigned flags = __tsan_mutex_read_lock | __tsan_mutex_try_lock;
  ::Lock(this, flags);
  const bool locked = real(this);
  Locked(this, flags | (locked ? 0 : __tsan_mutex_try_lock_failed));
  return locked;
}

void Mutex::Unlock() {
  DRAPLANE_REAL(MutexFn, "_ZN4absl7debian35Mutex6UnlockEv", this);
  ::Unlock(this, 0);
  real(this);
  Unlocked(this, 0);
}

void Mutex::ReaderUnlock() {
  DRAPLANE_REAL(MutexFn, "_ZN4absl7debian35Mutex12ReaderUnlockEv", this);
  ::Unlock(this, __tsan_mutex_read_lock);
  real(this);
  Unlocked(this, __tsan_mutex_read_lock);
}

void Mutex::LockWhen(const Condition& cond) {
  DRAPLANE_REAL(MutexCondFn,
                "_ZN4absl7debian35Mutex8LockWhenERKNS0_9ConditionE", this,
                cond);
  ::Lock(this, 0);
  real(this, cond);
  Locked(this, 0);
}

void Mutex::ReaderLockWhen(const Condition& cond) {
  DRAPLANE_REAL(MutexCondFn,
                "_ZN4absl7debian35Mutex14ReaderLockWhenERKNS0_9ConditionE",
                this, cond);
  ::Lock(this, __tsan_mutex_read_lock);
  real(this, cond);
  Locked(this, __tsan_mutex_read_lock);
}

bool Mutex::LockWhenWithTimeout(const Condition& cond, Duration timeout) {
  DRAPLANE_REAL(MutexCondDurationFn,
                "_ZN4absl7debian35Mutex19LockWhenWithTimeoutERKNS0_"
                "9ConditionENS0_8DurationE",
                this, cond, timeout);
  ::Lock(this, 0);
  const bool met = real(this, cond, timeout);
  Locked(this, 0);
  return met;
}

bool Mutex::LockWhenWithDeadline(const Condition& cond, Time deadline) {
  DRAPLANE_REAL(MutexCondTimeFn,
                "_ZN4absl7debian35Mutex20LockWhenWithDeadlineERKNS0_"
                "9ConditionENS0_4TimeE",
                this, cond, deadline);
  ::Lock(this, 0);
  const bool met = real(this, cond, deadline);
  Locked(this, 0);
  return met;
}

bool Mutex::ReaderLockWhenWithTimeout(const Condition& cond, Duration timeout) {
  DRAPLANE_REAL(MutexCondDurationFn,
                "_ZN4absl7debian35Mutex25ReaderLockWhenWithTimeoutERKNS0_"
                "9ConditionENS0_8DurationE",
                this, cond, timeout);
  ::Lock(this, __tsan_mutex_read_lock);
  const bool met = real(this, cond, timeout);
  Locked(this, __tsan_mutex_read_lock);
  return met;
}

bool Mutex::ReaderLockWhenWithDeadline(const Condition& cond, Time deadline) {
  DRAPLANE_REAL(MutexCondTimeFn,
                "_ZN4absl7debian35Mutex26ReaderLockWhenWithDeadlineERKNS0_"
                "9ConditionENS0_4TimeE",
                this, cond, deadline);
  ::Lock(this, __tsan_mutex_read_lock);
  const bool met = real(this, cond, deadline);
  Locked(this, __tsan_mutex_read_lock);
  return met;
}

// Await is called with the mutex held for writing (draplane never awaits
// under a reader lock).
void Mutex::Await(const Condition& cond) {
  DRAPLANE_REAL(MutexCondFn, "_ZN4absl7debian35Mutex5AwaitERKNS0_9ConditionE",
                this, cond);
  Reacquiring(this, 0, [&] {
    real(this, cond);
    return true;
  });
}

bool Mutex::AwaitWithTimeout(const Condition& cond, Duration timeout) {
  DRAPLANE_REAL(MutexCondDurationFn,
                "_ZN4absl7debian35Mutex16AwaitWithTimeoutERKNS0_"
                "9ConditionENS0_8DurationE",
                this, cond, timeout);
  return Reacquiring(this, 0, [&] { return real(this, cond, timeout); });
}

bool Mutex::AwaitWithDeadline(const Condition& cond, Time deadline) {
  DRAPLANE_REAL(MutexCondTimeFn,
                "_ZN4absl7debian35Mutex17AwaitWithDeadlineERKNS0_"
                "9ConditionENS0_4TimeE",
                this, cond, deadline);
  return Reacquiring(this, 0, [&] { return real(this, cond, deadline); });
}

void CondVar::Wait(Mutex* mu) {
  DRAPLANE_REAL(void (*)(CondVar*, Mutex*),
                "_ZN4absl7debian37CondVar4WaitEPNS0_5MutexE", this, mu);
  Reacquiring(mu, 0, [&] {
    real(this, mu);
    return true;
  });
}

bool CondVar::WaitWithTimeout(Mutex* mu, Duration timeout) {
  DRAPLANE_REAL(bool (*)(CondVar*, Mutex*, Duration),
                "_ZN4absl7debian37CondVar15WaitWithTimeoutEPNS0_"
                "5MutexENS0_8DurationE",
                this, mu, timeout);
  return Reacquiring(mu, 0, [&] { return real(this, mu, timeout); });
}

bool CondVar::WaitWithDeadline(Mutex* mu, Time deadline) {
  DRAPLANE_REAL(bool (*)(CondVar*, Mutex*, Time),
                "_ZN4absl7debian37CondVar16WaitWithDeadlineEPNS0_"
                "5MutexENS0_4TimeE",
                this, mu, deadline);
  return Reacquiring(mu, 0, [&] { return real(this, mu, deadline); });
}

void Notification::Notify() {
  DRAPLANE_REAL(void (*)(Notification*),
                "_ZN4absl7debian312Notification6NotifyEv", this);
  __tsan_release(const_cast<void*>(NotificationFlag(this)));
  real(this);
}

void Notification::WaitForNotification() const {
  DRAPLANE_REAL(void (*)(const Notification*),
                "_ZNK4absl7debian312Notification19WaitForNotificationEv", this);
  real(this);
  __tsan_acquire(const_cast<void*>(NotificationFlag(this)));
}

bool Notification::WaitForNotificationWithTimeout(Duration timeout) const {
  DRAPLANE_REAL(
      bool (*)(const Notification*, Duration),
      "_ZNK4absl7debian312Notification30WaitForNotificationWithTimeout"
      "ENS0_8DurationE",
      this, timeout);
  const bool notified = real(this, timeout);
  if (notified) __tsan_acquire(const_cast<void*>(NotificationFlag(this)));
  return notified;
}

bool Notification::WaitForNotificationWithDeadline(Time deadline) const {
  DRAPLANE_REAL(
      bool (*)(const Notification*, Time),
      "_ZNK4absl7debian312Notification31WaitForNotificationWithDeadline"
      "ENS0_4TimeE",
      this, deadline);
  const bool notified = real(this, deadline);
  if (notified) __tsan_acquire(const_cast<void*>(NotificationFlag(this)));
  return notified;
}

}  // namespace absl

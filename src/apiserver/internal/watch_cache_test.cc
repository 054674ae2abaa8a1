#include "apiserver/internal/watch_cache.h"

#include <string>

#include "gtest/gtest.h"

namespace draplane::apiserver::internal {
namespace {

absl::StatusOr<std::shared_ptr<const std::string>> LineOf(WatchCache& cache,
                                                          int64_t revision,
                                                          int* made) {
  return cache.Line(revision, "ADDED", "v1",
                    [&]() -> absl::StatusOr<std::string> {
                      ++*made;
                      return "line " + std::to_string(revision);
                    });
}

TEST(WatchCacheTest, MakesEachFormOnceWhileTheRevisionIsKept) {
  WatchCache cache(2);
  int made = 0;
  auto a = LineOf(cache, 10, &made);
  auto b = LineOf(cache, 10, &made);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->get(), b->get());
  EXPECT_EQ(made, 1);
  ASSERT_TRUE(LineOf(cache, 11, &made).ok());
  ASSERT_TRUE(LineOf(cache, 12, &made).ok());  // 10 is forgotten
  EXPECT_EQ(made, 3);
  auto again = LineOf(cache, 10, &made);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(**again, "line 10");
  EXPECT_EQ(made, 4);
}

// A watcher far behind asks for revisions older than everything a full
// cache keeps: it gets its value (nothing is cached for it, and nothing
// the cache returns refers to a forgotten entry; ASan checks the latter).
TEST(WatchCacheTest, RevisionsOlderThanAFullCacheAreServedUncached) {
  WatchCache cache(2);
  int made = 0;
  ASSERT_TRUE(LineOf(cache, 20, &made).ok());
  ASSERT_TRUE(LineOf(cache, 21, &made).ok());
  for (int64_t old = 1; old <= 3; ++old) {
    auto line = LineOf(cache, old, &made);
    ASSERT_TRUE(line.ok());
    EXPECT_EQ(**line, "line " + std::to_string(old));
  }
  EXPECT_EQ(made, 5);
  // The recent revisions are still cached.
  ASSERT_TRUE(LineOf(cache, 20, &made).ok());
  ASSERT_TRUE(LineOf(cache, 21, &made).ok());
  EXPECT_EQ(made, 5);
}

// Large objects: the cache keeps at most its byte capacity (here 3 lines of
// 1,000 bytes), forgetting the oldest first, whatever its event capacity.
TEST(WatchCacheTest, KeepsAtMostItsByteCapacity) {
  WatchCache cache(/*capacity=*/100, /*byte_capacity=*/3000);
  int made = 0;
  auto big = [&](int64_t revision) {
    return cache.Line(revision, "MODIFIED", "v1",
                      [&]() -> absl::StatusOr<std::string> {
                        ++made;
                        return std::string(1000, 'x');
                      });
  };
  for (int64_t r = 1; r <= 5; ++r) ASSERT_TRUE(big(r).ok());
  EXPECT_EQ(made, 5);
  for (int64_t r = 3; r <= 5; ++r) ASSERT_TRUE(big(r).ok());  // kept
  EXPECT_EQ(made, 5);
  ASSERT_TRUE(big(2).ok());  // forgotten: made again, not kept
  EXPECT_EQ(made, 6);
  for (int64_t r = 3; r <= 5; ++r) ASSERT_TRUE(big(r).ok());
  EXPECT_EQ(made, 6);
  // One form larger than the capacity is still returned (and kept alone).
  auto huge = cache.Line(6, "ADDED", "v1", []() -> absl::StatusOr<std::string> {
    return std::string(10000, 'y');
  });
  ASSERT_TRUE(huge.ok());
  EXPECT_EQ((*huge)->size(), 10000u);
  ASSERT_TRUE(big(5).ok());
  EXPECT_EQ(made, 7);  // 5 was dropped to make room
}

}  // namespace
}  // namespace draplane::apiserver::internal

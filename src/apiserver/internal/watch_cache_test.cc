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

}  // namespace
}  // namespace draplane::apiserver::internal

#include "cel/internal/checker.h"

#include "gtest/gtest.h"

namespace draplane::cel::internal {
namespace {

TEST(CheckerTest, Placeholder) {}

}  // namespace
}  // namespace draplane::cel::internal

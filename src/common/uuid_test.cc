#include "common/uuid.h"

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace draplane {
namespace {

TEST(UuidTest, FormatsTheBitsInOrder) {
  EXPECT_EQ(FormatUuid(0x0123456789abcdefULL, 0xfedcba9876543210ULL),
            "01234567-89ab-cdef-fedc-ba9876543210");
  EXPECT_EQ(FormatUuid(0, 0), "00000000-0000-0000-0000-000000000000");
}

TEST(UuidTest, RandomUuidsAreVersion4AndDistinct) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string u = NewRandomUuid();
    ASSERT_EQ(u.size(), 36u) << u;
    for (size_t c = 0; c < u.size(); ++c) {
      if (c == 8 || c == 13 || c == 18 || c == 23) {
        EXPECT_EQ(u[c], '-') << u;
      } else {
        EXPECT_NE(std::string("0123456789abcdef").find(u[c]), std::string::npos)
            << u;
      }
    }
    EXPECT_EQ(u[14], '4') << "version 4: " << u;
    EXPECT_NE(std::string("89ab").find(u[19]), std::string::npos)
        << "RFC 4122 variant: " << u;
    seen.insert(u);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

}  // namespace
}  // namespace draplane

#include "common/str_split.h"

#include <string_view>
#include <vector>

#include "gtest/gtest.h"

namespace draplane {
namespace {

using Parts = std::vector<std::string_view>;

TEST(StrSplitTest, KeepsEmptyPartsAsGoDoes) {
  EXPECT_EQ(StrSplit("", ','), Parts({""}));
  EXPECT_EQ(StrSplit("a", ','), Parts({"a"}));
  EXPECT_EQ(StrSplit("a,b", ','), Parts({"a", "b"}));
  EXPECT_EQ(StrSplit("a,", ','), Parts({"a", ""}));
  EXPECT_EQ(StrSplit(",a,,b", ','), Parts({"", "a", "", "b"}));
  EXPECT_EQ(StrSplit("/apis/g/", '/'), Parts({"", "apis", "g", ""}));
}

}  // namespace
}  // namespace draplane

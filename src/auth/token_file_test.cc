#include "auth/token_file.h"

#include "gtest/gtest.h"

namespace draplane::auth {
namespace {

TEST(TokenFileTest, ReadsUpstreamsFormat) {
  auto tokens = ParseTokenFile(
      "t1,alice,uid-1\n"
      "\n"
      "t2,bob,uid-2,\"team-a,team-b\"\r\n"
      ",nobody,uid-3\n"
      "\"t\"\"3\",carol,uid-4,solo\n",
      "tokens.csv");
  ASSERT_TRUE(tokens.ok()) << tokens.status();
  ASSERT_EQ(tokens->size(), 3u);
  EXPECT_EQ((*tokens)[0].token, "t1");
  EXPECT_EQ((*tokens)[0].user.name, "alice");
  EXPECT_EQ((*tokens)[0].user.uid, "uid-1");
  EXPECT_TRUE((*tokens)[0].user.groups.empty());
  EXPECT_EQ((*tokens)[1].user.groups,
            (std::vector<std::string>{"team-a", "team-b"}));
  EXPECT_EQ((*tokens)[2].token, "t\"3");
  EXPECT_EQ((*tokens)[2].user.groups, (std::vector<std::string>{"solo"}));
}

TEST(TokenFileTest, ALaterLineWins) {
  auto tokens = ParseTokenFile("t,alice,1\nt,bob,2\n", "f");
  ASSERT_TRUE(tokens.ok());
  ASSERT_EQ(tokens->size(), 1u);
  EXPECT_EQ((*tokens)[0].user.name, "bob");
}

TEST(TokenFileTest, MalformedLinesAreErrors) {
  auto short_line = ParseTokenFile("t1,alice,uid\nt2,bob\n", "tokens.csv");
  ASSERT_FALSE(short_line.ok());
  EXPECT_EQ(short_line.status().message(),
            "token file 'tokens.csv' must have at least 3 columns (token, "
            "user name, user uid), found 2 (line 2)");
  auto bare = ParseTokenFile("t\"1,alice,uid\n", "f");
  ASSERT_FALSE(bare.ok());
  EXPECT_EQ(bare.status().message(), "f: line 1: bare \" in non-quoted-field");
  auto open = ParseTokenFile("\"t1,alice,uid\n", "f");
  ASSERT_FALSE(open.ok());
  EXPECT_EQ(open.status().message(),
            "f: line 1: extraneous or missing \" in quoted-field");
  EXPECT_FALSE(ReadTokenFile("/nonexistent/tokens.csv").ok());
}

}  // namespace
}  // namespace draplane::auth

#include "api/internal/yaml_stuck_documents.h"

#include "gtest/gtest.h"
#include "yaml-cpp/exceptions.h"

namespace draplane::api::internal {
namespace {

// Each of these makes YAML::LoadAll of yaml-cpp 0.7 loop forever (found by
// the manifest fuzzer).
TEST(FindStuckDocumentTest, FindsWhereTheParserStopsAdvancing) {
  struct Case {
    const char* text;
    int line, column;  // 0-based, as yaml-cpp marks
  };
  for (const Case& c :
       {Case{",", 0, 0}, Case{"!a ,", 0, 3}, Case{"'a' ,", 0, 4},
        Case{"[1],", 0, 3}, Case{"a: 1\n---\n{b: 2},", 2, 6}}) {
    SCOPED_TRACE(c.text);
    std::optional<YAML::Mark> mark = FindStuckDocument(c.text);
    ASSERT_TRUE(mark.has_value());
    EXPECT_EQ(mark->line, c.line);
    EXPECT_EQ(mark->column, c.column);
  }
}

TEST(FindStuckDocumentTest, AcceptsDocumentsThatEnd) {
  for (const char* text :
       {"", "a: 1", "---\n---\n", "a: 1\n---\nb: [1, 2]\n...\n", "'a': b,",
        "- x\n- 'y'\n"}) {
    SCOPED_TRACE(text);
    EXPECT_FALSE(FindStuckDocument(text).has_value());
  }
}

TEST(FindStuckDocumentTest, ThrowsSyntaxErrorsLikeLoadAll) {
  EXPECT_THROW(FindStuckDocument("a: [1"), YAML::ParserException);
}

}  // namespace
}  // namespace draplane::api::internal

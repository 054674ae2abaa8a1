#include "migrate/internal/yaml_text_edits.h"

#include "gtest/gtest.h"

namespace draplane::migrate::internal {
namespace {

TEST(SplitDocumentsTest, JoiningGivesTheTextBack) {
  const std::string text =
      "# lead\na: 1\n---\nb: 2\n--- # note\nc: 3\n---x: not a marker\n";
  auto docs = SplitDocuments(text);
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_EQ(docs[0].body, "# lead\na: 1\n");
  EXPECT_EQ(docs[1].marker, "---\n");
  EXPECT_EQ(docs[1].first_line, 3);
  EXPECT_EQ(docs[2].marker, "--- # note\n");
  EXPECT_EQ(docs[2].body, "c: 3\n---x: not a marker\n");
  std::string joined;
  for (const auto& d : docs) joined += d.marker + d.body;
  EXPECT_EQ(joined, text);
}

TEST(LineEditorTest, EntryRangeCoversNestedValuesAndSameColumnItems) {
  LineEditor ed(
      "spec:\n"              // 0
      "  containers:\n"      // 1
      "  - name: a\n"        // 2
      "    # inside\n"       // 3
      "    image: x\n"       // 4
      "\n"                   // 5
      "  # about volumes\n"  // 6
      "  volumes: []\n");    // 7
  auto r = ed.EntryRange(1, 2);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, std::make_pair(1, 5));
  EXPECT_EQ(ed.AboveComments(7), 6);
  EXPECT_FALSE(ed.EntryRange(2, 4).has_value());  // after "- "
  EXPECT_EQ(ed.DashColumn(2, 4), 2);
  EXPECT_FALSE(ed.DashColumn(4, 4).has_value());
}

TEST(LineEditorTest, InsertionsAtADeletedRangeComeFirstInCallOrder) {
  LineEditor ed("a: 1\nb:\n  c: 2\nd: 3\n");
  ed.Delete(1, 3);
  ed.Insert(1, {"x: 1"});
  ed.Insert(1, {"y: 2"});
  EXPECT_EQ(ed.Apply(), "a: 1\nx: 1\ny: 2\nd: 3\n");
}

TEST(LineEditorTest, KeepsAMissingFinalNewline) {
  LineEditor ed("a: 1\nb: 2");
  ed.Delete(0, 1);
  EXPECT_EQ(ed.Apply(), "b: 2");
}

}  // namespace
}  // namespace draplane::migrate::internal

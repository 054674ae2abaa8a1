#include "cel/testing/text_proto.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "testing/shared_test_data.h"

namespace draplane::cel::testing {
namespace {

TEST(TextProtoTest, ParsesMessagesScalarsAndStrings) {
  auto msg = ParseTextProto(R"pb(
    # comment
    name: "basic"
    section {
      name: 'a'
            "b"
      test {
        expr: "\303\277\x41\u00e9\""
        value: { int64_value: -5 }
      }
      test: { value { double_value: -inf } }
    }
    list: [ 1, 2, 3 ]
    any {
      [type.googleapis.com/x.Y] { f: NULL_VALUE }
    }
  )pb");
  ASSERT_TRUE(msg.ok()) << msg.status();
  EXPECT_EQ(msg->Scalar("name"), "basic");
  const TextProtoMessage* section = msg->Message("section");
  ASSERT_NE(section, nullptr);
  EXPECT_EQ(section->Scalar("name"), "ab");
  auto tests = section->FindAll("test");
  ASSERT_EQ(tests.size(), 2u);
  EXPECT_EQ(tests[0]->message->Scalar("expr"),
            "\xc3\xbf"
            "A\xc3\xa9\"");
  EXPECT_EQ(tests[0]->message->Message("value")->Scalar("int64_value"), "-5");
  EXPECT_EQ(tests[1]->message->Message("value")->Scalar("double_value"),
            "-inf");
  EXPECT_EQ(msg->FindAll("list").size(), 3u);
  const TextProtoMessage* any = msg->Message("any");
  ASSERT_NE(any, nullptr);
  EXPECT_EQ(any->fields[0].name, "[type.googleapis.com/x.Y]");
}

TEST(TextProtoTest, ReportsErrorsWithPosition) {
  auto msg = ParseTextProto("a {\n b: \"x\n}");
  ASSERT_FALSE(msg.ok());
  EXPECT_NE(std::string(msg.status().message()).find("textproto:2:"),
            std::string::npos)
      << msg.status();
  EXPECT_FALSE(ParseTextProto("a { b: 1").ok());
  EXPECT_FALSE(ParseTextProto(std::string(1000, '{')).ok());
}

TEST(TextProtoTest, ReadsEveryConformanceFile) {
  namespace fs = std::filesystem;
  const fs::path dir =
      draplane::testing::SharedDataDir() / "conformance" / "cel-spec";
  DRAPLANE_REQUIRE_SHARED_DATA(dir);
  int files = 0, tests = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".textproto") continue;
    std::ifstream in(entry.path());
    std::stringstream buffer;
    buffer << in.rdbuf();
    auto msg = ParseTextProto(buffer.str());
    ASSERT_TRUE(msg.ok()) << entry.path() << ": " << msg.status();
    ++files;
    for (const auto* section : msg->FindAll("section")) {
      tests += static_cast<int>(section->message->FindAll("test").size());
    }
  }
  EXPECT_EQ(files, 30);
  EXPECT_EQ(tests, 2456);  // as counted in design/reference/cel.md 4.2
}

}  // namespace
}  // namespace draplane::cel::testing

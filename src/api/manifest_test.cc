#include "api/manifest.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace draplane::api {
namespace {

TEST(ParseManifestsTest, ReadsMultiDocumentYamlWithLines) {
  auto docs = ParseManifests(
      "# comment only\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n"
      "  name: a\n---\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n"
      "  name: b\n",
      "ns.yaml");
  ASSERT_TRUE(docs.ok()) << docs.status();
  ASSERT_EQ(docs->size(), 2u);
  EXPECT_EQ((*docs)[0].json["metadata"]["name"], "a");
  EXPECT_EQ((*docs)[0].line, 3);
  EXPECT_EQ((*docs)[1].json["metadata"]["name"], "b");
  EXPECT_EQ((*docs)[1].line, 9);
  EXPECT_EQ((*docs)[1].index, 1);
}

TEST(ParseManifestsTest, ResolvesScalarsLikeKubernetesYaml) {
  auto docs = ParseManifests(
      "a: 4\nb: '4'\nc: true\nd: yes\ne: 'yes'\nf: 1.5\ng: ~\nh:\n"
      "i: 0x1F\nj: -7\nk: 80Gi\nl: \"\"\nm: 12345678901234567890\n"
      "p: 1e3\no: off\nn: x\n");
  ASSERT_TRUE(docs.ok()) << docs.status();
  const Json& j = (*docs)[0].json;
  EXPECT_EQ(j["a"], 4);
  EXPECT_TRUE(j["a"].is_number_integer());
  EXPECT_EQ(j["b"], "4");
  EXPECT_EQ(j["c"], true);
  EXPECT_EQ(j["d"], true);
  EXPECT_EQ(j["e"], "yes");
  EXPECT_DOUBLE_EQ(j["f"].get<double>(), 1.5);
  EXPECT_TRUE(j["g"].is_null());
  EXPECT_TRUE(j["h"].is_null());
  EXPECT_EQ(j["i"], 31);
  EXPECT_EQ(j["j"], -7);
  EXPECT_EQ(j["k"], "80Gi");
  EXPECT_EQ(j["l"], "");
  EXPECT_EQ(j["m"].get<uint64_t>(), 12345678901234567890ull);
  // Integral floats become integers, as Go's JSON encoder prints them.
  EXPECT_EQ(j["p"], 1000);
  EXPECT_TRUE(j["p"].is_number_integer());
  EXPECT_EQ(j["o"], false);
  // YAML 1.1 resolves the key `n` to the boolean false, and Kubernetes'
  // YAML-to-JSON conversion then spells it "false".
  EXPECT_EQ(j["false"], "x");
}

TEST(ParseManifestsTest, ExpandsLists) {
  auto docs = ParseManifests(
      "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n"
      "- apiVersion: v1\n  kind: Node\n");
  ASSERT_TRUE(docs.ok());
  ASSERT_EQ(docs->size(), 2u);
  EXPECT_EQ((*docs)[1].json["kind"], "Node");
}

TEST(ParseManifestsTest, ReadsJsonObjectsAndArrays) {
  auto docs = ParseManifests(R"({"apiVersion":"v1","kind":"Pod"})");
  ASSERT_TRUE(docs.ok());
  EXPECT_EQ(docs->size(), 1u);
  docs = ParseManifests(R"([{"kind":"A"},{"kind":"B"}])");
  ASSERT_TRUE(docs.ok());
  EXPECT_EQ(docs->size(), 2u);
}

TEST(ParseManifestsTest, ReadsConcatenatedJsonObjects) {
  auto docs = ParseManifests(
      "{\"kind\":\"A\",\"s\":\"}{\\\"\"}\n{\"kind\":\"B\"}\n\n"
      "[{\"kind\":\"C\"}]\n");
  ASSERT_TRUE(docs.ok()) << docs.status();
  ASSERT_EQ(docs->size(), 3u);
  EXPECT_EQ((*docs)[0].json["s"], "}{\"");
  EXPECT_EQ((*docs)[1].json["kind"], "B");
  EXPECT_EQ((*docs)[1].line, 1);
  EXPECT_EQ((*docs)[2].json["kind"], "C");
  auto bad = ParseManifests("{\"kind\":\"A\"}\n{\"kind\": }\n", "s.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(absl::StartsWith(bad.status().message(), "s.json:2:"))
      << bad.status();
  EXPECT_FALSE(ParseManifests("{\"kind\":\"A\"} 7").ok());
}

TEST(ParseManifestsTest, MalformedYamlReportsLineAndColumn) {
  auto docs = ParseManifests("a: 1\nb: [1, 2\nc: 3\n", "bad.yaml");
  ASSERT_FALSE(docs.ok());
  EXPECT_TRUE(absl::StartsWith(docs.status().message(), "bad.yaml:"))
      << docs.status();
  docs = ParseManifests("a: b: c\n", "bad.yaml");
  ASSERT_FALSE(docs.ok());
  EXPECT_TRUE(absl::StartsWith(docs.status().message(), "bad.yaml:1:"))
      << docs.status();
}

TEST(ParseManifestsTest, MalformedJsonReportsLineAndColumn) {
  auto docs = ParseManifests("{\n  \"a\": 1,\n  \"b\": ]\n}", "bad.json");
  ASSERT_FALSE(docs.ok());
  EXPECT_TRUE(absl::StartsWith(docs.status().message(), "bad.json:3:8:"))
      << docs.status();
}

TEST(ParseManifestsTest, RejectsDuplicateKeys) {
  auto docs = ParseManifests("a: 1\na: 2\n", "dup.yaml");
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().message(),
            "dup.yaml:2:1: mapping key \"a\" already defined");
}

TEST(ParseManifestsTest, RejectsScalarsAndDeepNesting) {
  EXPECT_FALSE(ParseManifests("just a string\n").ok());
  EXPECT_FALSE(ParseManifests(std::string(100000, '[')).ok());
  std::string deep;
  for (int i = 0; i < 2000; ++i) deep += "- ";
  deep += "x\n";
  EXPECT_FALSE(ParseManifests(deep).ok());
}

TEST(ParseManifestsTest, RejectsInvalidUtf8WithPosition) {
  auto docs = ParseManifests("a: ok\nb: \"x\xff\"\n", "bytes.yaml");
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().message(),
            "bytes.yaml:2:6: invalid UTF-8 byte sequence");
  // Overlong encodings and surrogates are not UTF-8 either.
  EXPECT_FALSE(ParseManifests("a: \xc0\xaf\n").ok());
  EXPECT_FALSE(ParseManifests("a: \xed\xa0\x80\n").ok());
  EXPECT_TRUE(ParseManifests("a: \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\n").ok());
  EXPECT_FALSE(ParseManifests("{\"a\": \"\xff\"}").ok());
}

// go-yaml's reader refuses control characters; sigs.k8s.io/yaml (what
// kubectl and the API server use) reports "control characters are not
// allowed". Found by the allocate fuzzer as a difference from draref.
TEST(ParseManifestsTest, RejectsControlCharactersLikeGoYaml) {
  auto docs =
      ParseManifests(std::string("a: ok\nb: x\x07\x00y\n", 14), "ctl.yaml");
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().message(),
            "ctl.yaml:2:5: control characters are not allowed");
  EXPECT_FALSE(ParseManifests("a: \x7f\n").ok());          // DEL
  EXPECT_FALSE(ParseManifests("a: \xc2\x80\n").ok());      // C1 control
  EXPECT_FALSE(ParseManifests("a: \xef\xbf\xbe\n").ok());  // U+FFFE
  // Tabs, CR, NEL, NBSP and astral characters are allowed.
  EXPECT_TRUE(
      ParseManifests("a: \"x\ty\"\r\nb: \xc2\x85\xc2\xa0\xf0\x9f\x98\x80\n")
          .ok());
}

// yaml-cpp 0.7 loops forever on these; found by the manifest fuzzer.
TEST(ParseManifestsTest, RejectsFlowIndicatorsWhereABlockNodeStarts) {
  for (const char* text : {",paiVersision: reso resou", ",a", " ,", "---\n,",
                           "- a\n,", "a: 1\n- ,x"}) {
    SCOPED_TRACE(text);
    auto docs = ParseManifests(text, "f.yaml");
    ASSERT_FALSE(docs.ok());
    EXPECT_NE(docs.status().message().find("where a value must start"),
              std::string::npos)
        << docs.status();
  }
  // The general guard (internal/yaml_stuck_documents.h) stops the others.
  for (const char* text :
       {"!,", "! ,", "!a,b", "&a ,", "!a &b ,", "---\n!a  ,", "!a ,\na: 1",
        "---\n[1],", "---\n{a: 1},", "  : {\n},", "'',", "'a' ,", "\"a\",",
        "'a\nb' ,", "\"a\\\"\" ,"}) {
    SCOPED_TRACE(text);
    auto docs = ParseManifests(text, "f.yaml");
    ASSERT_FALSE(docs.ok());
    EXPECT_TRUE(absl::StartsWith(docs.status().message(), "f.yaml:"))
        << docs.status();
  }
  // Valid YAML with quotes, brackets or properties before a ',' parses.
  const char* const cel_bind =
      "expression: cel.bind(dra, device.attributes[\"dra.example.com\"], "
      "dra.a && dra.b)\n";
  for (const char* text : {cel_bind, "description: the 'a', 'b' modes\n",
                           "msg: use \"x\", not \"y\"\n", "a: foo[1], bar\n",
                           "script: |\n  echo 'hi', there\n  !x, &y ,\n",
                           "a: rock 'n roll\nb: x\n"}) {
    SCOPED_TRACE(text);
    EXPECT_TRUE(ParseManifests(text, "f.yaml").ok());
  }
  // Commas inside plain scalars, quotes and flow collections are fine, and
  // so are apostrophes inside plain scalars.
  auto docs = ParseManifests(
      "a: b,c\nd: 'x, [y'\ne: [1,\n  2]\nf: {g: h,\n  i: j}\n# ,c\n"
      "nn: don't, o\n'p': q,\n");
  ASSERT_TRUE(docs.ok()) << docs.status();
  EXPECT_EQ((*docs)[0].json["a"], "b,c");
  EXPECT_EQ((*docs)[0].json["e"][1], 2);
  EXPECT_EQ((*docs)[0].json["nn"], "don't, o");
  EXPECT_EQ((*docs)[0].json["p"], "q,");
  // Tags and anchors before flow collections and scalars still parse.
  docs = ParseManifests("a: &x [1, 2]\nb: !!str 3\nc: *x\n");
  ASSERT_TRUE(docs.ok()) << docs.status();
  EXPECT_EQ((*docs)[0].json["b"], "3");
  EXPECT_EQ((*docs)[0].json["c"][1], 2);
}

TEST(ParseManifestsTest, BoundsAliasExpansion) {
  // "Billion laughs": each level doubles the expanded size.
  std::string text = "a0: &a0 [x, x]\n";
  for (int i = 1; i < 40; ++i) {
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [*a" +
            std::to_string(i - 1) + ", *a" + std::to_string(i - 1) + "]\n";
  }
  auto docs = ParseManifests(text, "laughs.yaml");
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().code(), absl::StatusCode::kInvalidArgument);
  // go-yaml's rule, with its text: stopped after a thousand nodes or so.
  EXPECT_NE(docs.status().message().find("document contains excessive "
                                         "aliasing"),
            std::string::npos)
      << docs.status();
}

// upstream's "arrays of string aliases" shape: nine levels of eighteen.
TEST(ParseManifestsTest, RejectsAWideAliasBombAsGoYamlDoes) {
  std::string text = "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: &a [";
  for (int i = 0; i < 9; ++i) text += i == 0 ? "web" : ", web";
  text += "]\n";
  for (char level = 'b'; level <= 'i'; ++level) {
    text += std::string("  ") + level + ": &" + level + " [";
    for (int i = 0; i < 18; ++i) {
      text += std::string(i == 0 ? "*" : ", *") + static_cast<char>(level - 1);
    }
    text += "]\n";
  }
  auto docs = ParseManifests(text);
  ASSERT_FALSE(docs.ok());
  EXPECT_NE(docs.status().message().find("excessive aliasing"),
            std::string::npos);
}

TEST(ParseManifestsTest, ModerateAliasingIsExpanded) {
  // 600 plain items, then the list again three times: 75 % from aliases.
  std::string text = "kind: X\nitems: &items [";
  for (int i = 0; i < 600; ++i)
    text += (i == 0 ? "" : ", ") + std::to_string(i);
  text += "]\nagain: [*items, *items, *items]\n";
  auto docs = ParseManifests(text);
  ASSERT_TRUE(docs.ok()) << docs.status();
  EXPECT_EQ((*docs)[0].json["again"][2][599], 599);
}

TEST(ParseManifestsTest, BoundsTheNodesOfOneDocument) {
  std::string text = "kind: X\nitems: [";
  for (int i = 0; i < 2000; ++i)
    text += (i == 0 ? "" : ", ") + std::to_string(i);
  text += "]\n";
  YamlDecodeLimits limits;
  limits.max_nodes = 1000;
  auto docs = ParseManifests(text, "big.yaml", limits);
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(docs.status().message().find("more than 1000 nodes"),
            std::string::npos)
      << docs.status();
  // The limit is per document.
  std::string two = "kind: X\na: [1, 2, 3]\n---\nkind: Y\nb: [4, 5, 6]\n";
  limits.max_nodes = 12;
  EXPECT_TRUE(ParseManifests(two, "two.yaml", limits).ok());
}

TEST(ParseManifestsTest, SharesADecodeBudgetAndGivesItBack) {
  YamlDecodeBudget budget(10'000);
  YamlDecodeLimits limits;
  limits.shared = &budget;
  auto docs = ParseManifests("kind: X\na: [1, 2]\n", "small.yaml", limits);
  ASSERT_TRUE(docs.ok()) << docs.status();
  // Everything taken came back.
  EXPECT_TRUE(budget.Take(10'000));
  // Nothing left: a decode must wait.
  docs = ParseManifests("kind: X\n", "late.yaml", limits);
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().code(), absl::StatusCode::kUnavailable);
  budget.Give(10'000);
  EXPECT_TRUE(ParseManifests("kind: X\n", "later.yaml", limits).ok());
}

TEST(ParseManifestsTest, SmallDecodesUseAnOpeningBeforeTheSharedBudget) {
  YamlDecodeBudget budget(0, 1);
  YamlDecodeLimits limits;
  limits.shared = &budget;
  // No shared nodes: a small document is decoded from the opening, which
  // comes back afterwards.
  EXPECT_TRUE(ParseManifests("kind: X\na: [1]\n", "a.yaml", limits).ok());
  EXPECT_TRUE(ParseManifests("kind: X\nb: [2]\n", "b.yaml", limits).ok());
  // A document larger than an opening needs the shared nodes.
  std::string big = "kind: X\nitems: [";
  for (size_t i = 0; i < kYamlOpeningNodes; ++i)
    big += (i == 0 ? "" : ", ") + std::to_string(i);
  big += "]\n";
  auto docs = ParseManifests(big, "big.yaml", limits);
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().code(), absl::StatusCode::kUnavailable);
  // With the only opening in use, even a small one must wait.
  ASSERT_TRUE(budget.TakeOpening());
  docs = ParseManifests("kind: X\n", "c.yaml", limits);
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().code(), absl::StatusCode::kUnavailable);
  budget.GiveOpening();
  // With shared nodes for what exceeds the opening, the big one decodes,
  // and gives back its opening and the nodes.
  budget.Give(4096);
  EXPECT_TRUE(ParseManifests(big, "big.yaml", limits).ok());
  EXPECT_TRUE(budget.Take(4096));
  EXPECT_TRUE(budget.TakeOpening());
  EXPECT_FALSE(budget.TakeOpening());
}

// go-yaml's "excessive aliasing" case (nine levels of eighteen aliases)
// is judged within an opening's nodes, so that such a bomb is refused as
// upstream refuses it, never put off for want of shared nodes.
TEST(ParseManifestsTest, AliasBombIsJudgedWithinAnOpening) {
  std::string text = "kind: X\nspec:\n  a: &a [";
  for (int i = 0; i < 9; ++i) text += i == 0 ? "laugh" : ", laugh";
  text += "]\n";
  const std::string names = "abcdefghi";
  for (size_t level = 1; level < names.size(); ++level) {
    text += absl::StrCat("  ", names.substr(level, 1), ": &",
                         names.substr(level, 1), " [");
    for (int i = 0; i < 18; ++i)
      text += absl::StrCat(i == 0 ? "" : ", ", "*", names.substr(level - 1, 1));
    text += "]\n";
  }
  YamlDecodeBudget budget(0, 1);
  YamlDecodeLimits limits;
  limits.shared = &budget;
  auto docs = ParseManifests(text, "bomb.yaml", limits);
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().code(), absl::StatusCode::kInvalidArgument)
      << docs.status();
  EXPECT_NE(docs.status().message().find("excessive aliasing"),
            std::string::npos);
}

TEST(ToYamlTest, QuotesStringsThatWouldChangeType) {
  Json j = Json::object();
  j["a"] = "true";
  j["b"] = "4";
  j["c"] = "";
  j["d"] = "plain";
  j["e"] = 4;
  j["f"] = Json::array();
  j["g"] = "yes";
  std::string yaml = ToYaml(j);
  auto back = ParseManifests(yaml);
  ASSERT_TRUE(back.ok()) << back.status() << "\n" << yaml;
  EXPECT_EQ((*back)[0].json, j) << yaml;
}

// In-process JSON gets what serialising and parsing would give it.
TEST(ReplaceInvalidUtf8Test, MatchesDumpThenParse) {
  const std::string bad = "ok \xff\xfe end \xc3";  // stray bytes, cut rune
  const std::string surrogate = "\xed\xa0\x80";    // UTF-16 surrogate
  Json j = Json::object();
  j["message"] = bad;
  j["list"] = Json::array({surrogate, "fine", 3});
  j["labels"] = Json::object();
  j["labels"][bad] = "value";
  j["labels"]["plain"] = "caf\xc3\xa9";  // valid: é
  const Json expected = *ParseJsonText(DumpJson(j));
  ReplaceInvalidUtf8(j);
  EXPECT_EQ(DumpJson(j), DumpJson(expected));
  EXPECT_EQ(j["labels"]["plain"], "caf\xc3\xa9");
  EXPECT_NE(j["message"], bad);

  Json valid = Json::parse(R"({"a":["x",{"b":"\u00e9"}],"c":1})");
  const std::string before = DumpJson(valid);
  ReplaceInvalidUtf8(valid);
  EXPECT_EQ(DumpJson(valid), before);
}

}  // namespace
}  // namespace draplane::api

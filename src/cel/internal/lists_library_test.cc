#include "cel/internal/lists_library.h"

#include <string>
#include <string_view>
#include <vector>

#include "cel/internal/go_sort.h"
#include "cel/internal/parser.h"
#include "cel/internal/standard_library.h"
#include "cel/internal/strings_library.h"
#include "cel/testing/oracle_json.h"
#include "gtest/gtest.h"

namespace draplane::cel::internal {
namespace {

// An expression with the result the reference (cel-go in the Kubernetes
// 1.37 environment, `draref cel eval --plain --env k8s`) gives: a value in
// its JSON form with its type name, or an error message.
struct OracleCase {
  const char* expr;
  const char* json;  // nullptr: an error is expected
  const char* type;
  const char* error;
};

class ListsLibraryTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    registry_ = new FunctionRegistry;
    ASSERT_TRUE(RegisterStandardFunctions(registry_).ok());
    ASSERT_TRUE(RegisterStringsFunctions(registry_).ok());
    ASSERT_TRUE(RegisterKubernetesListsFunctions(registry_).ok());
    ASSERT_TRUE(RegisterExtListsFunctions(registry_).ok());
    ASSERT_TRUE(RegisterSetsFunctions(registry_).ok());
  }

  // Evaluates `expr` with Kubernetes' cost limit for CEL selectors, or
  // without a limit; `l`, when given, is bound to the JSON value `l`.
  static EvalResult Run(std::string_view expr, const char* l = nullptr,
                        bool limited = true) {
    auto parsed = Parse(expr);
    EXPECT_TRUE(parsed.ok()) << expr << ": " << parsed.status();
    if (!parsed.ok()) return {Value::Error("parse"), 0};
    auto program = Plan(*parsed->root, *registry_);
    EXPECT_TRUE(program.ok()) << expr << ": " << program.status();
    if (!program.ok()) return {Value::Error("plan"), 0};
    EvalOptions options;
    if (limited) options.cost_limit = 1000000;
    MapActivation activation;
    if (l != nullptr) {
      activation.Insert("l", testing::FromOracleJson(nlohmann::json::parse(l)));
    }
    return (*program)->Evaluate(activation, options);
  }

  static void ExpectOracle(const OracleCase& c) {
    SCOPED_TRACE(c.expr);
    Value v = Run(c.expr).value;
    if (c.json == nullptr) {
      ASSERT_TRUE(v.is_error()) << v.DebugString();
      EXPECT_EQ(v.error_message(), c.error);
      return;
    }
    ASSERT_FALSE(v.is_error()) << v.error_message();
    EXPECT_EQ(testing::OracleJson(v), nlohmann::json::parse(c.json));
    EXPECT_EQ(v.TypeName(), c.type);
  }

  static FunctionRegistry* registry_;
};

FunctionRegistry* ListsLibraryTest::registry_ = nullptr;

// Generated with draref from the expressions; see OracleCase.
const OracleCase kOracleCases[] = {
    {R"x([1, 2, 3].isSorted())x", R"x(true)x", "bool", nullptr},
    {R"x([1, 3, 2].isSorted())x", R"x(false)x", "bool", nullptr},
    {R"x(['a', 'b', 'b', 'c'].isSorted())x", R"x(true)x", "bool", nullptr},
    {R"x([2.0, 1.0].isSorted())x", R"x(false)x", "bool", nullptr},
    {R"x([].isSorted())x", R"x(true)x", "bool", nullptr},
    {R"x([dyn(2), dyn(1u)].isSorted())x", R"x(false)x", "bool", nullptr},
    {R"x([dyn(1), dyn(2u)].isSorted())x", R"x(true)x", "bool", nullptr},
    {R"x([dyn(1), dyn("a")].isSorted())x", R"x(true)x", "bool", nullptr},
    {R"x([dyn(1.0), dyn(double("NaN")), dyn(0.5)].isSorted())x", R"x(true)x",
     "bool", nullptr},
    {R"x([timestamp("2020-01-01T00:00:00Z"), timestamp("2019-01-01T00:00:00Z")].isSorted())x",
     R"x(false)x", "bool", nullptr},
    {R"x([b"a", b"b"].isSorted())x", R"x(true)x", "bool", nullptr},
    {R"x([false, true].isSorted())x", R"x(true)x", "bool", nullptr},
    {R"x([true, false].isSorted())x", R"x(false)x", "bool", nullptr},
    {R"x([dyn([1]), dyn([2])].isSorted())x", nullptr, nullptr,
     R"x(no such overload: isSorted(list))x"},
    {R"x([dyn(1), dyn([2])].isSorted())x", nullptr, nullptr,
     R"x(no such overload)x"},
    {R"x([1, 3].sum())x", R"x(4)x", "int", nullptr},
    {R"x([1.0, 3.0].sum())x", R"x(4)x", "double", nullptr},
    {R"x([duration("1m"), duration("1s")].sum())x", R"x("61s")x",
     "google.protobuf.Duration", nullptr},
    {R"x([].sum())x", R"x(0)x", "int", nullptr},
    {R"x([1u, 2u].sum())x", R"x(3)x", "uint", nullptr},
    {R"x(dyn([1.0, 2.0]).sum())x", R"x(3)x", "double", nullptr},
    {R"x([dyn(1), dyn(2.0)].sum())x", nullptr, nullptr,
     R"x(no such overload)x"},
    {R"x([dyn(1u), dyn(2)].sum())x", nullptr, nullptr, R"x(no such overload)x"},
    {R"x([dyn("a")].sum())x", nullptr, nullptr,
     R"x(no such overload: sum(list))x"},
    {R"x([9223372036854775807, 1].sum())x", nullptr, nullptr,
     R"x(integer overflow)x"},
    {R"x([18446744073709551615u, 1u].sum())x", nullptr, nullptr,
     R"x(unsigned integer overflow)x"},
    {R"x([duration("9223372036s"), duration("1s")].sum())x", nullptr, nullptr,
     R"x(integer overflow)x"},
    {R"x([dyn(duration("1s")), dyn(timestamp("2020-01-01T00:00:00Z"))].sum())x",
     R"x("2020-01-01T00:00:01Z")x", "google.protobuf.Timestamp", nullptr},
    {R"x([dyn(duration("1s")), dyn(timestamp("9999-12-31T23:59:59Z"))].sum())x",
     nullptr, nullptr, R"x(timestamp overflow)x"},
    {R"x([dyn(1), dyn([2])].sum())x", nullptr, nullptr,
     R"x(no such overload)x"},
    {R"x([dyn(1), dyn(null)].sum())x", nullptr, nullptr,
     R"x(no such overload)x"},
    {R"x([1, 3].min())x", R"x(1)x", "int", nullptr},
    {R"x([1, 3].max())x", R"x(3)x", "int", nullptr},
    {R"x([].min())x", nullptr, nullptr, R"x(min called on empty list)x"},
    {R"x([].max())x", nullptr, nullptr, R"x(max called on empty list)x"},
    {R"x([dyn(3), dyn(1u)].max())x", R"x(3)x", "int", nullptr},
    {R"x([dyn(3), dyn(1u)].min())x", R"x(1)x", "uint", nullptr},
    {R"x([dyn(3), dyn("a")].max())x", R"x(3)x", "int", nullptr},
    {R"x([dyn("a"), dyn(3)].max())x", R"x("a")x", "string", nullptr},
    {R"x([double("NaN"), 1.0].max())x", R"x("NaN")x", "double", nullptr},
    {R"x([1.0, double("NaN")].max())x", R"x(1)x", "double", nullptr},
    {R"x([1.0, double("NaN"), 0.5].min())x", R"x(0.5)x", "double", nullptr},
    {R"x(["b", "a", "c"].min())x", R"x("a")x", "string", nullptr},
    {R"x([dyn(null)].min())x", nullptr, nullptr,
     R"x(no such overload: min(list))x"},
    {R"x([dyn(1), dyn(null)].min())x", nullptr, nullptr,
     R"x(no such overload)x"},
    {R"x([1, 2, 2, 3].indexOf(2))x", R"x(1)x", "int", nullptr},
    {R"x(['a', 'b', 'b', 'c'].lastIndexOf('b'))x", R"x(2)x", "int", nullptr},
    {R"x([1.0].indexOf(1.1))x", R"x(-1)x", "int", nullptr},
    {R"x([].indexOf('string'))x", R"x(-1)x", "int", nullptr},
    {R"x([dyn(1), dyn(2.0)].indexOf(2))x", R"x(1)x", "int", nullptr},
    {R"x([dyn(1), dyn(2.0)].lastIndexOf(1u))x", R"x(0)x", "int", nullptr},
    {R"x([[1], [2]].indexOf([2]))x", R"x(1)x", "int", nullptr},
    {R"x([dyn({"a": 1})].indexOf(dyn({"a": 1.0})))x", R"x(0)x", "int", nullptr},
    {R"x([1, 2, 3].includes(2))x", R"x(true)x", "bool", nullptr},
    {R"x([1, 2, 3].includes(4))x", R"x(false)x", "bool", nullptr},
    {R"x('model-a'.includes('model-a'))x", R"x(true)x", "bool", nullptr},
    {R"x('model-a'.includes('model-b'))x", R"x(false)x", "bool", nullptr},
    {R"x([1, 2].includes(2.0))x", R"x(true)x", "bool", nullptr},
    {R"x([[1], [2]].includes([1]))x", R"x(true)x", "bool", nullptr},
    {R"x(dyn(1).includes(1u))x", R"x(true)x", "bool", nullptr},
    {R"x({"a": 1}.includes("a"))x", R"x(false)x", "bool", nullptr},
    {R"x([1, 2, 3, 4].slice(1, 3))x", R"x([2,3])x", "list", nullptr},
    {R"x([1, 2, 3].slice(-1, 2))x", nullptr, nullptr,
     R"x(cannot slice(-1, 2), negative indexes not supported)x"},
    {R"x([1, 2, 3].slice(2, 1))x", nullptr, nullptr,
     R"x(cannot slice(2, 1), start index must be less than or equal to end index)x"},
    {R"x([1, 2, 3].slice(1, 5))x", nullptr, nullptr,
     R"x(cannot slice(1, 5), list is length 3)x"},
    {R"x([1, 2, 3].slice(3, 3))x", R"x([])x", "list", nullptr},
    {R"x([dyn([1]), dyn([dyn(2), dyn([3])])].flatten())x", R"x([1,2,[3]])x",
     "list", nullptr},
    {R"x([dyn(1), dyn([dyn(2), dyn([dyn(3), dyn([4])])])].flatten())x",
     R"x([1,2,[3,[4]]])x", "list", nullptr},
    {R"x([dyn(1), dyn([dyn(2), dyn([dyn(3), dyn([4])])])].flatten(2))x",
     R"x([1,2,3,[4]])x", "list", nullptr},
    {R"x([dyn(1), dyn([dyn(2), dyn([dyn(3), dyn([4])])])].flatten(0))x",
     R"x([1,[2,[3,[4]]]])x", "list", nullptr},
    {R"x([dyn(1), dyn([dyn(2), dyn([dyn(3), dyn([4])])])].flatten(100))x",
     R"x([1,2,3,4])x", "list", nullptr},
    {R"x([dyn(1), dyn([dyn(2), dyn([dyn(3), dyn([4])])])].flatten(-1))x",
     nullptr, nullptr, R"x(level must be non-negative)x"},
    {R"x([dyn(1), dyn(2), dyn([]), dyn([]), dyn([3, 4])].flatten())x",
     R"x([1,2,3,4])x", "list", nullptr},
    {R"x(dyn(1).flatten())x", nullptr, nullptr,
     R"x(no such overload: int.flatten())x"},
    {R"x(dyn(1).flatten(1))x", nullptr, nullptr,
     R"x(no such overload: int.flatten(int))x"},
    {R"x(dyn([1, 2]).flatten())x", R"x([1,2])x", "list", nullptr},
    {R"x([1, 2, 2, 3, 3, 3].distinct())x", R"x([1,2,3])x", "list", nullptr},
    {R"x(["b", "b", "c", "a", "c"].distinct())x", R"x(["b","c","a"])x", "list",
     nullptr},
    {R"x([dyn(1), dyn("b"), dyn(2), dyn("b")].distinct())x", R"x([1,"b",2])x",
     "list", nullptr},
    {R"x([dyn(1), dyn("a"), dyn(1u), dyn(1.0)].distinct())x", R"x([1,"a"])x",
     "list", nullptr},
    {R"x([double("NaN"), double("NaN")].distinct())x", R"x(["NaN","NaN"])x",
     "list", nullptr},
    {R"x([dyn([1]), dyn([1]), dyn([1.0]), dyn([2])].distinct())x",
     R"x([[1],[2]])x", "list", nullptr},
    {R"x([].distinct())x", R"x([])x", "list", nullptr},
    {R"x([5, 3, 1, 2].reverse())x", R"x([2,1,3,5])x", "list", nullptr},
    {R"x([].reverse())x", R"x([])x", "list", nullptr},
    {R"x([3, 2, 1].sort())x", R"x([1,2,3])x", "list", nullptr},
    {R"x(["b", "c", "a"].sort())x", R"x(["a","b","c"])x", "list", nullptr},
    {R"x([].sort())x", R"x([])x", "list", nullptr},
    {R"x([dyn(1), dyn("b")].sort())x", nullptr, nullptr,
     R"x(list elements must have the same type)x"},
    {R"x([dyn(2), dyn(1u)].sort())x", nullptr, nullptr,
     R"x(list elements must have the same type)x"},
    {R"x(dyn([[1], [2]]).sort())x", nullptr, nullptr,
     R"x(list elements must be comparable)x"},
    {R"x(dyn("a").sort())x", nullptr, nullptr, R"x(no such overload)x"},
    {R"x([1.0, double("NaN"), 0.5].sort())x", R"x([1,"NaN",0.5])x", "list",
     nullptr},
    {R"x([b"b", b"a"].sort())x", R"x(["YQ==","Yg=="])x", "list", nullptr},
    {R"x([duration("2s"), duration("1s")].sort())x", R"x(["1s","2s"])x", "list",
     nullptr},
    {R"x([true, false, true].sort())x", R"x([false,true,true])x", "list",
     nullptr},
    {R"x([3, 1, 2].sortBy(x, -x))x", R"x([3,2,1])x", "list", nullptr},
    {R"x([3, 1, 2].sortBy(x, x))x", R"x([1,2,3])x", "list", nullptr},
    {R"x(["apple", "fig", "banana"].sortBy(s, size(s)))x",
     R"x(["fig","apple","banana"])x", "list", nullptr},
    {R"x([].sortBy(x, x))x", R"x([])x", "list", nullptr},
    {R"x([dyn(1), dyn(2)].sortBy(x, x == 1 ? dyn("a") : dyn(1)))x", nullptr,
     nullptr, R"x(list elements must have the same type)x"},
    {R"x(dyn([[1], [2]]).sortBy(x, x))x", nullptr, nullptr,
     R"x(list elements must be comparable)x"},
    {R"x(lists.range(12).sortBy(x, x % 3))x",
     R"x([0,3,6,9,1,4,7,10,2,5,8,11])x", "list", nullptr},
    {R"x(lists.range(13).sortBy(x, x % 3))x",
     R"x([6,3,0,9,12,1,4,7,10,2,5,8,11])x", "list", nullptr},
    {R"x(lists.range(60).sortBy(x, x % 4))x",
     R"x([0,20,28,56,4,36,24,52,8,16,44,48,12,40,32,37,25,17,49,41,1,13,21,45,53,9,5,33,57,29,14,46,30,58,34,2,26,54,38,6,22,50,42,10,18,15,7,47,11,43,19,51,31,39,23,55,3,35,27,59])x",
     "list", nullptr},
    {R"x(lists.range(100).sortBy(x, (x * 7) % 10))x",
     R"x([10,80,0,30,60,20,40,70,90,50,93,33,63,13,3,83,73,43,53,23,66,86,96,36,76,56,26,16,46,6,29,79,99,89,69,9,19,59,49,39,72,62,42,2,92,32,12,82,52,22,25,15,95,75,85,55,45,35,65,5,8,28,38,18,78,58,98,88,68,48,41,51,31,11,1,71,91,61,81,21,4,64,94,44,84,54,14,24,74,34,37,87,7,17,77,27,67,97,57,47])x",
     "list", nullptr},
    {R"x(lists.range(200).sortBy(x, -(x / 3)))x",
     R"x([199,198,197,196,195,194,193,192,191,190,189,188,187,186,185,184,183,182,181,180,179,178,177,176,175,174,173,172,171,170,169,168,167,166,165,164,163,162,161,160,159,158,157,156,155,154,153,152,151,150,149,148,147,146,145,144,143,142,141,140,139,138,137,136,135,134,133,132,131,130,129,128,127,126,125,124,123,122,121,120,119,118,117,116,115,114,113,112,111,110,109,108,107,106,105,102,104,103,100,99,101,98,97,96,93,95,94,91,92,90,89,88,87,86,85,84,81,83,82,79,80,78,77,76,75,74,73,72,69,71,70,68,67,66,63,65,64,62,61,60,59,58,57,54,56,55,51,52,53,50,49,48,45,47,46,43,44,42,39,41,40,38,37,36,35,34,33,30,32,31,27,28,29,26,25,24,23,22,21,18,20,19,15,16,17,12,14,13,9,11,10,8,7,6,5,4,3,0,2,1])x",
     "list", nullptr},
    {R"x(lists.range(64).map(x, (x * 37) % 64 / 2).sort())x",
     R"x([0,0,1,1,2,2,3,3,4,4,5,5,6,6,7,7,8,8,9,9,10,10,11,11,12,12,13,13,14,14,15,15,16,16,17,17,18,18,19,19,20,20,21,21,22,22,23,23,24,24,25,25,26,26,27,27,28,28,29,29,30,30,31,31])x",
     "list", nullptr},
    {R"x(lists.range(30).map(x, x % 2 == 0 ? 1.0 : double("NaN")).sort())x",
     R"x([1,"NaN",1,"NaN",1,"NaN",1,"NaN",1,"NaN",1,"NaN",1,"NaN",1,"NaN",1,"NaN",1,"NaN",1,"NaN",1,"NaN",1,"NaN",1,"NaN",1,"NaN"])x",
     "list", nullptr},
    {R"x(lists.range(3))x", R"x([0,1,2])x", "list", nullptr},
    {R"x(lists.range(0))x", R"x([])x", "list", nullptr},
    {R"x(lists.range(-1))x", nullptr, nullptr,
     R"x(lists.range: size must be non-negative, got -1)x"},
    {R"x(lists.range(1000001))x", nullptr, nullptr,
     R"x(lists.range: size 1000001 exceeds maximum allowed (1000000))x"},
    {R"x(size(lists.range(1000000)))x", nullptr, nullptr,
     R"x(operation cancelled: actual cost limit exceeded)x"},
    {R"x(sets.contains([1, 2, 3], [3, 1]))x", R"x(true)x", "bool", nullptr},
    {R"x(sets.contains([1, 2], [2, 3]))x", R"x(false)x", "bool", nullptr},
    {R"x(sets.contains([], [1]))x", R"x(false)x", "bool", nullptr},
    {R"x(sets.contains([1], []))x", R"x(true)x", "bool", nullptr},
    {R"x(sets.contains([dyn(1), dyn("a")], [dyn(1.0), dyn(1u)]))x", R"x(true)x",
     "bool", nullptr},
    {R"x(sets.contains([[dyn(1), dyn(2)]], [[dyn(1.0), dyn(2u)]]))x",
     R"x(true)x", "bool", nullptr},
    {R"x(sets.equivalent([1, 1], [1]))x", R"x(true)x", "bool", nullptr},
    {R"x(sets.equivalent([1, 2], [2, 1, 1]))x", R"x(true)x", "bool", nullptr},
    {R"x(sets.equivalent([1, 2], [1]))x", R"x(false)x", "bool", nullptr},
    {R"x(sets.equivalent([dyn(1)], [dyn(1u), dyn(1.0)]))x", R"x(true)x", "bool",
     nullptr},
    {R"x(sets.intersects([1], []))x", R"x(false)x", "bool", nullptr},
    {R"x(sets.intersects([1, 2], [3, 2]))x", R"x(true)x", "bool", nullptr},
    {R"x(sets.intersects([1, 2], [3]))x", R"x(false)x", "bool", nullptr},
    {R"x(sets.intersects([dyn(1)], [dyn(1.0)]))x", R"x(true)x", "bool",
     nullptr},
    {R"x(sets.contains([double("NaN")], [double("NaN")]))x", R"x(false)x",
     "bool", nullptr},
    {R"x([3, 1, 2].map(x, x * 2).sortBy(y, y))x", R"x([2,4,6])x", "list",
     nullptr},
    {R"x([[3, 1], [2]].map(l, l.sortBy(x, x)))x", R"x([[1,3],[2]])x", "list",
     nullptr},
    {R"x([dyn(2), dyn(1u)].sortBy(x, x))x", nullptr, nullptr,
     R"x(list elements must have the same type)x"},
    {R"x([2, 1].sortBy(x, dyn(x)))x", R"x([1,2])x", "list", nullptr},
    {R"x(["b", "a"].sortBy(x, x).sortBy(y, y))x", R"x(["a","b"])x", "list",
     nullptr},
    {R"x([dyn(1), dyn(1.0), dyn(1u)].indexOf(1.0))x", R"x(0)x", "int", nullptr},
    {R"x([dyn(timestamp("2020-01-01T00:00:00Z")), dyn(duration("1s"))].max())x",
     R"x("2020-01-01T00:00:00Z")x", "google.protobuf.Timestamp", nullptr},
    {R"x([duration("1s"), duration("2s")].max())x", R"x("2s")x",
     "google.protobuf.Duration", nullptr},
    {R"x([duration("3s"), duration("2s")].isSorted())x", R"x(false)x", "bool",
     nullptr},
    {R"x([timestamp("2020-01-01T00:00:00Z"), timestamp("2021-01-01T00:00:00Z")].min())x",
     R"x("2020-01-01T00:00:00Z")x", "google.protobuf.Timestamp", nullptr},
    {R"x([b"b", b"a"].max())x", R"x("Yg==")x", "bytes", nullptr},
    {R"x([true, false].min())x", R"x(false)x", "bool", nullptr},
    {R"x([-0.0, 0.0].sort())x", R"x([0,0])x", "list", nullptr},
    {R"x([0.0, -0.0].sort())x", R"x([0,0])x", "list", nullptr},
    {R"x([1u, 2u, 3u].reverse().slice(0, 2))x", R"x([3,2])x", "list", nullptr},
    {R"x(lists.range(3).includes(2u))x", R"x(true)x", "bool", nullptr},
    {R"x([{"a": 1}].includes({"a": 1}))x", R"x(true)x", "bool", nullptr},
    {R"x(dyn([]).includes(1))x", R"x(false)x", "bool", nullptr},
    {R"x(dyn({}).includes({}))x", R"x(true)x", "bool", nullptr},
    {R"x("abc".includes("a"))x", R"x(false)x", "bool", nullptr},
    {R"x(null.includes(null))x", R"x(true)x", "bool", nullptr},
    {R"x([null].includes(null))x", R"x(true)x", "bool", nullptr},
    {R"x([null].indexOf(null))x", R"x(0)x", "int", nullptr},
    {R"x([1, 2].includes(dyn("1")))x", R"x(false)x", "bool", nullptr},
    {R"x(sets.contains([[1]], [[1]]))x", R"x(true)x", "bool", nullptr},
    {R"x(sets.intersects([{"a": 1}], [{"a": 1}]))x", R"x(true)x", "bool",
     nullptr},
    {R"x(sets.contains(["a", "b"], ["b"]))x", R"x(true)x", "bool", nullptr},
    {R"x([1, 2, 3].sum() == 6)x", R"x(true)x", "bool", nullptr},
    {R"x([[1], [2]].flatten().sum())x", R"x(3)x", "int", nullptr},
    {R"x([[dyn("a")], [dyn(2)]].flatten())x", R"x(["a",2])x", "list", nullptr},
    {R"x(lists.range(5).map(x, x % 2).distinct())x", R"x([0,1])x", "list",
     nullptr},
    {R"x(lists.range(40).map(x, x % 7).distinct().sort())x",
     R"x([0,1,2,3,4,5,6])x", "list", nullptr},
    {R"x(["c", "a", "b", "a"].distinct().sort().reverse())x",
     R"x(["c","b","a"])x", "list", nullptr},
    {R"x(lists.range(500).sortBy(x, (x * 7919) % 13).transformList(i, v, i * v * v).sum())x",
     R"x(10393196950)x", "int", nullptr},
    {R"x(lists.range(300).sortBy(x, x % 2 == 0 ? x : 300 - x).transformList(i, v, i * v * v).sum())x",
     R"x(1336552500)x", "int", nullptr},
    {R"x(lists.range(600).sortBy(x, -(x / 7)).transformList(i, v, i * v * v).sum())x",
     R"x(10728201253)x", "int", nullptr},
    {R"x(lists.range(600).sortBy(x, (x * x) % 17 == 0 ? 0 : 1).transformList(i, v, i * v * v).sum())x",
     R"x(30342670776)x", "int", nullptr},
    {R"x(lists.range(600).sortBy(x, x % 2 == 0 ? 600 - x : x).transformList(i, v, i * v * v).sum())x",
     R"x(21528029900)x", "int", nullptr},
    {R"x(lists.range(600).sortBy(x, (x % 50) * (x % 3)).transformList(i, v, i * v * v).sum())x",
     R"x(21212892534)x", "int", nullptr},
    {R"x(lists.range(256).map(x, x % 3 == 0 ? double("NaN") : double((x * 37) % 64)).sort().transformList(i, v, v == v ? double(i) * v : double(i * i)).sum())x",
     R"x(3745261)x", "double", nullptr},
    {R"x(lists.range(600).map(x, x % 5 == 0 ? double("NaN") : double(600 - x)).sort().transformList(i, v, v == v ? double(i) * v : double(i * i)).sum())x",
     R"x(64392842)x", "double", nullptr},
};

TEST_F(ListsLibraryTest, MatchesTheReference) {
  for (const OracleCase& c : kOracleCases) ExpectOracle(c);
}

// Runtime costs the reference charges (measured with its cost limit), with
// the list `l` bound to a JSON value where given.
struct CostCase {
  const char* expr;
  uint64_t cost;
  const char* l = nullptr;
};
const CostCase kCostCases[] = {
    {R"x(lists.range(5).isSorted())x", 21},
    {R"x(lists.range(5).sum())x", 21},
    {R"x(lists.range(5).min())x", 21},
    {R"x(lists.range(5).max())x", 21},
    {R"x(lists.range(5).indexOf(3))x", 21},
    {R"x(lists.range(5).lastIndexOf(3))x", 21},
    {R"x(lists.range(5).includes(3))x", 21},
    {R"x(lists.range(0).sum())x", 11},
    {R"x("abcdefghijklmnopqrstuvwxyz".includes("a"))x", 2},
    {R"x("abcdefghij".includes("a"))x", 1},
    {R"x(lists.range(20).slice(2, 7))x", 47},
    {R"x(lists.range(20).slice(7, 2))x", 43},
    {R"x(lists.range(20).reverse())x", 62},
    {R"x(lists.range(20).distinct())x", 842},
    {R"x(lists.range(20).sort())x", 842},
    {R"x(lists.range(0).sort())x", 22},
    {R"x(sets.contains(lists.range(7), lists.range(3)))x", 54},
    {R"x(sets.intersects(lists.range(7), lists.range(3)))x", 54},
    {R"x(sets.equivalent(lists.range(7), lists.range(3)))x", 75},
    {R"x(sets.equivalent(lists.range(0), lists.range(3)))x", 26},
    {R"x(l.indexOf("x"))x", 13,
     R"x(["0abcdefghij","1abcdefghij","2abcdefghij","3abcdefghij","4abcdefghij","5abcdefghij","6abcdefghij","7abcdefghij","8abcdefghij","9abcdefghij","10abcdefghij","11abcdefghij"])x"},
    {R"x(l.includes(1))x", 4, R"x([{"key":0},{"key":1},{"key":2}])x"},
    {R"x(l.includes(1))x", 7,
     R"x([{"0abcdefghijkl":"abcdefghijklmnopqrstuvw"},{"1abcdefghijkl":"abcdefghijklmnopqrstuvw"}])x"},
    {R"x(l.sum())x", 6, R"x([1,2,3,4,5])x"},
    {R"x(l.isSorted())x", 4, R"x([[1,2],[3]])x"},
    {R"x(l.distinct())x", 114, R"x(["0","1","2","3","4","5","6"])x"},
    {R"x(l.flatten())x", 18,
     R"x([[],[0],[0,1],[0,1,2],[0,1,2,3],[0,1,2,3,4]])x"},
    {R"x(l.flatten(3))x", 30,
     R"x([[],[0],[0,1],[0,1,2],[0,1,2,3],[0,1,2,3,4]])x"},
    {R"x(l.flatten(-2))x", 18,
     R"x([[],[0],[0,1],[0,1,2],[0,1,2,3],[0,1,2,3,4]])x"},
    {R"x(l.flatten(0))x", 12,
     R"x([[],[0],[0,1],[0,1,2],[0,1,2,3],[0,1,2,3,4]])x"},
    {R"x(sets.contains(l, l))x", 52, R"x([1,2,3,4,5,6,7])x"},
};

TEST_F(ListsLibraryTest, CostsMatchTheReference) {
  for (const CostCase& c : kCostCases) {
    EXPECT_EQ(Run(c.expr, c.l).actual_cost, c.cost) << c.expr;
  }
}

// Kubernetes plans with cel.OptOptimize, which folds constant list
// literals: creating one costs nothing there, while this interpreter
// charges every list literal 10. sortBy's expansion holds two constant
// empty lists (cel.bind's range and map's initial accumulator).
constexpr uint64_t kSortByUnfoldedLiterals = 2 * 10;

TEST_F(ListsLibraryTest, SortByCostsMatchTheReferenceButForFoldedLiterals) {
  EXPECT_EQ(Run("lists.range(20).sortBy(x, -x)").actual_cost,
            1125 + kSortByUnfoldedLiterals);
  EXPECT_EQ(Run("l.sortBy(x, string(x))", R"([1,2,3,4,5,6,7])").actual_cost,
            215 + kSortByUnfoldedLiterals);
}

TEST_F(ListsLibraryTest, SortCostsAssumeAStaticallyTypedList) {
  // cel-go looks the cost tracker up by the overload the checker chose.
  // For a receiver typed list(dyn) (a dyn variable, a DRA list attribute)
  // it keeps all eight sort overloads, finds no tracker and charges 1; here
  // the tracked O(n^2) cost is always charged, as cel-go does for a list of
  // known element type.
  const char* strings = R"(["0","1","2","3","4","5","6"])";
  EXPECT_EQ(Run("l.sort()", strings).actual_cost, 1 + 113u);  // reference: 2
  EXPECT_EQ(Run("l.sortBy(x, -x)",
                R"([1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20])")
                .actual_cost,
            285 + kSortByUnfoldedLiterals - 1 + 811);  // reference: 285
}

TEST_F(ListsLibraryTest, SortByExpandsLikeCelGo) {
  auto parsed = Parse("l.sortBy(e, -e)");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(DebugString(*parsed->root),
            "(fold #unused []#17 @__sortBy_input__ l#1 false#18 "
            "@__sortBy_input__#6 "
            "@__sortBy_input__#15.(@sortByAssociatedKeys "
            "(fold e @__sortBy_input__#7 @result []#8 true#9 "
            "(_+_ @result#10 [(-_ e#5)#4]#11)#12 @result#13)#14)#16)#19");
  auto bad = Parse("'abc'.sortBy(x, x)");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(
                "sortBy can only be applied to a list, identifier, "
                "comprehension, call or select expression"),
            std::string_view::npos);
  auto not_ident = Parse("[1].sortBy(x.y, x)");
  ASSERT_FALSE(not_ident.ok());
  EXPECT_NE(not_ident.status().message().find("argument is not an identifier"),
            std::string_view::npos);
  ParserOptions off;
  off.enable_sort_by_macro = false;
  auto call = Parse("l.sortBy(e, -e)", off);
  ASSERT_TRUE(call.ok());
  EXPECT_EQ(DebugString(*call->root), "l#1.(sortBy e#3 (-_ e#5)#4)#2");
}

TEST_F(ListsLibraryTest, LargeInputsStayFast) {
  // distinct and sets.* hash scalar elements instead of comparing all
  // pairs; sort is O(n log n).
  auto unlimited = [](std::string_view expr) {
    return Run(expr, nullptr, false).value.DebugString();
  };
  EXPECT_EQ(unlimited("size(lists.range(200000).map(x, x % 1000).distinct())"),
            "1000");
  EXPECT_EQ(unlimited("sets.equivalent(lists.range(100000), "
                      "lists.range(100000).reverse())"),
            "true");
  EXPECT_EQ(unlimited("lists.range(100000).reverse().sort()[99999]"), "99999");
}

TEST_F(ListsLibraryTest, FlattenDoesNotRecurseOnTheStack) {
  // Nesting built by a fold, deeper than a recursive flatten could take.
  Value nested = Value::List({Value::Int(0)});
  for (int i = 1; i < 100000; ++i) {
    nested = Value::List({nested, Value::Int(i)});
  }
  FunctionRegistry registry;
  ASSERT_TRUE(RegisterExtListsFunctions(&registry).ok());
  auto flatten = registry.Find("flatten", true, 2);
  ASSERT_EQ(flatten.size(), 1u);
  Value args[] = {nested, Value::Int(1000000)};
  Value flat = flatten[0]->impl(args);
  ASSERT_EQ(flat.kind(), ValueKind::kList);
  EXPECT_EQ(flat.list().size(), 100000u);
  EXPECT_EQ(flat.list()[99999].int_value(), 99999);
  // Release the deep value one level at a time (destroying it at once
  // would recurse as deep as it nests).
  args[0] = Value();
  while (nested.kind() == ValueKind::kList && nested.list().size() == 2) {
    Value inner = nested.list()[0];
    nested = inner;
  }
}

TEST(GoSortTest, InsertionSortIsStableForShortInputs) {
  std::vector<int> keys = {2, 1, 2, 1, 0, 2, 1};
  std::vector<int> order = {0, 1, 2, 3, 4, 5, 6};
  GoSortSlice(
      order.size(),
      [&](size_t i, size_t j) { return keys[order[i]] < keys[order[j]]; },
      [&](size_t i, size_t j) { std::swap(order[i], order[j]); });
  EXPECT_EQ(order, (std::vector<int>{4, 1, 3, 6, 0, 2, 5}));
}

TEST(GoSortTest, ToleratesInconsistentComparators) {
  std::vector<size_t> v(1000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = i;
  int calls = 0;
  GoSortSlice(
      v.size(),
      [&](size_t i, size_t j) { return (++calls + i * 7 + j) % 3 == 0; },
      [&](size_t i, size_t j) { std::swap(v[i], v[j]); });
  std::vector<bool> seen(v.size());
  for (size_t x : v) seen[x] = true;
  for (bool s : seen) EXPECT_TRUE(s);
}

TEST(KubernetesTraversalCostTest, CountsBytesAndElements) {
  EXPECT_EQ(KubernetesTraversalCost(Value::String(std::string(29, 'a'))), 2u);
  EXPECT_EQ(KubernetesTraversalCost(Value::String("\xc3\xa9\xc3\xa9\xc3\xa9"
                                                  "\xc3\xa9\xc3\xa9")),
            1u);  // 10 bytes, 5 code points
  EXPECT_EQ(KubernetesTraversalCost(Value::List({})), 0u);
  EXPECT_EQ(KubernetesTraversalCost(
                Value::List({Value::Int(1), Value::List({Value::Null()})})),
            2u);
  EXPECT_EQ(KubernetesTraversalCost(
                Value::Map({{Value::String("k"), Value::Int(1)}})),
            1u);  // key 0, value 1
}

}  // namespace
}  // namespace draplane::cel::internal

#include "cel/internal/checker.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "absl/strings/str_split.h"
#include "cel/internal/checker_declarations.h"
#include "cel/internal/checker_test_support.h"
#include "cel/internal/kubernetes_library.h"
#include "cel/internal/parser.h"
#include "cel/internal/standard_library.h"
#include "cel/internal/strings_library.h"
#include "cel/testing/text_proto.h"
#include "common/str_cat.h"
#include "gtest/gtest.h"
#include "testing/shared_test_data.h"

namespace draplane::cel::internal {
namespace {

namespace fs = std::filesystem;
using testing::TextProtoField;
using testing::TextProtoMessage;

enum Expect { kType, kError };

// One expression and what cel-go reports for it in Kubernetes' DRA selector
// environment: the compile error text, or the output type (ToString form).
struct Case {
  const char* expr;
  Expect expect;
  const char* want;
};

// Expected values come from the oracle, `draref cel eval --expr EXPR
// --device-json dev.json --driver gpu.nvidia.com` (cel-go v0.29.2 through
// k8s.io/dynamic-resource-allocation v0.37.2, Kubernetes 1.37 default
// features): compile errors are its "compilation failed: " text; output
// types come from its "must evaluate to bool or the unknown type, not T"
// error, or for expressions that evaluate, from compiling `[EXPR]`.
// Parse errors (has(device)) are the parser's own.
constexpr Case kDraCases[] = {
    {R"(device.foo)", kError, R"(ERROR: <input>:1:7: undefined field 'foo'
 | device.foo
 | ......^)"},
    {R"(1)", kType, R"(int)"},
    {R"(device.attributes["a"].b)", kType, R"(dyn)"},
    {R"(device.driver == "gpu.nvidia.com")", kType, R"(bool)"},
    {R"(device.driver == 1)", kError,
     R"(ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(string, int)'
 | device.driver == 1
 | ..............^)"},
    {R"("a" == 1)", kError,
     R"(ERROR: <input>:1:5: found no matching overload for '_==_' applied to '(string, int)'
 | "a" == 1
 | ....^)"},
    {R"(1 == 1.0)", kError,
     R"(ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, double)'
 | 1 == 1.0
 | ..^)"},
    {R"(1 < 1.0)", kType, R"(bool)"},
    {R"(1u < 2)", kType, R"(bool)"},
    {R"(1.0 >= 2u)", kType, R"(bool)"},
    {R"(1 == 1u)", kError,
     R"(ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, uint)'
 | 1 == 1u
 | ..^)"},
    {R"(x)", kError,
     R"(ERROR: <input>:1:1: undeclared reference to 'x' (in container '')
 | x
 | ^)"},
    {R"(device.attributes["gpu.nvidia.com"].productName == "x")", kType,
     R"(bool)"},
    {R"(device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) >= 0)",
     kType, R"(bool)"},
    {R"(device.attributes["gpu.nvidia.com"].cudaComputeCapability.isGreaterThan(semver("8.0.0")))",
     kType, R"(bool)"},
    {R"([1, "a"])", kError,
     R"(ERROR: <input>:1:5: expected type 'int' but found 'string'
 | [1, "a"]
 | ....^)"},
    {R"({"a": 1, "b": "c"})", kError,
     R"(ERROR: <input>:1:15: expected type 'int' but found 'string'
 | {"a": 1, "b": "c"}
 | ..............^)"},
    {R"({1: "a", "b": "c"})", kError,
     R"(ERROR: <input>:1:10: expected type 'int' but found 'string'
 | {1: "a", "b": "c"}
 | .........^)"},
    {R"([[1], ["a"]])", kError,
     R"(ERROR: <input>:1:7: expected type 'list(int)' but found 'list(string)'
 | [[1], ["a"]]
 | ......^)"},
    {R"([1, 2].all(x, x > 0))", kType, R"(bool)"},
    {R"([1, 2].all(x, x))", kError,
     R"(ERROR: <input>:1:15: expected type 'bool' but found 'int'
 | [1, 2].all(x, x)
 | ..............^)"},
    {R"([1, 2].exists(x, x == "a"))", kError,
     R"(ERROR: <input>:1:20: found no matching overload for '_==_' applied to '(int, string)'
 | [1, 2].exists(x, x == "a")
 | ...................^)"},
    {R"({"a": 1}.all(k, k == "a"))", kType, R"(bool)"},
    {R"({"a": 1}.all(k, k == 1))", kError,
     R"(ERROR: <input>:1:19: found no matching overload for '_==_' applied to '(string, int)'
 | {"a": 1}.all(k, k == 1)
 | ..................^)"},
    {R"({"a": 1}.all(k, v, v == 1))", kType, R"(bool)"},
    {R"({"a": 1}.all(k, v, k == 1))", kError,
     R"(ERROR: <input>:1:22: found no matching overload for '_==_' applied to '(string, int)'
 | {"a": 1}.all(k, v, k == 1)
 | .....................^)"},
    {R"([1, 2].all(i, v, i == v))", kType, R"(bool)"},
    {R"(["a"].all(i, v, i == v))", kError,
     R"(ERROR: <input>:1:19: found no matching overload for '_==_' applied to '(int, string)'
 | ["a"].all(i, v, i == v)
 | ..................^)"},
    {R"([1].map(x, x + 1) == [2])", kType, R"(bool)"},
    {R"([1].map(x, x + 1) == ["a"])", kError,
     R"(ERROR: <input>:1:19: found no matching overload for '_==_' applied to '(list(int), list(string))'
 | [1].map(x, x + 1) == ["a"]
 | ..................^)"},
    {R"([1].filter(x, x > 0).size() > 0)", kType, R"(bool)"},
    {R"([1].exists_one(x, x > 0))", kType, R"(bool)"},
    {R"(device.attributes.exists(d, d.startsWith("gpu")))", kType, R"(bool)"},
    {R"(device.attributes.exists(d, d > 1))", kError,
     R"(ERROR: <input>:1:31: found no matching overload for '_>_' applied to '(string, int)'
 | device.attributes.exists(d, d > 1)
 | ..............................^)"},
    {R"(device.capacity["a"].exists(n, device.capacity["a"][n].isGreaterThan(quantity("1"))))",
     kType, R"(bool)"},
    {R"(has(device.foo))", kError, R"(ERROR: <input>:1:4: undefined field 'foo'
 | has(device.foo)
 | ...^)"},
    {R"(has(device.driver))", kType, R"(bool)"},
    {R"(has(device.attributes.foo))", kType, R"(bool)"},
    {R"(has(device.attributes["a"].b))", kType, R"(bool)"},
    {R"(has(device.driver.foo))", kError,
     R"(ERROR: <input>:1:4: type 'string' does not support field selection
 | has(device.driver.foo)
 | ...^)"},
    {R"(device.?foo)", kError, R"(ERROR: <input>:1:7: undefined field 'foo'
 | device.?foo
 | ......^)"},
    {R"(device.?driver.orValue("") == "")", kType, R"(bool)"},
    {R"(device.attributes["a"].?b.orValue(1) == 1)", kType, R"(bool)"},
    {R"(device.attributes[?"a"].hasValue())", kType, R"(bool)"},
    {R"(device.attributes[?1].hasValue())", kError,
     R"(ERROR: <input>:1:18: found no matching overload for '_[?_]' applied to '(map(string, map(string, dyn)), int)'
 | device.attributes[?1].hasValue()
 | .................^)"},
    {R"([?optional.of(1), 2] == [1])", kType, R"(bool)"},
    {R"([?1] == [])", kError,
     R"(ERROR: <input>:1:3: expected type 'optional_type(int)' but found 'int'
 | [?1] == []
 | ..^)"},
    {R"({?"a": 1} == {})", kError,
     R"(ERROR: <input>:1:8: expected type 'optional_type(int)' but found 'int'
 | {?"a": 1} == {}
 | .......^)"},
    {R"({?"a": optional.of(1)} == {"a": 1})", kType, R"(bool)"},
    {R"(optional.of(1).orValue("a") == 1)", kError,
     R"(ERROR: <input>:1:23: found no matching overload for 'orValue' applied to 'optional_type(int).(string)'
 | optional.of(1).orValue("a") == 1
 | ......................^)"},
    {R"(optional.none().orValue(1) == 1)", kType, R"(bool)"},
    {R"(optional.of(1).value() == 1)", kType, R"(bool)"},
    {R"(optional.of(1).or(optional.of(2)).hasValue())", kType, R"(bool)"},
    {R"(optional.of(1).or(optional.of("a")).hasValue())", kError,
     R"(ERROR: <input>:1:18: found no matching overload for 'or' applied to 'optional_type(int).(optional_type(string))'
 | optional.of(1).or(optional.of("a")).hasValue()
 | .................^)"},
    {R"(dyn(1) == 1.0)", kType, R"(bool)"},
    {R"(dyn(device.driver) == 1)", kType, R"(bool)"},
    {R"(dyn(device).foo == 1)", kType, R"(bool)"},
    {R"(dyn([1]).size() == 1)", kType, R"(bool)"},
    {R"(dyn(1).startsWith("a"))", kType, R"(bool)"},
    {R"(device.attributes["a"].b.startsWith("a"))", kType, R"(bool)"},
    {R"(device.attributes["a"].b.isGreaterThan(semver("1.0.0")))", kType,
     R"(bool)"},
    {R"(device.attributes["a"].b > 1)", kType, R"(bool)"},
    {R"(device.attributes["a"].b + 1 > 1)", kType, R"(bool)"},
    {R"(device.attributes["a"].b.size() > 1)", kType, R"(bool)"},
    {R"(device.attributes["a"].b.foo.bar == 1)", kType, R"(bool)"},
    {R"(device.attributes["a"].b.exists(x, x == 1))", kType, R"(bool)"},
    {R"(device.allowMultipleAllocations)", kType, R"(bool)"},
    {R"(device.allowMultipleAllocations == 1)", kError,
     R"(ERROR: <input>:1:33: found no matching overload for '_==_' applied to '(bool, int)'
 | device.allowMultipleAllocations == 1
 | ................................^)"},
    {R"(quantity("1") == null)", kType, R"(bool)"},
    {R"(device.attributes == null)", kError,
     R"(ERROR: <input>:1:19: found no matching overload for '_==_' applied to '(map(string, map(string, dyn)), null)'
 | device.attributes == null
 | ..................^)"},
    {R"(1 == null)", kError,
     R"(ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, null)'
 | 1 == null
 | ..^)"},
    {R"(semver("1.0.0") < semver("1.0.1"))", kError,
     R"(ERROR: <input>:1:17: found no matching overload for '_<_' applied to '(kubernetes.Semver, kubernetes.Semver)'
 | semver("1.0.0") < semver("1.0.1")
 | ................^)"},
    {R"(quantity("1") == 1)", kError,
     R"(ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(kubernetes.Quantity, int)'
 | quantity("1") == 1
 | ..............^)"},
    {R"(quantity("1").foo == 1)", kError,
     R"(ERROR: <input>:1:14: unexpected failed resolution of 'kubernetes.Quantity'
 | quantity("1").foo == 1
 | .............^)"},
    {R"(has(quantity("1").foo))", kError,
     R"(ERROR: <input>:1:4: unexpected failed resolution of 'kubernetes.Quantity'
 | has(quantity("1").foo)
 | ...^)"},
    {R"("a".contains(1))", kError,
     R"(ERROR: <input>:1:13: found no matching overload for 'contains' applied to 'string.(int)'
 | "a".contains(1)
 | ............^)"},
    {R"(1.contains("a"))", kError,
     R"(ERROR: <input>:1:11: found no matching overload for 'contains' applied to 'int.(string)'
 | 1.contains("a")
 | ..........^)"},
    {R"(size(1))", kError,
     R"(ERROR: <input>:1:5: found no matching overload for 'size' applied to '(int)'
 | size(1)
 | ....^)"},
    {R"(size("a") == 1)", kType, R"(bool)"},
    {R"("abc".size() == 3)", kType, R"(bool)"},
    {R"([1,2,3].size() == b"a".size())", kType, R"(bool)"},
    {R"(cel.bind(x, 1, x == 1))", kType, R"(bool)"},
    {R"(cel.bind(x, 1, x == "a"))", kError,
     R"(ERROR: <input>:1:18: found no matching overload for '_==_' applied to '(int, string)'
 | cel.bind(x, 1, x == "a")
 | .................^)"},
    {R"(cel.bind(dra, device.attributes["dra.example.com"], dra.a && dra.b))",
     kType, R"(bool)"},
    {R"(duration("1x") == duration("1s"))", kError,
     R"(ERROR: <input>:1:10: invalid duration argument
 | duration("1x") == duration("1s")
 | .........^)"},
    {R"(timestamp("2020") == timestamp(1))", kError,
     R"(ERROR: <input>:1:11: invalid timestamp argument
 | timestamp("2020") == timestamp(1)
 | ..........^)"},
    {R"(matches("[", "a"))", kError,
     R"(ERROR: <input>:1:9: invalid matches argument
 | matches("[", "a")
 | ........^)"},
    {R"("a".matches("["))", kError,
     R"(ERROR: <input>:1:13: invalid matches argument
 | "a".matches("[")
 | ............^)"},
    {R"("a".matches("a["))", kError,
     R"(ERROR: <input>:1:13: invalid matches argument
 | "a".matches("a[")
 | ............^)"},
    {R"("a".matches("a"))", kType, R"(bool)"},
    {R"(timestamp(253402300800) == timestamp(1))", kError,
     R"(ERROR: <input>:1:11: invalid timestamp argument
 | timestamp(253402300800) == timestamp(1)
 | ..........^)"},
    {R"(duration("1000000000000h") == duration("1s"))", kError,
     R"(ERROR: <input>:1:10: invalid duration argument
 | duration("1000000000000h") == duration("1s")
 | .........^)"},
    {R"([1, dyn(2)] == [1])", kError,
     R"(ERROR: <input>:1:8: expected type 'int' but found 'dyn'
 | [1, dyn(2)] == [1]
 | .......^)"},
    {R"([dyn(2), 1] == [1])", kError,
     R"(ERROR: <input>:1:10: expected type 'dyn' but found 'int'
 | [dyn(2), 1] == [1]
 | .........^)"},
    {R"({"a": dyn(1), "b": 2} == {})", kError,
     R"(ERROR: <input>:1:20: expected type 'dyn' but found 'int'
 | {"a": dyn(1), "b": 2} == {}
 | ...................^)"},
    {R"({dyn("a"): 1, "b": 2} == {})", kError,
     R"(ERROR: <input>:1:15: expected type 'dyn' but found 'string'
 | {dyn("a"): 1, "b": 2} == {}
 | ..............^)"},
    {R"([1, 2.0] == [])", kError,
     R"(ERROR: <input>:1:5: expected type 'int' but found 'double'
 | [1, 2.0] == []
 | ....^)"},
    {R"(!1)", kError,
     R"(ERROR: <input>:1:1: found no matching overload for '!_' applied to '(int)'
 | !1
 | ^)"},
    {R"(-"a" == 1)", kError,
     R"(ERROR: <input>:1:1: found no matching overload for '-_' applied to '(string)'
 | -"a" == 1
 | ^)"},
    {R"(1 + 1u == 2)", kError,
     R"(ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, uint)'
 | 1 + 1u == 2
 | ..^)"},
    {R"(1 + "a" == 2)", kError,
     R"(ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, string)'
 | 1 + "a" == 2
 | ..^)"},
    {R"("a" + "b" == "ab")", kType, R"(bool)"},
    {R"([1] + ["a"] == [])", kError,
     R"(ERROR: <input>:1:5: found no matching overload for '_+_' applied to '(list(int), list(string))'
 | [1] + ["a"] == []
 | ....^)"},
    {R"([1] + [2] == [1, 2])", kType, R"(bool)"},
    {R"([] + [1] == [1])", kType, R"(bool)"},
    {R"(1 in [1, 2])", kType, R"(bool)"},
    {R"(1 in ["a"])", kError,
     R"(ERROR: <input>:1:3: found no matching overload for '@in' applied to '(int, list(string))'
 | 1 in ["a"]
 | ..^)"},
    {R"("a" in {"a": 1})", kType, R"(bool)"},
    {R"(1 in {"a": 1})", kError,
     R"(ERROR: <input>:1:3: found no matching overload for '@in' applied to '(int, map(string, int))'
 | 1 in {"a": 1}
 | ..^)"},
    {R"(1 in 1)", kError,
     R"(ERROR: <input>:1:3: found no matching overload for '@in' applied to '(int, int)'
 | 1 in 1
 | ..^)"},
    {R"(x.y.z)", kError,
     R"(ERROR: <input>:1:1: undeclared reference to 'x' (in container '')
 | x.y.z
 | ^)"},
    {R"(device.attributes["a"]["b"] == 1)", kType, R"(bool)"},
    {R"(device.attributes[1])", kError,
     R"(ERROR: <input>:1:18: found no matching overload for '_[_]' applied to '(map(string, map(string, dyn)), int)'
 | device.attributes[1]
 | .................^)"},
    {R"([1][0] == 1)", kType, R"(bool)"},
    {R"([1]["a"] == 1)", kError,
     R"(ERROR: <input>:1:4: found no matching overload for '_[_]' applied to '(list(int), string)'
 | [1]["a"] == 1
 | ...^)"},
    {R"({"a": 1}[1] == 1)", kError,
     R"(ERROR: <input>:1:9: found no matching overload for '_[_]' applied to '(map(string, int), int)'
 | {"a": 1}[1] == 1
 | ........^)"},
    {R"({"a": 1}["a"] == 1)", kType, R"(bool)"},
    {R"(true ? 1 : 2)", kType, R"(int)"},
    {R"(true ? 1 : "a")", kError,
     R"(ERROR: <input>:1:6: found no matching overload for '_?_:_' applied to '(bool, int, string)'
 | true ? 1 : "a"
 | .....^)"},
    {R"(1 ? 1 : 2)", kError,
     R"(ERROR: <input>:1:3: found no matching overload for '_?_:_' applied to '(int, int, int)'
 | 1 ? 1 : 2
 | ..^)"},
    {R"((true ? 1 : 2) == 1)", kType, R"(bool)"},
    {R"((true ? dyn(1) : 2) == 1)", kType, R"(bool)"},
    {R"((true ? 1 : dyn(2)) == 1)", kType, R"(bool)"},
    {R"((true ? [] : [1]) == [1])", kType, R"(bool)"},
    {R"(true && 1)", kError,
     R"(ERROR: <input>:1:9: expected type 'bool' but found 'int'
 | true && 1
 | ........^)"},
    {R"(1 || false)", kError,
     R"(ERROR: <input>:1:1: expected type 'bool' but found 'int'
 | 1 || false
 | ^)"},
    {R"(true && device.attributes["a"].b)", kType, R"(bool)"},
    {R"(int("1") == 1)", kType, R"(bool)"},
    {R"(int(1u) == 1)", kType, R"(bool)"},
    {R"(int(true) == 1)", kError,
     R"(ERROR: <input>:1:4: found no matching overload for 'int' applied to '(bool)'
 | int(true) == 1
 | ...^)"},
    {R"(string(1) == "1")", kType, R"(bool)"},
    {R"(uint(1) == 1u)", kType, R"(bool)"},
    {R"(double(1) == 1.0)", kType, R"(bool)"},
    {R"(bool("true"))", kType, R"(bool)"},
    {R"(bytes("a") == b"a")", kType, R"(bool)"},
    {R"(type(1) == int)", kType, R"(bool)"},
    {R"(type(1) == string)", kType, R"(bool)"},
    {R"(int == 1)", kError,
     R"(ERROR: <input>:1:5: found no matching overload for '_==_' applied to '(type(int), int)'
 | int == 1
 | ....^)"},
    {R"(timestamp("2020-01-01T00:00:00Z").getFullYear() == 2020)", kType,
     R"(bool)"},
    {R"(timestamp("2020-01-01T00:00:00Z").getFullYear("UTC") == 2020)", kType,
     R"(bool)"},
    {R"(duration("1s").getSeconds() == 1)", kType, R"(bool)"},
    {R"(timestamp("2020-01-01T00:00:00Z") - timestamp("2020-01-01T00:00:00Z") == duration("0s"))",
     kType, R"(bool)"},
    {R"("a".charAt(0) == "a")", kType, R"(bool)"},
    {R"("a".indexOf("a") == 0)", kType, R"(bool)"},
    {R"("a,b".split(",").size() == 2)", kType, R"(bool)"},
    {R"(["a"].join(",") == "a")", kType, R"(bool)"},
    {R"([1].join(",") == "a")", kError,
     R"(ERROR: <input>:1:9: found no matching overload for 'join' applied to 'list(int).(string)'
 | [1].join(",") == "a"
 | ........^)"},
    {R"("a".upperAscii() == "A")", kType, R"(bool)"},
    {R"(strings.quote("a") == "\"a\"")", kType, R"(bool)"},
    {R"(device.driver.lowerAscii() == "a")", kType, R"(bool)"},
    {R"(isQuantity("1"))", kType, R"(bool)"},
    {R"(isSemver("1.0.0"))", kType, R"(bool)"},
    {R"(semver("1.0.0", true).major() == 1)", kType, R"(bool)"},
    {R"(quantity("1").add(1).isInteger())", kType, R"(bool)"},
    {R"(quantity("1").add("a").isInteger())", kError,
     R"(ERROR: <input>:1:18: found no matching overload for 'add' applied to 'kubernetes.Quantity.(string)'
 | quantity("1").add("a").isInteger()
 | .................^)"},
    {R"(quantity("1").sign() == 1)", kError,
     R"(ERROR: <input>:1:19: found no matching overload for 'sign' applied to 'kubernetes.Quantity.()'
 | quantity("1").sign() == 1
 | ..................^)"},
    {R"(sign(quantity("1")) == 1)", kType, R"(bool)"},
    {R"(quantity("1").asApproximateFloat() > 0.0)", kType, R"(bool)"},
    {R"(device.capacity["a"]["b"].asInteger() > 0)", kType, R"(bool)"},
    {R"(device.capacity["a"].b.compareTo(device.capacity["a"].c) == 0)", kType,
     R"(bool)"},
    {R"(device.capacity["a"].b == device.capacity["a"].c)", kType, R"(bool)"},
    {R"(device.capacity["a"].b == quantity("1"))", kType, R"(bool)"},
    {R"(device.capacity["a"].b == semver("1.0.0"))", kError,
     R"(ERROR: <input>:1:24: found no matching overload for '_==_' applied to '(kubernetes.Quantity, kubernetes.Semver)'
 | device.capacity["a"].b == semver("1.0.0")
 | .......................^)"},
    {R"([[], 1] == [])", kError,
     R"(ERROR: <input>:1:6: expected type 'list(dyn)' but found 'int'
 | [[], 1] == []
 | .....^)"},
    {R"([1, []] == [])", kError,
     R"(ERROR: <input>:1:5: expected type 'int' but found 'list(dyn)'
 | [1, []] == []
 | ....^)"},
    {R"([{}, 1] == [])", kError,
     R"(ERROR: <input>:1:6: expected type 'map(dyn, dyn)' but found 'int'
 | [{}, 1] == []
 | .....^)"},
    {R"({} == {"a": 1})", kType, R"(bool)"},
    {R"({"a": []} == {"a": [1]})", kType, R"(bool)"},
    {R"({"a": [], "b": [1]} == {})", kType, R"(bool)"},
    {R"({"a": [], "b": ["x"], "c": [1]} == {})", kError,
     R"(ERROR: <input>:1:28: expected type 'list(string)' but found 'list(int)'
 | {"a": [], "b": ["x"], "c": [1]} == {}
 | ...........................^)"},
    {R"([[], [1], ["a"]] == [])", kError,
     R"(ERROR: <input>:1:11: expected type 'list(int)' but found 'list(string)'
 | [[], [1], ["a"]] == []
 | ..........^)"},
    {R"([1].map(x, [x]) == [[1]])", kType, R"(bool)"},
    {R"([1].map(x, x) == [[1]])", kError,
     R"(ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(list(int), list(list(int)))'
 | [1].map(x, x) == [[1]]
 | ..............^)"},
    {R"([].map(x, x) == [1])", kType, R"(bool)"},
    {R"([].all(x, x))", kType, R"(bool)"},
    {R"([].all(x, x > 1))", kType, R"(bool)"},
    {R"({}.all(k, k > 1))", kType, R"(bool)"},
    {R"(1.all(x, x))", kError,
     R"(ERROR: <input>:1:1: expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)
 | 1.all(x, x)
 | ^)"},
    {R"("abc".all(x, x))", kError,
     R"(ERROR: <input>:1:1: expression of type 'string' cannot be range of a comprehension (must be list, map, or dynamic)
 | "abc".all(x, x)
 | ^)"},
    {R"(device.driver.all(x, x))", kError,
     R"(ERROR: <input>:1:7: expression of type 'string' cannot be range of a comprehension (must be list, map, or dynamic)
 | device.driver.all(x, x)
 | ......^)"},
    {R"(device.attributes["a"].b.all(x, x))", kType, R"(bool)"},
    {R"([1, 2].map(x, x > 1, x * 2) == [4])", kType, R"(bool)"},
    {R"([1, 2].map(x, x, x * 2) == [4])", kError,
     R"(ERROR: <input>:1:11: found no matching overload for '_?_:_' applied to '(int, list(int), list(int))'
 | [1, 2].map(x, x, x * 2) == [4]
 | ..........^)"},
    {R"([1, 2].transformList(i, v, v * 2) == [2, 4])", kType, R"(bool)"},
    {R"([1, 2].transformList(i, v, i > 0, v * 2) == [4])", kType, R"(bool)"},
    {R"({"a": 1}.transformMap(k, v, v * 2) == {"a": 2})", kType, R"(bool)"},
    {R"({"a": 1}.transformMap(k, v, k * 2) == {"a": 2})", kError,
     R"(ERROR: <input>:1:31: found no matching overload for '_*_' applied to '(string, int)'
 | {"a": 1}.transformMap(k, v, k * 2) == {"a": 2}
 | ..............................^)"},
    {R"({"a": 1}.transformMapEntry(k, v, {k: v}) == {"a": 1})", kType,
     R"(bool)"},
    {R"([1,2].existsOne(i, v, v == 1))", kType, R"(bool)"},
    {R"([1,2].exists(i, v, v == "a"))", kError,
     R"(ERROR: <input>:1:22: found no matching overload for '_==_' applied to '(int, string)'
 | [1,2].exists(i, v, v == "a")
 | .....................^)"},
    {R"(optional.of(1).optMap(x, x + 1) == optional.of(2))", kType, R"(bool)"},
    {R"(optional.of(1).optMap(x, x + "a") == optional.of(2))", kError,
     R"(ERROR: <input>:1:28: found no matching overload for '_+_' applied to '(int, string)'
 | optional.of(1).optMap(x, x + "a") == optional.of(2)
 | ...........................^)"},
    {R"(optional.of(1).optFlatMap(x, optional.of(x + 1)) == optional.of(2))",
     kType, R"(bool)"},
    {R"(optional.of(1).optFlatMap(x, x + 1) == optional.of(2))", kError,
     R"(ERROR: <input>:1:26: found no matching overload for '_?_:_' applied to '(bool, int, optional_type(dyn))'
 | optional.of(1).optFlatMap(x, x + 1) == optional.of(2)
 | .........................^)"},
    {R"(optional.none() == optional.none())", kType, R"(bool)"},
    {R"(optional.none() == null)", kType, R"(bool)"},
    {R"(optional.of(1) == optional.of("a"))", kError,
     R"(ERROR: <input>:1:16: found no matching overload for '_==_' applied to '(optional_type(int), optional_type(string))'
 | optional.of(1) == optional.of("a")
 | ...............^)"},
    {R"(optional.ofNonZeroValue(0).hasValue())", kType, R"(bool)"},
    {R"([1][?0].orValue(2) == 1)", kType, R"(bool)"},
    {R"(optional.of([1])[0].orValue(2) == 1)", kType, R"(bool)"},
    {R"(optional.of({"a": 1})["a"].orValue(2) == 1)", kType, R"(bool)"},
    {R"(optional.of({"a": 1}).a.orValue(2) == 1)", kType, R"(bool)"},
    {R"(optional.of({"a": 1}).?a.orValue(2) == 1)", kType, R"(bool)"},
    {R"(optional.of(1).a)", kError,
     R"(ERROR: <input>:1:15: type 'int' does not support field selection
 | optional.of(1).a
 | ..............^)"},
    {R"([1, 2][?"a"].hasValue())", kError,
     R"(ERROR: <input>:1:7: found no matching overload for '_[?_]' applied to '(list(int), string)'
 | [1, 2][?"a"].hasValue()
 | ......^)"},
    {R"({"a": 1}[?1].hasValue())", kError,
     R"(ERROR: <input>:1:9: found no matching overload for '_[?_]' applied to '(map(string, int), int)'
 | {"a": 1}[?1].hasValue()
 | ........^)"},
    {R"(device.attributes[?"a"].?b.orValue(1) == 1)", kType, R"(bool)"},
    {R"(device.attributes.?a.?b.orValue(1) == 1)", kType, R"(bool)"},
    {R"(device.capacity.?a.?b.orValue(quantity("1")).isInteger())", kType,
     R"(bool)"},
    {R"(device.capacity.?a.?b.orValue(1).isInteger())", kError,
     R"(ERROR: <input>:1:30: found no matching overload for 'orValue' applied to 'optional_type(kubernetes.Quantity).(int)'
 | device.capacity.?a.?b.orValue(1).isInteger()
 | .............................^)"},
    {R"([optional.of(1), optional.none()].size() == 2)", kType, R"(bool)"},
    {R"([optional.none(), optional.of(1)].size() == 2)", kType, R"(bool)"},
    {R"([optional.of(1), optional.of("a")].size() == 2)", kError,
     R"(ERROR: <input>:1:29: expected type 'optional_type(int)' but found 'optional_type(string)'
 | [optional.of(1), optional.of("a")].size() == 2
 | ............................^)"},
    {R"(cel.bind(a, [], a == [1]))", kType, R"(bool)"},
    {R"(cel.bind(a, [], cel.bind(b, [1], a + b == [1])))", kType, R"(bool)"},
    {R"(cel.bind(a, {}, a.x == 1))", kType, R"(bool)"},
    {R"([1].exists(x, [x].exists(y, y == x)))", kType, R"(bool)"},
    {R"([1].exists(x, ["a"].exists(x, x == "a")))", kType, R"(bool)"},
    {R"([[1]].exists(x, x.exists(y, y == 1)))", kType, R"(bool)"},
    {R"([[1]].exists(x, x.exists(y, y == "a")))", kError,
     R"(ERROR: <input>:1:31: found no matching overload for '_==_' applied to '(int, string)'
 | [[1]].exists(x, x.exists(y, y == "a"))
 | ..............................^)"},
    {R"({"a": {"b": 1}}.exists(k, {"a": {"b": 1}}[k].exists(k2, k2 == "b")))",
     kType, R"(bool)"},
    {R"(device.attributes.all(d, device.attributes[d].all(n, n.size() > 0)))",
     kType, R"(bool)"},
    {R"(device.attributes.all(d, device.attributes[d].all(n, device.attributes[d][n] == 1)))",
     kType, R"(bool)"},
    {R"(.device.driver == "a")", kType, R"(bool)"},
    {R"(.x == 1)", kError,
     R"(ERROR: <input>:1:2: undeclared reference to '.x' (in container '')
 | .x == 1
 | .^)"},
    {R"(device.driver.size() > 0)", kType, R"(bool)"},
    {R"(size(device.driver) > 0)", kType, R"(bool)"},
    {R"(device.attributes.size() > 0)", kType, R"(bool)"},
    {R"(has(device.attributes.a.b))", kType, R"(bool)"},
    {R"(has(dyn(device).foo))", kType, R"(bool)"},
    {R"(has(device.capacity.a))", kType, R"(bool)"},
    {R"(has({"a": 1}.a))", kType, R"(bool)"},
    {R"(has([1].a))", kError,
     R"(ERROR: <input>:1:4: type 'list(int)' does not support field selection
 | has([1].a)
 | ...^)"},
    {R"(has(optional.of(1).a))", kError,
     R"(ERROR: <input>:1:4: type 'int' does not support field selection
 | has(optional.of(1).a)
 | ...^)"},
    {R"(has(device.attributes.a.b.c))", kType, R"(bool)"},
    {R"(type(device) == type(1))", kType, R"(bool)"},
    {R"(type(1) == type(1u))", kType, R"(bool)"},
    {R"(int == uint)", kType, R"(bool)"},
    {R"(type(type) == type)", kType, R"(bool)"},
    {R"(type(1) == null_type)", kType, R"(bool)"},
    {R"(null_type == type(null))", kType, R"(bool)"},
    {R"(google.protobuf.Timestamp == type(timestamp(1)))", kType, R"(bool)"},
    {R"(list == type([1]))", kType, R"(bool)"},
    {R"(map == type({}))", kType, R"(bool)"},
    {R"(optional_type == type(optional.of(1)))", kType, R"(bool)"},
    {R"(type(optional.none()) == optional_type)", kType, R"(bool)"},
    {R"([1, 2, 3].exists(x, x == 2) && [4].all(y, y > 3) || false)", kType,
     R"(bool)"},
    {R"(!(1 < 2))", kType, R"(bool)"},
    {R"(!device.driver)", kError,
     R"(ERROR: <input>:1:1: found no matching overload for '!_' applied to '(string)'
 | !device.driver
 | ^)"},
    {R"(-1 == -(1))", kType, R"(bool)"},
    {R"(-(1u) == 1u)", kError,
     R"(ERROR: <input>:1:1: found no matching overload for '-_' applied to '(uint)'
 | -(1u) == 1u
 | ^)"},
    {R"(-1.0 == -(1.0))", kType, R"(bool)"},
    {R"(1 - 1u == 0)", kError,
     R"(ERROR: <input>:1:3: found no matching overload for '_-_' applied to '(int, uint)'
 | 1 - 1u == 0
 | ..^)"},
    {R"(1u * 2u == 2u)", kType, R"(bool)"},
    {R"(1 / 2.0 == 0.5)", kError,
     R"(ERROR: <input>:1:3: found no matching overload for '_/_' applied to '(int, double)'
 | 1 / 2.0 == 0.5
 | ..^)"},
    {R"(1 % 2 == 1)", kType, R"(bool)"},
    {R"(1.0 % 2.0 == 1.0)", kError,
     R"(ERROR: <input>:1:5: found no matching overload for '_%_' applied to '(double, double)'
 | 1.0 % 2.0 == 1.0
 | ....^)"},
    {R"(duration("1s") + duration("1s") == duration("2s"))", kType, R"(bool)"},
    {R"(timestamp(1) + duration("1s") == timestamp(2))", kType, R"(bool)"},
    {R"(duration("1s") - timestamp(1) == timestamp(2))", kError,
     R"(ERROR: <input>:1:16: found no matching overload for '_-_' applied to '(duration, timestamp)'
 | duration("1s") - timestamp(1) == timestamp(2)
 | ...............^)"},
    {R"(timestamp(1) < timestamp(2))", kType, R"(bool)"},
    {R"(duration("1s") < duration("2s"))", kType, R"(bool)"},
    {R"(b"a" < b"b")", kType, R"(bool)"},
    {R"(true < false)", kType, R"(bool)"},
    {R"([1] < [2])", kError,
     R"(ERROR: <input>:1:5: found no matching overload for '_<_' applied to '(list(int), list(int))'
 | [1] < [2]
 | ....^)"},
    {R"({"a": 1} < {"a": 2})", kError,
     R"(ERROR: <input>:1:10: found no matching overload for '_<_' applied to '(map(string, int), map(string, int))'
 | {"a": 1} < {"a": 2}
 | .........^)"},
    {R"(null < null)", kType, R"(bool)"},
    {R"("a" < 1)", kError,
     R"(ERROR: <input>:1:5: found no matching overload for '_<_' applied to '(string, int)'
 | "a" < 1
 | ....^)"},
    {R"(1 < "a")", kError,
     R"(ERROR: <input>:1:3: found no matching overload for '_<_' applied to '(int, string)'
 | 1 < "a"
 | ..^)"},
    {R"(1u < 1.0)", kType, R"(bool)"},
    {R"(1.0 <= 1)", kType, R"(bool)"},
    {R"(1 > 1u)", kType, R"(bool)"},
    {R"(1 >= 1.0)", kType, R"(bool)"},
    {R"("a" > "b")", kType, R"(bool)"},
    {R"(1 != 1.0)", kError,
     R"(ERROR: <input>:1:3: found no matching overload for '_!=_' applied to '(int, double)'
 | 1 != 1.0
 | ..^)"},
    {R"(dyn(1) != 1.0)", kType, R"(bool)"},
    {R"([1] == [1.0])", kError,
     R"(ERROR: <input>:1:5: found no matching overload for '_==_' applied to '(list(int), list(double))'
 | [1] == [1.0]
 | ....^)"},
    {R"({1: 1} == {1u: 1})", kError,
     R"(ERROR: <input>:1:8: found no matching overload for '_==_' applied to '(map(int, int), map(uint, int))'
 | {1: 1} == {1u: 1}
 | .......^)"},
    {R"([dyn(1)] == [1.0])", kType, R"(bool)"},
    {R"(device.attributes["a"].b in [1, 2])", kType, R"(bool)"},
    {R"(1 in device.attributes["a"].b)", kType, R"(bool)"},
    {R"("a" in device.attributes)", kType, R"(bool)"},
    {R"(1 in device.attributes)", kError,
     R"(ERROR: <input>:1:3: found no matching overload for '@in' applied to '(int, map(string, map(string, dyn)))'
 | 1 in device.attributes
 | ..^)"},
    {R"(device.driver in ["a", "b"])", kType, R"(bool)"},
    {R"(device.driver in [1])", kError,
     R"(ERROR: <input>:1:15: found no matching overload for '@in' applied to '(string, list(int))'
 | device.driver in [1]
 | ..............^)"},
    {R"(device.capacity["a"]["b"] in [quantity("1")])", kType, R"(bool)"},
    {R"(a + b + c)", kError,
     R"(ERROR: <input>:1:1: undeclared reference to 'a' (in container '')
 | a + b + c
 | ^
ERROR: <input>:1:5: undeclared reference to 'b' (in container '')
 | a + b + c
 | ....^
ERROR: <input>:1:9: undeclared reference to 'c' (in container '')
 | a + b + c
 | ........^)"},
    {R"(a.b.c)", kError,
     R"(ERROR: <input>:1:1: undeclared reference to 'a' (in container '')
 | a.b.c
 | ^)"},
    {R"(a.b.c())", kError,
     R"(ERROR: <input>:1:1: undeclared reference to 'a' (in container '')
 | a.b.c()
 | ^
ERROR: <input>:1:6: undeclared reference to 'c' (in container '')
 | a.b.c()
 | .....^)"},
    {R"(f(x))", kError,
     R"(ERROR: <input>:1:2: undeclared reference to 'f' (in container '')
 | f(x)
 | .^
ERROR: <input>:1:3: undeclared reference to 'x' (in container '')
 | f(x)
 | ..^)"},
    {R"([1].f())", kError,
     R"(ERROR: <input>:1:6: undeclared reference to 'f' (in container '')
 | [1].f()
 | .....^)"},
    {R"("ü" + 1)", kError,
     R"(ERROR: <input>:1:5: found no matching overload for '_+_' applied to '(string, int)'
 | "ü" + 1
 | .．..^)"},
    {R"("üü" == 1 &&
  "x" == 2)",
     kError,
     R"(ERROR: <input>:1:6: found no matching overload for '_==_' applied to '(string, int)'
 | "üü" == 1 &&
 | .．．..^
ERROR: <input>:2:7: found no matching overload for '_==_' applied to '(string, int)'
 |   "x" == 2
 | ......^)"},
    {R"(1 +
 2 == "a")",
     kError,
     R"(ERROR: <input>:2:4: found no matching overload for '_==_' applied to '(int, string)'
 |  2 == "a"
 | ...^)"},
    {R"(x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104)",
     kError,
     R"(ERROR: <input>:1:1: undeclared reference to 'x0' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ^
ERROR: <input>:1:6: undeclared reference to 'x1' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | .....^
ERROR: <input>:1:11: undeclared reference to 'x2' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..........^
ERROR: <input>:1:16: undeclared reference to 'x3' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ...............^
ERROR: <input>:1:21: undeclared reference to 'x4' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ....................^
ERROR: <input>:1:26: undeclared reference to 'x5' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | .........................^
ERROR: <input>:1:31: undeclared reference to 'x6' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..............................^
ERROR: <input>:1:36: undeclared reference to 'x7' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ...................................^
ERROR: <input>:1:41: undeclared reference to 'x8' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ........................................^
ERROR: <input>:1:46: undeclared reference to 'x9' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | .............................................^
ERROR: <input>:1:51: undeclared reference to 'x10' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..................................................^
ERROR: <input>:1:57: undeclared reference to 'x11' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ........................................................^
ERROR: <input>:1:63: undeclared reference to 'x12' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..............................................................^
ERROR: <input>:1:69: undeclared reference to 'x13' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ....................................................................^
ERROR: <input>:1:75: undeclared reference to 'x14' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..........................................................................^
ERROR: <input>:1:81: undeclared reference to 'x15' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ................................................................................^
ERROR: <input>:1:87: undeclared reference to 'x16' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ......................................................................................^
ERROR: <input>:1:93: undeclared reference to 'x17' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ............................................................................................^
ERROR: <input>:1:99: undeclared reference to 'x18' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..................................................................................................^
ERROR: <input>:1:105: undeclared reference to 'x19' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ........................................................................................................^
ERROR: <input>:1:111: undeclared reference to 'x20' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..............................................................................................................^
ERROR: <input>:1:117: undeclared reference to 'x21' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ....................................................................................................................^
ERROR: <input>:1:123: undeclared reference to 'x22' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..........................................................................................................................^
ERROR: <input>:1:129: undeclared reference to 'x23' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ................................................................................................................................^
ERROR: <input>:1:135: undeclared reference to 'x24' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ......................................................................................................................................^
ERROR: <input>:1:141: undeclared reference to 'x25' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ............................................................................................................................................^
ERROR: <input>:1:147: undeclared reference to 'x26' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..................................................................................................................................................^
ERROR: <input>:1:153: undeclared reference to 'x27' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ........................................................................................................................................................^
ERROR: <input>:1:159: undeclared reference to 'x28' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..............................................................................................................................................................^
ERROR: <input>:1:165: undeclared reference to 'x29' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ....................................................................................................................................................................^
ERROR: <input>:1:171: undeclared reference to 'x30' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..........................................................................................................................................................................^
ERROR: <input>:1:177: undeclared reference to 'x31' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ................................................................................................................................................................................^
ERROR: <input>:1:183: undeclared reference to 'x32' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ......................................................................................................................................................................................^
ERROR: <input>:1:189: undeclared reference to 'x33' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ............................................................................................................................................................................................^
ERROR: <input>:1:195: undeclared reference to 'x34' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..................................................................................................................................................................................................^
ERROR: <input>:1:201: undeclared reference to 'x35' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ........................................................................................................................................................................................................^
ERROR: <input>:1:207: undeclared reference to 'x36' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..............................................................................................................................................................................................................^
ERROR: <input>:1:213: undeclared reference to 'x37' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ....................................................................................................................................................................................................................^
ERROR: <input>:1:219: undeclared reference to 'x38' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..........................................................................................................................................................................................................................^
ERROR: <input>:1:225: undeclared reference to 'x39' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ................................................................................................................................................................................................................................^
ERROR: <input>:1:231: undeclared reference to 'x40' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ......................................................................................................................................................................................................................................^
ERROR: <input>:1:237: undeclared reference to 'x41' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ............................................................................................................................................................................................................................................^
ERROR: <input>:1:243: undeclared reference to 'x42' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..................................................................................................................................................................................................................................................^
ERROR: <input>:1:249: undeclared reference to 'x43' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ........................................................................................................................................................................................................................................................^
ERROR: <input>:1:255: undeclared reference to 'x44' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..............................................................................................................................................................................................................................................................^
ERROR: <input>:1:261: undeclared reference to 'x45' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ....................................................................................................................................................................................................................................................................^
ERROR: <input>:1:267: undeclared reference to 'x46' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..........................................................................................................................................................................................................................................................................^
ERROR: <input>:1:273: undeclared reference to 'x47' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:279: undeclared reference to 'x48' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ......................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:285: undeclared reference to 'x49' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ............................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:291: undeclared reference to 'x50' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:297: undeclared reference to 'x51' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ........................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:303: undeclared reference to 'x52' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..............................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:309: undeclared reference to 'x53' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ....................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:315: undeclared reference to 'x54' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..........................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:321: undeclared reference to 'x55' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:327: undeclared reference to 'x56' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ......................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:333: undeclared reference to 'x57' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ............................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:339: undeclared reference to 'x58' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:345: undeclared reference to 'x59' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ........................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:351: undeclared reference to 'x60' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..............................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:357: undeclared reference to 'x61' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ....................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:363: undeclared reference to 'x62' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..........................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:369: undeclared reference to 'x63' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:375: undeclared reference to 'x64' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ......................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:381: undeclared reference to 'x65' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ............................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:387: undeclared reference to 'x66' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:393: undeclared reference to 'x67' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ........................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:399: undeclared reference to 'x68' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..............................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:405: undeclared reference to 'x69' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ....................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:411: undeclared reference to 'x70' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..........................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:417: undeclared reference to 'x71' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:423: undeclared reference to 'x72' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ......................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:429: undeclared reference to 'x73' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ............................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:435: undeclared reference to 'x74' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..................................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:441: undeclared reference to 'x75' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ........................................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:447: undeclared reference to 'x76' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..............................................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:453: undeclared reference to 'x77' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ....................................................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:459: undeclared reference to 'x78' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..........................................................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:465: undeclared reference to 'x79' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ................................................................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:471: undeclared reference to 'x80' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ......................................................................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:477: undeclared reference to 'x81' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ............................................................................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:483: undeclared reference to 'x82' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:489: undeclared reference to 'x83' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ........................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:495: undeclared reference to 'x84' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..............................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:501: undeclared reference to 'x85' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ....................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:507: undeclared reference to 'x86' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..........................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:513: undeclared reference to 'x87' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:519: undeclared reference to 'x88' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ......................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:525: undeclared reference to 'x89' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ............................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:531: undeclared reference to 'x90' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:537: undeclared reference to 'x91' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ........................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:543: undeclared reference to 'x92' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..............................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:549: undeclared reference to 'x93' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ....................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:555: undeclared reference to 'x94' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..........................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:561: undeclared reference to 'x95' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:567: undeclared reference to 'x96' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ......................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:573: undeclared reference to 'x97' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ............................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:579: undeclared reference to 'x98' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ..................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................^
ERROR: <input>:1:585: undeclared reference to 'x99' (in container '')
 | x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17 + x18 + x19 + x20 + x21 + x22 + x23 + x24 + x25 + x26 + x27 + x28 + x29 + x30 + x31 + x32 + x33 + x34 + x35 + x36 + x37 + x38 + x39 + x40 + x41 + x42 + x43 + x44 + x45 + x46 + x47 + x48 + x49 + x50 + x51 + x52 + x53 + x54 + x55 + x56 + x57 + x58 + x59 + x60 + x61 + x62 + x63 + x64 + x65 + x66 + x67 + x68 + x69 + x70 + x71 + x72 + x73 + x74 + x75 + x76 + x77 + x78 + x79 + x80 + x81 + x82 + x83 + x84 + x85 + x86 + x87 + x88 + x89 + x90 + x91 + x92 + x93 + x94 + x95 + x96 + x97 + x98 + x99 + x100 + x101 + x102 + x103 + x104
 | ........................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................................^
5 more errors were truncated)"},
    {R"([1,"a",1,"a",1,"a",1,"a",1,"a"] == [])", kError,
     R"(ERROR: <input>:1:4: expected type 'int' but found 'string'
 | [1,"a",1,"a",1,"a",1,"a",1,"a"] == []
 | ...^)"},
    {R"({"a": 1, "b": "x", "c": true} == {})", kError,
     R"(ERROR: <input>:1:15: expected type 'int' but found 'string'
 | {"a": 1, "b": "x", "c": true} == {}
 | ..............^
ERROR: <input>:1:25: expected type 'int' but found 'bool'
 | {"a": 1, "b": "x", "c": true} == {}
 | ........................^)"},
    {R"({1: 1, "b": 1, true: 1} == {})", kError,
     R"(ERROR: <input>:1:8: expected type 'int' but found 'string'
 | {1: 1, "b": 1, true: 1} == {}
 | .......^
ERROR: <input>:1:16: expected type 'int' but found 'bool'
 | {1: 1, "b": 1, true: 1} == {}
 | ...............^)"},
    {R"([1].map(x, y))", kError,
     R"(ERROR: <input>:1:12: undeclared reference to 'y' (in container '')
 | [1].map(x, y)
 | ...........^)"},
    {R"([1].all(x, x.y))", kError,
     R"(ERROR: <input>:1:13: type 'int' does not support field selection
 | [1].all(x, x.y)
 | ............^)"},
    {R"({"a": 1}.map(k, k + 1))", kError,
     R"(ERROR: <input>:1:19: found no matching overload for '_+_' applied to '(string, int)'
 | {"a": 1}.map(k, k + 1)
 | ..................^)"},
    {R"(optional.of)", kError,
     R"(ERROR: <input>:1:1: undeclared reference to 'optional' (in container '')
 | optional.of
 | ^)"},
    {R"(optional)", kError,
     R"(ERROR: <input>:1:1: undeclared reference to 'optional' (in container '')
 | optional
 | ^)"},
    {R"(optional.of(1).x.y)", kError,
     R"(ERROR: <input>:1:15: type 'int' does not support field selection
 | optional.of(1).x.y
 | ..............^)"},
    {R"(x.y == 1)", kError,
     R"(ERROR: <input>:1:1: undeclared reference to 'x' (in container '')
 | x.y == 1
 | ^)"},
    {R"(1.0 == 1u)", kError,
     R"(ERROR: <input>:1:5: found no matching overload for '_==_' applied to '(double, uint)'
 | 1.0 == 1u
 | ....^)"},
    {R"(null == null)", kType, R"(bool)"},
    {R"(null == 1)", kError,
     R"(ERROR: <input>:1:6: found no matching overload for '_==_' applied to '(null, int)'
 | null == 1
 | .....^)"},
    {R"(timestamp(1) == null)", kType, R"(bool)"},
    {R"(duration("1s") == null)", kType, R"(bool)"},
    {R"([1] == null)", kError,
     R"(ERROR: <input>:1:5: found no matching overload for '_==_' applied to '(list(int), null)'
 | [1] == null
 | ....^)"},
    {R"({} == null)", kError,
     R"(ERROR: <input>:1:4: found no matching overload for '_==_' applied to '(map(dyn, dyn), null)'
 | {} == null
 | ...^)"},
    {R"(b"a" == null)", kError,
     R"(ERROR: <input>:1:6: found no matching overload for '_==_' applied to '(bytes, null)'
 | b"a" == null
 | .....^)"},
    {R"(type(1) == null)", kError,
     R"(ERROR: <input>:1:9: found no matching overload for '_==_' applied to '(type(int), null)'
 | type(1) == null
 | ........^)"},
    {R"(dyn(null) == 1)", kType, R"(bool)"},
    {R"(google.protobuf.Value == type(1))", kType, R"(bool)"},
    {R"(google.protobuf.Any == type(1))", kType, R"(bool)"},
    {R"(device.attributes["a"].b == device.attributes["a"].c)", kType,
     R"(bool)"},
    {R"(device.attributes["a"].b.c.d.e == 1 && device.attributes["a"]["b"]["c"] == 1)",
     kType, R"(bool)"},
    {R"(device.attributes["a"].exists(k, k.size() > 1) && device.attributes["a"].exists(k, device.attributes["a"][k] == "x"))",
     kType, R"(bool)"},
    {R"(device.attributes.map(d, d))", kType, R"(list(string))"},
    {R"(device.attributes.map(d, device.attributes[d]))", kType,
     R"(list(map(string, dyn)))"},
    {R"(device.capacity.map(d, device.capacity[d]))", kType,
     R"(list(map(string, kubernetes.Quantity)))"},
    {R"(device.capacity.filter(d, d.startsWith("x")).size() > 0)", kType,
     R"(bool)"},
    {R"(device.attributes["gpu.nvidia.com"].?productName.orValue("") == "x" || device.attributes["x"].?y.hasValue())",
     kType, R"(bool)"},
    {R"(cel.bind(d, device.attributes["gpu.nvidia.com"], d.productName.startsWith("NVIDIA") && d.index < 4))",
     kType, R"(bool)"},
    {R"(cel.bind(d, device.capacity["gpu.nvidia.com"], d.memory.isGreaterThan(quantity("40Gi"))))",
     kType, R"(bool)"},
    {R"(cel.bind(d, device.capacity["gpu.nvidia.com"], d.memory > quantity("40Gi")))",
     kError,
     R"(ERROR: <input>:1:57: found no matching overload for '_>_' applied to '(kubernetes.Quantity, kubernetes.Quantity)'
 | cel.bind(d, device.capacity["gpu.nvidia.com"], d.memory > quantity("40Gi"))
 | ........................................................^)"},
    {R"(device.attributes["gpu.nvidia.com"].index.exists(x, x == 1))", kType,
     R"(bool)"},
    {R"(matches(device.driver, "^gpu"))", kType, R"(bool)"},
    {R"(device.driver.matches("^gpu"))", kType, R"(bool)"},
    {R"(device.driver.matches("("))", kError,
     R"(ERROR: <input>:1:23: invalid matches argument
 | device.driver.matches("(")
 | ......................^)"},
    {R"(device.driver.matches(device.driver))", kType, R"(bool)"},
    {R"("(".matches(device.driver))", kType, R"(bool)"},
    {R"(matches("(", device.driver))", kError,
     R"(ERROR: <input>:1:9: invalid matches argument
 | matches("(", device.driver)
 | ........^)"},
    {R"(duration(device.driver) > duration("1s"))", kType, R"(bool)"},
    {R"(duration("1s") > duration("1m") && duration("x") == duration("1h"))",
     kError, R"(ERROR: <input>:1:45: invalid duration argument
 | duration("1s") > duration("1m") && duration("x") == duration("1h")
 | ............................................^)"},
    {R"(timestamp("2024-13-01T00:00:00Z") == timestamp(0))", kError,
     R"(ERROR: <input>:1:11: invalid timestamp argument
 | timestamp("2024-13-01T00:00:00Z") == timestamp(0)
 | ..........^)"},
    {R"(timestamp(-62135596801) == timestamp(0))", kError,
     R"(ERROR: <input>:1:11: invalid timestamp argument
 | timestamp(-62135596801) == timestamp(0)
 | ..........^)"},
    {R"(timestamp(-62135596800) == timestamp(0))", kType, R"(bool)"},
    {R"([duration("1x"), duration("2x")].size() == 2)", kError,
     R"(ERROR: <input>:1:11: invalid duration argument
 | [duration("1x"), duration("2x")].size() == 2
 | ..........^
ERROR: <input>:1:27: invalid duration argument
 | [duration("1x"), duration("2x")].size() == 2
 | ..........................^)"},
    {R"(has(device.attributes))", kType, R"(bool)"},
    {R"(has(device))", kError,
     R"(ERROR: <input>:1:5: invalid argument to has() macro
 | has(device)
 | ....^)"},
    {R"(device.driver.?x)", kError,
     R"(ERROR: <input>:1:14: type 'string' does not support field selection
 | device.driver.?x
 | .............^)"},
    {R"(true.?x)", kError,
     R"(ERROR: <input>:1:5: type 'bool' does not support field selection
 | true.?x
 | ....^)"},
    {R"((1).?x)", kError,
     R"(ERROR: <input>:1:4: type 'int' does not support field selection
 | (1).?x
 | ...^)"},
    {R"([].?x)", kError,
     R"(ERROR: <input>:1:3: type 'list(_var0)' does not support field selection
 | [].?x
 | ..^)"},
    {R"({}.?x)", kType, R"(optional_type(dyn))"},
    {R"(optional.of(1).?x)", kError,
     R"(ERROR: <input>:1:15: type 'int' does not support field selection
 | optional.of(1).?x
 | ..............^)"},
    {R"([1, 2, 3][1] == 2)", kType, R"(bool)"},
    {R"([1, 2, 3][1u] == 2)", kError,
     R"(ERROR: <input>:1:10: found no matching overload for '_[_]' applied to '(list(int), uint)'
 | [1, 2, 3][1u] == 2
 | .........^)"},
    {R"([1, 2, 3][1.0] == 2)", kError,
     R"(ERROR: <input>:1:10: found no matching overload for '_[_]' applied to '(list(int), double)'
 | [1, 2, 3][1.0] == 2
 | .........^)"},
    {R"({1: 2}[1u] == 2)", kError,
     R"(ERROR: <input>:1:7: found no matching overload for '_[_]' applied to '(map(int, int), uint)'
 | {1: 2}[1u] == 2
 | ......^)"},
    {R"({1: 2}[1.0] == 2)", kError,
     R"(ERROR: <input>:1:7: found no matching overload for '_[_]' applied to '(map(int, int), double)'
 | {1: 2}[1.0] == 2
 | ......^)"},
    {R"(dyn({1: 2})[1.0] == 2)", kType, R"(bool)"},
    {R"([1][dyn(0)] == 1)", kType, R"(bool)"},
    {R"([[1]][0][0] == 1)", kType, R"(bool)"},
    {R"([[1]][0]["a"] == 1)", kError,
     R"(ERROR: <input>:1:9: found no matching overload for '_[_]' applied to '(list(int), string)'
 | [[1]][0]["a"] == 1
 | ........^)"},
    {R"({"a": {"b": 1}}.a.b == 1)", kType, R"(bool)"},
    {R"({"a": {"b": 1}}.a.c.d == 1)", kError,
     R"(ERROR: <input>:1:20: type 'int' does not support field selection
 | {"a": {"b": 1}}.a.c.d == 1
 | ...................^)"},
    {R"({"a": [1]}.a.b == 1)", kError,
     R"(ERROR: <input>:1:13: type 'list(int)' does not support field selection
 | {"a": [1]}.a.b == 1
 | ............^)"},
    {R"([1, 2].exists(x, x == 1) == [3].all(y, y == 3))", kType, R"(bool)"},
    {R"([1].exists_one(x, x))", kError,
     R"(ERROR: <input>:1:15: found no matching overload for '_?_:_' applied to '(int, int, int)'
 | [1].exists_one(x, x)
 | ..............^)"},
    {R"([1].filter(x, x))", kError,
     R"(ERROR: <input>:1:11: found no matching overload for '_?_:_' applied to '(int, list(int), list(int))'
 | [1].filter(x, x)
 | ..........^)"},
    {R"([1].map(x, x, x))", kError,
     R"(ERROR: <input>:1:8: found no matching overload for '_?_:_' applied to '(int, list(int), list(int))'
 | [1].map(x, x, x)
 | .......^)"},
    {R"([1].map(x, "a", x))", kError,
     R"(ERROR: <input>:1:8: found no matching overload for '_?_:_' applied to '(string, list(int), list(int))'
 | [1].map(x, "a", x)
 | .......^)"},
    {R"({"a": 1}.filter(k, k == "a") == ["a"])", kType, R"(bool)"},
    {R"({"a": 1}.filter(k, k == "a") == [1])", kError,
     R"(ERROR: <input>:1:30: found no matching overload for '_==_' applied to '(list(string), list(int))'
 | {"a": 1}.filter(k, k == "a") == [1]
 | .............................^)"},
    {R"(cel.bind(x, x, x))", kError,
     R"(ERROR: <input>:1:13: undeclared reference to 'x' (in container '')
 | cel.bind(x, x, x)
 | ............^)"},
    {R"(cel.bind(x, 1, cel.bind(x, "a", x + x)) == "aa")", kType, R"(bool)"},
    {R"([1].exists(x, cel.bind(x, "a", x == "a")))", kType, R"(bool)"},
    {R"(size([1], [2]))", kError,
     R"(ERROR: <input>:1:5: found no matching overload for 'size' applied to '(list(int), list(int))'
 | size([1], [2])
 | ....^)"},
    {R"(size())", kError,
     R"(ERROR: <input>:1:5: found no matching overload for 'size' applied to '()'
 | size()
 | ....^)"},
    {R"("a".size(1))", kError,
     R"(ERROR: <input>:1:9: found no matching overload for 'size' applied to 'string.(int)'
 | "a".size(1)
 | ........^)"},
    {R"(int("1", 2))", kError,
     R"(ERROR: <input>:1:4: found no matching overload for 'int' applied to '(string, int)'
 | int("1", 2)
 | ...^)"},
    {R"(optional.none(1))", kError,
     R"(ERROR: <input>:1:14: found no matching overload for 'optional.none' applied to '(int)'
 | optional.none(1)
 | .............^)"},
    {R"(optional.of())", kError,
     R"(ERROR: <input>:1:12: found no matching overload for 'optional.of' applied to '()'
 | optional.of()
 | ...........^)"},
    {R"(1.foo())", kError,
     R"(ERROR: <input>:1:6: undeclared reference to 'foo' (in container '')
 | 1.foo()
 | .....^)"},
    {R"(device.foo())", kError,
     R"(ERROR: <input>:1:11: undeclared reference to 'foo' (in container '')
 | device.foo()
 | ..........^)"},
    {R"(device.driver.foo())", kError,
     R"(ERROR: <input>:1:18: undeclared reference to 'foo' (in container '')
 | device.driver.foo()
 | .................^)"},
    {R"(a.b.c.d(1))", kError,
     R"(ERROR: <input>:1:1: undeclared reference to 'a' (in container '')
 | a.b.c.d(1)
 | ^
ERROR: <input>:1:8: undeclared reference to 'd' (in container '')
 | a.b.c.d(1)
 | .......^)"},
    {R"(device.attributes.a.b())", kError,
     R"(ERROR: <input>:1:22: undeclared reference to 'b' (in container '')
 | device.attributes.a.b()
 | .....................^)"},
    {R"(kubernetes.DRADevice{driver: "x"} == device)", kType, R"(bool)"},
    {R"(kubernetes.DRADevice{driver: 1} == device)", kError,
     R"(ERROR: <input>:1:28: expected type of field 'driver' is 'string' but provided type is 'int'
 | kubernetes.DRADevice{driver: 1} == device
 | ...........................^)"},
    {R"(kubernetes.DRADevice{foo: 1} == device)", kError,
     R"(ERROR: <input>:1:25: undefined field 'foo'
 | kubernetes.DRADevice{foo: 1} == device
 | ........................^)"},
    {R"(kubernetes.DRADevice{?driver: optional.of("x")} == device)", kType,
     R"(bool)"},
    {R"(kubernetes.DRADevice{?driver: "x"} == device)", kError,
     R"(ERROR: <input>:1:31: expected type 'optional_type(string)' but found 'string'
 | kubernetes.DRADevice{?driver: "x"} == device
 | ..............................^)"},
    {R"(int{} == 1)", kError, R"(ERROR: <input>:1:4: 'int' is not a message type
 | int{} == 1
 | ...^)"},
    {R"(google.protobuf.Timestamp{} == timestamp(1))", kType, R"(bool)"},
    {R"(foo.Bar{} == 1)", kError,
     R"(ERROR: <input>:1:8: undeclared reference to 'foo.Bar' (in container '')
 | foo.Bar{} == 1
 | .......^)"},
    {R"(type(device) == kubernetes.DRADevice)", kType, R"(bool)"},
    {R"(.kubernetes.DRADevice == type(device))", kType, R"(bool)"},
    {R"(device.kubernetes)", kError,
     R"(ERROR: <input>:1:7: undefined field 'kubernetes'
 | device.kubernetes
 | ......^)"},
    {R"([?device.attributes["a"].?b] == [])", kType, R"(bool)"},
    {R"({"a": 1}.?a.orValue(2) == 1)", kType, R"(bool)"},
    {R"({?"a": device.attributes["a"].?b} == {})", kType, R"(bool)"},
    {R"([device.attributes["x"].y, 1, "a"] == [])", kError,
     R"(ERROR: <input>:1:28: expected type 'dyn' but found 'int'
 | [device.attributes["x"].y, 1, "a"] == []
 | ...........................^)"},
    {R"([1, device.attributes["x"].y] == [])", kError,
     R"(ERROR: <input>:1:27: expected type 'int' but found 'dyn'
 | [1, device.attributes["x"].y] == []
 | ..........................^)"},
    {R"({1: device.attributes["x"].y, 2: 1} == {})", kError,
     R"(ERROR: <input>:1:34: expected type 'dyn' but found 'int'
 | {1: device.attributes["x"].y, 2: 1} == {}
 | .................................^)"},
    {R"([[device.attributes["x"].y], [1]] == [])", kError,
     R"(ERROR: <input>:1:30: expected type 'list(dyn)' but found 'list(int)'
 | [[device.attributes["x"].y], [1]] == []
 | .............................^)"},
    {R"([optional.none(), optional.of(1)] == [])", kType, R"(bool)"},
    {R"([optional.of(dyn(1)), optional.of(1)] == [])", kError,
     R"(ERROR: <input>:1:34: expected type 'optional_type(dyn)' but found 'optional_type(int)'
 | [optional.of(dyn(1)), optional.of(1)] == []
 | .................................^)"},
    {R"([[], [[]], [[[]]], [[[[]]]]] == [])", kType, R"(bool)"},
    {R"([[[[[]]]], [], [[[]]]] == [])", kType, R"(bool)"},
    {R"(([].map(x,x))[0].foo)", kType, R"(dyn)"},
    {R"(dyn([]).map(x, x)[0].foo)", kType, R"(dyn)"},
    {R"(([] + [1] + [])[0] + 1 == 2)", kType, R"(bool)"},
    {R"(([] + [1] + ["a"])[0] == 2)", kError,
     R"(ERROR: <input>:1:11: found no matching overload for '_+_' applied to '(list(int), list(string))'
 | ([] + [1] + ["a"])[0] == 2
 | ..........^)"},
    {R"({}["a"] == 1)", kType, R"(bool)"},
    {R"({}.a == 1)", kType, R"(bool)"},
    {R"([].size() == 0)", kType, R"(bool)"},
    {R"([] == {})", kError,
     R"(ERROR: <input>:1:4: found no matching overload for '_==_' applied to '(list(dyn), map(dyn, dyn))'
 | [] == {}
 | ...^)"},
    {R"({} == [])", kError,
     R"(ERROR: <input>:1:4: found no matching overload for '_==_' applied to '(map(dyn, dyn), list(dyn))'
 | {} == []
 | ...^)"},
    {"\"a\".matches(\"(?<n>a)\")", kType, R"(bool)"},
    {"\"a\".matches(\"(?P<n>a)\")", kType, R"(bool)"},
    {R"("a".matches("\\pL"))", kType, R"(bool)"},
    {R"("a".matches("\\p{Greek}"))", kType, R"(bool)"},
    {R"("a".matches("[[:alpha:]]"))", kType, R"(bool)"},
    {R"("a".matches("\\z"))", kType, R"(bool)"},
    {R"("a".matches("\\Z"))", kError,
     R"(ERROR: <input>:1:13: invalid matches argument
 | "a".matches("\\Z")
 | ............^)"},
    {R"("a".matches("(?U)a+"))", kType, R"(bool)"},
    {R"("a".matches("a{,5}"))", kType, R"(bool)"},
    {R"("a".matches("\\b"))", kType, R"(bool)"},
    {R"("a".matches("(?s)."))", kType, R"(bool)"},
    {R"("a".matches("\\x{10FFFF}"))", kType, R"(bool)"},
    {R"("a".matches("\\Q.\\E"))", kType, R"(bool)"},
    {R"("a".matches("[\\d-z]"))", kType, R"(bool)"},
    {"\"a\".matches(\"(?P=n)\")", kError,
     "ERROR: <input>:1:13: invalid matches argument\n | "
     "\"a\".matches(\"(?P=n)\")\n | ............^"},
    {R"("a".matches("\\1"))", kError,
     R"(ERROR: <input>:1:13: invalid matches argument
 | "a".matches("\\1")
 | ............^)"},
    {R"("a".matches("a**"))", kError,
     R"(ERROR: <input>:1:13: invalid matches argument
 | "a".matches("a**")
 | ............^)"},
    {R"("a".matches("a++"))", kError,
     R"(ERROR: <input>:1:13: invalid matches argument
 | "a".matches("a++")
 | ............^)"},
    {R"("a".matches("a{2}{3}"))", kError,
     R"(ERROR: <input>:1:13: invalid matches argument
 | "a".matches("a{2}{3}")
 | ............^)"},
    {R"("a".matches("x{1001}"))", kError,
     R"(ERROR: <input>:1:13: invalid matches argument
 | "a".matches("x{1001}")
 | ............^)"},
    {R"("a".matches("x{1000}"))", kType, R"(bool)"},
    {"\"a\".matches(\"(?i:a)\")", kType, R"(bool)"},
    {R"("a".matches("\\C"))", kError,
     R"(ERROR: <input>:1:13: invalid matches argument
 | "a".matches("\\C")
 | ............^)"},
    {R"("a".matches("[a-\\d]"))", kError,
     R"(ERROR: <input>:1:13: invalid matches argument
 | "a".matches("[a-\\d]")
 | ............^)"},
    {R"("a".matches("\\8"))", kError,
     R"(ERROR: <input>:1:13: invalid matches argument
 | "a".matches("\\8")
 | ............^)"},
    {R"("a".matches("(?m)^a$"))", kType, R"(bool)"},
    {R"("a".matches("\\pN"))", kType, R"(bool)"},
    {R"("a".matches("\\p{^Greek}"))", kType, R"(bool)"},
    {R"("a".matches("\\P{Greek}"))", kType, R"(bool)"},
    {R"("a".matches("[[:^alpha:]]"))", kType, R"(bool)"},
    {R"("a".matches("[[:foo:]]"))", kError,
     R"(ERROR: <input>:1:13: invalid matches argument
 | "a".matches("[[:foo:]]")
 | ............^)"},
    {R"("a".matches("("))", kError,
     R"(ERROR: <input>:1:13: invalid matches argument
 | "a".matches("(")
 | ............^)"},
    {"\"a\".matches(\")\")", kError,
     "ERROR: <input>:1:13: invalid matches argument\n | \"a\".matches(\")\")\n "
     "| ............^"},
    {R"("a".matches("a|*"))", kError,
     R"(ERROR: <input>:1:13: invalid matches argument
 | "a".matches("a|*")
 | ............^)"},
    {R"("a".matches("*"))", kError,
     R"(ERROR: <input>:1:13: invalid matches argument
 | "a".matches("*")
 | ............^)"},
    {R"("a".matches("a{1,2}{3}"))", kError,
     R"(ERROR: <input>:1:13: invalid matches argument
 | "a".matches("a{1,2}{3}")
 | ............^)"},
    {R"("a".matches("(?i)(?-i)a"))", kType, R"(bool)"},
    {R"("a".matches("\\e"))", kError,
     R"(ERROR: <input>:1:13: invalid matches argument
 | "a".matches("\\e")
 | ............^)"},
    {R"("a".matches("\\cA"))", kError,
     R"(ERROR: <input>:1:13: invalid matches argument
 | "a".matches("\\cA")
 | ............^)"},
    {R"("a".matches("\\_"))", kType, R"(bool)"},
};

// Cases that need libraries draplane does not implement yet (IP, CIDR, URL,
// regex, lists, sets, format, ...); checked against a registry where every
// declared overload exists (DeclaredEverythingRegistry below).
constexpr Case kLibraryCases[] = {
    {R"(ip("1.2.3.4").foo == 1)", kError,
     R"(ERROR: <input>:1:14: type 'net.IP' does not support field selection
 | ip("1.2.3.4").foo == 1
 | .............^)"},
    {R"(ip("1.2.3.4").family() == 4)", kType, R"(bool)"},
    {R"(ip("1.2.3.4") == ip("1.2.3.4"))", kType, R"(bool)"},
    {R"(ip("1.2.3.4") == cidr("1.2.3.0/24"))", kError,
     R"(ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(net.IP, net.CIDR)'
 | ip("1.2.3.4") == cidr("1.2.3.0/24")
 | ..............^)"},
    {R"(ip("1.2.3.4") < ip("1.2.3.5"))", kError,
     R"(ERROR: <input>:1:15: found no matching overload for '_<_' applied to '(net.IP, net.IP)'
 | ip("1.2.3.4") < ip("1.2.3.5")
 | ..............^)"},
    {R"(string(ip("1.2.3.4")) == "1.2.3.4")", kType, R"(bool)"},
    {R"(cidr("1.2.3.0/24").containsIP("1.2.3.4"))", kType, R"(bool)"},
    {R"(cidr("1.2.3.0/24").containsIP(ip("1.2.3.4")))", kType, R"(bool)"},
    {R"(cidr("1.2.3.0/24").containsIP(1))", kError,
     R"(ERROR: <input>:1:30: found no matching overload for 'containsIP' applied to 'net.CIDR.(int)'
 | cidr("1.2.3.0/24").containsIP(1)
 | .............................^)"},
    {R"(cidr("1.2.3.0/24").ip().isLoopback())", kType, R"(bool)"},
    {R"(cidr("1.2.3.0/24").masked().prefixLength() == 24)", kType, R"(bool)"},
    {R"(isIP("1.2.3.4") && isCIDR("1.2.3.0/24") && ip.isCanonical("1.2.3.4"))",
     kType, R"(bool)"},
    {R"(type(ip("1.2.3.4")) == net.IP)", kType, R"(bool)"},
    {R"(net.CIDR == type(cidr("1.2.3.0/24")))", kType, R"(bool)"},
    {R"(url("http://a").getHost() == "a")", kType, R"(bool)"},
    {R"(url("http://a").getQuery() == {"a": ["b"]})", kType, R"(bool)"},
    {R"(url("http://a").getQuery()["a"][0] == "b")", kType, R"(bool)"},
    {R"(isURL("http://a"))", kType, R"(bool)"},
    {R"("a".find("a") == "a")", kType, R"(bool)"},
    {R"("a".findAll("a") == ["a"])", kType, R"(bool)"},
    {R"("a".findAll("a", 1).size() == 1)", kType, R"(bool)"},
    {R"("a".find(1) == "a")", kError,
     R"(ERROR: <input>:1:9: found no matching overload for 'find' applied to 'string.(int)'
 | "a".find(1) == "a"
 | ........^)"},
    {R"(format.dns1123Label().validate("a").hasValue())", kType, R"(bool)"},
    {R"(format.named("dns1123Label").hasValue())", kType, R"(bool)"},
    {R"(format.named("x").value().validate("a").orValue([]).size() == 0)",
     kType, R"(bool)"},
    {R"("%d".format([1]) == "1")", kType, R"(bool)"},
    {R"("a".reverse() == "a")", kError,
     R"(ERROR: <input>:1:12: found no matching overload for 'reverse' applied to 'string.()'
 | "a".reverse() == "a"
 | ...........^)"},
    {R"([1].includes(1))", kType, R"(bool)"},
    {R"(1.includes(1))", kType, R"(bool)"},
    {R"(device.attributes["a"].b.includes(1))", kType, R"(bool)"},
    {R"(optional.unwrap([optional.of(1)]) == [1])", kType, R"(bool)"},
    {R"([optional.of(1)].unwrapOpt() == [1])", kType, R"(bool)"},
    {R"([1].unwrapOpt() == [1])", kError,
     R"(ERROR: <input>:1:14: found no matching overload for 'unwrapOpt' applied to 'list(int).()'
 | [1].unwrapOpt() == [1]
 | .............^)"},
    {R"(sets.contains([1], [2]))", kType, R"(bool)"},
    {R"(sets.contains([1], ["a"]))", kError,
     R"(ERROR: <input>:1:14: found no matching overload for 'sets.contains' applied to '(list(int), list(string))'
 | sets.contains([1], ["a"])
 | .............^)"},
    {R"(sets.equivalent([1], [1u]))", kError,
     R"(ERROR: <input>:1:16: found no matching overload for 'sets.equivalent' applied to '(list(int), list(uint))'
 | sets.equivalent([1], [1u])
 | ...............^)"},
    {R"(sets.intersects([dyn(1)], ["a"]))", kType, R"(bool)"},
    {R"(lists.range(3) == [0, 1, 2])", kType, R"(bool)"},
    {R"(lists.range("a") == [0])", kError,
     R"(ERROR: <input>:1:12: found no matching overload for 'lists.range' applied to '(string)'
 | lists.range("a") == [0]
 | ...........^)"},
    {R"([1,2].slice(0, 1) == [1])", kType, R"(bool)"},
    {R"([3,1].sort() == [1, 3])", kType, R"(bool)"},
    {R"(["b","a"].sort() == ["a", "b"])", kType, R"(bool)"},
    {R"([[1]].sort() == [])", kError,
     R"(ERROR: <input>:1:11: found no matching overload for 'sort' applied to 'list(list(int)).()'
 | [[1]].sort() == []
 | ..........^)"},
    {R"([[1]].flatten() == [1])", kType, R"(bool)"},
    {R"([1].flatten() == [1])", kError,
     R"(ERROR: <input>:1:12: found no matching overload for 'flatten' applied to 'list(int).()'
 | [1].flatten() == [1]
 | ...........^)"},
    {R"([[1], [2]].flatten(1) == [1, 2])", kType, R"(bool)"},
    {R"([1].distinct() == [1])", kType, R"(bool)"},
    {R"([1].reverse() == [1])", kType, R"(bool)"},
    {R"([1].first().orValue(0) == 1)", kType, R"(bool)"},
    {R"([1].last().hasValue())", kType, R"(bool)"},
    {R"([1].isSorted())", kType, R"(bool)"},
    {R"(["a"].isSorted())", kType, R"(bool)"},
    {R"([[1]].isSorted())", kError,
     R"(ERROR: <input>:1:15: found no matching overload for 'isSorted' applied to 'list(list(int)).()'
 | [[1]].isSorted()
 | ..............^)"},
    {R"([1].sum() == 1)", kType, R"(bool)"},
    {R"([1.0].sum() == 1.0)", kType, R"(bool)"},
    {R"(["a"].sum() == "a")", kError,
     R"(ERROR: <input>:1:10: found no matching overload for 'sum' applied to 'list(string).()'
 | ["a"].sum() == "a"
 | .........^)"},
    {R"([1].min() == 1)", kType, R"(bool)"},
    {R"([1].max() == 1)", kType, R"(bool)"},
    {R"([1].indexOf(1) == 0)", kType, R"(bool)"},
    {R"([1].lastIndexOf(1) == 0)", kType, R"(bool)"},
    {R"([1].indexOf("a") == 0)", kError,
     R"(ERROR: <input>:1:12: found no matching overload for 'indexOf' applied to 'list(int).(string)'
 | [1].indexOf("a") == 0
 | ...........^)"},
    {R"("abc".indexOf("b") == 1)", kType, R"(bool)"},
    {R"([duration("1s")].sum() == duration("1s"))", kType, R"(bool)"},
    {R"([timestamp(1)].max() == timestamp(1))", kType, R"(bool)"},
    {R"(int(duration("1s")) == 1000000000)", kType, R"(bool)"},
    {R"(quantity("1").isGreaterThan(semver("1.0.0")))", kError,
     R"(ERROR: <input>:1:28: found no matching overload for 'isGreaterThan' applied to 'kubernetes.Quantity.(kubernetes.Semver)'
 | quantity("1").isGreaterThan(semver("1.0.0"))
 | ...........................^)"},
    {R"(semver("1.0.0").compareTo(semver("1.0.0")) == 0)", kType, R"(bool)"},
    {R"(semver("1.0.0").isLessThan(quantity("1")))", kError,
     R"(ERROR: <input>:1:27: found no matching overload for 'isLessThan' applied to 'kubernetes.Semver.(kubernetes.Quantity)'
 | semver("1.0.0").isLessThan(quantity("1"))
 | ..........................^)"},
};

class CheckerTest : public ::testing::Test {
 protected:
  void SetUp() override { RegisterProductionLibraries(&registry_); }

  CheckerEnvironment DraEnvironment(const FunctionRegistry& registry) const {
    CheckerEnvironment env;
    env.functions = &registry;
    env.variables.push_back({"device", DraDeviceType()});
    return env;
  }

  // "type T" or "error: ..." for `expr`.
  std::string Outcome(std::string_view expr, const CheckerEnvironment& env) {
    auto parsed = Parse(expr);
    if (!parsed.ok()) return StrCat("error: ", parsed.status().message());
    auto checked = Check(*parsed->root, parsed->source, env);
    if (!checked.ok()) return StrCat("error: ", checked.status().message());
    return StrCat("type ", checked->output_type.ToString());
  }

  void RunCases(absl::Span<const Case> cases, const CheckerEnvironment& env) {
    for (const Case& c : cases) {
      std::string want =
          StrCat(c.expect == kType ? "type " : "error: ", c.want);
      EXPECT_EQ(Outcome(c.expr, env), want) << c.expr;
    }
  }

  FunctionRegistry registry_;
};

TEST_F(CheckerTest, MatchesCelGoInTheDraEnvironment) {
  RunCases(kDraCases, DraEnvironment(registry_));
}

TEST_F(CheckerTest, MatchesCelGoForLibrariesNotYetImplemented) {
  FunctionRegistry everything;
  RegisterProductionLibraries(&everything);
  AddStandInsForDeclaredOverloads(&everything);
  RunCases(kLibraryCases, DraEnvironment(everything));
}

TEST_F(CheckerTest, ReportsTypesOfEveryNode) {
  auto parsed = Parse("device.attributes['a'].exists(k, k.size() > 1)");
  ASSERT_TRUE(parsed.ok());
  auto checked =
      Check(*parsed->root, parsed->source, DraEnvironment(registry_));
  ASSERT_TRUE(checked.ok()) << checked.status();
  EXPECT_EQ(checked->output_type.ToString(), "bool");
  // Every node has a type and no free type variable survives.
  std::set<std::string> types;
  for (const auto& [id, t] : checked->types) types.insert(t.ToString());
  EXPECT_EQ(types.count("map(string, dyn)"), 1) << "device.attributes['a']";
  for (const std::string& t : types) {
    EXPECT_EQ(t.find('<'), std::string::npos) << t;
  }
  EXPECT_EQ(checked->references.size(), 1);  // `device`
  bool saw_size = false;
  for (const auto& [id, ids] : checked->overload_ids) {
    if (ids == std::vector<std::string>{"string_size"}) saw_size = true;
  }
  EXPECT_TRUE(saw_size);
}

TEST_F(CheckerTest, NamespacedFunctionsAreRecorded) {
  auto parsed = Parse("optional.of(1).hasValue()");
  ASSERT_TRUE(parsed.ok());
  auto checked =
      Check(*parsed->root, parsed->source, DraEnvironment(registry_));
  ASSERT_TRUE(checked.ok()) << checked.status();
  ASSERT_EQ(checked->namespaced_functions.size(), 1);
  EXPECT_EQ(checked->namespaced_functions.begin()->second, "optional.of");
}

TEST_F(CheckerTest, CrossTypeNumericComparisonsCanBeDisabled) {
  CheckerEnvironment env = DraEnvironment(registry_);
  EXPECT_EQ(Outcome("1 < 1.5", env), "type bool");
  env.cross_type_numeric_comparisons = false;
  EXPECT_EQ(Outcome("1 < 1.5", env),
            "error: ERROR: <input>:1:3: found no matching overload for '_<_' "
            "applied to '(int, double)'\n | 1 < 1.5\n | ..^");
}

TEST_F(CheckerTest, HeterogeneousLiteralsAreDynWithoutTheValidator) {
  CheckerEnvironment env = DraEnvironment(registry_);
  env.homogeneous_aggregate_literals = false;
  EXPECT_EQ(Outcome("[1, 'a']", env), "type list(dyn)");
  EXPECT_EQ(Outcome("{1: 'a', 'b': 2}", env), "type map(dyn, dyn)");
}

TEST_F(CheckerTest, LiteralArgumentValidationCanBeDisabled) {
  CheckerEnvironment env = DraEnvironment(registry_);
  env.validate_literal_arguments = false;
  EXPECT_EQ(Outcome("duration('1x')", env), "type google.protobuf.Duration");
  EXPECT_EQ(Outcome("'a'.matches('[')", env), "type bool");
}

TEST_F(CheckerTest, DeviceTypeVariants) {
  CheckerEnvironment env = DraEnvironment(registry_);
  env.variables.push_back(
      {"device", DraDeviceType({.consumable_capacity = false,
                                .list_type_attributes = false})});
  // The later declaration wins.
  EXPECT_EQ(Outcome("device.attributes['a'].b", env),
            "type google.protobuf.Any");
  // cel-go (NewExpressions environment without DRAListTypeAttributes).
  EXPECT_EQ(Outcome("device.attributes[\"a\"].b.exists(x, x == 1)", env),
            "error: ERROR: <input>:1:23: expression of type 'any' cannot be "
            "range of a comprehension (must be list, map, or dynamic)\n | "
            "device.attributes[\"a\"].b.exists(x, x == 1)\n | "
            "......................^");
  EXPECT_EQ(Outcome("device.attributes['a'].b == 1", env), "type bool");
  // Selecting from `any` gives dyn.
  EXPECT_EQ(Outcome("device.attributes['a'].b.c.d", env), "type dyn");
  EXPECT_EQ(Outcome("device.allowMultipleAllocations", env),
            "error: ERROR: <input>:1:7: undefined field "
            "'allowMultipleAllocations'\n | device.allowMultipleAllocations\n"
            " | ......^");
}

TEST_F(CheckerTest, OnlyRegisteredFunctionsAreDeclared) {
  CheckerEnvironment env;
  EXPECT_EQ(Outcome("1 == 1", env), "type bool");
  EXPECT_EQ(Outcome("1 + 1", env),
            "error: ERROR: <input>:1:3: undeclared reference to '_+_' (in "
            "container '')\n | 1 + 1\n | ..^");
}

TEST_F(CheckerTest, UndeclaredOverloadsAreCheckedLeniently) {
  FunctionOverload o;
  o.function = "future";
  o.overload_id = "string_future_int";
  o.receiver_style = true;
  o.params = {ArgType::Of(ValueKind::kString), ArgType::Of(ValueKind::kInt)};
  o.impl = [](absl::Span<const Value>) { return Value::Int(1); };
  ASSERT_TRUE(registry_.Register(std::move(o)).ok());
  CheckerEnvironment env = DraEnvironment(registry_);
  EXPECT_EQ(Outcome("'a'.future(1)", env), "type dyn");
  EXPECT_EQ(Outcome("1.future('x') == 2", env), "type bool");
  EXPECT_EQ(Outcome("'a'.future()", env),
            "error: ERROR: <input>:1:11: found no matching overload for "
            "'future' applied to 'string.()'\n | 'a'.future()\n | "
            "..........^");
}

TEST_F(CheckerTest, ErrorsBeyondOneHundredAreCounted) {
  std::string expr = "x0";
  for (int i = 1; i < 103; ++i) expr += StrCat(" + x", i);
  std::string out = Outcome(expr, DraEnvironment(registry_));
  EXPECT_EQ(std::count(out.begin(), out.end(), '^'), 100);
  EXPECT_NE(out.find("\n3 more errors were truncated"), std::string::npos);
}

// Every overload the runtime registers has a static declaration, except
// those that cel-go hides from its checker. A new library whose overload
// ids are not in checker_declarations.cc shows up here (it is still
// usable: such overloads are checked leniently).
TEST_F(CheckerTest, RegisteredOverloadsWithoutDeclarations) {
  std::vector<std::string> undeclared, runtime_only;
  for (const std::string& name : registry_.FunctionNames()) {
    for (const FunctionOverload* o : registry_.Overloads(name)) {
      if (IsRuntimeOnlyOverload(name, o->overload_id)) {
        runtime_only.push_back(StrCat(name, " ", o->overload_id));
      } else if (FindOverloadDecl(name, o->overload_id) == nullptr) {
        undeclared.push_back(StrCat(name, " ", o->overload_id));
      }
    }
  }
  EXPECT_EQ(undeclared, std::vector<std::string>{});
  EXPECT_EQ(runtime_only,
            (std::vector<std::string>{
                "_<=_ less_equals_opaque", "_<_ less_opaque",
                "_>=_ greater_equals_opaque", "_>_ greater_opaque",
                "__not_strictly_false__ not_strictly_false"}));
}

// --- Conformance expressions ---

fs::path ConformanceDir() {
  return draplane::testing::SharedDataDir() / "conformance" / "cel-spec";
}

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// "file/section/test | reason" patterns, `*` matching a whole component.
std::vector<std::vector<std::string>> LoadPatterns(const fs::path& p) {
  std::vector<std::vector<std::string>> out;
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::string pattern = line.substr(0, line.find(" | "));
    out.push_back(absl::StrSplit(pattern, absl::MaxSplits('/', 2)));
  }
  return out;
}

bool Matches(const std::vector<std::vector<std::string>>& patterns,
             const std::string& file, const std::string& section,
             const std::string& test) {
  const std::string parts[3] = {file, section, test};
  for (const auto& p : patterns) {
    if (p.size() != 3) continue;
    bool ok = true;
    for (int k = 0; k < 3 && ok; ++k) ok = p[k] == "*" || p[k] == parts[k];
    if (ok) return true;
  }
  return false;
}

// A cel.expr.Type message as a Type; nullopt for protobuf message,
// wrapper and function types.
std::optional<Type> ToType(const TextProtoMessage& m) {
  if (m.fields.empty()) return std::nullopt;
  const TextProtoField& f = m.fields[0];
  if (f.name == "dyn") return Type::Dyn();
  if (f.name == "null") return Type::Null();
  if (f.name == "error") return Type::Error();
  if (f.name == "type_param") return Type::Param(f.text);
  if (f.name == "primitive") {
    if (f.text == "BOOL") return Type::Bool();
    if (f.text == "INT64") return Type::Int();
    if (f.text == "UINT64") return Type::Uint();
    if (f.text == "DOUBLE") return Type::Double();
    if (f.text == "STRING") return Type::String();
    if (f.text == "BYTES") return Type::Bytes();
    return std::nullopt;
  }
  if (f.name == "well_known") {
    if (f.text == "TIMESTAMP") return Type::Timestamp();
    if (f.text == "DURATION") return Type::Duration();
    if (f.text == "ANY") return Type::Any();
    return std::nullopt;
  }
  if (f.message == nullptr) return std::nullopt;
  if (f.name == "list_type") {
    auto e = ToType(*f.message->Message("elem_type"));
    if (!e) return std::nullopt;
    return Type::List(*e);
  }
  if (f.name == "map_type") {
    auto k = ToType(*f.message->Message("key_type"));
    auto v = ToType(*f.message->Message("value_type"));
    if (!k || !v) return std::nullopt;
    return Type::Map(*k, *v);
  }
  if (f.name == "type") {
    if (f.message->fields.empty()) return Type::TypeType();
    auto t = ToType(*f.message);
    if (!t) return std::nullopt;
    return Type::TypeOf(*t);
  }
  if (f.name == "abstract_type") {
    std::vector<Type> params;
    for (const TextProtoField* p : f.message->FindAll("parameter_types")) {
      auto t = ToType(*p->message);
      if (!t) return std::nullopt;
      params.push_back(*t);
    }
    std::string name = f.message->Scalar("name").value_or("");
    if (name == "optional_type" && params.size() == 1) {
      return Type::Optional(params[0]);
    }
    return Type::Opaque(name, std::move(params));
  }
  return std::nullopt;
}

// Runs the checker over every cel-spec conformance expression that cel-go
// type-checks (all tests without disable_check) and that draplane runs
// (not skipped, not a known failure), in cel-go's conformance environment
// (no homogeneous literal validator, no cross-type numeric comparisons):
// none may be rejected, and where the test states the deduced type
// (typed_result) the output type must be it. type_deduction, which the
// runtime suite skips, is run here too, except for tests that need protobuf
// messages or declared functions.
TEST(CheckerConformanceTest, AcceptsEveryCheckedConformanceExpression) {
  fs::path dir = ConformanceDir();
  DRAPLANE_REQUIRE_SHARED_DATA(dir);
  fs::path here = fs::path(DRAPLANE_SOURCE_DIR) / "src" / "cel";
  auto skips = LoadPatterns(here / "conformance_skips.txt");
  FunctionRegistry registry;
  RegisterProductionLibraries(&registry);
  AddStandInsForDeclaredOverloads(&registry);

  int checked = 0, typed = 0, not_representable = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".textproto") continue;
    std::string file = entry.path().stem().string();
    auto doc = testing::ParseTextProto(ReadFile(entry.path()));
    ASSERT_TRUE(doc.ok()) << entry.path() << ": " << doc.status();
    for (const TextProtoField* s : doc->FindAll("section")) {
      std::string section = s->message->Scalar("name").value_or("");
      for (const TextProtoField* t : s->message->FindAll("test")) {
        const TextProtoMessage& test = *t->message;
        std::string name = test.Scalar("name").value_or("");
        if (test.Scalar("disable_check") == "true") continue;
        // cel-go's network extension is not Kubernetes' IP library.
        if (file == "network_ext") continue;
        // String `reverse` is ext.Strings version 3; Kubernetes uses version
        // 2 and rejects these expressions at compile time too.
        if (file == "string_ext" && section == "reverse") continue;
        // cel-go v0.29.2 itself deduces null_type here (the join of
        // optional_type(int) and null is null); the cel-spec expectation is
        // ahead of it.
        if (name == "null_assignable_to_abstract_parameter_candidate") continue;
        if (file != "type_deduction" && Matches(skips, file, section, name)) {
          continue;
        }
        if (!test.Scalar("container").value_or("").empty()) continue;
        CheckerEnvironment env;
        env.functions = &registry;
        env.homogeneous_aggregate_literals = false;
        env.cross_type_numeric_comparisons = false;
        env.validate_literal_arguments = false;
        bool representable = true;
        for (const TextProtoField* d : test.FindAll("type_env")) {
          const TextProtoMessage* ident = d->message->Message("ident");
          const TextProtoMessage* type_message =
              ident != nullptr ? ident->Message("type") : nullptr;
          std::optional<Type> type =
              type_message != nullptr ? ToType(*type_message) : std::nullopt;
          if (!type) {
            representable = false;
            break;
          }
          env.variables.push_back(
              {d->message->Scalar("name").value_or(""), *type});
        }
        std::optional<Type> want;
        if (const TextProtoMessage* r = test.Message("typed_result")) {
          const TextProtoMessage* deduced = r->Message("deduced_type");
          if (deduced != nullptr) want = ToType(*deduced);
          if (!want) representable = false;
        }
        if (!representable) {
          ++not_representable;
          continue;
        }
        std::string full = StrCat(file, "/", section, "/", name);
        std::string expr = test.Scalar("expr").value_or("");
        ParserOptions options;
        options.enable_macros = test.Scalar("disable_macros") != "true";
        auto parsed = Parse(expr, options);
        if (!parsed.ok()) continue;  // the runtime suite reports these
        auto result = Check(*parsed->root, parsed->source, env);
        ++checked;
        if (!result.ok()) {
          if (file == "type_deduction" &&
              expr.find("TestAllTypes") != std::string::npos) {
            continue;  // protobuf messages
          }
          ADD_FAILURE() << full << " (" << expr << "): " << result.status();
          continue;
        }
        if (want) {
          ++typed;
          EXPECT_TRUE(result->output_type.IsExact(*want))
              << full << " (" << expr << "): got "
              << result->output_type.ToString() << ", want "
              << want->ToString();
        }
      }
    }
  }
  std::cout << "checker over conformance expressions: " << checked
            << " checked, " << typed << " with a deduced type, "
            << not_representable
            << " needing protobuf types or declared functions\n";
  EXPECT_GT(checked, 1000);
}

}  // namespace
}  // namespace draplane::cel::internal

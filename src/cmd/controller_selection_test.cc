#include "cmd/controller_selection.h"

#include "gtest/gtest.h"

namespace draplane::cmd {
namespace {

std::set<std::string> Select(std::string_view spec) {
  auto got = SelectControllers(spec);
  EXPECT_TRUE(got.ok()) << got.status();
  return got.ok() ? *got : std::set<std::string>{};
}

TEST(ControllerSelectionTest, AsKubeControllerManagersControllersFlag) {
  const std::vector<std::string> known = KnownControllers();
  const std::set<std::string> all(known.begin(), known.end());
  EXPECT_EQ(Select("*"), all);
  EXPECT_EQ(Select(""), std::set<std::string>{});  // none without "*"
  EXPECT_EQ(Select("dra-monitor"), std::set<std::string>{"dra-monitor"});
  EXPECT_EQ(Select("*,-node-lifecycle-controller,-resourceclaim-controller"),
            (std::set<std::string>{"dra-monitor", "resourcequota-controller"}));
  // The first entry that names a controller decides.
  EXPECT_EQ(Select("-dra-monitor,dra-monitor,*").count("dra-monitor"), 0u);
  EXPECT_EQ(Select("dra-monitor,-dra-monitor").count("dra-monitor"), 1u);
  auto unknown = SelectControllers("*,-garbagecollector");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(),
            "\"garbagecollector\" is not in the list of known controllers");
}

}  // namespace
}  // namespace draplane::cmd

#include "metrics/metrics.h"

#include "gtest/gtest.h"
#include "prometheus/counter.h"
#include "prometheus/histogram.h"

namespace draplane::metrics {
namespace {

TEST(RegistryTest, RendersRegisteredAndCollectedFamiliesSortedByName) {
  Registry registry;
  auto& counter = prometheus::BuildCounter()
                      .Name("zz_things_total")
                      .Help("Things.")
                      .Register(registry.prometheus())
                      .Add({{"kind", "a"}});
  counter.Increment(3);
  auto collector = registry.AddCollector([] {
    std::vector<prometheus::MetricFamily> out;
    out.push_back(GaugeFamily("aa_level", "Level.", {"ns", "pool"},
                              {{{"default", "p1"}, 2}, {{"kube", "p2"}, 0.5}}));
    return out;
  });
  std::string text = registry.Text();
  EXPECT_EQ(text,
            "# HELP aa_level Level.\n"
            "# TYPE aa_level gauge\n"
            "aa_level{ns=\"default\",pool=\"p1\"} 2\n"
            "aa_level{ns=\"kube\",pool=\"p2\"} 0.5\n"
            "# HELP zz_things_total Things.\n"
            "# TYPE zz_things_total counter\n"
            "zz_things_total{kind=\"a\"} 3\n");
}

TEST(RegistryTest, ACollectorStopsWithItsHandle) {
  Registry registry;
  auto collector = registry.AddCollector([] {
    std::vector<prometheus::MetricFamily> out;
    out.push_back(GaugeFamily("gone_soon", "x", {}, {{{}, 1}}));
    return out;
  });
  EXPECT_NE(registry.Text().find("gone_soon 1"), std::string::npos);
  collector.reset();
  EXPECT_EQ(registry.Text(), "");
}

}  // namespace
}  // namespace draplane::metrics

#include "sim/fgd_report.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "common/str_cat.h"
#include "sim/published_results.h"

namespace draplane::sim {

namespace {

using api::Json;

std::string Fixed(double v, int digits = 2) {
  if (std::isnan(v)) return "-";
  std::ostringstream ss;
  ss << std::fixed << std::setprecision(digits) << v;
  return ss.str();
}

Json Number(double v) {
  if (std::isnan(v)) return nullptr;
  return std::round(v * 10000) / 10000;
}

Curve Unallocated(const Curve& allocated) {
  Curve out;
  for (size_t i = 0; i < out.size(); ++i) out[i] = 100 - allocated[i];
  return out;
}

Json AtPercents(const Curve& c) {
  Json j = Json::object();
  for (int p : ReportedPercents()) j[std::to_string(p)] = Number(c[p]);
  return j;
}

std::map<std::string, double> MeanFailed(const FgdResult& r) {
  std::map<std::string, double> out;
  for (const char* t : {"cpu", "share", "1-gpu", "multi-gpu"}) out[t] = 0;
  for (const SeedRun& s : r.runs) {
    for (const auto& [type, n] : s.failed) out[type] += n;
  }
  for (auto& [type, n] : out) n /= std::max<size_t>(1, r.runs.size());
  return out;
}

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                         "#9467bd", "#8c564b", "#e377c2", "#17becf"};

// An SVG document's opening: size, white background, bold title.
std::string SvgStart(int w, int h, int left, const std::string& title) {
  return StrCat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"", w, "\" height=\"",
      h, "\" font-family=\"sans-serif\" font-size=\"12\">",
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>", "<text x=\"",
      left, "\" y=\"18\" font-size=\"14\" font-weight=\"bold\">", Escape(title),
      "</text>");
}

// A line chart over arrived demand (x 0..130).
struct Series {
  std::string label;
  Curve values;
  std::string color;
  bool dashed = false;
};

std::string LineChart(const std::string& title, const std::string& y_label,
                      const std::vector<Series>& series, int x_min,
                      double y_max) {
  const int w = 720, h = 400, left = 60, right = 200, top = 30, bottom = 45;
  const int pw = w - left - right, ph = h - top - bottom;
  auto X = [&](double x) { return left + (x - x_min) * pw / (130.0 - x_min); };
  auto Y = [&](double y) { return top + ph - std::min(y, y_max) * ph / y_max; };
  std::ostringstream svg;
  svg << SvgStart(w, h, left, title);
  for (int i = 0; i <= 5; ++i) {
    double y = y_max * i / 5;
    svg << "<line x1=\"" << left << "\" x2=\"" << left + pw << "\" y1=\""
        << Y(y) << "\" y2=\"" << Y(y) << "\" stroke=\"#ddd\"/>"
        << "<text x=\"" << left - 6 << "\" y=\"" << Y(y) + 4
        << "\" text-anchor=\"end\">" << Fixed(y, y_max < 10 ? 1 : 0)
        << "</text>";
  }
  for (int x = x_min; x <= 130; x += 10) {
    svg << "<line x1=\"" << X(x) << "\" x2=\"" << X(x) << "\" y1=\"" << top
        << "\" y2=\"" << top + ph << "\" stroke=\"#eee\"/>"
        << "<text x=\"" << X(x) << "\" y=\"" << top + ph + 16
        << "\" text-anchor=\"middle\">" << x << "</text>";
  }
  svg << "<text x=\"" << left + pw / 2 << "\" y=\"" << h - 8
      << "\" text-anchor=\"middle\">arrived GPU demand (% of cluster "
         "GPUs)</text>"
      << "<text transform=\"translate(14," << top + ph / 2
      << ") rotate(-90)\" text-anchor=\"middle\">" << Escape(y_label)
      << "</text>";
  int legend = 0;
  for (const Series& s : series) {
    std::string path;
    for (int x = x_min; x <= 130; ++x) {
      if (std::isnan(s.values[x])) continue;
      StrAppend(&path, path.empty() ? "M" : " L", Fixed(X(x), 1), " ",
                Fixed(Y(s.values[x]), 1));
    }
    if (path.empty()) continue;
    svg << "<path d=\"" << path << "\" fill=\"none\" stroke=\"" << s.color
        << "\" stroke-width=\"2\""
        << (s.dashed ? " stroke-dasharray=\"6 4\"" : "") << "/>";
    const int ly = top + 10 + legend * 18;
    svg << "<line x1=\"" << left + pw + 10 << "\" x2=\"" << left + pw + 34
        << "\" y1=\"" << ly << "\" y2=\"" << ly << "\" stroke=\"" << s.color
        << "\" stroke-width=\"2\""
        << (s.dashed ? " stroke-dasharray=\"6 4\"" : "") << "/><text x=\""
        << left + pw + 40 << "\" y=\"" << ly + 4 << "\">" << Escape(s.label)
        << "</text>";
    ++legend;
  }
  svg << "</svg>";
  return svg.str();
}

// GPU occupancy of every GPU node: one row of cells per node model group,
// a cell per GPU (white free .. dark blue full).
std::string HeatMap(const SeedRun& run, const std::string& title) {
  std::vector<const NodeOccupancy*> nodes;
  for (const auto& n : run.nodes) nodes.push_back(&n);
  std::stable_sort(nodes.begin(), nodes.end(),
                   [](auto* a, auto* b) { return a->model < b->model; });
  const int cell = 3, per_row = 64, left = 10, top = 40;
  // Each node is a column block of its GPUs (8 max) stacked vertically.
  const int rows = static_cast<int>((nodes.size() + per_row - 1) / per_row);
  const int w = left * 2 + per_row * (cell * 3 + 2);
  const int h = top + rows * (8 * cell + 6) + 30;
  std::ostringstream svg;
  svg << SvgStart(w, h, left, title) << "<text x=\"" << left
      << "\" y=\"32\">one block per node (sorted by GPU model), one bar per "
         "GPU; "
         "white = idle, blue = allocated</text>";
  for (size_t i = 0; i < nodes.size(); ++i) {
    const int col = static_cast<int>(i % per_row);
    const int row = static_cast<int>(i / per_row);
    const int x0 = left + col * (cell * 3 + 2);
    const int y0 = top + row * (8 * cell + 6);
    for (size_t g = 0; g < nodes[i]->gpu_used_milli.size(); ++g) {
      const double f = nodes[i]->gpu_used_milli[g] / 1000.0;
      const int shade = static_cast<int>(255 - f * 200);
      svg << "<rect x=\"" << x0 << "\" y=\"" << y0 + g * cell << "\" width=\""
          << cell * 3 << "\" height=\"" << cell - 0.5 << "\" fill=\"rgb("
          << shade << "," << shade << ",255)\" stroke=\"none\"><title>"
          << Escape(nodes[i]->name) << " " << Escape(nodes[i]->model) << " gpu-"
          << g << ": " << nodes[i]->gpu_used_milli[g] << "/1000</title></rect>";
    }
  }
  svg << "</svg>";
  return svg.str();
}

// The published results under $DRAPLANE_SHARED_DIR, "" when it is unset.
std::string PublishedUnderSharedDir() {
  const char* env = std::getenv("DRAPLANE_SHARED_DIR");
  if (env == nullptr || *env == '\0') return "";
  return StrCat(env,
                "/data/fgd-atc23-expected-results/analysis_allo_discrete.csv");
}

}  // namespace

const std::vector<int>& ReportedPercents() {
  static const std::vector<int> kPercents = {90, 95, 100, 110, 130};
  return kPercents;
}

Json FgdResultJson(const FgdResult& r) {
  Json j;
  j["policy"] = r.policy;
  Json seeds = Json::array();
  for (const SeedRun& s : r.runs) seeds.push_back(s.seed);
  j["seeds"] = seeds;
  j["target"] = r.target;
  j["gpus"] = r.gpus;
  j["unallocated_pct"] =
      AtPercents(Unallocated(MeanCurve(r, &SeedRun::allocated_pct)));
  j["unallocated_sd"] = AtPercents(SdCurve(r, &SeedRun::allocated_pct));
  j["fragmentation_rate_pct"] =
      AtPercents(MeanCurve(r, &SeedRun::frag_pct_of_idle));
  Json failed = Json::object();
  for (const auto& [type, n] : MeanFailed(r)) failed[type] = Number(n);
  j["failed_pods"] = failed;
  Json per_seed = Json::array();
  for (const SeedRun& s : r.runs) {
    Json one;
    one["seed"] = s.seed;
    one["pods"] = s.pods;
    one["scheduled"] = s.scheduled;
    one["unallocated_pct"] = AtPercents(Unallocated(s.allocated_pct));
    one["fragmentation_rate_pct"] = AtPercents(s.frag_pct_of_idle);
    Json f = Json::object();
    for (const auto& [type, n] : s.failed) f[type] = n;
    one["failed_pods"] = f;
    one["seconds"] = Number(s.seconds);
    per_seed.push_back(one);
  }
  j["per_seed"] = per_seed;
  j["wall_seconds"] = Number(r.wall_seconds);
  return j;
}

std::string FgdResultTable(const FgdResult& r) {
  std::ostringstream out;
  out << "policy " << r.policy << ", " << r.gpus << " GPUs, target " << r.target
      << "; unallocated GPU % at arrived demand\n";
  out << std::left << std::setw(8) << "SEED";
  for (int p : ReportedPercents()) out << std::setw(9) << StrCat(p, "%");
  out << std::setw(11) << "FRAG@100" << std::setw(8) << "PODS" << std::setw(28)
      << "FAILED(cpu/share/1/multi)"
      << "SECONDS\n";
  auto row = [&](const std::string& label, const Curve& alloc,
                 const Curve& frag, const std::string& pods,
                 const std::string& failed, const std::string& secs) {
    out << std::setw(8) << label;
    for (int p : ReportedPercents())
      out << std::setw(9) << Fixed(100 - alloc[p]);
    out << std::setw(11) << Fixed(frag[100], 1) << std::setw(8) << pods
        << std::setw(28) << failed << secs << "\n";
  };
  auto failed_text = [](const std::map<std::string, int64_t>& f) {
    auto get = [&](const char* t) {
      auto it = f.find(t);
      return it == f.end() ? int64_t{0} : it->second;
    };
    return StrCat(get("cpu"), "/", get("share"), "/", get("1-gpu"), "/",
                  get("multi-gpu"));
  };
  for (const SeedRun& s : r.runs) {
    row(std::to_string(s.seed), s.allocated_pct, s.frag_pct_of_idle,
        std::to_string(s.pods), failed_text(s.failed), Fixed(s.seconds));
  }
  auto mf = MeanFailed(r);
  row("mean", MeanCurve(r, &SeedRun::allocated_pct),
      MeanCurve(r, &SeedRun::frag_pct_of_idle), "",
      StrCat(Fixed(mf["cpu"], 1), "/", Fixed(mf["share"], 1), "/",
             Fixed(mf["1-gpu"], 1), "/", Fixed(mf["multi-gpu"], 1)),
      "");
  Curve sd = SdCurve(r, &SeedRun::allocated_pct);
  out << std::setw(8) << "sd";
  for (int p : ReportedPercents()) out << std::setw(9) << Fixed(sd[p]);
  out << "\nwall time " << Fixed(r.wall_seconds) << " s\n";
  return out.str();
}

absl::Status WriteFgdReport(const std::string& dir, const ReportInput& input) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    return absl::InternalError(StrCat(dir, ": cannot create: ", ec.message()));
  }
  const std::string published_path = input.published_path.empty()
                                         ? PublishedUnderSharedDir()
                                         : input.published_path;
  std::vector<PublishedRun> published;
  std::string published_note;
  if (published_path.empty()) {
    published_note =
        "The paper's published curves are not drawn: pass --published "
        "analysis_allo_discrete.csv (or set DRAPLANE_SHARED_DIR) to compare.";
  } else if (auto loaded = LoadPublishedRuns(published_path); loaded.ok()) {
    published = *std::move(loaded);
  } else {
    published_note = StrCat("The paper's published curves were not found (",
                            loaded.status().message(), ").");
  }
  const std::string workload = WorkloadName(input.workload_name);
  std::vector<Series> unalloc, unalloc_zoom, frag;
  std::ostringstream table;
  table << "<table><tr><th>policy</th>";
  for (int p : ReportedPercents()) table << "<th>" << p << " %</th>";
  table << "<th>published @100 %</th><th>seeds</th><th>wall s</th></tr>";
  for (size_t i = 0; i < input.results.size(); ++i) {
    const FgdResult& r = *input.results[i];
    const std::string color = kColors[i % 8];
    Curve u = Unallocated(MeanCurve(r, &SeedRun::allocated_pct));
    unalloc.push_back({StrCat(r.policy, " (draplane)"), u, color, false});
    frag.push_back(
        {r.policy, MeanCurve(r, &SeedRun::frag_pct_of_total), color, false});
    PublishedCurve pub =
        Published(published, workload, PaperPolicyName(r.policy));
    if (pub.runs > 0) {
      unalloc.push_back(
          {StrCat(r.policy, " (paper)"), pub.unallocated_mean, color, true});
    }
    table << "<tr><td>" << Escape(r.policy) << "</td>";
    for (int p : ReportedPercents()) table << "<td>" << Fixed(u[p]) << "</td>";
    table << "<td>" << (pub.runs > 0 ? Fixed(pub.unallocated_mean[100]) : "-")
          << "</td><td>" << r.runs.size() << "</td><td>"
          << Fixed(r.wall_seconds, 1) << "</td></tr>";
  }
  table << "</table>";
  unalloc_zoom = unalloc;
  // Ideal: unallocated = 100 - arrived until full.
  Curve ideal;
  for (int p = 0; p <= kMaxArrivedPct; ++p) ideal[p] = std::max(0, 100 - p);
  unalloc.push_back({"ideal", ideal, "#999", true});
  const std::string chart1 = LineChart("Unallocated GPU vs arrived demand",
                                       "unallocated GPU (%)", unalloc, 0, 100);
  const std::string chart2 =
      LineChart("Unallocated GPU, 80-130 % arrived (zoom)",
                "unallocated GPU (%)", unalloc_zoom, 80, 25);
  const std::string chart3 =
      LineChart("Fragmented GPU over the run", "fragmented GPU (% of cluster)",
                frag, 0, 25);
  std::string heat;
  if (!input.results.empty() && !input.results.front()->runs.empty()) {
    const FgdResult& r = *input.results.front();
    heat = HeatMap(r.runs.front(),
                   StrCat("GPU occupancy at the end, policy ", r.policy,
                          ", seed ", r.runs.front().seed));
  }
  struct File {
    const char* name;
    const std::string* text;
  };
  for (const File& f :
       {File{"unallocated.svg", &chart1}, File{"unallocated-zoom.svg", &chart2},
        File{"fragmentation.svg", &chart3}, File{"occupancy.svg", &heat}}) {
    if (f.text->empty()) continue;
    std::ofstream o(fs::path(dir) / f.name);
    o << *f.text;
    if (!o)
      return absl::InternalError(StrCat(dir, "/", f.name, ": cannot write"));
  }
  std::ofstream html(fs::path(dir) / "index.html");
  html << "<!doctype html><html><head><meta charset=\"utf-8\"><title>draplane "
          "sim fgd: "
       << Escape(workload)
       << "</title><style>body{font-family:sans-serif;max-width:960px;margin:"
          "2em auto}table{border-collapse:collapse}td,th{border:1px solid "
          "#ccc;padding:4px 8px;text-align:right}</style></head><body>"
       << "<h1>draplane sim fgd</h1><p>Workload <b>" << Escape(workload)
       << "</b>: the protocol of \"Beware of Fragmentation\" (ATC'23), "
          "draplane's scheduler in process. Solid lines: draplane's runs "
          "(mean over seeds); dashed: the paper's published runs.</p>";
  if (!published_note.empty())
    html << "<p>" << Escape(published_note) << "</p>";
  html << "<h2>Unallocated GPU % at arrived demand (mean of seeds)</h2>"
       << table.str() << chart1 << chart2 << "<h2>Fragmentation</h2>" << chart3
       << "<h2>Occupancy</h2>" << heat << "</body></html>\n";
  if (!html)
    return absl::InternalError(StrCat(dir, "/index.html: cannot write"));
  return absl::OkStatus();
}

}  // namespace draplane::sim

#include "cmd/health_checks.h"

#include "common/str_cat.h"
#include "logging/log.h"

namespace draplane::cmd {

void HealthChecks::Add(std::string name, std::function<absl::Status()> check) {
  absl::MutexLock lock(&mu_);
  checks_.push_back({std::move(name), std::move(check), false});
}

void HealthChecks::AddReadiness(std::string name,
                                std::function<absl::Status()> check) {
  absl::MutexLock lock(&mu_);
  checks_.push_back({std::move(name), std::move(check), true});
}

bool HealthChecks::Serve(const http::HttpRequest& req,
                         http::ResponseWriter& w) const {
  std::string endpoint;
  std::string only;  // one check: /healthz/<check>
  for (const char* e : {"healthz", "livez", "readyz"}) {
    const std::string base = StrCat("/", e);
    if (req.path == base) {
      endpoint = e;
    } else if (req.path.rfind(base + "/", 0) == 0) {
      endpoint = e;
      only = req.path.substr(base.size() + 1);
    }
  }
  if (endpoint.empty()) return false;
  const http::HttpHeaders text = {{"Content-Type", "text/plain; charset=utf-8"},
                                  {"X-Content-Type-Options", "nosniff"}};
  std::vector<std::pair<std::string, std::function<absl::Status()>>> checks;
  checks.emplace_back("ping", [] { return absl::OkStatus(); });
  {
    absl::MutexLock lock(&mu_);
    for (const Check& c : checks_) {
      if (!c.readiness_only || endpoint == "readyz") {
        checks.emplace_back(c.name, c.check);
      }
    }
  }
  std::string listing;
  bool failed = false;
  bool found = only.empty();
  for (const auto& [name, check] : checks) {
    if (!only.empty() && name != only) continue;
    found = true;
    const absl::Status status = check();
    if (status.ok()) {
      StrAppend(&listing, "[+]", name, " ok\n");
      continue;
    }
    failed = true;
    StrAppend(&listing, "[-]", name, " failed: reason withheld\n");
    logging::Error(StrCat(endpoint, " check failed"),
                   {{"check", name}, {"err", status}});
  }
  if (!found) {
    w.Send(404, text, "404 page not found\n");
  } else if (failed) {
    w.Send(500, text, StrCat(listing, endpoint, " check failed\n"));
  } else if (req.HasQuery("verbose")) {
    w.Send(200, text, StrCat(listing, endpoint, " check passed\n"));
  } else {
    w.Send(200, text, "ok");
  }
  return true;
}

}  // namespace draplane::cmd

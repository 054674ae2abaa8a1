// What the long-running subcommands (server, scheduler, controller) share:
// HOST:PORT parsing, leader-election identities, and the /metrics
// endpoint of a component that runs against a remote API server.
#ifndef DRAPLANE_CMD_COMPONENT_SUPPORT_H_
#define DRAPLANE_CMD_COMPONENT_SUPPORT_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "apiserver/http_server.h"
#include "metrics/metrics.h"

namespace draplane::cmd {

struct HostPort {
  std::string host;  // without brackets for IPv6
  uint16_t port = 0;
};

// "HOST:PORT" or "[IPv6]:PORT"; InvalidArgument with the reason.
absl::StatusOr<HostPort> ParseHostPort(const std::string& text);

// "host" or "[v6]" for URLs.
std::string UrlHost(const std::string& host);

// A leader-election identity unique to this process: "<hostname>_<random>".
std::string LeaderIdentity();

// Serves GET /metrics (the registry's text) and /healthz over plain HTTP
// on `bind_address` (HOST:PORT). Null for an empty address (no endpoint).
absl::StatusOr<std::unique_ptr<apiserver::HttpServer>> ServeMetrics(
    const std::string& bind_address, metrics::Registry* registry);

}  // namespace draplane::cmd

#endif  // DRAPLANE_CMD_COMPONENT_SUPPORT_H_

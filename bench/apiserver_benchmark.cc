// API server throughput and watch fan-out, as a scenario runner printing
// JSON (one run, ratios measured side by side; machines here are noisy).
//
//   apiserver_benchmark [--creates N] [--clients K] [--watchers W]
//                       [--watch-events M] [--restart-objects R] [--dir DIR]
//
// creates: K clients POST DeviceClasses over loopback HTTP to draplane's
//   API server on a SQLite store (WAL, synchronous=FULL: every answered
//   write is on disk). The ceiling is a raw SQLite loop inserting rows of
//   the same size, one transaction each, with the same settings.
// watch: W clients watch deviceclasses; M objects are created; the time
//   until every watcher has received every event.
// restart: R objects created through the API (default 100,000; 0 skips),
//   the server stopped, then the time until a restarted one on the same
//   file answers a full list: the store's open (its replay of the file)
//   and the API server's start.
#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <utility>  // before Boost.Asio (g++ 12)
#include <vector>

#include "api/meta_types.h"
#include "apiserver/api_server.h"
#include "http/http_server.h"
#include "store/store.h"

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace beast_http = beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;
using draplane::api::Json;

double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

std::string ClassBody(const std::string& name) {
  return draplane::api::DumpJson(Json{
      {"apiVersion", "resource.k8s.io/v1"},
      {"kind", "DeviceClass"},
      {"metadata", Json{{"name", name}}},
      {"spec",
       Json{{"selectors",
             Json::array({Json{{"cel", Json{{"expression",
                                             "device.driver == "
                                             "\"gpu.nvidia.com\""}}}}})}}}});
}

struct Server {
  std::unique_ptr<draplane::store::Store> store;
  std::unique_ptr<draplane::apiserver::ApiServer> api;
  std::unique_ptr<draplane::http::HttpServer> http;
};

// Throws std::runtime_error when the server cannot start (main reports it).
Server StartServer(const std::string& db) {
  Server s;
  auto store = draplane::store::OpenSqliteStore(db);
  if (!store.ok()) {
    throw std::runtime_error(std::string(store.status().message()));
  }
  s.store = *std::move(store);
  s.api = std::make_unique<draplane::apiserver::ApiServer>(
      s.store.get(), draplane::apiserver::ApiServerOptions{});
  auto* api = s.api.get();
  auto started = draplane::http::HttpServer::Start(
      {}, [api](const draplane::http::HttpRequest& req,
                draplane::http::ResponseWriter& w) { api->Handle(req, w); });
  if (!started.ok()) {
    throw std::runtime_error(std::string(started.status().message()));
  }
  s.http = *std::move(started);
  return s;
}

// Creates `count` objects over one keep-alive connection.
int CreateMany(uint16_t port, const std::string& prefix, int count) {
  net::io_context io;
  tcp::socket socket(io);
  socket.connect({net::ip::make_address("127.0.0.1"), port});
  beast::flat_buffer buffer;
  int ok = 0;
  for (int i = 0; i < count; ++i) {
    beast_http::request<beast_http::string_body> req{
        beast_http::verb::post, "/apis/resource.k8s.io/v1/deviceclasses", 11};
    req.set(beast_http::field::host, "127.0.0.1");
    req.set(beast_http::field::content_type, "application/json");
    req.body() = ClassBody(prefix + std::to_string(i));
    req.prepare_payload();
    beast_http::write(socket, req);
    beast_http::response<beast_http::string_body> res;
    beast_http::read(socket, buffer, res);
    if (res.result_int() == 201) ++ok;
  }
  return ok;
}

// The number of DeviceClasses one full list returns (items have a uid,
// the list itself has none).
size_t ListCount(uint16_t port) {
  net::io_context io;
  tcp::socket socket(io);
  socket.connect({net::ip::make_address("127.0.0.1"), port});
  beast_http::request<beast_http::string_body> req{
      beast_http::verb::get, "/apis/resource.k8s.io/v1/deviceclasses", 11};
  req.set(beast_http::field::host, "127.0.0.1");
  beast_http::write(socket, req);
  beast::flat_buffer buffer;
  beast_http::response_parser<beast_http::string_body> parser;
  parser.body_limit(uint64_t{1} << 32);
  beast_http::read(socket, buffer, parser);
  const std::string& body = parser.get().body();
  size_t n = 0;
  for (size_t pos = 0; (pos = body.find("\"uid\":", pos)) != std::string::npos;
       ++pos) {
    ++n;
  }
  return n;
}

double RawSqliteInsertsPerSecond(const std::string& path, int count,
                                 size_t value_size) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_exec(db,
               "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
               "CREATE TABLE t (id INTEGER PRIMARY KEY, key TEXT, value BLOB);",
               nullptr, nullptr, nullptr);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "INSERT INTO t (id, key, value) VALUES (?, ?, ?)", -1,
                     &st, nullptr);
  const std::string value(value_size, 'x');
  const auto start = Clock::now();
  for (int i = 1; i <= count; ++i) {
    const std::string key = "/registry/x/" + std::to_string(i);
    sqlite3_bind_int64(st, 1, i);
    sqlite3_bind_text(st, 2, key.data(), static_cast<int>(key.size()),
                      SQLITE_STATIC);
    sqlite3_bind_blob(st, 3, value.data(), static_cast<int>(value.size()),
                      SQLITE_STATIC);
    sqlite3_step(st);
    sqlite3_reset(st);
  }
  const double seconds = Seconds(Clock::now() - start);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return count / seconds;
}

// A watcher counting ADDED events in the raw stream.
struct Watcher : std::enable_shared_from_this<Watcher> {
  Watcher(net::io_context& io, uint16_t port, std::atomic<int>* done, int want)
      : socket(io), port(port), done(done), want(want) {}
  void Start() {
    socket.connect({net::ip::make_address("127.0.0.1"), port});
    const std::string req =
        "GET /apis/resource.k8s.io/v1/deviceclasses?watch=true&"
        "resourceVersion=" +
        rv + "&timeoutSeconds=600 HTTP/1.1\r\nHost: x\r\n\r\n";
    net::write(socket, net::buffer(req));
    Read();
  }
  void Read() {
    auto self = shared_from_this();
    socket.async_read_some(
        net::buffer(buf), [self](beast::error_code ec, size_t n) {
          if (ec) return;
          self->tail.append(self->buf.data(), n);
          static constexpr std::string_view kNeedle = "\"type\":\"ADDED\"";
          size_t pos = 0;
          while ((pos = self->tail.find(kNeedle, pos)) != std::string::npos) {
            ++self->seen;
            pos += kNeedle.size();
          }
          if (self->tail.size() > kNeedle.size()) {
            self->tail.erase(0, self->tail.size() - kNeedle.size() + 1);
          }
          if (self->seen >= self->want) {
            self->finished = Clock::now();
            self->done->fetch_add(1);
            return;
          }
          self->Read();
        });
  }
  tcp::socket socket;
  uint16_t port;
  std::string rv;
  std::atomic<int>* done;
  int want;
  int seen = 0;
  std::array<char, 16384> buf;
  std::string tail;
  Clock::time_point finished;
};

}  // namespace

int Run(int argc, char** argv) {
  int creates = 2000, clients = 8, watchers = 1000, watch_events = 100;
  int restart_objects = 100000;
  std::string dir;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const int value = std::atoi(argv[i + 1]);
    if (flag == "--creates") creates = value;
    if (flag == "--clients") clients = value;
    if (flag == "--watchers") watchers = value;
    if (flag == "--watch-events") watch_events = value;
    if (flag == "--restart-objects") restart_objects = value;
    if (flag == "--dir") dir = argv[i + 1];
  }
  if (dir.empty()) {
    dir = std::filesystem::temp_directory_path() /
          ("draplane-apiserver-bench-" + std::to_string(::getpid()));
  }
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);

  Json report = Json::object();
  {
    // The raw ceiling is measured before and after the API run (disks here
    // are shared and noisy); the better of the two counts.
    const size_t row_size = ClassBody("c0-0").size() + 150;
    const double raw_before = RawSqliteInsertsPerSecond(
        dir + "/raw1.db", std::min(creates, 2000), row_size);
    Server s = StartServer(dir + "/state.db");
    const uint16_t port = s.http->port();
    std::vector<std::thread> threads;
    threads.reserve(static_cast<size_t>(clients));
    std::atomic<int> ok{0};
    const auto start = Clock::now();
    for (int c = 0; c < clients; ++c) {
      threads.emplace_back([&, c] {
        ok +=
            CreateMany(port, "c" + std::to_string(c) + "-", creates / clients);
      });
    }
    for (auto& t : threads) t.join();
    const double seconds = Seconds(Clock::now() - start);
    const double per_second = ok.load() / seconds;
    const double raw_after = RawSqliteInsertsPerSecond(
        dir + "/raw2.db", std::min(creates, 2000), row_size);
    const double raw = std::max(raw_before, raw_after);
    report["creates"] =
        Json{{"objects", ok.load()},
             {"clients", clients},
             {"seconds", seconds},
             {"creates_per_second", per_second},
             {"raw_sqlite_inserts_per_second", raw},
             {"raw_sqlite_before_after", Json::array({raw_before, raw_after})},
             {"ratio_to_raw_sqlite", per_second / raw}};

    // Watch fan-out.
    net::io_context io;
    std::atomic<int> done{0};
    const std::string rv = std::to_string(s.store->Revision());
    std::vector<std::shared_ptr<Watcher>> ws;
    for (int i = 0; i < watchers; ++i) {
      auto w = std::make_shared<Watcher>(io, port, &done, watch_events);
      w->rv = rv;
      w->Start();
      ws.push_back(w);
    }
    std::thread loop([&] { io.run(); });
    std::this_thread::sleep_for(std::chrono::seconds(2));  // watches settle
    const auto watch_start = Clock::now();
    CreateMany(port, "w-", watch_events);
    const auto created = Clock::now();
    while (done.load() < watchers &&
           Clock::now() - watch_start < std::chrono::seconds(120)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    const auto all_done = Clock::now();
    int complete = done.load();
    report["watch"] =
        Json{{"watchers", watchers},
             {"events", watch_events},
             {"watchers_with_every_event", complete},
             {"seconds_to_create", Seconds(created - watch_start)},
             {"seconds_until_all_received", Seconds(all_done - watch_start)},
             {"events_delivered_per_second",
              static_cast<double>(complete) * watch_events /
                  Seconds(all_done - watch_start)}};
    s.http->Stop();
    io.stop();
    loop.join();
  }
  if (restart_objects > 0) {
    const std::string db = dir + "/restart.db";
    int created = 0;
    {
      Server s = StartServer(db);
      std::vector<std::thread> threads;
      threads.reserve(static_cast<size_t>(clients));
      std::atomic<int> ok{0};
      for (int c = 0; c < clients; ++c) {
        threads.emplace_back([&, c] {
          ok += CreateMany(s.http->port(), "r" + std::to_string(c) + "-",
                           restart_objects / clients);
        });
      }
      for (auto& t : threads) t.join();
      created = ok.load();
      s.http->Stop();
    }
    const auto start = Clock::now();
    Server s = StartServer(db);
    const auto opened = Clock::now();
    const size_t listed = ListCount(s.http->port());
    const auto answered = Clock::now();
    report["restart"] =
        Json{{"objects", created},
             {"listed", listed},
             {"file_bytes", std::filesystem::file_size(db)},
             {"seconds_to_open", Seconds(opened - start)},
             {"seconds_to_first_full_list", Seconds(answered - start)}};
    s.http->Stop();
  }
  std::filesystem::remove_all(dir);
  std::printf("%s\n", draplane::api::DumpJson(report, 2).c_str());
  return 0;
}

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "apiserver_benchmark: %s\n", e.what());
    return 1;
  }
}

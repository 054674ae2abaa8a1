// `draplane store backup` and `draplane store restore`: a consistent copy of
// the standalone control plane's store, taken from the running server, and
// a data directory made from one.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <system_error>

#include "absl/status/status.h"
#include "client/rest_config.h"
#include "client/transport.h"
#include "cmd/command_help.h"
#include "cmd/commands.h"
#include "cmd/component_support.h"
#include "common/private_files.h"
#include "common/str_cat.h"
#include "store/store.h"

namespace draplane::cmd {
namespace {

constexpr char kSqliteMagic[] = "SQLite format 3";

struct BackupFlags {
  std::string file;
  std::string kubeconfig;
  std::string context;
};

// Streams GET /draplane/store/backup into `fd` and syncs it; the store's
// revision on success.
absl::StatusOr<std::string> Download(const BackupFlags& flags, int fd) {
  absl::StatusOr<client::RestConfig> config =
      client::LoadClientConfig(flags.kubeconfig, flags.context);
  if (!config.ok()) return config.status();
  config->user_agent = "draplane-store-backup";
  auto transport = client::NewHttpTransport(*config);
  if (!transport.ok()) return transport.status();
  client::HttpCall call;
  call.method = "GET";
  call.path = "/draplane/store/backup";
  int status = 0;
  std::string revision;
  std::string error_body;
  bool write_failed = false;
  client::CancelFlag cancel{false};
  absl::Status streamed =
      (*transport)
          ->Stream(
              call,
              [&](int code, const std::map<std::string, std::string>& headers) {
                status = code;
                if (auto it = headers.find("x-draplane-store-revision");
                    it != headers.end()) {
                  revision = it->second;
                }
              },
              [&](std::string_view data) {
                if (status != 200) {
                  if (error_body.size() < 64 * 1024) error_body.append(data);
                  return true;
                }
                while (!data.empty()) {
                  const ssize_t n = ::write(fd, data.data(), data.size());
                  if (n < 0 && errno == EINTR) continue;
                  if (n <= 0) {
                    write_failed = true;
                    return false;
                  }
                  data.remove_prefix(static_cast<size_t>(n));
                }
                return true;
              },
              nullptr, cancel);
  if (!streamed.ok()) return streamed;
  if (write_failed) {
    return absl::InternalError(
        StrCat("cannot write the backup: ",
               std::error_code(errno, std::generic_category()).message()));
  }
  if (status == 404) {
    return absl::NotFoundError(
        "the server does not serve store backups (is it `draplane server`?)");
  }
  if (status != 200) {
    return absl::InternalError(
        StrCat("the server answered ", status, ": ", error_body));
  }
  if (::fsync(fd) != 0) {
    return absl::InternalError(
        StrCat("cannot sync the backup: ",
               std::error_code(errno, std::generic_category()).message()));
  }
  return revision;
}

int RunBackup(const BackupFlags& flags, Streams streams) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(flags.file, ec)) {
    streams.err << "error: " << flags.file
                << " exists; choose a new file name\n";
    return 1;
  }
  const std::string tmp = StrCat(flags.file, ".partial");
  const int fd =
      ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    streams.err << "error: cannot create " << tmp << ": "
                << std::error_code(errno, std::generic_category()).message()
                << "\n";
    return 1;
  }
  absl::StatusOr<std::string> revision = Download(flags, fd);
  ::close(fd);
  if (revision.ok()) {
    // A whole SQLite file starts with its magic; anything else (a proxy's
    // page) is not a backup.
    char magic[sizeof(kSqliteMagic)] = {};
    const int check = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
    const bool is_sqlite =
        check >= 0 &&
        ::read(check, magic, sizeof(magic)) ==
            static_cast<ssize_t>(sizeof(magic)) &&
        std::memcmp(magic, kSqliteMagic, sizeof(kSqliteMagic)) == 0;
    if (check >= 0) ::close(check);
    if (!is_sqlite) {
      revision = absl::DataLossError("the server's answer is not a store file");
    }
  }
  if (revision.ok()) {
    if (absl::Status s = RenameDurably(tmp, flags.file); !s.ok()) {
      revision = s;
    }
  }
  if (!revision.ok()) {
    fs::remove(tmp, ec);
    streams.err << "error: " << revision.status().message() << "\n";
    return 1;
  }
  streams.out << "draplane store backup: " << flags.file
              << " holds the store at revision " << *revision << " ("
              << fs::file_size(flags.file, ec) << " bytes)\n";
  return 0;
}

struct RestoreFlags {
  std::string file;
  std::string data_dir;
};

int RunRestore(const RestoreFlags& flags, Streams streams) {
  if (absl::Status s = CreatePrivateDirectories(flags.data_dir); !s.ok()) {
    streams.err << "error: " << s.message() << "\n";
    return 1;
  }
  const std::string path = flags.data_dir + "/state.db";
  absl::StatusOr<int64_t> revision =
      store::RestoreSqliteStore(flags.file, path);
  if (!revision.ok()) {
    streams.err << "error: " << revision.status().message() << "\n";
    return 1;
  }
  streams.out << "draplane store restore: " << path
              << " holds the store at revision " << *revision
              << "; start it with `draplane server --data-dir "
              << flags.data_dir
              << "` (new credentials are made unless DATA_DIR/pki is "
                 "copied from the old data directory)\n";
  return 0;
}

}  // namespace

void RegisterStore(CLI::App& app, Streams streams, int* exit_code) {
  CLI::App* store_cmd = AddCommand(
      app, "store", "Back up and restore the standalone control plane's store",
      "Back up the store of a running `draplane server` and restore it into "
      "a new data directory (etcdctl snapshot save / restore, for draplane's "
      "SQLite store).");
  store_cmd->require_subcommand(1);

  auto backup = std::make_shared<BackupFlags>();
  CLI::App* b = AddCommand(
      *store_cmd, "backup", "Save a consistent copy of a running store",
      "Save a consistent copy of the running server's store to FILE: every "
      "object with its resourceVersion, and the history not compacted yet, "
      "at one revision. Writes go on while it is taken. The server makes the "
      "copy in its data directory and streams it (GET "
      "/draplane/store/backup, which RBAC grants only to cluster-admin); "
      "FILE appears once complete and synced. Credentials (DATA_DIR/pki) are "
      "not part of it.\n\n"
      "Example:\n"
      "  draplane store backup /backups/dp-$(date +%F).db \\\n"
      "      --kubeconfig /tmp/dp/kubeconfig");
  b->add_option("FILE", backup->file,
                "Where to write the copy (must not "
                "exist)")
      ->required();
  b->add_option("--kubeconfig", backup->kubeconfig,
                "kubeconfig file (default $KUBECONFIG, else ~/.kube/config; "
                "`draplane server` writes one)");
  b->add_option("--context", backup->context,
                "kubeconfig context (default: the current one)");
  b->callback([backup, streams, exit_code] {
    *exit_code = RunBackup(*backup, streams);
  });

  auto restore = std::make_shared<RestoreFlags>();
  CLI::App* r = AddCommand(
      *store_cmd, "restore", "Make a data directory's store from a backup",
      "Install FILE (made by `draplane store backup`) as the store of the "
      "data directory DIR, which must not hold a store yet: the file is "
      "checked (it must open as a store of a format this draplane reads; an "
      "older format is upgraded), then moved into place. Every object keeps "
      "its resourceVersion. Start `draplane server --data-dir DIR` "
      "afterwards; copy DIR/pki from the old data directory first to keep "
      "its CA, tokens and ServiceAccount keys.\n\n"
      "Example:\n"
      "  draplane store restore /backups/dp.db --data-dir /tmp/dp-restored");
  r->add_option("FILE", restore->file, "A backup file")->required();
  r->add_option("--data-dir", restore->data_dir,
                "The new data directory (created when missing)")
      ->required();
  r->callback([restore, streams, exit_code] {
    *exit_code = RunRestore(*restore, streams);
  });
}

}  // namespace draplane::cmd

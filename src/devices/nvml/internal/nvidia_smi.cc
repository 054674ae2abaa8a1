#include "devices/nvml/internal/nvidia_smi.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_join.h"
#include "common/str_cat.h"

extern char** environ;

namespace draplane::devices::internal {

absl::StatusOr<std::string> FindDriverBinary(const std::string& driver_root,
                                             const std::string& name) {
  for (const char* dir :
       {"/opt/bin", "/usr/bin", "/usr/sbin", "/bin", "/sbin"}) {
    std::filesystem::path p = std::filesystem::path(driver_root) /
                              (std::string(dir).substr(1)) / name;
    std::error_code ec;
    if (std::filesystem::is_regular_file(p, ec) &&
        ::access(p.c_str(), X_OK) == 0) {
      return p.string();
    }
  }
  return absl::NotFoundError(
      StrCat(name, " not found under ", driver_root,
             " (/opt/bin, /usr/bin, /usr/sbin, /bin, /sbin)"));
}

absl::StatusOr<std::string> RunCommand(const std::string& binary,
                                       const std::vector<std::string>& args,
                                       const std::string& preload,
                                       const std::vector<std::string>& env,
                                       const std::string& input) {
  int pipe_fds[2];
  int in_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return absl::InternalError(StrCat("pipe: ", std::strerror(errno)));
  }
  if (::pipe2(in_fds, O_CLOEXEC) != 0) {
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return absl::InternalError(StrCat("pipe: ", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  posix_spawn_file_actions_adddup2(&actions, in_fds[0], STDIN_FILENO);
  std::vector<std::string> argv_storage = {binary};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_storage;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "LD_PRELOAD=", 11) != 0) env_storage.emplace_back(*e);
  }
  if (!preload.empty()) env_storage.push_back(StrCat("LD_PRELOAD=", preload));
  env_storage.insert(env_storage.end(), env.begin(), env.end());
  std::vector<char*> envp;
  for (std::string& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, binary.c_str(), &actions, nullptr,
                                    argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  ::close(in_fds[0]);
  if (spawned == 0 && !input.empty()) {
    // Small command scripts: they fit the pipe buffer, so this does not
    // wait on the child's output.
    size_t written = 0;
    while (written < input.size()) {
      const ssize_t n =
          ::write(in_fds[1], input.data() + written, input.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      written += static_cast<size_t>(n);
    }
  }
  ::close(in_fds[1]);
  if (spawned != 0) {
    ::close(pipe_fds[0]);
    return absl::InternalError(
        StrCat("cannot run ", binary, ": ", std::strerror(spawned)));
  }
  std::string output;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(pipe_fds[0], buf, sizeof buf);
    if (n > 0) {
      output.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::InternalError(
        StrCat(binary, " ", absl::StrJoin(args, " "), " failed (",
               WIFEXITED(status) ? StrCat("exit ", WEXITSTATUS(status))
                                 : std::string("killed"),
               "): ", output));
  }
  return output;
}

}  // namespace draplane::devices::internal

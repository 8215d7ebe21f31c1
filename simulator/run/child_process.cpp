#include "child_process.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

namespace fleetsim::sim {

std::optional<ChildProcess> ChildProcess::start(const std::function<std::string()>& body)
{
  int fds[2];
  if (pipe(fds) != 0)
    return std::nullopt;
  std::fflush(nullptr);  // nothing buffered in the parent is written twice
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return std::nullopt;
  }
  if (pid == 0) {
    close(fds[0]);
    int status = 0;
    try {
      const std::string text = body();
      for (size_t done = 0; done < text.size();) {
        const ssize_t n = write(fds[1], text.data() + done, text.size() - done);
        if (n <= 0) {
          status = 1;
          break;
        }
        done += static_cast<size_t>(n);
      }
    } catch (...) {
      status = 1;
    }
    close(fds[1]);
    std::fflush(nullptr);
    _exit(status);
  }
  close(fds[1]);
  return ChildProcess(pid, fds[0]);
}

ChildProcess::~ChildProcess()
{
  if (fd_ >= 0 || pid_ > 0)
    (void)finish();
}

std::optional<std::string> ChildProcess::finish(int* status)
{
  std::string text;
  if (fd_ >= 0) {
    char buf[65536];
    for (ssize_t n; (n = read(fd_, buf, sizeof buf)) > 0;)
      text.append(buf, static_cast<size_t>(n));
    close(fd_);
    fd_ = -1;
  }
  int st = -1;
  if (pid_ > 0) {
    waitpid(pid_, &st, 0);
    pid_ = -1;
  }
  if (status != nullptr)
    *status = st;
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
    return std::nullopt;
  return text;
}

std::optional<std::string> run_in_child(const std::function<std::string()>& body, int* status)
{
  auto child = ChildProcess::start(body);
  if (!child)
    return std::nullopt;
  return child->finish(status);
}

}  // namespace fleetsim::sim

#pragma once
// A forked child that runs a function and sends back the text it returns, through a pipe: how
// fleetsim runs a second simulation from a process whose SimGrid Engine is taken (the step
// simulation before a replay, tests that simulate). The child exits without running the parent's
// destructors or atexit handlers (_exit), so it leaves the parent's files and buffers alone.

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>

namespace fleetsim::sim {

class ChildProcess {
public:
  /// Forks a child that runs `body`; nullopt when the pipe or the fork fails. A body that throws
  /// makes the child fail.
  [[nodiscard]] static std::optional<ChildProcess> start(const std::function<std::string()>& body);

  ChildProcess(ChildProcess&& o) noexcept : pid_(o.pid_), fd_(o.fd_)
  {
    o.fd_ = -1;
    o.pid_ = -1;
  }
  ChildProcess& operator=(ChildProcess&&) = delete;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();

  /// Reads everything the child sends and waits for it: its text, or nullopt when it exited with a
  /// failure or was killed (`status` gets the wait status).
  std::optional<std::string> finish(int* status = nullptr);

private:
  ChildProcess(pid_t pid, int fd) : pid_(pid), fd_(fd) {}
  pid_t pid_;
  int fd_;
};

/// start() then finish(): the child's text, or nullopt.
[[nodiscard]] std::optional<std::string> run_in_child(const std::function<std::string()>& body, int* status = nullptr);

}  // namespace fleetsim::sim

#include "replica_runner.hpp"

#include "commands.hpp"

#include "simulator/logging/logging.hpp"

#include "simulator/output/outcome_outputs.hpp"
#include "simulator/run/run.hpp"
#include "simulator/trace/atomic_file.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

namespace fleetsim::cli {

namespace fs = std::filesystem;

std::vector<std::string> split(const std::string& s, char sep)
{
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, sep);)
    out.push_back(item);
  return out;
}

std::vector<Point> grid(const std::vector<Axis>& axes)
{
  std::vector<Point> points{Point{}};
  for (const auto& axis : axes) {
    std::vector<Point> next;
    for (const auto& p : points)
      for (size_t i = 0; i < axis.values.size(); ++i) {
        Point q = p;
        q.sets.push_back(axis.key + "=" + axis.values[i]);
        q.label += (q.label.empty() ? "" : ",") + axis.key + "=" + axis.values[i];
        for (const auto& [key, values] : axis.zipped)
          q.sets.push_back(key + "=" + values.at(i));  // (labelled by the first key)
        next.push_back(std::move(q));
      }
    points = std::move(next);
  }
  return points;
}

std::string manifest_text(const std::string& scenario, const std::vector<std::string>& sets,
                          const std::vector<std::string>& varies, std::uint64_t first_seed, int seeds)
{
  std::ostringstream o;
  o << "scenario " << scenario << "\n";
  for (const auto& s : sets)
    o << "set " << s << "\n";
  for (const auto& v : varies)
    o << "vary " << v << "\n";
  o << "seeds " << first_seed << " x " << seeds << "\n";
  return o.str();
}

std::string claim_output_dir(const std::string& dir, const std::string& manifest)
{
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return "cannot create output directory '" + dir + "': " + ec.message();
  const fs::path file = fs::path(dir) / "runs.manifest";
  if (fs::exists(file)) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    if (ss.str() != manifest)
      return "'" + dir + "' holds the results of other runs (see its runs.manifest); use another --out";
    return "";
  }
  return sim::write_file_atomically(dir, "runs.manifest", [&](std::ostream& o) { o << manifest; });
}

namespace {

const std::string kPartial = ".partial-";

std::string host_name()
{
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0)
    return "localhost";
  std::string h = name;
  std::replace(h.begin(), h.end(), '-', '_');  // '-' separates the host from the pid
  return h;
}

// "<dir>.partial-<host>-<pid>": a replica being written by process pid on host.
std::string partial_dir(const std::string& dir)
{
  return dir + kPartial + host_name() + "-" + std::to_string(getpid());
}

// A replica is done when its directory holds its summary (it is renamed into place complete).
bool is_done(const std::string& dir) { return fs::exists(fs::path(dir) / "summary.json"); }

// A replica's heap grows by tens of megabytes (its trace, SimGrid's activities) and every first touch
// of a page is a fault: on the 2-core VMs we measured a fault costs ~19 us
// (build/fleetsim_page_faults), and faults were a third of a replica's time. The child therefore grows glibc's heap once, by a large
// pad marked for transparent huge pages (one fault per 2 MB where the kernel allows THP; nothing
// changes where it does not), keeps large blocks in the heap, and never gives memory back: the
// process is short-lived.
void prepare_replica_heap()
{
#if defined(__GLIBC__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  constexpr int kPad = 256 << 20;  // address space only: pages are backed when touched
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, kPad);
  const auto before = reinterpret_cast<std::uintptr_t>(sbrk(0));
  void* volatile grow = malloc(std::size_t{8} << 20);  // NOLINT: one heap growth of 8 MB + the pad
  const auto after = reinterpret_cast<std::uintptr_t>(sbrk(0));
  const std::uintptr_t begin = (before + kHuge - 1) & ~(kHuge - 1);
  const std::uintptr_t end = after & ~(kHuge - 1);
  if (end > begin)
    madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // best effort
  free(grow);                                                             // NOLINT
  mallopt(M_TOP_PAD, 16 << 20);
#endif
}

// In the child: simulate, write into a temporary directory, rename it into place.
[[noreturn]] void replica_child(const ReplicaTask& t, const sim::Prepared& prepared, pid_t runner, bool traces)
{
  int code = 0;
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // a killed sweep takes its replicas with it
  if (getppid() != runner)
    _exit(1);  // the runner died before the line above
  prepare_replica_heap();
  try {
    const std::string tmp = partial_dir(t.dir);
    remove_on_internal_error(tmp);
    const std::string err = sim::write_outputs(tmp, *t.scenario, sim::run(*t.scenario, t.seed, prepared), traces);
    if (!err.empty()) {
      std::cerr << "fleetsim: error: " << err << "\n";
      code = 1;
    } else {
      std::error_code ec;
      fs::rename(tmp, t.dir, ec);
      if (ec) {
        std::cerr << "fleetsim: error: cannot rename '" << tmp << "': " << ec.message() << "\n";
        code = 1;
      }
    }
  } catch (const models::InvariantViolation& e) {
    code = report_internal_error(e);
  } catch (const std::exception& e) {
    std::cerr << "fleetsim: internal error: " << e.what() << "\n";
    code = 1;
  }
  std::cout.flush();
  std::cerr.flush();
  _exit(code);
}

// True when a partial directory's writer is gone: a process of this host that no longer exists.
// Partials of live processes (another shard or rank writing into the same DIR) and of other hosts
// (which this host cannot check) are left alone; they never count as done.
bool writer_is_gone(const std::string& name)
{
  const auto at = name.find(kPartial);
  std::string rest = name.substr(at + kPartial.size());
  const auto dash = rest.rfind('-');
  if (dash != std::string::npos) {
    if (rest.substr(0, dash) != host_name())
      return false;
    rest = rest.substr(dash + 1);
  }
  long pid = 0;
  auto [p, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), pid);
  if (ec != std::errc() || p != rest.data() + rest.size() || pid <= 0)
    return false;
  if (kill(static_cast<pid_t>(pid), 0) != 0)
    return errno == ESRCH;
  // A killed writer whose new parent has not reaped it yet is a zombie: gone all the same.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const auto paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z';
}

// Removes what killed runs left behind: partial directories whose writer is gone, and replica
// directories without a summary (which no complete replica can produce).
void remove_leftovers(const std::vector<ReplicaTask>& tasks)
{
  std::map<fs::path, bool> parents;
  for (const auto& t : tasks) {
    parents[fs::path(t.dir).parent_path()] = true;
    std::error_code ec;
    if (fs::exists(t.dir, ec) && !is_done(t.dir))
      fs::remove_all(t.dir, ec);
  }
  for (const auto& [parent, unused] : parents) {
    std::error_code ec;
    if (!fs::is_directory(parent, ec))
      continue;
    for (const auto& entry : fs::directory_iterator(parent, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.find(kPartial) != std::string::npos && writer_is_gone(name))
        fs::remove_all(entry.path(), ec);
    }
  }
}

// One line on a terminal, redrawn at most a few times a second: replicas and points done, the rate
// and the time left. Nothing at all when stderr is a file or a pipe (logs and CI stay clean).
class ProgressLine {
public:
  ProgressLine(const std::vector<ReplicaTask>& tasks, bool wanted)
      : tasks_(tasks), shown_(wanted && isatty(STDERR_FILENO) != 0), start_(Clock::now())
  {
    for (const auto& t : tasks) {
      if (t.point >= left_in_point_.size())
        left_in_point_.resize(t.point + 1, 0);
      ++left_in_point_[t.point];
    }
    points_ = static_cast<long>(
        std::count_if(left_in_point_.begin(), left_in_point_.end(), [](long n) { return n > 0; }));
    for (const auto& t : tasks)
      if (is_done(t.dir))
        done(t, false);  // finished by an earlier run
    skipped_ = done_;
    draw(true);
  }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  ~ProgressLine()
  {
    if (shown_ && drawn_) {
      draw(true);
      std::fputc('\n', stderr);
    }
  }

  void done(const ReplicaTask& t, bool ran = true)
  {
    ++done_;
    if (--left_in_point_[t.point] == 0)
      ++points_done_;
    if (ran)
      draw(false);
  }

private:
  using Clock = std::chrono::steady_clock;

  void draw(bool force)
  {
    if (!shown_)
      return;
    const auto now = Clock::now();
    if (!force && now - last_ < std::chrono::milliseconds(200))
      return;
    last_ = now;
    drawn_ = true;
    const long total = static_cast<long>(tasks_.size());
    const double secs = std::chrono::duration<double>(now - start_).count();
    const long ran = done_ - skipped_;
    const double rate = secs > 0 ? static_cast<double>(ran) / secs : 0;
    constexpr int kWidth = 24;
    const int filled = total > 0 ? static_cast<int>(kWidth * done_ / total) : kWidth;
    char eta[32] = "--:--";
    if (rate > 0) {
      const long left = std::lround(static_cast<double>(total - done_) / rate);
      std::snprintf(eta, sizeof eta, "%ld:%02ld", left / 60, left % 60);
    }
    std::fprintf(stderr, "\r  [%s%s] %ld/%ld replicas  %ld/%ld points  %.1f replicas/s  ETA %s ",
                 std::string(static_cast<size_t>(filled), '#').c_str(),
                 std::string(static_cast<size_t>(kWidth - filled), '.').c_str(), done_, total, points_done_, points_,
                 rate, eta);
    std::fflush(stderr);
  }

  const std::vector<ReplicaTask>& tasks_;
  bool shown_;
  bool drawn_ = false;
  Clock::time_point start_;
  Clock::time_point last_{};
  std::vector<long> left_in_point_;  // replicas still to run, per point
  long done_ = 0, skipped_ = 0, points_done_ = 0, points_ = 0;
};

}  // namespace

std::string run_replicas(const std::vector<ReplicaTask>& tasks, const RunnerOptions& options)
{
  const int jobs = options.jobs;
  remove_leftovers(tasks);
  // Each point's step once, here, before any replica forks: a cold cache would otherwise have the
  // first -j replicas simulate the same iteration side by side, and every replica re-read it.
  std::map<const scenario::Scenario*, sim::Prepared> prepared;
  for (const auto& t : tasks)
    if (!prepared.count(t.scenario) && !is_done(t.dir)) {
      try {
        prepared[t.scenario] = sim::prepare(*t.scenario);
      } catch (const std::exception& e) {
        return std::string("the step simulation failed: ") + e.what();
      }
    }
  std::map<pid_t, const ReplicaTask*> running;
  std::string error;
  ProgressLine progress(tasks, options.progress);
  auto reap_one = [&] {
    int status = 0;
    const pid_t pid = wait(&status);
    auto it = running.find(pid);
    if (it == running.end())
      return;
    const bool internal = WIFEXITED(status) && WEXITSTATUS(status) == kExitInternal;
    if (internal && options.internal_error != nullptr)
      *options.internal_error = true;
    if ((!WIFEXITED(status) || WEXITSTATUS(status) != 0) && error.empty())
      error = "the run for " + it->second->dir + (internal ? " broke an invariant (a bug in fleetsim)" : " failed");
    FLEETSIM_LOG(Sweep, debug, "replica {} seed {}: {}", it->second->dir, it->second->seed,
                 WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "done" : "failed");
    progress.done(*it->second);
    running.erase(it);
  };
  const pid_t runner = getpid();
  for (const auto& t : tasks) {
    if (is_done(t.dir))
      continue;  // done by an earlier run
    std::error_code ec;
    fs::create_directories(fs::path(t.dir).parent_path(), ec);
    if (ec)
      return "cannot create '" + fs::path(t.dir).parent_path().string() + "': " + ec.message();
    while (static_cast<int>(running.size()) >= std::max(1, jobs))
      reap_one();
    if (!error.empty())
      break;
    std::cout.flush();
    std::cerr.flush();
    const pid_t pid = fork();
    if (pid < 0)
      return "fork failed";
    if (pid == 0)
      replica_child(t, prepared.at(t.scenario), runner, options.traces);
    running[pid] = &t;
  }
  while (!running.empty())
    reap_one();
  return error;
}

}  // namespace fleetsim::cli

#include "replica_runner.hpp"

#include "simulator/run/simulation.hpp"
#include "simulator/trace/output_writers.hpp"

#include <sys/wait.h>
#include <unistd.h>

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

// In the child: simulate, write into a temporary directory, rename it into place.
[[noreturn]] void replica_child(const ReplicaTask& t)
{
  int code = 0;
  try {
    const std::string tmp = t.dir + kPartial + std::to_string(getpid());
    const sim::RunResult r = sim::run_simulation(*t.scenario, t.seed);
    if (std::string err = sim::write_outputs(tmp, *t.scenario, r); !err.empty()) {
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
  } catch (const std::exception& e) {
    std::cerr << "fleetsim: internal error: " << e.what() << "\n";
    code = 1;
  }
  std::cout.flush();
  std::cerr.flush();
  _exit(code);
}

// Removes partial directories of replicas that a killed run left behind.
void remove_partials(const std::vector<ReplicaTask>& tasks)
{
  std::map<fs::path, bool> parents;
  for (const auto& t : tasks)
    parents[fs::path(t.dir).parent_path()] = true;
  for (const auto& [parent, unused] : parents) {
    std::error_code ec;
    if (!fs::is_directory(parent, ec))
      continue;
    for (const auto& entry : fs::directory_iterator(parent, ec))
      if (entry.path().filename().string().find(kPartial) != std::string::npos)
        fs::remove_all(entry.path(), ec);
  }
}

}  // namespace

std::string run_replicas(const std::vector<ReplicaTask>& tasks, int jobs)
{
  remove_partials(tasks);
  std::map<pid_t, const ReplicaTask*> running;
  std::string error;
  auto reap_one = [&] {
    int status = 0;
    const pid_t pid = wait(&status);
    auto it = running.find(pid);
    if (it == running.end())
      return;
    if ((!WIFEXITED(status) || WEXITSTATUS(status) != 0) && error.empty())
      error = "the run for " + it->second->dir + " failed";
    running.erase(it);
  };
  for (const auto& t : tasks) {
    if (fs::exists(t.dir))
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
      replica_child(t);
    running[pid] = &t;
  }
  while (!running.empty())
    reap_one();
  return error;
}

}  // namespace fleetsim::cli

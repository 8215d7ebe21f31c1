// libFuzzer target: job-trace CSVs (models/fleet/job_trace.hpp, load_trace_text). The input's first
// byte picks the column mapping, the rest is the CSV; a '\n' right after the first byte is skipped,
// so a seed reads as its mapping's letter on a line of its own, then the file:
//   a  acme preset                    h  helios preset, keep_states COMPLETED,FAILED
//   p  philly preset                  m  no preset, every field mapped to other column names, gpus
//                                        from nodes (x 4), numeric times in minutes, keep_states
//   o  acme preset with overrides: duration and gpus unmapped (work = end - start, gpus = nodes x 8),
//      priority mapped to a 'prio' column
// Any other first byte picks one of these by its value.
//
// Checks beyond "no crash", from the header's promises:
//   - jobs only when there is no error; at most 20 errors plus one "N more errors" line; each
//     message non-empty and named "<name>:...: error: ";
//   - every job: GPUs > 0, submit and work finite and >= 0, a non-empty unique id, its origin
//     "<name>:<line>", the defaults the options gave; jobs sorted by submit, the first at 0;
//   - the jobs written by write_trace_csv read back through the acme preset as the same jobs
//     (id, user, GPUs, submit, work exactly) with no error.
#include "models/fleet/job_trace.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <string_view>

namespace {

namespace mf = fleetsim::models::fleet;

void check(bool ok, const char* what)
{
  if (!ok) {
    std::fprintf(stderr, "fuzz_job_trace: contract broken: %s\n", what);
    std::abort();
  }
}

mf::JobSpec defaults()
{
  mf::JobSpec d;
  d.checkpoint_interval = 1800;
  d.checkpoint_cost = 20;
  d.restart_cost = 120;
  d.recovery = mf::JobRecovery::InPlace;
  return d;
}

mf::TraceOptions options_for(char selector)
{
  mf::TraceOptions o;
  o.defaults = defaults();
  o.gpus_per_node = 8;
  switch (selector) {
    case 'a': o.preset = "acme"; break;
    case 'h':
      o.preset = "helios";
      o.keep_states = {"COMPLETED", "FAILED"};
      break;
    case 'p': o.preset = "philly"; break;
    case 'm':
      o.columns = {{"id", "jid"},   {"user", "owner"},  {"submit", "queued"},  {"start", "began"},
                   {"end", "ended"}, {"nodes", "n_nodes"}, {"state", "status"}, {"priority", "prio"}};
      o.gpus_per_node = 4;
      o.time_unit = fleetsim::units::Seconds(60);
      o.keep_states = {"done", "failed"};
      break;
    default:  // 'o'
      o.preset = "acme";
      o.columns = {{"duration", ""}, {"gpus", ""}, {"priority", "prio"}};
      break;
  }
  return o;
}

void check_errors(const mf::TraceLoad& load, const std::string& name)
{
  check(load.ok() || load.jobs.empty(), "no job is returned when there is an error");
  check(load.errors.size() <= 21, "at most 20 errors and one 'N more errors'");
  for (const auto& e : load.errors)
    check(e.rfind(name + ":", 0) == 0 && e.find(": error: ") != std::string::npos &&
              e.size() > e.find(": error: ") + 9,
          "each error is '<name>:...: error: <message>'");
}

void check_jobs(const mf::TraceLoad& load, const std::string& name, const mf::TraceOptions& o)
{
  std::set<std::string> ids;
  double previous = 0;
  for (const auto& j : load.jobs) {
    check(j.gpus > 0, "every job has GPUs");
    check(std::isfinite(j.submit) && j.submit >= 0 && std::isfinite(j.work) && j.work >= 0,
          "submit and work are finite and >= 0");
    check(j.submit >= previous, "jobs are sorted by submit");
    previous = j.submit;
    check(!j.id.empty() && ids.insert(j.id).second, "ids are non-empty and unique");
    check(j.origin.rfind(name + ":", 0) == 0, "the origin is <name>:<line>");
    check(j.checkpoint_interval == o.defaults.checkpoint_interval && j.restart_cost == o.defaults.restart_cost &&
              j.recovery == o.defaults.recovery,
          "the options' defaults are kept");
  }
  if (!load.jobs.empty())
    check(load.jobs.front().submit == 0, "the first job arrives at t = 0");
}

// write_trace_csv's promise: the acme preset reads back exactly what it wrote.
void check_round_trip(const mf::TraceLoad& load, const mf::TraceOptions& o)
{
  std::ostringstream written;
  mf::write_trace_csv(load.jobs, written, o.gpus_per_node);
  mf::TraceOptions acme;
  acme.preset = "acme";
  acme.defaults = o.defaults;
  const mf::TraceLoad again = mf::load_trace_text(written.str(), "written.csv", acme);
  if (!again.ok())
    for (const auto& e : again.errors)
      std::fprintf(stderr, "%s\n", e.c_str());
  check(again.ok(), "a written trace reads back without error");
  check(again.jobs.size() == load.jobs.size(), "a written trace reads back every job");
  for (size_t i = 0; i < load.jobs.size(); ++i) {
    const mf::JobSpec& a = load.jobs[i];
    const mf::JobSpec& b = again.jobs[i];
    check(a.id == b.id && a.user == b.user && a.gpus == b.gpus, "a written job reads back its id, user and GPUs");
    check(a.submit == b.submit && a.work == b.work, "a written job reads back its submit and work exactly");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  if (size == 0)
    return 0;
  const char selector = static_cast<char>(data[0]);
  const char known[] = {'a', 'h', 'p', 'm', 'o'};
  const bool named = selector == 'a' || selector == 'h' || selector == 'p' || selector == 'm' || selector == 'o';
  const mf::TraceOptions o = options_for(named ? selector : known[data[0] % sizeof known]);
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (!text.empty() && text.front() == '\n')
    text.remove_prefix(1);
  const std::string name = "fuzz.csv";
  const mf::TraceLoad load = mf::load_trace_text(text, name, o);
  check_errors(load, name);
  check_jobs(load, name, o);
  if (load.ok())
    check_round_trip(load, o);
  return 0;
}

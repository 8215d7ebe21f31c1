// The Python module's native half, `fleetsim._native` (pybind11): what the pure-Python package
// (tools/python/fleetsim/__init__.py) builds its API on.
//
//   check(path, sets)       load and validate a scenario in this process (no SimGrid): its
//                           diagnostics as (file, line, column, message) tuples, empty when valid
//   cli(args, out, err)     run one `fleetsim` command line in a forked child, its standard output
//                           and error written to the files `out` and `err`; its exit code
//   parameters()            the scenario parameter table, as `fleetsim describe` prints it
//   source_path(rel)        rel, or the same path in fleetsim's source tree (as the CLI's defaults)
//
// SimGrid allows one engine per process, so every command that simulates runs in a child
// (simulator/run/child_process.hpp): the Python process never starts an engine and can call again
// and again. The GIL is released while the child runs.
#include "cli/commands.hpp"
#include "simulator/run/child_process.hpp"
#include "simulator/metrics/metric_registry.hpp"
#include "simulator/scenario/diagnostics.hpp"
#include "simulator/scenario/parameter_table.hpp"
#include "simulator/scenario/scenario_loader.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdio>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace py = pybind11;

namespace {

using Diagnostic = std::tuple<std::string, int, int, std::string>;

std::vector<Diagnostic> check(const std::string& path, const std::vector<std::string>& sets, bool list_unused)
{
  // A compare's base lists the keys some of its points leave unused rather than refusing them
  // (scenario::UnusedKeys); a run refuses them.
  const auto result = fleetsim::scenario::load_scenario_file(
      path, sets, list_unused ? fleetsim::scenario::UnusedKeys::List : fleetsim::scenario::UnusedKeys::Refuse);
  std::vector<Diagnostic> out;
  for (const auto& d : result.diagnostics.items())
    out.emplace_back(d.where.file, d.where.line, d.where.column, d.message);
  return out;
}

/// Points file descriptor `fd` at `path` (created or truncated); false on failure.
bool redirect(int fd, const std::string& path)
{
  const int f = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (f < 0)
    return false;
  const bool ok = dup2(f, fd) >= 0;
  close(f);
  return ok;
}

int cli(const std::vector<std::string>& args, const std::string& out_path, const std::string& err_path,
        const std::string& diagnostics_path)
{
  int status = 0;
  std::optional<std::string> text;
  {
    py::gil_scoped_release release;
    text = fleetsim::sim::run_in_child(
        [&]() -> std::string {
          if (!redirect(STDOUT_FILENO, out_path) || !redirect(STDERR_FILENO, err_path))
            return "1";
          fleetsim::scenario::set_diagnostics_sink(diagnostics_path);  // structured, beside the text
          std::vector<std::string> words{"fleetsim"};
          words.insert(words.end(), args.begin(), args.end());
          std::vector<char*> argv;
          for (auto& w : words)
            argv.push_back(w.data());
          argv.push_back(nullptr);
          const int code = fleetsim::cli::main(static_cast<int>(words.size()), argv.data());
          std::cout.flush();
          std::cerr.flush();
          std::fflush(nullptr);
          return std::to_string(code);
        },
        &status);
  }
  if (!text) {
    if (WIFSIGNALED(status))
      throw std::runtime_error("the fleetsim child was killed by signal " + std::to_string(WTERMSIG(status)));
    throw std::runtime_error("the fleetsim child could not be started or failed before it ran the command");
  }
  return std::stoi(*text);
}

std::vector<std::map<std::string, std::string>> parameters()
{
  std::vector<std::map<std::string, std::string>> out;
  for (const auto& p : fleetsim::scenario::parameter_table())
    out.push_back({{"key", p.key},
                   {"type", fleetsim::scenario::kind_description(p)},
                   {"default", p.default_value.value_or("")},
                   {"range", fleetsim::scenario::range_description(p)},
                   {"applies_to", std::string(fleetsim::scenario::applies_name(p.applies))},
                   {"description", p.description}});
  return out;
}

std::vector<std::map<std::string, std::string>> metric_list()
{
  std::vector<std::map<std::string, std::string>> out;
  for (const auto& metric : fleetsim::metrics::all_metrics())
    out.push_back({{"name", metric.name}, {"unit", metric.unit}, {"description", metric.description}});
  return out;
}

// A metric's value in a run's summary.json text, as compare and sweeps read it (NaN: the run has none).
double metric_value(const std::string& name, const std::string& summary_text)
{
  const fleetsim::metrics::Metric* metric = fleetsim::metrics::find_metric(name);
  if (metric == nullptr)
    throw py::value_error("no metric '" + name + "' (known: " + fleetsim::metrics::metric_names() + ")");
  return metric->read(nlohmann::json::parse(summary_text));
}

}  // namespace

PYBIND11_MODULE(_native, m)
{
  m.doc() = "fleetsim's native half: use the fleetsim package (run, step, compare, sweep, describe).";
  m.def("check", &check, py::arg("path"), py::arg("sets"), py::arg("list_unused") = false,
        "Loads and validates a scenario file with --set overrides; its diagnostics as (file, line, column, "
        "message) tuples, empty when it is valid. list_unused: a key the scenario's choices leave unread is "
        "not an error (a compare's base, whose points may read it).");
  m.def("cli", &cli, py::arg("args"), py::arg("stdout_path"), py::arg("stderr_path"), py::arg("diagnostics_path"),
        "Runs one fleetsim command line (without the program name) in a forked child whose standard output "
        "and error go to the first two files and whose bad-input diagnostics go to the third, one JSON object "
        "per line (file, line, column, message, context); returns its exit code (0 ok, 1 failure, 2 bad input, "
        "3 internal error).");
  m.def("source_path", &fleetsim::cli::default_source_path, py::arg("relative"),
        "`relative` itself when it exists from the working directory, else the same path in fleetsim's source "
        "tree when it exists there, else `relative`.");
  m.def("metrics", &metric_list, "Every output metric of the registry: name, unit, description.");
  m.def("metric_value", &metric_value, py::arg("name"), py::arg("summary_json"),
        "A metric's value in a run's summary.json text, as compare and sweeps read it (NaN when the run has none).");
  m.def("parameters", &parameters, "Every scenario parameter: key, type, default, range, applies_to, description.");
}

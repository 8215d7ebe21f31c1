#pragma once
// The fleetsim command line: parsing and the sub-commands. Exit codes: 0 success, 1 I/O or other
// failure, 2 bad input (unknown option, bad scenario), 3 internal error (a broken invariant: a bug).

#include "models/core/check.hpp"
#include "models/core/invariant.hpp"
#include "simulator/scenario/scenario.hpp"
#include "simulator/scenario/scenario_loader.hpp"

#include <optional>

#include <string>
#include <vector>

namespace fleetsim::cli {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;
constexpr int kExitInternal = models::kInternalErrorExitCode;  // a failed FLEETSIM_CHECK exits with it too

/// Prints a broken invariant as an internal error (the invariant, what was seen, scenario and seed)
/// and returns kExitInternal.
int report_internal_error(const models::InvariantViolation& e);

/// Until the next call, a failed internal check (models/core/check.hpp, which ends the process) first
/// removes `dir`, an output directory this process is creating, so that nothing half-written is left
/// behind. An empty `dir` stops it.
void remove_on_internal_error(const std::string& dir);

struct Options {
  std::string command;              // a command of the table in options.cpp
  std::string help_topic;           // help COMMAND, COMMAND --help
  std::string scenario;             // path; empty = the default scenario
  std::vector<std::string> sets;    // --set key=value
  std::vector<std::string> varies;  // compare: --vary key=v1,v2,...
  int seeds = 1;                    // compare: --seeds K (seeds first..first+K-1)
  int jobs = 1;                     // compare, sweep: -j N replicas at once
  std::string out;                  // --out DIR (report: --out FILE)
  std::string merge;                // sweep --merge DIR
  std::string shard;                // sweep --shard i/n
  int replicas = 0;                 // sweep --replicas N (0: the sweep file's)
  bool has_seed = false;
  unsigned long long seed = 0;
  bool dump_resolved = false;
  bool markdown = false;  // describe --markdown
  // reproduce
  std::vector<std::string> case_ids;  // CASE...: id prefixes or globs
  std::string cases_file;             // --cases FILE
  std::string markdown_file;          // --markdown FILE
  // calibrate
  std::vector<std::string> fits;  // --fit KEY=LOW:HIGH
  bool dry_run = false;           // --dry-run
  bool quiet = false;
  // every command: simulator/logging/logging.hpp
  std::string log_level;                 // --log-level (default off; info with --log-file)
  std::string log_file;                  // --log-file FILE
  std::vector<std::string> simgrid_log;  // --simgrid-log SETTING
  // collective
  std::string op = "allreduce";
  std::string algo = "ring";
  std::string ranks;  // default: the scenario's data-parallel degree
  std::string size = "1GB";
  std::string mode = "reduced";  // full | reduced
  std::string groups = "1";      // concurrent groups (e.g. all data-parallel groups at once)
  std::string chunks = "0";      // pipeline chunks; 0 = the algorithm's default
  // plan
  long plan_gpus = 0;        // --gpus N (0: the scenario's cluster.gpus)
  int top = 10;              // --top K rows printed
  int plan_simulate = 3;     // --simulate K: the analytic top K re-ranked by the simulated step (0: none)
  std::vector<int> plan_cp;  // --cp LIST: the context-parallel degrees searched (empty: SearchSpace's)
  std::string plan_embedding_chunks = "scenario";  // --embedding-chunks: scenario, both, on or off
};

/// Loads and validates the scenario into `out`. Returns an exit code when the command is already
/// done: 2 after printing every diagnostic, or 0 after printing --dump-resolved.
std::optional<int> prepare(const Options& opts, scenario::Scenario& out,
                           scenario::UnusedKeys unused = scenario::UnusedKeys::Refuse);

/// Parses argv; on error prints a message to stderr and returns false.
bool parse_options(int argc, char** argv, Options& opts);
/// Runs the parsed command (help included); returns its exit code.
int run_command(const Options& opts);
/// The whole command line: parse, run, report errors; returns the exit code (tools/cli/cli_main.cpp).
int main(int argc, char** argv);

int cmd_run(const Options& opts);
int cmd_validate(const Options& opts);
int cmd_workload(const Options& opts);
int cmd_step(const Options& opts);
int cmd_plan(const Options& opts);
int cmd_describe(const Options& opts);
/// Prints summary.json's JSON Schema, generated from its declaration (models/summary/).
int cmd_schema(const Options& opts);
int cmd_collective(const Options& opts);
int cmd_compare(const Options& opts);
int cmd_sweep(const Options& opts);
int cmd_report(const Options& opts);
int cmd_reproduce(const Options& opts);
int cmd_calibrate(const Options& opts);
void print_usage();

/// The default scenario (the Llama 3 replay), found from the working directory or the source tree.
std::string default_scenario_path();
/// A file of the source tree by its path there ("scenarios/validation/cases.yaml"): from the working
/// directory when it exists there, else from the source tree.
std::string default_source_path(const std::string& rel);

}  // namespace fleetsim::cli

// The command line, declared once on CLI11: the command table below is the only list of commands,
// and each command declares its options through the shared helpers, so an option is spelled the
// same way everywhere. `fleetsim help`, `fleetsim help COMMAND` and `COMMAND --help` are generated.
#include "commands.hpp"
#include "option_checks.hpp"

#include "simulator/logging/logging.hpp"
#include "simulator/scenario/diagnostics.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <sstream>
#include <string_view>

namespace fleetsim::cli {
namespace {

struct Command {
  const char* name;
  const char* synopsis;  // arguments after the command name, for the command list
  const char* summary;   // the command list's description (the --help text's first paragraph too)
  std::function<void(CLI::App&, Options&)> declare;
  std::function<int(const Options&)> run;
};

// ---- the options, declared once each ---------------------------------------------------------------

void scenario_arg(CLI::App& app, Options& o, const char* what = "scenario file (default: the Llama 3 405B replay)")
{
  app.add_option("SCENARIO", o.scenario, what)->type_name("")->multi_option_policy(CLI::MultiOptionPolicy::Throw);
}

void set_option(CLI::App& app, Options& o)
{
  app.add_option("--set", o.sets,
                 "override any scenario key by its dotted path, e.g. --set checkpoint.interval=10min "
                 "--set failures.causes.nic.count=14 (repeatable)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

void seed_option(CLI::App& app, Options& o)
{
  app.add_option("--seed", o.seed, "root random seed (overrides run.seed)")
      ->type_name("N")
      ->check(kNonNegativeInteger)
      ->each([&o](const std::string&) { o.has_seed = true; });
}

void out_option(CLI::App& app, Options& o, const char* what) { app.add_option("--out", o.out, what)->type_name("DIR"); }

void jobs_option(CLI::App& app, Options& o)
{
  app.add_option("-j,--jobs", o.jobs, "replicas run at once, each its own process")
      ->type_name("N")
      ->check(CLI::Range(1, 1024));
}

void quiet_flag(CLI::App& app, Options& o, const char* what) { app.add_flag("-q,--quiet", o.quiet, what); }

void dump_flag(CLI::App& app, Options& o)
{
  app.add_flag("--dump-resolved", o.dump_resolved, "print the fully defaulted scenario as YAML and exit");
}

// Every command: where its log goes (simulator/run/logging.hpp).
void logging_options(CLI::App& app, Options& o)
{
  app.add_option("--log-level", o.log_level,
                 "log events as they happen, stamped with simulated time, on stderr: "
                 "off|error|warn|info|debug|trace (debug: every failure, checkpoint and recovery phase)")
      ->type_name("LEVEL")
      ->check(CLI::IsMember({"off", "error", "warn", "info", "debug", "trace"}));
  app.add_option("--log-file", o.log_file, "write the log to FILE instead of stderr (at --log-level, default info)")
      ->type_name("FILE");
  app.add_option("--simgrid-log", o.simgrid_log,
                 "pass a SimGrid logging setting through, e.g. --simgrid-log root.thres:info (repeatable; "
                 "SimGrid's own categories; at --log-level trace SimGrid logs at info)")
      ->type_name("SETTING")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->check(kSimgridSetting);
}

// ---- the commands ----------------------------------------------------------------------------------

// fleetsim-lint: table (one entry per command)
const std::vector<Command>& commands()
{
  static const std::vector<Command> table = {
      {"run", "[SCENARIO]", "replay a training run; writes summary.json, timeline.csv, events.csv, storage.csv",
       [](CLI::App& a, Options& o) {
         scenario_arg(a, o);
         seed_option(a, o);
         out_option(a, o, "output directory (default: out/<scenario name>)");
         set_option(a, o);
         dump_flag(a, o);
         quiet_flag(a, o, "print nothing on success; no progress line (shown on a terminal only, for runs over 0.5 s)");
       },
       cmd_run},
      {"validate", "SCENARIO", "check a scenario and exit (0 = valid, 2 = errors, each as file:line:col)",
       [](CLI::App& a, Options& o) {
         scenario_arg(a, o);
         set_option(a, o);
         dump_flag(a, o);
       },
       cmd_validate},
      {"workload", "SCENARIO [--seed N] --out FILE",
       "write a fleet scenario's jobs (declared, from its trace and drawn by its generator for the seed) as a CSV "
       "trace in AcmeTrace's column layout, which workload.trace.file reads back (docs/models/workload.md)",
       [](CLI::App& a, Options& o) {
         scenario_arg(a, o);
         seed_option(a, o);
         a.add_option("--out", o.out, "the CSV file to write")->type_name("FILE")->required();
         set_option(a, o);
         quiet_flag(a, o, "print nothing on success");
       },
       cmd_workload},
      {"step", "[SCENARIO]",
       "one training iteration simulated on the scenario's fabric (or the analytic fleet law with --set "
       "run.step_model=analytic): the fleet-law breakdown, MFU and binding C3 term; with --out DIR, DIR/step.json "
       "and DIR/step_trace.json (Chrome trace events: open in Perfetto)",
       [](CLI::App& a, Options& o) {
         scenario_arg(a, o);
         out_option(a, o, "write step.json and step_trace.json there");
         set_option(a, o);
         dump_flag(a, o);
         quiet_flag(a, o, "print nothing on success");
       },
       cmd_step},
      {"plan", "[SCENARIO] [--gpus N] [--cp LIST] [--embedding-chunks MODE] [--top K] [--simulate S] [--out DIR]",
       "layout search: every TP x CP x PP x DP x virtual stages x micro-batch size the scenario's model admits on N "
       "GPUs, each with the lightest recomputation that fits in HBM, ranked by the analytic step, the first S "
       "re-ranked by the simulated step (docs/models/kernels-and-memory.md); prints the top K and writes "
       "DIR/plan.csv (default out/plan-<scenario name>)",
       [](CLI::App& a, Options& o) {
         scenario_arg(a, o);
         a.add_option("--gpus", o.plan_gpus, "GPUs to lay out (default: cluster.gpus)")
             ->type_name("N")
             ->check(CLI::Range(1L, 100000000L));
         a.add_option("--cp", o.plan_cp, "context-parallel degrees to search, comma-separated (default 1,2,4,8,16)")
             ->type_name("LIST")
             ->delimiter(',')
             ->check(CLI::Range(1, 1024));
         a.add_option("--embedding-chunks", o.plan_embedding_chunks,
                      "pipelines with the embedding and the output layer in chunks of their own "
                      "(parallelism.embedding_chunks): scenario (default: as the scenario sets it), both, on or off")
             ->type_name("MODE")
             ->check(CLI::IsMember({"scenario", "both", "on", "off"}));
         a.add_option("--top", o.top, "rows to print")->type_name("K")->check(CLI::Range(1, 100000));
         a.add_option("--simulate", o.plan_simulate,
                      "simulate the analytic top S on the fabric and re-rank them by it (default 3; 0: analytic only)")
             ->type_name("S")
             ->check(CLI::Range(0, 1000));
         out_option(a, o, "write plan.csv there (default: out/plan-<scenario name>)");
         set_option(a, o);
         quiet_flag(a, o, "print nothing on success");
       },
       cmd_plan},
      {"collective", "[SCENARIO] --op OP --algo ALGO --ranks N --size BYTES [--out DIR]",
       "time one collective on the scenario's simulated fabric (NVLink nodes, racks, pods), beside its alpha-beta "
       "prediction and the bytes it puts on each link class",
       [](CLI::App& a, Options& o) {
         scenario_arg(a, o);
         a.add_option("--op", o.op, "allreduce reducescatter allgather broadcast alltoall sendrecv")
             ->type_name("OP")
             ->capture_default_str();
         a.add_option("--algo", o.algo, "ring tree doubletree hierarchical direct")
             ->type_name("ALGO")
             ->capture_default_str();
         a.add_option("--ranks", o.ranks, "ranks (default: the scenario's data-parallel degree)")->type_name("N");
         a.add_option("--size", o.size, "bytes per rank, with a unit")->type_name("BYTES")->capture_default_str();
         a.add_option("--groups", o.groups, "G copies at once, member i of group g on GPU i*G+g (data-parallel groups)")
             ->type_name("G")
             ->capture_default_str();
         a.add_option("--chunks", o.chunks, "pipeline chunks of trees and chains (0: the algorithm's default)")
             ->type_name("C")
             ->capture_default_str();
         a.add_option("--mode", o.mode, "full: every flow; reduced: one group's flows, others by symmetry")
             ->type_name("full|reduced")
             ->capture_default_str();
         out_option(a, o, "write collective.json there (the figures printed, in SI units)");
         set_option(a, o);
         quiet_flag(a, o, "print nothing on success");
       },
       cmd_collective},
      {"compare", "[SCENARIO] --vary KEY=V1,V2,... [--vary ...] [--seeds K]",
       "run the scenario at every combination of the values (same seeds at every point) and print them side by "
       "side: ETTR, goodput, interruptions and where the time went; writes DIR/compare.csv and each run's files "
       "under DIR/<point>/, e.g. --vary recovery.policy=restart,hot_spare,elastic,in_memory",
       [](CLI::App& a, Options& o) {
         scenario_arg(a, o);
         a.add_option("--vary", o.varies, "a key and its values (repeatable: every combination)")
             ->type_name("KEY=V1,V2,...")
             ->allow_extra_args(false)
             ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
         a.add_option("--seeds", o.seeds, "seeds first..first+K-1 at every point")
             ->type_name("K")
             ->check(CLI::Range(1, 100000));
         seed_option(a, o);
         out_option(a, o, "output directory (default: out/compare-<scenario name>)");
         jobs_option(a, o);
         set_option(a, o);
         quiet_flag(a, o, "print no table");
       },
       cmd_compare},
      {"sweep", "SWEEP.yaml [--out DIR] [-j N] [--replicas R] [--shard i/n] | --merge DIR",
       "Monte Carlo sweep: every point of the sweep file's grid, `replicas` seeds each (or R), the same seeds at "
       "every point, N processes at once; DIR/results.csv (mean, sd, 95% CI, p5, p95 per metric and point), "
       "DIR/replicas.csv, and each run's files under DIR/runs/; a rerun finishes the missing replicas only. Under "
       "mpirun -np K the ranks share the replicas and rank 0 writes the results; --shard i/n runs every n-th "
       "replica (job arrays), then --merge DIR writes DIR's results once every shard is done",
       [](CLI::App& a, Options& o) {
         scenario_arg(a, o, "the sweep file (docs/sweeps.md)");
         out_option(a, o, "output directory (default: out/sweep-<file>)");
         jobs_option(a, o);
         a.add_option("--replicas", o.replicas, "seeds per point, instead of the sweep file's")
             ->type_name("R")
             ->check(CLI::Range(1, 1000000));
         a.add_option("--shard", o.shard, "run replicas t with t mod n = i (a job-array task)")->type_name("i/n");
         a.add_option("--merge", o.merge, "write DIR's results once every shard is done")->type_name("DIR");
         seed_option(a, o);
         set_option(a, o);
         quiet_flag(a, o, "print no table and no progress line");
       },
       cmd_sweep},
      {"report", "DIR [--out FILE]",
       "one self-contained HTML page (inline SVG charts, no network access) from the output directory of 'run' "
       "(goodput over time, state timeline, interruptions by cause against the reference rates, time breakdown; for "
       "a fleet: utilisation over time, waits by job size, lost GPU-hours by cause) or of 'sweep' (each metric "
       "against the swept parameter, with 95% CI bands)",
       [](CLI::App& a, Options& o) {
         scenario_arg(a, o, "the --out DIR of 'fleetsim run' or 'fleetsim sweep'");
         a.add_option("--out", o.out, "the HTML file (default: DIR/report.html)")->type_name("FILE");
         quiet_flag(a, o, "print nothing on success");
       },
       cmd_report},
      {"reproduce", "[CASE...] [--cases FILE] [--out DIR] [--markdown FILE] [-j N]",
       "run the published validation cases (scenarios/validation/cases.yaml: Llama 3, Daly, the book's identities; "
       "docs/validation.md) and print each one's published and simulated value, error, tolerance and PASS/FAIL; exit "
       "1 when a case fails. A CASE is a prefix of case ids, or a glob (*, ?, [...]) when it has one",
       [](CLI::App& a, Options& o) {
         a.add_option("CASE", o.case_ids, "the cases to run: an id prefix or a glob (default: all)")->type_name("");
         a.add_option("--cases", o.cases_file, "the case list (default: scenarios/validation/cases.yaml)")
             ->type_name("FILE");
         out_option(a, o, "write DIR/validation.csv (one row per case)");
         a.add_option("--markdown", o.markdown_file, "write the validation page (docs/validation.md) to FILE")
             ->type_name("FILE");
         jobs_option(a, o);
         quiet_flag(a, o, "print no table (the exit code still says whether every case passed)");
       },
       cmd_reproduce},
      {"calibrate", "HARDWARE [--fit KEY=LOW:HIGH ...] [--case ID ...] [--cases FILE] [--dry-run]",
       "fit the free parameters of a GPU generation's hardware file (default: accelerator.gemm.table_scale and "
       "network.overlap_slowdown) on the step cases marked 'role: calibration' that include it, and write the "
       "fitted values into the file with their provenance (date, cases, residuals); a validation case is refused",
       [](CLI::App& a, Options& o) {
         scenario_arg(a, o, "the hardware file (scenarios/hardware/...)");
         a.add_option("--fit", o.fits, "a parameter to fit within its bounds (repeatable; each written in the file)")
             ->type_name("KEY=LOW:HIGH")
             ->allow_extra_args(false)
             ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
         a.add_option("--case", o.case_ids, "fit on these calibration cases only (repeatable)")
             ->type_name("ID")
             ->allow_extra_args(false)
             ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
         a.add_option("--cases", o.cases_file, "the case list (default: scenarios/validation/cases.yaml)")
             ->type_name("FILE");
         a.add_flag("--dry-run", o.dry_run, "print the fit, write nothing");
         quiet_flag(a, o, "print nothing on success");
       },
       cmd_calibrate},
      {"describe", "[--markdown]", "print every scenario parameter: unit, default, range, description",
       [](CLI::App& a, Options& o) { a.add_flag("--markdown", o.markdown, "as a Markdown table"); }, cmd_describe},
      {"schema", "", "print summary.json's JSON Schema", [](CLI::App&, Options&) {}, cmd_schema},
      {"help", "[COMMAND]", "this text, or the options of COMMAND",
       [](CLI::App& a, Options& o) { a.add_option("COMMAND", o.help_topic, "a command")->type_name(""); }, nullptr},
  };
  return table;
}

const Command* find_command(std::string_view name)
{
  for (const auto& c : commands())
    if (name == c.name)
      return &c;
  return nullptr;
}

std::string closest(std::string_view word, const std::vector<std::string>& candidates)
{
  return scenario::did_you_mean(std::string(word), candidates);
}

// The usage line of every help text: "usage: fleetsim COMMAND ARGS [options]".
class Formatter : public CLI::Formatter {
public:
  explicit Formatter(std::string synopsis) : synopsis_(std::move(synopsis)) {}
  std::string make_usage(const CLI::App* app, std::string) const override
  {
    return "usage: " + app->get_name() + " " + synopsis_ + " [options]\n";
  }

private:
  std::string synopsis_;
};

std::unique_ptr<CLI::App> make_app(const Command& c, Options& o)
{
  auto app = std::make_unique<CLI::App>(c.summary, std::string("fleetsim ") + c.name);
  app->formatter(std::make_shared<Formatter>(c.synopsis));
  app->get_formatter()->column_width(30);
  app->set_help_flag("-h,--help", "this text");
  app->allow_extras();  // unknown options are reported below, with a did-you-mean hint
  // An option given twice keeps its last value (as a wrapper's `fleetsim run X --seed 1 "$@"` expects);
  // the repeatable ones (--set, --vary, --simgrid-log) keep them all.
  app->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  c.declare(*app, o);
  if (std::string_view(c.name) != "help")
    logging_options(*app, o);
  app->footer(std::string_view(c.name) == "help"
                  ? ""
                  : "SCENARIO defaults to scenarios/llama3_405b_16k.yaml. Exit codes: 0 ok, 1 failure, 2 bad input, "
                    "3 internal error.");
  return app;
}

std::vector<std::string> option_names(const CLI::App& app)
{
  std::vector<std::string> names;
  for (const CLI::Option* opt : app.get_options())
    for (const auto& n : opt->get_lnames())
      names.push_back("--" + n);
  return names;
}

// The commands that take `flag` ("run, step and sweep"), or "".
std::string commands_taking(const std::string& flag)
{
  std::vector<std::string> names;
  for (const auto& c : commands()) {
    Options scratch;
    const auto app = make_app(c, scratch);
    const auto all = option_names(*app);
    if (std::find(all.begin(), all.end(), flag) != all.end())
      names.emplace_back(c.name);
  }
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return out;
}

bool bad(const std::string& msg, const std::string& command)
{
  std::cerr << "fleetsim: error: " << msg << "\n(see 'fleetsim " << (command.empty() ? "help" : command + " --help")
            << "')\n";
  return false;
}

// The option a CLI11 error is about: the first word of its message when it is one ("--seed: ...").
std::string clear_message(const CLI::ParseError& e)
{
  const std::string what = e.what();
  const std::string name = e.get_name();
  const auto colon = what.find(':');
  const std::string option = colon != std::string::npos && what.rfind("-", 0) == 0 ? what.substr(0, colon) : "";
  if (name == "ArgumentMismatch" && !option.empty())
    return "option " + option + " needs a value";
  if ((name == "ValidationError" || name == "ConversionError") && !option.empty())
    return "option " + option + ": " + what.substr(colon + 2);
  return what;
}

}  // namespace

void print_usage()
{
  std::cout << "usage: fleetsim <command> [SCENARIO] [options]\n\n"
               "Replays ML training runs on a simulated fleet: failures, checkpoints, recoveries, stragglers; "
               "goodput traces.\n\ncommands:\n";
  for (const auto& c : commands()) {
    std::string head = std::string("  ") + c.name + " " + c.synopsis;
    std::cout << head << "\n";
    // The summary, wrapped at 100 columns, indented.
    std::istringstream words(c.summary);
    std::string line = "      ";
    for (std::string w; words >> w;) {
      if (line.size() + w.size() + 1 > 100) {
        std::cout << line << "\n";
        line = "      ";
      }
      line += (line.size() > 6 ? " " : "") + w;
    }
    std::cout << line << "\n";
  }
  std::cout << "\n'fleetsim help COMMAND' or 'fleetsim COMMAND --help' lists a command's options. Every command takes\n"
               "--log-level off|error|warn|info|debug|trace, --log-file FILE and --simgrid-log SETTING.\n"
               "SCENARIO defaults to scenarios/llama3_405b_16k.yaml (the Llama 3 405B replay).\n"
               "Exit codes: 0 ok, 1 failure, 2 bad input, 3 internal error (a bug: please report it).\n";
}

int print_command_help(const std::string& name)
{
  const Command* c = find_command(name);
  if (c == nullptr) {
    std::vector<std::string> names;
    for (const auto& k : commands())
      names.emplace_back(k.name);
    const std::string hint = closest(name, names);
    bad("unknown command '" + name + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"), "");
    return kExitBadInput;
  }
  Options scratch;
  std::cout << make_app(*c, scratch)->help();
  return kExitOk;
}

bool parse_options(int argc, char** argv, Options& opts)
{
  if (argc < 2 || std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h") {
    opts.command = "help";
    return true;
  }
  const std::string first = argv[1];
  const Command* c = find_command(first);
  if (c == nullptr) {
    std::vector<std::string> names;
    for (const auto& k : commands())
      names.emplace_back(k.name);
    const std::string hint = closest(first, names);
    return bad("unknown command '" + first + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"), "");
  }
  opts.command = first;
  auto app = make_app(*c, opts);
  try {
    app->parse(argc - 1, argv + 1);
  } catch (const CLI::CallForHelp&) {
    opts.help_topic = first;
    opts.command = "help";
    return true;
  } catch (const CLI::ParseError& e) {
    return bad(clear_message(e), first);
  }
  for (const std::string& extra : app->remaining()) {
    if (extra.size() > 1 && extra[0] == '-') {
      const std::string flag = extra.substr(0, extra.find('='));
      if (const std::string others = commands_taking(flag); !others.empty())
        return bad("'" + flag + "' is not an option of '" + first + "' (it is one of " + others + ")", first);
      const std::string hint = closest(flag, option_names(*app));
      return bad("unknown option '" + flag + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"), first);
    }
    const char* takes = *c->synopsis != '\0' ? c->synopsis : "no argument";
    return bad("unexpected argument '" + extra + "' (" + first + " takes " + takes + ")", first);
  }
  return true;
}

int run_command(const Options& opts)
{
  if (opts.command == "help") {
    if (opts.help_topic.empty()) {
      print_usage();
      return kExitOk;
    }
    return print_command_help(opts.help_topic);
  }
  const Command* c = find_command(opts.command);
  if (c == nullptr || !c->run)
    return kExitBadInput;
  if (std::string err = log::configure({opts.log_level, opts.log_file, opts.simgrid_log}); !err.empty()) {
    std::cerr << "fleetsim: error: " << err << "\n";
    return kExitBadInput;
  }
  return c->run(opts);
}

std::string default_source_path(const std::string& rel)
{
  if (std::filesystem::exists(rel))
    return rel;
#ifdef FLEETSIM_SOURCE_DIR
  const std::string in_tree = std::string(FLEETSIM_SOURCE_DIR) + "/" + rel;
  if (std::filesystem::exists(in_tree))
    return in_tree;
#endif
  return rel;
}

std::string default_scenario_path() { return default_source_path("scenarios/llama3_405b_16k.yaml"); }

}  // namespace fleetsim::cli

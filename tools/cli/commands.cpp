#include "commands.hpp"

#include "models/fleet/job_trace.hpp"
#include "simulator/output/outcome_outputs.hpp"
#include "simulator/output/step_outputs.hpp"
#include "simulator/output/summary_schema.hpp"
#include "simulator/run/run.hpp"
#include "simulator/run/step_simulation.hpp"
#include "simulator/scenario/key_usage.hpp"
#include "simulator/scenario/parameter_table.hpp"
#include "simulator/scenario/scenario_loader.hpp"
#include "simulator/trace/atomic_file.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>

namespace fleetsim::cli {

std::optional<int> prepare(const Options& opts, scenario::Scenario& out, scenario::UnusedKeys unused)
{
  const std::string path = opts.scenario.empty() ? default_scenario_path() : opts.scenario;
  auto result = scenario::load_scenario_file(path, opts.sets, unused);
  if (!result.diagnostics.empty()) {
    scenario::report(result.diagnostics, std::cerr);
    return kExitBadInput;
  }
  if (opts.dump_resolved) {
    std::cout << scenario::dump_resolved(result.resolved, &*result.scenario);
    return kExitOk;
  }
  out = std::move(*result.scenario);
  // The scenario's own keys that a --set choice left unread run on, and are named (the included
  // files' are only in summary.json: they describe the machine for whichever model reads them).
  for (const scenario::UnusedKey& u : out.unused_keys)
    if (!u.included)
      std::cerr << u.where << ": note: " << scenario::unused_key_message(u) << "\n";
  return std::nullopt;
}

namespace {

void print_step(const scenario::Scenario& s, const models::StepBreakdown& b, const sim::SimulatedStep* sim)
{
  const double T = b.step_time.si();
  auto row = [&](const char* name, double v, const char* note) {
    std::printf("  %-22s %10.4f s  %5.1f%%  %s\n", name, v, 100 * v / T, note);
  };
  char cp[48] = "";
  if (s.step.layout.cp > 1)
    std::snprintf(cp, sizeof cp, " x CP %d", s.step.layout.cp);
  if (s.step.layout.ep > 1)
    std::snprintf(cp + std::strlen(cp), sizeof cp - std::strlen(cp), " (EP %d over DP)", s.step.layout.ep);
  std::printf("%s: %ld GPUs, TP %d%s x PP %d x DP %d, v = %d%s, %d micro-batches per step (%s step model)\n",
              s.name.c_str(), s.fleet.gpus, s.step.layout.tp, cp, s.step.layout.pp, s.step.layout.dp,
              s.step.layout.virtual_stages, s.step.layout.embedding_chunks ? " (embedding chunks)" : "",
              b.micro_batches, b.model.c_str());
  if (sim != nullptr) {
    std::printf("  fabric: %s\n  timed on it, all flows at once:\n", sim->fabric.c_str());
    std::printf("    TP all-reduce %.3f ms   PP send %.3f ms   DP reduce-scatter per chunk %.1f ms",
                1e3 * sim->tp_allreduce_s, 1e3 * sim->pp_transfer_s, 1e3 * sim->dp_reduce_scatter_chunk_s);
    if (s.step.layout.cp > 1)
      std::printf("   CP K/V all-gather %.3f ms", 1e3 * sim->cp_all_gather_s);
    if (s.step.layout.ep > 1)
      std::printf("   EP all-to-all %.3f ms", 1e3 * sim->ep_alltoall_s);
    std::printf("\n");
  }
  row("T_compute/N", b.compute.si(), "computation");
  row("T_comm(N)", b.comm.si(), "communication (before overlap)");
  row("  tensor-parallel", b.tp_comm.si(), "NVLink all-reduces");
  if (s.step.layout.cp > 1)
    row("  context-parallel", b.cp_comm.si(), "K/V all-gathers and gradient reduce-scatters");
  if (s.step.layout.ep > 1)
    row("  expert-parallel", b.ep_comm.si(), "token all-to-alls (dispatch, combine)");
  row("  pipeline-parallel", b.pp_comm.si(), "NIC activation sends");
  row("  data-parallel", b.dp_comm.si(), "NIC reduce-scatter + all-gather");
  row("T_sync(N)", b.sync.si(), "coordination");
  row("  pipeline bubble", b.bubble.si(), "");
  row("  barrier", b.barrier.si(), "");
  row("- T_overlap", b.overlap.si(), sim != nullptr ? "hidden behind compute" : "hidden behind backward");
  row("  exposed comm", b.comm_exposed.si(), "T_comm - T_overlap");
  row("= T_step", T, "");
  const double hfu = models::hardware_flops_utilisation(b, s.step.workload);
  std::printf("  MFU %.1f%%   HFU %.1f%%   compute fraction %.2f   binding term: %s\n", 100 * b.mfu, 100 * hfu,
              b.compute_fraction, b.binding_term.c_str());
  if (sim != nullptr && sim->checkpoint_write_s > 0) {
    const double bytes = s.checkpoint_bytes().si();
    std::printf(
        "  checkpoint of %s over the fabric: %.3f s (storage alone %.3f s); step while it drains %.4f s "
        "(%+.2f%%)\n",
        units::format_quantity(bytes, units::Dimension::Bytes).c_str(), sim->checkpoint_write_s,
        bytes / s.storage.write_bandwidth.si(), sim->step_time_during_checkpoint_s,
        100 * (sim->step_time_during_checkpoint_s / T - 1));
  }
  if (sim != nullptr && sim->slow_stage >= 0) {
    const double c = b.compute_fraction;
    std::printf(
        "  one node at %.3g speed (stage %d of pipeline 0, SimGrid speed profile): step %.4f s (x%.4f); "
        "the replay's (1 - c) + c / speed gives x%.4f\n",
        sim->slow_speed, sim->slow_stage, sim->step_time_with_slow_node_s, sim->step_time_with_slow_node_s / T,
        (1 - c) + c / sim->slow_speed);
  }
  if (sim != nullptr)
    std::printf(
        "  exposed: TP %.4f s, CP %.4f s, EP %.4f s, PP %.4f s, DP %.4f s; critical stage %d; simulated in %.2f s "
        "wall\n",
        b.tp_comm.si(), b.cp_comm.si(), b.ep_comm.si(), sim->pp_exposed_s, sim->dp_exposed_s, sim->critical_stage,
        sim->wall_time_s);
}

std::string cell(const std::optional<std::string>& v) { return v ? (v->empty() ? "\"\"" : *v) : "(none)"; }

}  // namespace

int report_internal_error(const models::InvariantViolation& e)
{
  std::cerr << "fleetsim: internal error: invariant '" << e.invariant() << "' violated";
  if (!e.scenario.empty())
    std::cerr << " in scenario " << e.scenario;
  if (e.has_seed)
    std::cerr << ", seed " << e.seed;
  std::cerr << ": " << e.what()
            << "\nfleetsim: this is a bug in fleetsim, not in the scenario; no output was written. "
               "Please report it with the scenario file and the seed.\n";
  return kExitInternal;
}

namespace {

std::string g_remove_on_internal_error;  // the output directory being created (empty: none)

void remove_output_dir() noexcept
{
  std::error_code ec;
  std::filesystem::remove_all(g_remove_on_internal_error, ec);
}

}  // namespace

void remove_on_internal_error(const std::string& dir)
{
  g_remove_on_internal_error = dir;
  models::set_check_failure_hook(dir.empty() ? nullptr : &remove_output_dir);
}

int cmd_validate(const Options& opts)
{
  scenario::Scenario s;
  if (auto done = prepare(opts, s))
    return *done;
  std::cout << s.source << ": ok (" << s.causes.size() << " failure causes)\n";
  // Keys from an included hardware or cluster file that this scenario's choices leave unread: named,
  // not refused (the file describes the machine for whichever model reads them).
  for (const scenario::UnusedKey& u : s.unused_keys)
    std::cout << "  " << u.where << ": unused: " << scenario::unused_key_message(u) << "\n";
  return kExitOk;
}

int cmd_workload(const Options& opts)
{
  scenario::Scenario s;
  if (auto done = prepare(opts, s))
    return *done;
  const std::uint64_t seed = opts.has_seed ? opts.seed : s.seed;
  const std::optional<models::fleet::Workload> fleet = sim::fleet_jobs(s, seed);
  if (!fleet) {
    std::cerr << s.source << ": error: 'workload' writes a fleet's jobs; this scenario has no workload section\n";
    return kExitBadInput;
  }
  const models::fleet::Workload& jobs = *fleet;
  const std::filesystem::path file(opts.out);
  const std::string dir = file.parent_path().empty() ? "." : file.parent_path().string();
  const auto body = [&](std::ostream& o) { models::fleet::write_trace_csv(jobs, o, s.fleet.gpus_per_node); };
  if (std::string err = sim::write_file_atomically(dir, file.filename().string(), body); !err.empty()) {
    std::cerr << "fleetsim: error: " << err << "\n";
    return kExitFailure;
  }
  if (!opts.quiet)
    std::cout << "  " << jobs.size() << " jobs (seed " << seed << ") written to " << opts.out << "\n";
  return kExitOk;
}

int cmd_step(const Options& opts)
{
  scenario::Scenario s;
  if (auto done = prepare(opts, s))
    return *done;
  std::optional<sim::SimulatedStep> simulated;
  models::StepBreakdown b;
  if (s.step_model == "simulated") {
    simulated = sim::simulate_step(s);
    b = simulated->breakdown;
  } else {
    b = models::AnalyticStepModel().step(s.step);
  }
  if (!opts.out.empty()) {
    const bool existed = std::filesystem::exists(opts.out);
    if (!existed)
      remove_on_internal_error(opts.out);
    if (std::string err = sim::write_step_outputs(opts.out, s, b, simulated ? &*simulated : nullptr); !err.empty()) {
      std::cerr << "fleetsim: error: " << err << "\n";
      if (!existed) {
        std::error_code ec;
        std::filesystem::remove_all(opts.out, ec);
      }
      return kExitFailure;
    }
  }
  if (!opts.quiet) {
    print_step(s, b, simulated ? &*simulated : nullptr);
    if (!opts.out.empty())
      std::cout << "  outputs in " << opts.out << "/ (step.json" << (simulated ? ", step_trace.json" : "") << ")\n";
  }
  return kExitOk;
}

namespace {

// Outputs could not be written: says why, and removes the directory if the run created it.
int write_failed(const std::string& err, const std::string& out, bool existed)
{
  std::cerr << "fleetsim: error: " << err << "\n";
  if (!existed) {
    std::error_code ec;
    std::filesystem::remove_all(out, ec);
  }
  return kExitFailure;
}

}  // namespace

int cmd_run(const Options& opts)
{
  scenario::Scenario s;
  if (auto done = prepare(opts, s))
    return *done;
  const std::uint64_t seed = opts.has_seed ? opts.seed : s.seed;
  const std::string out = opts.out.empty() ? "out/" + s.name : opts.out;
  const bool existed = std::filesystem::exists(out);
  if (!existed)
    remove_on_internal_error(out);
  // On a terminal, a long replay shows how far it is: the step simulation of a large fabric takes
  // seconds (once: it is cached), and a multi-year window proportionally longer than 54 days.
  const bool tty = !opts.quiet && isatty(STDERR_FILENO) != 0;
  const auto wall0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count(); };
  bool drawn = false;
  if (tty && s.step_model == "simulated")
    std::fprintf(stderr, "\r  resolving the step time (a simulated step is computed once, then cached)...");
  const sim::Prepared prepared = sim::prepare(s);
  if (tty && s.step_model == "simulated")
    std::fprintf(stderr, "\r%80s\r", "");
  double last_draw = 0;
  const double t_run = elapsed();
  const sim::ProgressFn progress = [&](double f) {
    const double now = elapsed();
    if (now - t_run < 0.5 || (now - last_draw < 0.2 && f < 1))
      return;  // short runs show nothing
    last_draw = now;
    drawn = true;
    const int filled = static_cast<int>(24 * f);
    const double eta = f > 0 ? (now - t_run) * (1 - f) / f : 0;
    std::fprintf(stderr, "\r  [%s%s] %3.0f%% of %.1f simulated days  ETA %.0f s ", std::string(filled, '#').c_str(),
                 std::string(24 - filled, '.').c_str(), 100 * f, s.duration.si() / 86400, eta);
    std::fflush(stderr);
  };
  const sim::Outcome result = sim::run(s, seed, prepared, tty ? progress : sim::ProgressFn{});
  if (drawn)
    std::fputc('\n', stderr);
  if (std::string err = sim::write_outputs(out, s, result); !err.empty()) {
    return write_failed(err, out, existed);
  }
  if (!opts.quiet) {
    sim::print_table(std::cout, s, result);
    std::cout << "  outputs in " << out << "/ (" << sim::output_files(result) << ")\n";
  }
  return kExitOk;
}

int cmd_describe(const Options& opts)
{
  const auto& table = scenario::parameter_table();
  if (opts.markdown) {
    std::cout << "| key | type | default | valid range | runs | read when | description |\n"
                 "|---|---|---|---|---|---|---|\n";
    for (const auto& p : table)
      std::cout << "| `" << p.key << "` | " << scenario::kind_description(p) << " | " << cell(p.default_value) << " | "
                << scenario::range_description(p) << " | " << scenario::applies_name(p.applies) << " | "
                << scenario::read_when_description(p) << " | " << p.description << " |\n";
    return kExitOk;
  }
  std::string section;
  for (const auto& p : table) {
    const std::string top = p.key.substr(0, p.key.find('.'));
    if (top != section && p.key.find('.') != std::string::npos) {
      section = top;
      std::cout << "\n" << section << ":\n";
    }
    std::cout << "  " << p.key << "  [" << scenario::kind_description(p) << "]  default " << cell(p.default_value);
    if (auto r = scenario::range_description(p); !r.empty())
      std::cout << "  range " << r;
    if (p.applies != scenario::Applies::Both)
      std::cout << "  (" << scenario::applies_name(p.applies) << " only)";
    std::cout << "\n      " << p.description << "\n";
    if (const std::string when = scenario::read_when_description(p); !when.empty())
      std::cout << "      read when " << when << "\n";
  }
  std::cout << "\nQuantities need a unit:\n";
  for (auto d : {units::Dimension::Time, units::Dimension::Bytes, units::Dimension::Bandwidth,
                 units::Dimension::FlopRate, units::Dimension::Power})
    std::cout << "  " << units::dimension_name(d) << ": " << units::accepted_units(d) << "\n";
  return kExitOk;
}

int cmd_schema(const Options& /*opts*/)
{
  std::cout << sim::summary_schema().dump(2) << '\n';
  return kExitOk;
}

}  // namespace fleetsim::cli

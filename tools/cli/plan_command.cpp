// fleetsim plan: the layout search of models/step/layout_search.hpp on a scenario's model and hardware.
#include "commands.hpp"

#include "models/step/layout_search.hpp"
#include "simulator/run/step_source.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace fleetsim::cli {
namespace {

// A layout in the final ranking: its place in the analytic ranking, and its simulated step when it
// was among the top few re-ranked by the simulated step (in a forked child, cached as `fleetsim
// step` caches it).
struct PlanRow {
  models::LayoutCandidate candidate;
  size_t analytic_rank = 0;
  std::optional<models::StepBreakdown> simulated;
  /// The breakdown the row is ranked and printed by: the simulated one when there is one.
  [[nodiscard]] const models::StepBreakdown& step() const { return simulated ? *simulated : candidate.step; }
};

// The first `count` rows simulated and re-ranked among themselves, fastest first; a layout whose
// simulation fails keeps its analytic place after the simulated ones and says why on stderr.
double simulate_top(const scenario::Scenario& s, long gpus, int count, std::vector<PlanRow>& rows)
{
  const auto wall0 = std::chrono::steady_clock::now();
  const size_t n = std::min(rows.size(), static_cast<size_t>(std::max(0, count)));
  for (size_t i = 0; i < n; ++i) {
    scenario::Scenario one = s;
    one.step = rows[i].candidate.inputs;
    one.step_model = "simulated";
    one.fleet.gpus = gpus;
    try {
      rows[i].simulated = sim::resolve_step(one).breakdown;
    } catch (const std::exception& e) {
      std::cerr << "fleetsim: warning: layout " << rows[i].analytic_rank << " not simulated: " << e.what() << "\n";
    }
  }
  std::stable_sort(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(n), [](const PlanRow& a, const PlanRow& b) {
    if (a.simulated.has_value() != b.simulated.has_value())
      return a.simulated.has_value();
    return a.simulated.has_value() && a.simulated->step_time < b.simulated->step_time;
  });
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
}

bool same_layout(const models::LayoutCandidate& c, const models::StepInputs& own)
{
  const models::ParallelLayout& a = c.inputs.layout;
  const models::ParallelLayout& b = own.layout;
  return a.tp == b.tp && a.cp == b.cp && a.pp == b.pp && a.dp == b.dp && a.virtual_stages == b.virtual_stages &&
         a.embedding_chunks == b.embedding_chunks && c.inputs.workload.micro_batch_size == own.workload.micro_batch_size;
}

std::string csv_row(size_t rank, const PlanRow& row, bool own)
{
  const models::LayoutCandidate& c = row.candidate;
  const models::ParallelLayout& l = c.inputs.layout;
  const double hfu = models::hardware_flops_utilisation(c.step, c.inputs.workload);
  char simulated[40] = "";
  if (row.simulated)
    std::snprintf(simulated, sizeof simulated, "%.9g", row.simulated->step_time.si());
  char buf[600];
  std::snprintf(buf, sizeof buf, "%zu,%d,%d,%d,%d,%d,%d,%d,%d,%d,%s,%.9g,%.6f,%.6f,%.6g,%s,%s,%d,%zu,%s\n", rank, l.tp,
                l.cp, l.pp, l.dp, l.ep, l.virtual_stages, l.embedding_chunks ? 1 : 0,
                c.inputs.workload.micro_batch_size, c.step.micro_batches,
                models::recompute_name(c.inputs.workload.recompute), c.step.step_time.si(), c.step.mfu, hfu,
                c.memory.total / 1e9, c.memory.biggest().name.c_str(), c.step.binding_term.c_str(), own ? 1 : 0,
                row.analytic_rank, simulated);
  return buf;
}

// plan.csv written whole to a temporary file, then renamed: no half-written file on failure.
std::string write_plan_csv(const std::string& dir, const std::vector<PlanRow>& ranked, const models::StepInputs& own)
{
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return "cannot create " + dir + ": " + ec.message();
  const std::string path = dir + "/plan.csv";
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    f << "rank,tp,cp,pp,dp,ep,virtual_stages,embedding_chunks,micro_batch_size,micro_batches,recompute,step_time_s,"
         "mfu,hfu,"
         "memory_gb,biggest_memory_term,binding_term,scenario_layout,analytic_rank,simulated_step_s\n";
    for (size_t i = 0; i < ranked.size(); ++i)
      f << csv_row(i + 1, ranked[i], same_layout(ranked[i].candidate, own));
    if (!f.flush())
      return "cannot write " + tmp;
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return "cannot write " + path;
  }
  return "";
}

void print_plan(const scenario::Scenario& s, long gpus, const models::SearchSpace& space,
                const std::vector<PlanRow>& ranked, const models::SearchStats& stats, int top, int simulated,
                double simulated_wall_s)
{
  std::string cps;
  for (int cp : space.context_parallel) {
    if (!cps.empty())
      cps += ',';
    cps += std::to_string(cp);
  }
  std::printf("%s: %ld layouts on %ld GPUs (CP %s), %ld do not fit in HBM, %zu ranked by the analytic step",
              s.name.c_str(), stats.enumerated, gpus, cps.c_str(), stats.rejected_memory, ranked.size());
  if (simulated > 0)
    std::printf(", the top %d re-ranked by the simulated step (%.1f s)", simulated, simulated_wall_s);
  std::printf("\n%5s %3s %3s %4s %6s %3s %4s %9s %10s %10s %6s %6s %8s  %s\n", "rank", "tp", "cp", "pp", "dp", "v",
              "mbs", "recompute", "analytic", "simulated", "MFU", "HFU", "memory", "binding");
  for (size_t i = 0; i < ranked.size(); ++i) {
    const models::LayoutCandidate& c = ranked[i].candidate;
    const bool own = same_layout(c, s.step);
    if (static_cast<int>(i) >= top && !own)
      continue;
    const models::ParallelLayout& l = c.inputs.layout;
    const models::StepBreakdown& b = ranked[i].step();
    const double hfu = models::hardware_flops_utilisation(b, c.inputs.workload);
    char sim_text[32] = "-";
    if (ranked[i].simulated)
      std::snprintf(sim_text, sizeof sim_text, "%.3f s", ranked[i].simulated->step_time.si());
    // v, and "+e" when the embedding and the output layer have chunks of their own.
    const std::string v = std::to_string(l.virtual_stages) + (l.embedding_chunks ? "+e" : "");
    std::printf("%5zu %3d %3d %4d %6d %3s %4d %9s %8.3f s %10s %5.1f%% %5.1f%% %5.1f GB  %s%s\n", i + 1, l.tp, l.cp,
                l.pp, l.dp, v.c_str(), c.inputs.workload.micro_batch_size,
                models::recompute_name(c.inputs.workload.recompute), c.step.step_time.si(), sim_text, 100 * b.mfu,
                100 * hfu, c.memory.total / 1e9, b.binding_term.c_str(), own ? "   <- the scenario's layout" : "");
  }
}

}  // namespace

int cmd_plan(const Options& opts)
{
  scenario::Scenario s;
  // The search tries other layouts than the scenario's: a key its layout leaves unread (a pipeline's
  // overhead at pp 1) may act on another, so it is listed in the scenario, not refused.
  if (auto done = prepare(opts, s, scenario::UnusedKeys::List))
    return *done;
  const long gpus = opts.plan_gpus > 0 ? opts.plan_gpus : s.fleet.gpus;
  if (!(s.step.accelerator.memory.si() > 0)) {
    std::cerr << "fleetsim: error: plan needs accelerator.memory to check layouts against HBM\n";
    return kExitBadInput;
  }
  models::SearchSpace space;
  space.gpus_per_node = s.fleet.gpus_per_node;
  if (!opts.plan_cp.empty())
    space.context_parallel = opts.plan_cp;
  if (opts.plan_embedding_chunks == "both")
    space.embedding_chunks = {false, true};
  else if (opts.plan_embedding_chunks != "scenario")
    space.embedding_chunks = {opts.plan_embedding_chunks == "on"};
  models::SearchStats stats;
  const auto ranked = models::search_layouts(s.step, gpus, space, &stats);
  if (ranked.empty() && stats.enumerated == 0) {
    std::cerr << "fleetsim: error: no layout of " << s.name << " on " << gpus
              << " GPUs is consistent (TP within a node dividing the heads, CP dividing the sequence, whole "
                 "micro-batches per replica)\n";
    return kExitBadInput;
  }
  if (ranked.empty()) {
    std::cerr << "fleetsim: error: no layout of " << s.name << " on " << gpus << " GPUs fits in HBM ("
              << stats.enumerated << " consistent layouts, every one too big even with full recomputation)\n";
    return kExitBadInput;
  }
  std::vector<PlanRow> rows;
  rows.reserve(ranked.size());
  for (size_t i = 0; i < ranked.size(); ++i)
    rows.push_back({ranked[i], i + 1, std::nullopt});
  const int simulated = static_cast<int>(std::min(rows.size(), static_cast<size_t>(opts.plan_simulate)));
  const double simulated_wall_s = simulate_top(s, gpus, simulated, rows);
  const std::string out = opts.out.empty() ? "out/plan-" + s.name : opts.out;
  if (std::string err = write_plan_csv(out, rows, s.step); !err.empty()) {
    std::cerr << "fleetsim: error: " << err << "\n";
    return kExitFailure;
  }
  if (!opts.quiet) {
    print_plan(s, gpus, space, rows, stats, opts.top, simulated, simulated_wall_s);
    std::printf("  all %zu in %s/plan.csv\n", ranked.size(), out.c_str());
  }
  return kExitOk;
}

}  // namespace fleetsim::cli

// fleetsim plan: the layout search of models/layout_search.hpp on a scenario's model and hardware.
#include "commands.hpp"

#include "models/layout_search.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace fleetsim::cli {
namespace {

bool same_layout(const models::LayoutCandidate& c, const models::StepInputs& own)
{
  const models::ParallelLayout& a = c.inputs.layout;
  const models::ParallelLayout& b = own.layout;
  return a.tp == b.tp && a.cp == b.cp && a.pp == b.pp && a.dp == b.dp && a.virtual_stages == b.virtual_stages &&
         c.inputs.workload.micro_batch_size == own.workload.micro_batch_size;
}

std::string csv_row(size_t rank, const models::LayoutCandidate& c, bool own)
{
  const models::ParallelLayout& l = c.inputs.layout;
  const double hfu = models::hardware_flops_utilisation(c.step, c.inputs.workload);
  char buf[512];
  std::snprintf(buf, sizeof buf, "%zu,%d,%d,%d,%d,%d,%d,%d,%d,%s,%.9g,%.6f,%.6f,%.6g,%s,%s,%d\n", rank, l.tp, l.cp,
                l.pp, l.dp, l.ep, l.virtual_stages, c.inputs.workload.micro_batch_size, c.step.micro_batches,
                models::recompute_name(c.inputs.workload.recompute), c.step.step_time.si(), c.step.mfu, hfu,
                c.memory.total / 1e9, c.memory.biggest().name.c_str(), c.step.binding_term.c_str(), own ? 1 : 0);
  return buf;
}

// plan.csv written whole to a temporary file, then renamed: no half-written file on failure.
std::string write_plan_csv(const std::string& dir, const std::vector<models::LayoutCandidate>& ranked,
                           const models::StepInputs& own)
{
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return "cannot create " + dir + ": " + ec.message();
  const std::string path = dir + "/plan.csv";
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    f << "rank,tp,cp,pp,dp,ep,virtual_stages,micro_batch_size,micro_batches,recompute,step_time_s,mfu,hfu,"
         "memory_gb,biggest_memory_term,binding_term,scenario_layout\n";
    for (size_t i = 0; i < ranked.size(); ++i)
      f << csv_row(i + 1, ranked[i], same_layout(ranked[i], own));
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

void print_plan(const scenario::Scenario& s, long gpus, const std::vector<models::LayoutCandidate>& ranked,
                const models::SearchStats& stats, int top)
{
  std::printf("%s: %ld layouts on %ld GPUs, %ld do not fit in HBM, %zu ranked by the analytic step\n", s.name.c_str(),
              stats.enumerated, gpus, stats.rejected_memory, ranked.size());
  std::printf("%5s %3s %3s %4s %6s %3s %4s %9s %10s %6s %6s %8s  %s\n", "rank", "tp", "cp", "pp", "dp", "v", "mbs",
              "recompute", "step", "MFU", "HFU", "memory", "binding");
  for (size_t i = 0; i < ranked.size(); ++i) {
    const bool own = same_layout(ranked[i], s.step);
    if (static_cast<int>(i) >= top && !own)
      continue;
    const models::LayoutCandidate& c = ranked[i];
    const models::ParallelLayout& l = c.inputs.layout;
    const double hfu = models::hardware_flops_utilisation(c.step, c.inputs.workload);
    std::printf("%5zu %3d %3d %4d %6d %3d %4d %9s %8.3f s %5.1f%% %5.1f%% %5.1f GB  %s%s\n", i + 1, l.tp, l.cp, l.pp,
                l.dp, l.virtual_stages, c.inputs.workload.micro_batch_size,
                models::recompute_name(c.inputs.workload.recompute), c.step.step_time.si(), 100 * c.step.mfu, 100 * hfu,
                c.memory.total / 1e9, c.step.binding_term.c_str(), own ? "   <- the scenario's layout" : "");
  }
}

}  // namespace

int cmd_plan(const Options& opts)
{
  scenario::Scenario s;
  if (auto done = prepare(opts, s))
    return *done;
  const long gpus = opts.plan_gpus > 0 ? opts.plan_gpus : s.fleet.gpus;
  if (!(s.step.accelerator.memory.si() > 0)) {
    std::cerr << "fleetsim: error: plan needs accelerator.memory to check layouts against HBM\n";
    return kExitBadInput;
  }
  models::SearchSpace space;
  space.gpus_per_node = s.fleet.gpus_per_node;
  models::SearchStats stats;
  const auto ranked = models::search_layouts(s.step, gpus, space, &stats);
  if (ranked.empty()) {
    std::cerr << "fleetsim: error: no layout of " << s.name << " on " << gpus << " GPUs fits in HBM ("
              << stats.enumerated << " consistent layouts, every one too big even with full recomputation)\n";
    return kExitBadInput;
  }
  const std::string out = opts.out.empty() ? "out/plan-" + s.name : opts.out;
  if (std::string err = write_plan_csv(out, ranked, s.step); !err.empty()) {
    std::cerr << "fleetsim: error: " << err << "\n";
    return kExitFailure;
  }
  if (!opts.quiet) {
    print_plan(s, gpus, ranked, stats, opts.top);
    std::printf("  all %zu in %s/plan.csv\n", ranked.size(), out.c_str());
  }
  return kExitOk;
}

}  // namespace fleetsim::cli

// fleetsim collective: one collective on a simulated fabric, beside the alpha-beta prediction.
#include "commands.hpp"

#include "models/collective_plan.hpp"
#include "simulator/run/collective_simulation.hpp"
#include "simulator/scenario/scenario_loader.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>

namespace fleetsim::cli {
namespace {

int bad(const std::string& msg)
{
  std::cerr << "fleetsim: error: " << msg << "\n";
  return kExitBadInput;
}

}  // namespace

int cmd_collective(const Options& opts)
{
  const std::string path = opts.scenario.empty() ? default_scenario_path() : opts.scenario;
  auto loaded = scenario::load_scenario_file(path, opts.sets);
  if (!loaded.diagnostics.empty()) {
    std::cerr << loaded.diagnostics.to_string();
    return kExitBadInput;
  }
  const auto& s = *loaded.scenario;
  const auto op = models::op_from_name(opts.op);
  const auto algo = models::algo_from_name(opts.algo);
  if (!op)
    return bad("--op must be one of allreduce, reducescatter, allgather, broadcast; got '" + opts.op + "'");
  if (!algo)
    return bad("--algo must be ring or tree; got '" + opts.algo + "'");
  if (!models::plan_supported(*op, *algo))
    return bad("the tree algorithm runs allreduce and broadcast only");
  if (opts.mode != "full" && opts.mode != "reduced")
    return bad("--mode must be full or reduced; got '" + opts.mode + "'");
  int ranks = s.step.layout.dp;
  if (!opts.ranks.empty()) {
    auto [p, ec] = std::from_chars(opts.ranks.data(), opts.ranks.data() + opts.ranks.size(), ranks);
    if (ec != std::errc() || p != opts.ranks.data() + opts.ranks.size() || ranks < 1 || ranks > 65536)
      return bad("--ranks expects an integer from 1 to 65536; got '" + opts.ranks + "'");
  }
  const auto size = units::parse_quantity(opts.size, units::Dimension::Bytes);
  if (!size.ok() || size.value < 0)
    return bad("--size: " + (size.ok() ? std::string("must not be negative") : size.error));

  const auto plan = models::make_plan(*op, *algo, ranks, size.value);
  const sim::FabricSpec fabric{ranks, s.step.fabric.nic_bandwidth.si(), s.step.fabric.nic_latency.si()};
  const models::AlphaBeta link{s.step.fabric.nic_latency, s.step.fabric.nic_bandwidth};
  const double predicted = models::plan_time(plan, link).si();
  const auto t = sim::run_collective(plan, fabric, opts.mode == "full");

  std::printf("%s %s, %d ranks, %s on a non-blocking star (%s per rank, %s per message)\n", opts.op.c_str(),
              opts.algo.c_str(), ranks, units::format_quantity(size.value, units::Dimension::Bytes).c_str(),
              units::format_quantity(fabric.nic_bandwidth, units::Dimension::Bandwidth).c_str(),
              units::format_quantity(fabric.nic_latency, units::Dimension::Time).c_str());
  std::printf("  simulated (%s, %ld of %ld steps)  %12.6f s   bus bandwidth %s\n", opts.mode.c_str(),
              t.steps_simulated, plan.total_step_executions(), t.time_s,
              units::format_quantity(models::bus_bandwidth(*op, ranks, size.value, units::Seconds(t.time_s)),
                                     units::Dimension::Bandwidth).c_str());
  double error_pct = predicted > 0 ? 100 * (t.time_s - predicted) / predicted : 0.0;
  if (std::fabs(error_pct) < 5e-4)
    error_pct = 0;  // print +0.000%, not -0.000%
  std::printf("  alpha-beta prediction        %12.6f s   (simulated %+.3f%%)\n", predicted, error_pct);
  std::printf("  bytes sent per rank %s; wall time %.3f s\n",
              units::format_quantity(plan.bytes_sent_per_rank(), units::Dimension::Bytes).c_str(), t.wall_time_s);
  return kExitOk;
}

}  // namespace fleetsim::cli

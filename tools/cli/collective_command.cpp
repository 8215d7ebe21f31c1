// fleetsim collective: one collective on a simulated fabric, beside the alpha-beta prediction.
#include "commands.hpp"

#include "models/network/collective_plan.hpp"
#include "simulator/run/collective_simulation.hpp"
#include "simulator/run/step_simulation.hpp"
#include "simulator/scenario/scenario_loader.hpp"
#include "simulator/trace/atomic_file.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <ostream>

namespace fleetsim::cli {
namespace {

int bad(const std::string& msg)
{
  std::cerr << "fleetsim: error: " << msg << "\n";
  return kExitBadInput;
}

bool parse_count(const std::string& text, int& out, int lowest = 1)
{
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && p == text.data() + text.size() && out >= lowest && out <= 65536;
}

std::string gb(double bytes) { return units::format_quantity(bytes, units::Dimension::Bytes); }

struct Timed {
  int ranks = 0;
  int groups = 1;
  double size = 0;
  double predicted = 0;
  bool torus = false;
  models::WireBytes wire;
  double bytes_per_rank = 0;
  long step_executions = 0;
  models::CollectiveOp op;
};

void print_result(const Options& opts, const Timed& c, const sim::CollectiveTiming& t)
{
  std::printf("%s %s, %d ranks x %d group%s, %s\n", opts.op.c_str(), opts.algo.c_str(), c.ranks, c.groups,
              c.groups == 1 ? "" : "s", units::format_quantity(c.size, units::Dimension::Bytes).c_str());
  std::printf("  fabric: %s\n", t.fabric.c_str());
  std::printf("  simulated (%s, %ld of %ld steps)  %12.6f s   bus bandwidth %s\n", opts.mode.c_str(), t.steps_simulated,
              c.step_executions, t.time_s,
              units::format_quantity(models::bus_bandwidth(c.op, c.ranks, c.size, units::Seconds(t.time_s)),
                                     units::Dimension::Bandwidth)
                  .c_str());
  double error_pct = c.predicted > 0 ? 100 * (t.time_s - c.predicted) / c.predicted : 0.0;
  if (std::fabs(error_pct) < 5e-4)
    error_pct = 0;  // print +0.000%, not -0.000%
  std::printf("  alpha-beta prediction        %12.6f s   (simulated %+.3f%%)\n", c.predicted, error_pct);
  if (!c.torus)
    std::printf("  bytes on the wire: NVLink %s, NIC in rack %s, NIC across racks in a pod %s, across pods %s\n",
                gb(c.wire.nvlink).c_str(), gb(c.wire.in_rack).c_str(), gb(c.wire.in_pod).c_str(),
                gb(c.wire.cross_pod).c_str());
  std::printf("  bytes sent per rank %s; wall time %.3f s\n", gb(c.bytes_per_rank).c_str(), t.wall_time_s);
}

/// DIR/collective.json: what print_result shows, in SI units (seconds, bytes, bytes per second).
std::string write_result(const Options& opts, const Timed& c, const sim::CollectiveTiming& t)
{
  nlohmann::ordered_json j;
  j["op"] = opts.op;
  j["algo"] = opts.algo;
  j["mode"] = opts.mode;
  j["ranks"] = c.ranks;
  j["groups"] = c.groups;
  j["size_bytes"] = c.size;
  j["fabric"] = t.fabric;
  j["simulated_s"] = t.time_s;
  j["predicted_s"] = c.predicted;
  j["bus_bandwidth_bytes_per_s"] = models::bus_bandwidth(c.op, c.ranks, c.size, units::Seconds(t.time_s));
  j["bytes_sent_per_rank"] = c.bytes_per_rank;
  j["steps_simulated"] = t.steps_simulated;
  j["step_executions"] = c.step_executions;
  if (!c.torus)
    j["wire_bytes"] = {{"nvlink", c.wire.nvlink},
                       {"nic_in_rack", c.wire.in_rack},
                       {"nic_in_pod", c.wire.in_pod},
                       {"cross_pod", c.wire.cross_pod}};
  j["wall_time_s"] = t.wall_time_s;
  if (std::string err = sim::prepare_output_dir(opts.out); !err.empty())
    return err;
  return sim::write_file_atomically(opts.out, "collective.json", [&](std::ostream& os) { os << j.dump(2) << "\n"; });
}

}  // namespace

int cmd_collective(const Options& opts)
{
  const std::string path = opts.scenario.empty() ? default_scenario_path() : opts.scenario;
  auto loaded = scenario::load_scenario_file(path, opts.sets);
  if (!loaded.diagnostics.empty()) {
    scenario::report(loaded.diagnostics, std::cerr);
    return kExitBadInput;
  }
  const auto& s = *loaded.scenario;
  const auto op = models::op_from_name(opts.op);
  const auto algo = models::algo_from_name(opts.algo);
  if (!op)
    return bad("--op must be one of allreduce, reducescatter, allgather, broadcast, alltoall, sendrecv; got '" +
               opts.op + "'");
  if (!algo)
    return bad("--algo must be one of ring, tree, doubletree, hierarchical, direct; got '" + opts.algo + "'");
  if (!models::plan_supported(*op, *algo))
    return bad("the " + opts.algo + " algorithm does not implement " + opts.op +
               " (ring: allreduce reducescatter allgather broadcast; tree: allreduce broadcast; doubletree: "
               "allreduce; hierarchical: allreduce reducescatter allgather; direct: alltoall sendrecv)");
  if (opts.mode != "full" && opts.mode != "reduced")
    return bad("--mode must be full or reduced; got '" + opts.mode + "'");
  int ranks = s.step.layout.dp;
  if (!opts.ranks.empty() && !parse_count(opts.ranks, ranks))
    return bad("--ranks expects an integer from 1 to 65536; got '" + opts.ranks + "'");
  int groups = 1;
  if (!parse_count(opts.groups, groups))
    return bad("--groups expects an integer from 1 to 65536; got '" + opts.groups + "'");
  if (static_cast<long>(ranks) * groups > scenario::kMaxSimulatedGpus)
    return bad("--ranks x --groups must not exceed " + std::to_string(scenario::kMaxSimulatedGpus) +
               " GPUs (one SimGrid actor per GPU)");
  int chunks = 0;
  if (!parse_count(opts.chunks, chunks, 0))
    return bad("--chunks expects an integer from 0 (the algorithm's default) to 65536; got '" + opts.chunks + "'");
  if (*op == models::CollectiveOp::AllToAll && static_cast<long>(ranks) * ranks * groups > 4'000'000)
    return bad("a direct all-to-all of " + std::to_string(ranks) + " ranks x " + std::to_string(groups) +
               " groups is " + std::to_string(static_cast<long>(ranks) * (ranks - 1) * groups) +
               " concurrent flows; keep ranks^2 x groups under 4,000,000");
  const int gpn = s.fleet.gpus_per_node;
  if (*algo == models::CollectiveAlgo::Hierarchical && ranks % gpn != 0)
    return bad("--algo hierarchical needs --ranks to be a multiple of cluster.gpus_per_node (" + std::to_string(gpn) +
               ")");
  if (*algo == models::CollectiveAlgo::Hierarchical && groups > 1)
    return bad("--algo hierarchical places its ranks on whole nodes; use --groups 1");
  const auto size = units::parse_quantity(opts.size, units::Dimension::Bytes);
  if (!size.ok() || size.value < 0)
    return bad("--size: " + (size.ok() ? std::string("must not be negative") : size.error));

  const auto one = models::make_plan(*op, *algo, ranks, size.value, {chunks, gpn});
  const auto plan = models::concurrent_groups(one, groups);
  const sim::FabricSpec fabric = sim::fabric_spec(s, plan.ranks);
  if (const auto problems = sim::check_fabric(fabric); !problems.empty())
    return bad("the scenario's fabric cannot hold " + std::to_string(plan.ranks) + " ranks (--ranks x --groups): " +
               problems.front() + (fabric.topology == "torus" ? " (on a torus, --ranks x --groups must fill it)" : ""));
  const bool torus = !models::find_topology(fabric.topology)->switched();
  // On a torus every link is alike: the prediction prices each flow as one hop.
  const models::AlphaBeta hop{units::Seconds(fabric.torus_hop_latency),
                              units::BytesPerSecond(fabric.torus_link_bandwidth)};
  const models::LinkClasses links = torus ? models::LinkClasses{1, hop, hop}
                                          : models::LinkClasses{
                                                gpn,
                                                {s.step.fabric.nvlink_latency, s.step.fabric.nvlink_bandwidth},
                                                {s.step.fabric.nic_latency, s.step.fabric.nic_bandwidth}};
  const double predicted = models::plan_time(plan, links).si();
  const models::WireBytes wire = models::wire_bytes(plan, gpn, fabric.rack_size, fabric.pod_size);
  const auto t = sim::run_collective(plan, fabric, opts.mode == "full");

  const Timed timed{
      ranks, groups, size.value, predicted, torus, wire, one.bytes_sent_per_rank(), plan.total_step_executions(), *op};
  if (!opts.out.empty())
    if (std::string err = write_result(opts, timed, t); !err.empty()) {
      std::cerr << "fleetsim: error: " << err << "\n";
      return kExitFailure;
    }
  if (!opts.quiet)
    print_result(opts, timed, t);
  return kExitOk;
}

}  // namespace fleetsim::cli

#include "step_outputs.hpp"

#include "run_outputs.hpp"

#include <array>

namespace fleetsim::sim {

using nlohmann::ordered_json;

ordered_json step_file_json(const scenario::Scenario& s, const models::StepBreakdown& b, const SimulatedStep* simulated)
{
  const auto& l = s.step.layout;
  ordered_json j;
  j["scenario"] = s.name;
  j["unused_keys"] = unused_keys_json(s);
  j["model"] = b.model;
  j["gpus"] = s.fleet.gpus;
  j["layout"] = {{"tp", l.tp},
                 {"cp", l.cp},
                 {"pp", l.pp},
                 {"dp", l.dp},
                 {"ep", l.ep},
                 {"virtual_stages", l.virtual_stages},
                 {"embedding_chunks", l.embedding_chunks},
                 {"micro_batches", b.micro_batches}};
  j["step_time_s"] = b.step_time.si();
  j["compute_s"] = b.compute.si();
  j["comm_s"] = b.comm.si();
  j["comm_exposed_s"] = b.comm_exposed.si();
  j["sync_s"] = b.sync.si();
  j["overlap_s"] = b.overlap.si();
  j["bubble_s"] = b.bubble.si();
  j["barrier_s"] = b.barrier.si();
  j["mfu"] = b.mfu;
  // From the scenario, not from the breakdown: a cached breakdown does not carry hardware FLOPs.
  j["hfu"] = models::hardware_flops_utilisation(b, s.step.workload);
  j["binding_term"] = b.binding_term;
  j["comm_by_dimension_s"] = {{"tensor_parallel", b.tp_comm.si()},
                              {"context_parallel", b.cp_comm.si()},
                              {"expert_parallel", b.ep_comm.si()},
                              {"pipeline_parallel", b.pp_comm.si()},
                              {"data_parallel", b.dp_comm.si()}};
  j["tokens_per_step"] = b.tokens_per_step;
  j["flops_per_token"] = b.flops_per_token;
  j["hardware_flops_per_token"] = models::hardware_flops_per_token(s.step.workload);
  if (simulated != nullptr) {
    const SimulatedStep& r = *simulated;
    j["exposed_comm_by_dimension_s"] = {{"tensor_parallel", b.tp_comm.si()},
                                        {"context_parallel", b.cp_comm.si()},
                                        {"expert_parallel", b.ep_comm.si()},
                                        {"pipeline_parallel", r.pp_exposed_s},
                                        {"data_parallel", r.dp_exposed_s}};
    j["fabric_timings_s"] = {{"tp_allreduce", r.tp_allreduce_s},
                             {"cp_all_gather", r.cp_all_gather_s},
                             {"ep_alltoall", r.ep_alltoall_s},
                             {"pp_transfer", r.pp_transfer_s},
                             {"dp_reduce_scatter_per_chunk", r.dp_reduce_scatter_chunk_s},
                             {"dp_all_gather_per_chunk", r.dp_reduce_scatter_chunk_s}};
    j["fabric"] = {{"pods", r.pods}, {"oversubscribed_racks", r.racks}};
    if (r.checkpoint_write_s > 0) {
      const double bytes = s.checkpoint_bytes().si();
      j["checkpoint"] = {{"bytes", bytes},
                         {"write_over_fabric_s", r.checkpoint_write_s},
                         {"write_at_storage_bandwidth_s", bytes / s.storage.write_bandwidth.si()},
                         {"step_time_during_write_s", r.step_time_during_checkpoint_s}};
    }
    if (r.slow_stage >= 0) {
      const double T = b.step_time.si();
      const double c = b.compute_fraction;
      j["slow_node"] = {{"speed", r.slow_speed},
                        {"stage", r.slow_stage},
                        {"step_time_s", r.step_time_with_slow_node_s},
                        {"factor", r.step_time_with_slow_node_s / T},
                        {"replay_model_factor", (1 - c) + c / r.slow_speed}};
    }
    j["critical_stage"] = r.critical_stage;
    j["wall_time_s"] = r.wall_time_s;
  }
  return j;
}

ordered_json step_trace_json(const scenario::Scenario& s, const SimulatedStep& step)
{
  static constexpr std::array<const char*, 6> kGroups = {"compute: forward / backward passes",
                                                         "NVLink: tensor-parallel all-reduces",
                                                         "NIC: pipeline sends",
                                                         "NIC: data-parallel all-gather / reduce-scatter",
                                                         "NIC: context-parallel K/V all-gather / reduce-scatter",
                                                         "NIC: expert-parallel token all-to-all"};
  ordered_json events = ordered_json::array();
  for (size_t g = 0; g < kGroups.size(); ++g) {
    if ((g == 4 && s.step.layout.cp <= 1) || (g == 5 && s.step.layout.ep <= 1))
      continue;  // no such traffic
    const int pid = static_cast<int>(g) + 1;
    events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"args", {{"name", kGroups[g]}}}});
    events.push_back({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"args", {{"sort_index", pid}}}});
    for (int st = 0; st < step.stages; ++st) {
      const int rank = models::layout_rank(s.step.layout, 0, st, 0);
      events.push_back({{"ph", "M"},
                        {"name", "thread_name"},
                        {"pid", pid},
                        {"tid", st},
                        {"args", {{"name", "stage " + std::to_string(st) + " (rank " + std::to_string(rank) + ")"}}}});
    }
  }
  for (const auto& slice : step.trace)
    events.push_back({{"ph", "X"},
                      {"name", slice.name},
                      {"pid", slice.track + 1},
                      {"tid", slice.stage},
                      {"ts", slice.start * 1e6},
                      {"dur", slice.duration * 1e6}});
  return ordered_json{{"traceEvents", std::move(events)},
                      {"displayTimeUnit", "ms"},
                      {"otherData", {{"scenario", s.name}, {"step_time_s", step.breakdown.step_time.si()}}}};
}

std::string write_step_outputs(const std::string& dir, const scenario::Scenario& s, const models::StepBreakdown& b,
                               const SimulatedStep* simulated)
{
  std::string err = prepare_output_dir(dir);
  if (err.empty())
    err = write_file_atomically(dir, "step.json",
                                [&](std::ostream& o) { o << step_file_json(s, b, simulated).dump(2) << '\n'; });
  if (err.empty() && simulated != nullptr)
    err = write_file_atomically(dir, "step_trace.json",
                                [&](std::ostream& o) { o << step_trace_json(s, *simulated).dump() << '\n'; });
  return err;
}

}  // namespace fleetsim::sim

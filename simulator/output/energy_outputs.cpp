#include "energy_outputs.hpp"

#include "simulator/run/simulation.hpp"

#include <cmath>
#include <cstdio>
#include <ostream>

namespace fleetsim::sim {
namespace {

using nlohmann::ordered_json;
namespace me = models::energy;

constexpr double kMega = 1e6;
constexpr double kJoulesPerMWh = 3.6e9;

ordered_json components_mwh(const me::PowerDraw& joules)
{
  ordered_json j = ordered_json::object();
  for (me::GpuState st : me::kAllGpuStates)
    j["gpu_" + std::string(me::gpu_state_name(st))] = joules.gpu_w[static_cast<size_t>(st)] / kJoulesPerMWh;
  j["power_floor"] = joules.floor_w / kJoulesPerMWh;
  j["node"] = joules.node_w / kJoulesPerMWh;
  j["network"] = joules.network_w / kJoulesPerMWh;
  j["storage"] = joules.storage_w / kJoulesPerMWh;
  j["overhead"] = joules.overhead_w / kJoulesPerMWh;
  return j;
}

// The facility's energy by the phase the job was in, in the order of the phases.
ordered_json by_phase_mwh(const RunResult& r)
{
  std::array<double, std::size(models::kPhases)> joules{};
  const auto& rows = r.report.timeline;
  for (size_t i = 0; i < rows.size() && i < r.energy.rows.size(); ++i)
    joules[static_cast<size_t>(rows[i].phase)] += r.energy.rows[i].facility() * (rows[i].t_end - rows[i].t_begin);
  ordered_json j = ordered_json::object();
  for (models::Phase p : models::kPhases)
    j[std::string(models::phase_name(p))] = joules[static_cast<size_t>(p)] / kJoulesPerMWh;
  return j;
}

ordered_json swing_json(const me::Swing& s)
{
  return {{"t_s", s.t},
          {"delta_mw", s.delta_w / kMega},
          {"from", models::phase_name(s.from)},
          {"to", models::phase_name(s.to)},
          {"cause", s.cause}};
}

ordered_json swings_json(const me::EnergyReport& e)
{
  ordered_json largest = ordered_json::array();
  for (const me::Swing& s : e.largest)
    largest.push_back(swing_json(s));
  ordered_json by_cause = ordered_json::object();
  for (const auto& [cause, st] : e.by_cause)
    by_cause[cause] = {{"count", st.count},
                       {"max_mw", st.max_w / kMega},
                       {"t_max_s", st.t_max},
                       {"max_ramp_mw_per_s", st.max_ramp_w_per_s / kMega}};
  return {{"largest", std::move(largest)}, {"by_cause", std::move(by_cause)}};
}

// Operational carbon over the grid's profile, embodied carbon of every GPU and node of the cluster
// (spares included) amortised over the window; empty when the scenario gives neither.
ordered_json carbon_json(const scenario::Scenario& s, const RunResult& r)
{
  const auto& c = s.carbon;
  if (c.profile.empty() && !c.embodied.any())
    return ordered_json::object();
  const double gpus = static_cast<double>(s.fleet.gpus + s.capacity.spare_nodes * s.fleet.gpus_per_node);
  const double embodied = me::embodied_kg(c.embodied, gpus, gpus / s.fleet.gpus_per_node, r.report.elapsed);
  const double mwh = r.energy.energy.facility() / kJoulesPerMWh;
  ordered_json j;
  if (!c.profile.empty()) {
    j["intensity_profile"] = c.file;
    j["operational_t"] = r.energy.operational_kg / 1000;
    j["mean_intensity_g_per_kwh"] = mwh > 0 ? r.energy.operational_kg / mwh : 0.0;  // kg/MWh = g/kWh
  }
  j["embodied_t"] = embodied / 1000;
  j["total_t"] = (r.energy.operational_kg + embodied) / 1000;
  if (r.report.tokens > 0)
    j["g_per_million_tokens"] = (r.energy.operational_kg + embodied) * 1000 / (r.report.tokens / 1e6);
  return j;
}

}  // namespace

ordered_json energy_json(const scenario::Scenario& s, const RunResult& r)
{
  const me::EnergyReport& e = r.energy;
  const double facility_j = e.energy.facility();
  ordered_json j;
  j["facility_mwh"] = facility_j / kJoulesPerMWh;
  j["it_mwh"] = e.energy.it() / kJoulesPerMWh;
  j["by_component_mwh"] = components_mwh(e.energy);
  j["by_phase_mwh"] = by_phase_mwh(r);
  j["joules_per_token"] = r.report.tokens > 0 ? ordered_json(facility_j / r.report.tokens) : ordered_json(nullptr);
  j["mean_mw"] = e.mean_w / kMega;
  j["peak_mw"] = {{"mw", e.peak_w / kMega}, {"t_s", e.peak_t}, {"phase", models::phase_name(e.peak_phase)}};
  j["peak_instant_mw"] = e.peak_instant_w / kMega;
  j["step_swing_mw"] = e.step_swing_w / kMega;
  j["compute_fraction"] = e.compute_fraction;
  const me::StepTraffic bytes = me::step_traffic(s.step, r.step.micro_batches);
  j["step_bytes_per_gpu"] = {{"scale_up", bytes.scale_up_bytes}, {"scale_out", bytes.scale_out_bytes}};
  j["swings"] = swings_json(e);
  j["fastest_ramp"] = {{"mw_per_s", e.fastest_ramp_w_per_s / kMega},
                       {"t_s", e.fastest_ramp_t},
                       {"cause", e.fastest_ramp_cause},
                       {"ramp_time_s", s.power.ramp_s}};
  j["pue"] = s.power.pue;
  if (s.power.gpu_power_limit_w > 0)
    j["gpu_power_limit_w"] = s.power.gpu_power_limit_w;
  j["compute_speed"] = me::compute_speed(s.power);
  if (s.power.power_floor_w > 0)
    j["power_floor_w"] = s.power.power_floor_w;
  if (s.power.restart_stagger_s > 0)
    j["restart_stagger_s"] = s.power.restart_stagger_s;
  if (ordered_json c = carbon_json(s, r); !c.empty())
    j["carbon"] = std::move(c);
  return j;
}

void power_cells(CsvBuffer& csv, const me::EnergyReport& e, size_t row)
{
  const me::PowerDraw& d = e.rows[row];
  csv.fixed(d.it() / kMega).text(",").fixed(d.facility() / kMega).text(",").fixed(e.energy_j[row] / kJoulesPerMWh);
  csv.text(",").fixed(e.carbon_kg[row], 3);
}

void print_energy_lines(std::ostream& out, const RunResult& r)
{
  const me::EnergyReport& e = r.energy;
  char line[200];
  std::snprintf(line, sizeof line, "  energy %.1f MWh (IT %.1f), mean %.2f MW, peak %.2f MW; %.3g J per token\n",
                e.energy.facility() / kJoulesPerMWh, e.energy.it() / kJoulesPerMWh, e.mean_w / kMega, e.peak_w / kMega,
                r.report.tokens > 0 ? e.energy.facility() / r.report.tokens : 0.0);
  out << line;
  if (!e.largest.empty()) {
    const me::Swing& s = e.largest.front();
    std::snprintf(line, sizeof line, "  largest swing %+.2f MW at %.0f s (%s: %s -> %s); in a step %.2f MW\n",
                  s.delta_w / kMega, s.t, s.cause.c_str(), std::string(models::phase_name(s.from)).c_str(),
                  std::string(models::phase_name(s.to)).c_str(), e.step_swing_w / kMega);
    out << line;
  }
}

}  // namespace fleetsim::sim

#include "energy_outputs.hpp"

#include "simulator/run/simulation.hpp"

#include "models/summary/run_energy_fields.hpp"

#include <cmath>
#include <cstdio>
#include <ostream>

namespace fleetsim::sim {
namespace {

using nlohmann::ordered_json;
namespace me = models::energy;
namespace se = models::summary::energy;
namespace re = models::summary::run::energy;

constexpr double kMega = 1e6;
constexpr double kJoulesPerMWh = 3.6e9;

ordered_json components_mwh(const me::PowerDraw& joules)
{
  ordered_json j = ordered_json::object();
  for (me::GpuState st : me::kAllGpuStates)
    j[se::component::kGpuPrefix + std::string(me::gpu_state_name(st))] = joules.gpu_w[static_cast<size_t>(st)] /
                                                                         kJoulesPerMWh;
  j[se::component::kPowerFloor] = joules.floor_w / kJoulesPerMWh;
  j[se::component::kNode] = joules.node_w / kJoulesPerMWh;
  j[se::component::kNetwork] = joules.network_w / kJoulesPerMWh;
  j[se::component::kStorage] = joules.storage_w / kJoulesPerMWh;
  j[se::component::kOverhead] = joules.overhead_w / kJoulesPerMWh;
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
  return {{se::kTS.key, s.t},
          {re::swing::kDeltaMw.key, s.delta_w / kMega},
          {re::swing::kFrom.key, models::phase_name(s.from)},
          {re::swing::kTo.key, models::phase_name(s.to)},
          {re::swing::kCause.key, s.cause}};
}

ordered_json swings_json(const me::EnergyReport& e)
{
  ordered_json largest = ordered_json::array();
  for (const me::Swing& s : e.largest)
    largest.push_back(swing_json(s));
  ordered_json by_cause = ordered_json::object();
  for (const auto& [cause, st] : e.by_cause)
    by_cause[cause] = {{re::swing_cause::kCount.key, st.count},
                       {re::swing_cause::kMaxMw.key, st.max_w / kMega},
                       {re::swing_cause::kTMaxS.key, st.t_max},
                       {re::swing_cause::kMaxRampMwPerS.key, st.max_ramp_w_per_s / kMega}};
  return {{re::swings::kLargest.key, std::move(largest)}, {re::swings::kByCause.key, std::move(by_cause)}};
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
  namespace ca = models::summary::carbon;
  ordered_json j;
  if (!c.profile.empty()) {
    j[ca::kIntensityProfile.key] = c.file;
    j[ca::kOperationalT.key] = r.energy.operational_kg / 1000;
    j[ca::kMeanIntensityGPerKwh.key] = mwh > 0 ? r.energy.operational_kg / mwh : 0.0;  // kg/MWh = g/kWh
  }
  j[ca::kEmbodiedT.key] = embodied / 1000;
  j[ca::kTotalT.key] = (r.energy.operational_kg + embodied) / 1000;
  if (r.report.tokens > 0)
    j[ca::kGPerMillionTokens.key] = (r.energy.operational_kg + embodied) * 1000 / (r.report.tokens / 1e6);
  return j;
}

}  // namespace

ordered_json energy_json(const scenario::Scenario& s, const RunResult& r)
{
  const me::EnergyReport& e = r.energy;
  const double facility_j = e.energy.facility();
  ordered_json j;
  j[re::kFacilityMwh.key] = facility_j / kJoulesPerMWh;
  j[re::kItMwh.key] = e.energy.it() / kJoulesPerMWh;
  j[re::kByComponentMwh.key] = components_mwh(e.energy);
  j[re::kByPhaseMwh.key] = by_phase_mwh(r);
  j[re::kJoulesPerToken.key] = r.report.tokens > 0 ? ordered_json(facility_j / r.report.tokens) : ordered_json(nullptr);
  j[re::kMeanMw.key] = e.mean_w / kMega;
  j[re::kPeakMw.key] = {{re::kMw.key, e.peak_w / kMega},
                        {re::kTS.key, e.peak_t},
                        {re::peak::kPhase.key, models::phase_name(e.peak_phase)}};
  j[re::kPeakInstantMw.key] = e.peak_instant_w / kMega;
  j[re::kStepSwingMw.key] = e.step_swing_w / kMega;
  j[re::kComputeFraction.key] = e.compute_fraction;
  const me::StepTraffic bytes = me::step_traffic(s.step, r.step.micro_batches);
  j[re::kStepBytesPerGpu.key] = {{re::step_bytes::kScaleUp.key, bytes.scale_up_bytes},
                                 {re::step_bytes::kScaleOut.key, bytes.scale_out_bytes}};
  j[re::kSwings.key] = swings_json(e);
  j[re::kFastestRamp.key] = {{re::ramp::kMwPerS.key, e.fastest_ramp_w_per_s / kMega},
                             {re::kTS.key, e.fastest_ramp_t},
                             {re::ramp::kCause.key, e.fastest_ramp_cause},
                             {re::ramp::kRampTimeS.key, s.power.ramp_s}};
  j[re::kPue.key] = s.power.pue;
  if (s.power.gpu_power_limit_w > 0)
    j[re::kGpuPowerLimitW.key] = s.power.gpu_power_limit_w;
  j[re::kComputeSpeed.key] = me::compute_speed(s.power);
  if (s.power.power_floor_w > 0)
    j[re::kPowerFloorW.key] = s.power.power_floor_w;
  if (s.power.restart_stagger_s > 0)
    j[re::kRestartStaggerS.key] = s.power.restart_stagger_s;
  if (ordered_json c = carbon_json(s, r); !c.empty())
    j[re::kCarbon.key] = std::move(c);
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

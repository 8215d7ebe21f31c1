#include "fleet_energy_outputs.hpp"

#include "models/energy/carbon.hpp"
#include "models/energy/power_model.hpp"
#include "simulator/trace/fixed_text.hpp"

#include <cmath>
#include <iomanip>
#include <ostream>

namespace fleetsim::sim {

namespace mf = models::fleet;
namespace me = models::energy;

namespace {

constexpr double kJoulesPerMwh = 3.6e9;

double round_to(double v, int decimals)
{
  const double f = std::pow(10.0, decimals);
  return std::round(v * f) / f;
}

// A draw's components, in the order of the timeline's columns (watts or joules alike).
struct Component {
  const char* name;
  double value;
};
std::vector<Component> components(const me::PowerDraw& d)
{
  std::vector<Component> out;
  for (me::GpuState st : me::kAllGpuStates)
    out.push_back({nullptr, d.gpu_w[static_cast<size_t>(st)]});
  out.push_back({"power_floor", d.floor_w});
  out.push_back({"node", d.node_w});
  out.push_back({"network", d.network_w});
  out.push_back({"storage", d.storage_w});
  return out;
}
std::string component_name(size_t i, const Component& c)
{
  return c.name != nullptr ? c.name : "gpu_" + std::string(me::gpu_state_name(me::kAllGpuStates[i]));
}

struct Stat {
  double total = 0;
  long count = 0;
  void add(double v)
  {
    total += v;
    ++count;
  }
  [[nodiscard]] nlohmann::ordered_json json() const
  {
    return {{"total", round_to(total, 3)}, {"mean", count > 0 ? round_to(total / static_cast<double>(count), 3) : 0.0}};
  }
};

}  // namespace

std::string energy_timeline_header()
{
  std::string h;
  const std::vector<Component> cs = components(me::PowerDraw{});
  for (size_t i = 0; i < cs.size(); ++i)
    h.append(",").append(component_name(i, cs[i])).append("_mw");  // not "," + ...: GCC 12's false -Wrestrict
  return h + ",it_mw,overhead_mw,facility_mw,energy_mwh,carbon_kg";
}

void append_energy_row(std::string& line, const FleetResult& r, size_t row, double& cumulative_j, double& cumulative_kg)
{
  const mf::FleetPowerRow& p = r.energy.rows.at(row);
  for (const Component& c : components(p.draw)) {
    line += ',';
    append_fixed(line, c.value / 1e6, 6);
  }
  for (double w : {p.draw.it(), p.draw.overhead_w, p.draw.facility()}) {
    line += ',';
    append_fixed(line, w / 1e6, 6);
  }
  cumulative_j += p.energy_j;
  cumulative_kg += p.carbon_kg;
  line += ',';
  append_fixed(line, cumulative_j / kJoulesPerMwh, 6);
  line += ',';
  append_fixed(line, cumulative_kg, 3);
}

nlohmann::ordered_json fleet_energy_json(const scenario::Scenario& s, const FleetResult& r)
{
  const mf::FleetEnergy& e = r.energy;
  nlohmann::ordered_json j;
  j["facility_mwh"] = round_to(e.facility_j / kJoulesPerMwh, 6);
  j["it_mwh"] = round_to(e.energy_j.it() / kJoulesPerMwh, 6);
  nlohmann::ordered_json by;
  const std::vector<Component> cs = components(e.energy_j);
  for (size_t i = 0; i < cs.size(); ++i)
    by[component_name(i, cs[i])] = round_to(cs[i].value / kJoulesPerMwh, 6);
  by["overhead"] = round_to(e.energy_j.overhead_w / kJoulesPerMwh, 6);
  j["by_component_mwh"] = by;
  // The replay's key names (simulator/output/energy_outputs.cpp): one metric reads both.
  j["mean_mw"] = round_to(e.horizon > 0 ? e.facility_j / e.horizon / 1e6 : 0, 6);
  j["peak_mw"] = {{"mw", round_to(e.peak_w / 1e6, 6)}, {"t_s", round_to(e.peak_t, 3)}};
  j["row_s"] = round_to(r.timeline.interval(), 3);
  double jobs_j = 0, token_j = 0, tokens = 0;
  for (size_t i = 0; i < r.jobs.size(); ++i) {
    jobs_j += r.job_energy[i].energy_j;
    if (r.specs[i].tokens_per_second > 0 && r.jobs[i].held > 0) {
      token_j += r.job_energy[i].energy_j;
      tokens += r.jobs[i].time.productive / static_cast<double>(r.jobs[i].held) * r.specs[i].tokens_per_second;
    }
  }
  j["jobs_mwh"] = round_to(jobs_j / kJoulesPerMwh, 6);
  if (tokens > 0)
    j["energy_per_token_j"] = round_to(token_j / tokens, 6);
  nlohmann::ordered_json c;
  const double embodied = me::embodied_kg(s.carbon.embodied, static_cast<double>(r.gpus), static_cast<double>(r.nodes),
                                          r.horizon);
  c["intensity_profile"] = s.carbon.file.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(s.carbon.file);
  if (!s.carbon.profile.empty()) {
    c["operational_t"] = round_to(e.carbon_kg / 1e3, 6);
    c["mean_intensity_g_per_kwh"] = round_to(e.facility_j > 0 ? e.carbon_kg * 1e3 / (e.facility_j / 3.6e6) : 0, 3);
  }
  c["embodied_t"] = round_to(embodied / 1e3, 6);
  c["total_t"] = round_to((e.carbon_kg + embodied) / 1e3, 6);
  j["carbon"] = c;
  return j;
}

nlohmann::ordered_json carbon_aware_json(const scenario::Scenario& s, const FleetResult& r)
{
  long deferrable = 0, deferred = 0, started = 0, at_end = 0;
  Stat deferral, queueing, delay;
  double energy_j = 0, carbon_kg = 0;
  for (size_t i = 0; i < r.jobs.size(); ++i) {
    const mf::JobRecord& job = r.jobs[i];
    if (!(r.specs[i].deferrable > 0) || job.eligible < 0)
      continue;  // not deferrable, or never submitted
    ++deferrable;
    const double wait = job.eligible - r.specs[i].submit;
    deferred += wait > 0;
    at_end += job.state == mf::JobState::Deferred;
    energy_j += r.job_energy[i].energy_j;
    carbon_kg += r.job_energy[i].carbon_kg;
    if (job.first_start < 0)
      continue;
    ++started;
    deferral.add(wait);
    queueing.add(job.first_start - job.eligible);
    delay.add(job.first_start - r.specs[i].submit);
  }
  nlohmann::ordered_json j;
  j["enabled"] = s.scheduler.carbon_aware && !s.carbon.profile.empty();
  j["deferrable_jobs"] = deferrable;
  j["deferred_jobs"] = deferred;
  j["deferred_at_end"] = at_end;
  j["started"] = started;
  j["deferral_s"] = deferral.json();
  j["queue_after_eligible_s"] = queueing.json();
  j["submit_to_start_s"] = delay.json();
  j["energy_mwh"] = round_to(energy_j / kJoulesPerMwh, 6);
  j["carbon_t"] = round_to(carbon_kg / 1e3, 6);
  j["mean_intensity_g_per_kwh"] = round_to(energy_j > 0 ? carbon_kg * 1e3 / (energy_j / 3.6e6) : 0, 3);
  return j;
}

void print_fleet_energy(std::ostream& out, const nlohmann::ordered_json& summary)
{
  const auto& e = summary["energy"];
  out << std::fixed << std::setprecision(1) << "  energy                 " << e["facility_mwh"].get<double>()
      << " MWh facility (IT " << e["it_mwh"].get<double>() << "), mean " << std::setprecision(3)
      << e["mean_mw"].get<double>() << " MW, peak " << e["peak_mw"]["mw"].get<double>() << " MW\n";
  const auto& c = e["carbon"];
  out << "  carbon                 ";
  if (c.contains("operational_t"))
    out << std::setprecision(2) << c["operational_t"].get<double>() << " t CO2e operational (" << std::setprecision(1)
        << c["mean_intensity_g_per_kwh"].get<double>() << " g/kWh), ";
  out << std::setprecision(2) << c["embodied_t"].get<double>() << " t embodied\n";
  const auto& a = summary["carbon_aware"];
  if (a["deferrable_jobs"].get<long>() > 0)
    out << "  deferrable jobs        " << a["deferrable_jobs"] << " (" << a["deferred_jobs"] << " deferred"
        << (a["enabled"].get<bool>() ? "" : ", carbon_aware off") << "): " << std::setprecision(3)
        << a["carbon_t"].get<double>() << " t CO2e, mean delay to start " << std::setprecision(0)
        << a["submit_to_start_s"]["mean"].get<double>() << " s (deferral " << a["deferral_s"]["mean"].get<double>()
        << " s)\n";
  out << std::defaultfloat;
}

}  // namespace fleetsim::sim

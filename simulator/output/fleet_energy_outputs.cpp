#include "fleet_energy_outputs.hpp"

#include "models/energy/carbon.hpp"
#include "models/energy/power_model.hpp"
#include "models/summary/fleet_summary_fields.hpp"
#include "simulator/trace/fixed_text.hpp"

#include <cmath>
#include <iomanip>
#include <ostream>

namespace fleetsim::sim {

namespace mf = models::fleet;
namespace me = models::energy;
namespace se = models::summary::energy;
namespace fe = models::summary::fleet::energy;
namespace ca = models::summary::fleet::carbon_aware;

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
  out.push_back({se::component::kPowerFloor, d.floor_w});
  out.push_back({se::component::kNode, d.node_w});
  out.push_back({se::component::kNetwork, d.network_w});
  out.push_back({se::component::kStorage, d.storage_w});
  return out;
}
std::string component_name(size_t i, const Component& c)
{
  return c.name != nullptr ? c.name : se::component::kGpuPrefix + std::string(me::gpu_state_name(me::kAllGpuStates[i]));
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
    return {{ca::stat::kTotal.key, round_to(total, 3)},
            {ca::stat::kMean.key, count > 0 ? round_to(total / static_cast<double>(count), 3) : 0.0}};
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
  j[se::kFacilityMwh.key] = round_to(e.facility_j / kJoulesPerMwh, 6);
  j[se::kItMwh.key] = round_to(e.energy_j.it() / kJoulesPerMwh, 6);
  nlohmann::ordered_json by;
  const std::vector<Component> cs = components(e.energy_j);
  for (size_t i = 0; i < cs.size(); ++i)
    by[component_name(i, cs[i])] = round_to(cs[i].value / kJoulesPerMwh, 6);
  by[se::component::kOverhead] = round_to(e.energy_j.overhead_w / kJoulesPerMwh, 6);
  j[se::kByComponentMwh.key] = by;
  // The replay's key names (models/summary/summary_fields.hpp): one metric reads both.
  j[se::kMeanMw.key] = round_to(e.horizon > 0 ? e.facility_j / e.horizon / 1e6 : 0, 6);
  j[fe::kPeakMw.key] = {{se::kMw.key, round_to(e.peak_w / 1e6, 6)}, {se::kTS.key, round_to(e.peak_t, 3)}};
  j[fe::kRowS.key] = round_to(r.timeline.interval(), 3);
  double jobs_j = 0, token_j = 0, tokens = 0;
  for (size_t i = 0; i < r.jobs.size(); ++i) {
    jobs_j += r.job_energy[i].energy_j;
    if (r.specs[i].tokens_per_second > 0 && r.jobs[i].held > 0) {
      token_j += r.job_energy[i].energy_j;
      tokens += r.jobs[i].time.productive / static_cast<double>(r.jobs[i].held) * r.specs[i].tokens_per_second;
    }
  }
  j[fe::kJobsMwh.key] = round_to(jobs_j / kJoulesPerMwh, 6);
  if (tokens > 0)
    j[fe::kEnergyPerTokenJ.key] = round_to(token_j / tokens, 6);
  namespace cb = models::summary::carbon;
  nlohmann::ordered_json c;
  const double embodied = me::embodied_kg(s.carbon.embodied, static_cast<double>(r.gpus), static_cast<double>(r.nodes),
                                          r.horizon);
  c[cb::kIntensityProfile.key] = s.carbon.file.empty() ? nlohmann::ordered_json()
                                                       : nlohmann::ordered_json(s.carbon.file);
  if (!s.carbon.profile.empty()) {
    c[cb::kOperationalT.key] = round_to(e.carbon_kg / 1e3, 6);
    c[cb::kMeanIntensityGPerKwh.key] = round_to(e.facility_j > 0 ? e.carbon_kg * 1e3 / (e.facility_j / 3.6e6) : 0, 3);
  }
  c[cb::kEmbodiedT.key] = round_to(embodied / 1e3, 6);
  c[cb::kTotalT.key] = round_to((e.carbon_kg + embodied) / 1e3, 6);
  j[se::kCarbon.key] = c;
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
  j[ca::kEnabled.key] = s.scheduler.carbon_aware && !s.carbon.profile.empty();
  j[ca::kDeferrableJobs.key] = deferrable;
  j[ca::kDeferredJobs.key] = deferred;
  j[ca::kDeferredAtEnd.key] = at_end;
  j[ca::kStarted.key] = started;
  j[ca::kDeferralS.key] = deferral.json();
  j[ca::kQueueAfterEligibleS.key] = queueing.json();
  j[ca::kSubmitToStartS.key] = delay.json();
  j[ca::kEnergyMwh.key] = round_to(energy_j / kJoulesPerMwh, 6);
  j[ca::kCarbonT.key] = round_to(carbon_kg / 1e3, 6);
  j[ca::kMeanIntensityGPerKwh.key] = round_to(energy_j > 0 ? carbon_kg * 1e3 / (energy_j / 3.6e6) : 0, 3);
  return j;
}

void print_fleet_energy(std::ostream& out, const nlohmann::ordered_json& summary)
{
  namespace cb = models::summary::carbon;
  const auto& e = summary[models::summary::fleet::kEnergy.key];
  out << std::fixed << std::setprecision(1) << "  energy                 " << e[se::kFacilityMwh.key].get<double>()
      << " MWh facility (IT " << e[se::kItMwh.key].get<double>() << "), mean " << std::setprecision(3)
      << e[se::kMeanMw.key].get<double>() << " MW, peak " << e[fe::kPeakMw.key][se::kMw.key].get<double>() << " MW\n";
  const auto& c = e[se::kCarbon.key];
  out << "  carbon                 ";
  if (c.contains(cb::kOperationalT.key))
    out << std::setprecision(2) << c[cb::kOperationalT.key].get<double>() << " t CO2e operational ("
        << std::setprecision(1) << c[cb::kMeanIntensityGPerKwh.key].get<double>() << " g/kWh), ";
  out << std::setprecision(2) << c[cb::kEmbodiedT.key].get<double>() << " t embodied\n";
  const auto& a = summary[models::summary::fleet::kCarbonAware.key];
  if (a[ca::kDeferrableJobs.key].get<long>() > 0)
    out << "  deferrable jobs        " << a[ca::kDeferrableJobs.key] << " (" << a[ca::kDeferredJobs.key] << " deferred"
        << (a[ca::kEnabled.key].get<bool>() ? "" : ", carbon_aware off") << "): " << std::setprecision(3)
        << a[ca::kCarbonT.key].get<double>() << " t CO2e, mean delay to start " << std::setprecision(0)
        << a[ca::kSubmitToStartS.key][ca::stat::kMean.key].get<double>() << " s (deferral "
        << a[ca::kDeferralS.key][ca::stat::kMean.key].get<double>() << " s)\n";
  out << std::defaultfloat;
}

}  // namespace fleetsim::sim

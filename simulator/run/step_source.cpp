#include "step_source.hpp"

#include "simulator/logging/logging.hpp"

#include "simulator/run/child_process.hpp"
#include "simulator/run/step_simulation.hpp"
#include "simulator/scenario/parameter_table.hpp"
#include "simulator/trace/atomic_file.hpp"
#include "simulator/trace/step_json.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace fleetsim::sim {
namespace {

// Bump when the simulated step's model changes, so old cache entries are not reused.
constexpr int kStepSimulationVersion = 14;  // 14: streamed DP reduce-scatters in model.gradient_bytes

std::string g17(double v)
{
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::uint64_t fnv1a(const std::string& text)
{
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

nlohmann::ordered_json resolved_json(const models::StepBreakdown& b, double checkpoint_write_s)
{
  return {{"breakdown", breakdown_to_json(b)}, {"checkpoint_write_s", checkpoint_write_s}};
}

void resolved_from_json(const nlohmann::json& j, ResolvedStep& r)
{
  r.breakdown = breakdown_from_json(j.at("breakdown"));
  r.checkpoint_write_s = j.at("checkpoint_write_s").get<double>();
}

nlohmann::json simulate_in_child(const scenario::Scenario& s)
{
  int status = 0;
  const auto text = run_in_child(
      [&s] {
        const SimulatedStep step = simulate_step(s, false);  // the replay applies stragglers itself
        return resolved_json(step.breakdown, step.checkpoint_write_s).dump();
      },
      &status);
  if (!text || text->empty())
    throw std::runtime_error("the step simulation failed (child exit status " + std::to_string(status) + ")");
  return nlohmann::json::parse(*text);
}

// The keys whose values shape a simulated step: every key of the sections that describe the job's
// model, layout, accelerator and fabric, and the three that time its checkpoint write.
bool shapes_step(std::string_view key)
{
  for (std::string_view section : {"cluster.", "model.", "parallelism.", "accelerator.", "network."})
    if (key.substr(0, section.size()) == section)
      return true;
  return key == "storage.write_bandwidth" || key == "storage.read_bandwidth" || key == "checkpoint.state_per_gpu";
}

}  // namespace

std::string step_cache_key(const scenario::Scenario& s)
{
  // Derived from the declarations: each bound key of those sections with its value in the scenario
  // (a field changed after loading shows too), so a new key of theirs joins the key by itself ...
  std::ostringstream k;
  k << "fleetsim-step v" << kStepSimulationVersion;
  for (const scenario::ParamSpec& p : scenario::parameter_table())
    if (p.binding.show && shapes_step(p.key))
      k << ' ' << p.key << '=' << p.binding.show(s);
  // ... what the builders derive into the step's inputs from other sections (the accelerator's
  // speed under power.gpu_power_limit) ...
  k << " speed " << g17(s.step.accelerator.speed);
  // ... the measured kernel tables, by content (their keys name files, which may change) ...
  const models::GemmCurve& curve = s.step.accelerator.gemm_curve;
  if (curve.table) {
    k << " gemm-table " << g17(curve.table->scale);
    for (const models::GemmMeasurement& g : curve.table->rows)
      k << ' ' << g17(g.m) << ' ' << g17(g.k) << ' ' << g17(g.n) << ' ' << g17(g.efficiency[0]) << ' '
        << g17(g.efficiency[1]) << ' ' << g17(g.efficiency[2]);
  }
  if (curve.attention) {
    k << " attention-table";
    for (const models::AttentionMeasurement& a : curve.attention->rows)
      k << ' ' << a.kernel << ' ' << static_cast<int>(a.pass) << ' ' << a.causal << ' ' << g17(a.head_dim) << ' '
        << g17(a.seq) << ' ' << g17(a.tflops);
  }
  // ... and the fabric the topology lays out from them for the job's GPUs (network.preset and
  // network.torus_dims, which no field binds, resolve into it).
  const FabricSpec f = fabric_spec(s, static_cast<int>(s.step.layout.gpus()));
  k << " fabric";
  for (double v : {f.nic_bandwidth, f.nic_latency, f.pod_oversubscription, f.gpu_flops, f.nvlink_bandwidth,
                   f.nvlink_latency, f.rack_oversubscription, f.torus_link_bandwidth, f.torus_hop_latency,
                   f.storage_write_bandwidth, f.storage_read_bandwidth})
    k << ' ' << g17(v);
  k << ' ' << f.pod_size << ' ' << f.gpus_per_node << ' ' << f.rack_size << " topology " << f.topology;
  for (int d : f.torus_dims)
    k << ' ' << d;
  return k.str();
}

std::string step_cache_dir()
{
  if (const char* dir = std::getenv("FLEETSIM_CACHE_DIR"); dir != nullptr && *dir != '\0')
    return std::string(dir) == "off" ? "" : dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0')
    return std::string(xdg) + "/fleetsim";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    return std::string(home) + "/.cache/fleetsim";
  return "";
}

nlohmann::ordered_json breakdown_to_json(const models::StepBreakdown& b) { return step_json(b, true); }

models::StepBreakdown breakdown_from_json(const nlohmann::json& j) { return step_from_json(j); }

ResolvedStep resolve_step(const scenario::Scenario& s)
{
  const auto wall0 = std::chrono::steady_clock::now();
  ResolvedStep r;
  auto finish = [&] {
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    return r;
  };
  if (s.step_model != "simulated") {
    r.breakdown = models::AnalyticStepModel().step(s.step);
    FLEETSIM_LOG(Fabric, info, "step {:.4f} s, from the analytic fleet law", r.breakdown.step_time.si());
    return finish();
  }
  const std::string key = step_cache_key(s);
  const std::string dir = step_cache_dir();
  char name[48];
  std::snprintf(name, sizeof name, "step-%016llx.json", static_cast<unsigned long long>(fnv1a(key)));
  if (!dir.empty()) {
    std::ifstream in(std::filesystem::path(dir) / name);
    if (in) {
      try {
        const auto j = nlohmann::json::parse(in);
        if (j.at("key").get<std::string>() == key) {
          resolved_from_json(j, r);
          r.from_cache = true;
          FLEETSIM_LOG(Fabric, info, "step {:.4f} s, read from the cache ({}/{})", r.breakdown.step_time.si(), dir,
                       name);
          return finish();
        }
      } catch (const std::exception&) {
        // A damaged entry is simulated again and overwritten.
      }
    }
  }
  FLEETSIM_LOG(Fabric, info, "simulating one iteration on the {}-GPU fabric (not in the cache)", s.fleet.gpus);
  log::flush();  // before the fork
  resolved_from_json(simulate_in_child(s), r);
  FLEETSIM_LOG(Fabric, info, "step {:.4f} s, simulated", r.breakdown.step_time.si());
  if (!dir.empty() && prepare_output_dir(dir).empty()) {
    nlohmann::ordered_json entry{{"key", key}};
    entry.update(resolved_json(r.breakdown, r.checkpoint_write_s));
    // Concurrent writers (parallel replicas) each write their own temporary file; the last rename wins,
    // and every entry holds the same bytes.
    const std::string tmp_name = std::string(name) + "." + std::to_string(getpid());
    if (write_file_atomically(dir, tmp_name, [&](std::ostream& o) { o << entry.dump(2) << '\n'; }).empty()) {
      std::error_code ec;
      std::filesystem::rename(std::filesystem::path(dir) / tmp_name, std::filesystem::path(dir) / name, ec);
    }
  }
  return finish();
}

}  // namespace fleetsim::sim

#include "key_facts.hpp"
#include "parameter_specs.hpp"

namespace fleetsim::scenario::detail {

// Power, energy and carbon. fleetsim-lint: table (one declaration per key)
std::vector<ParamSpec> power_parameters()
{
  const auto T = Dimension::Time;
  return {
      // Draws without a default are fractions of the accelerator's board power: assumptions, stated in
      // each description.
      quantity("power.gpu.compute", Dimension::Power, std::nullopt,
               "accelerator draw while computing (default: accelerator.power, the board power a dense GEMM "
               "reaches)"),
      quantity("power.gpu.communicate", Dimension::Power, std::nullopt,
               "accelerator draw while communicating or waiting at a barrier (default: half the compute draw, an "
               "assumption)"),
      quantity("power.gpu.idle", Dimension::Power, std::nullopt,
               "accelerator draw when idle, its processes waiting (default: 1/7 of the compute draw, 100 W for a "
               "700 W H100, an assumption)"),
      quantity("power.gpu.checkpoint", Dimension::Power, std::nullopt,
               "accelerator draw while paused for a checkpoint (default: 3/14 of the compute draw, 150 W for a "
               "700 W H100, an assumption)"),
      quantity("power.gpu.off", Dimension::Power, "0W", "accelerator draw when failed or in repair", 0.0, false)
          .when(facts::nodes_wait_for_repair()),
      quantity("power.node", Dimension::Power, std::nullopt,
               "draw per powered node without its accelerators: CPUs, memory, NICs, switches, fans (default: half "
               "the node's accelerators' compute draw, an assumption)",
               0.0, false),
      real("power.network.scale_up_pj_per_bit", "10",
           "energy per bit sent over the scale-up links (NVLink, electrical)", 0.0, false, std::nullopt)
          .job_only()
          .into_scaled(
              [](auto& s) -> auto& { return s.power.scale_up_j_per_bit; }, 1e-12),
      real("power.network.scale_out_pj_per_bit", "5",
           "energy per bit sent through the scale-out network, every hop included (NIC, switches, optics)", 0.0, false,
           std::nullopt)
          .job_only()
          .into_scaled(
              [](auto& s) -> auto& { return s.power.scale_out_j_per_bit; }, 1e-12),
      quantity("power.storage.draw", Dimension::Power, "0W", "the storage servers' draw, busy or not", 0.0, false)
          .into([](auto& s) -> auto& { return s.power.storage_w; }),
      real("power.storage.nj_per_byte", "0", "storage energy per byte written or read", 0.0, false, std::nullopt)
          .when(facts::storage_carries_traffic())
          .into_scaled(
              [](auto& s) -> auto& { return s.power.storage_j_per_byte; }, 1e-9),
      real("power.pue", "1.1", "power usage effectiveness: facility power over IT power (cooling, power delivery)", 1.0,
           false, 10.0)
          .into([](auto& s) -> auto& { return s.power.pue; }),
      quantity("power.gpu_power_limit", Dimension::Power, std::nullopt,
               "accelerator power limit: caps every state's draw and slows the compute (power.dvfs_exponent)"),
      real("power.dvfs_exponent", "3",
           "above idle, an accelerator's draw grows as its speed to this power (dynamic power ~ f V^2, V ~ f)", 1.0,
           false, 10.0)
          .when(positive("power.gpu_power_limit", "no power limit"))
          .into([](auto& s) -> auto& { return s.power.dvfs_exponent; }),
      quantity("power.floor", Dimension::Power, std::nullopt,
               "ramp limiter: while the job runs, its accelerators burn at least this much (a dummy load); the "
               "extra is reported as its own component"),
      quantity("power.ramp_time", T, "100ms",
               "how long a synchronised change of the job's load takes at the facility (ramp rate = swing / this)")
          .job_only()
          .into([](auto& s) -> auto& { return s.power.ramp_s; }),
      quantity("power.restart_stagger", T, "0s",
               "ramp limiter: after a recovery the job's GPUs start in groups over this time, so its load rises "
               "linearly instead of at once; no step runs until the last group is up (the stagger is warmup time)",
               0.0, false)
          .job_only()
          .into([](auto& s) -> auto& { return s.power.restart_stagger_s; }),
      // Carbon: operational from the grid's intensity, embodied amortised over the hardware's life.
      text("power.carbon.intensity", std::nullopt,
           "the grid's hourly carbon intensity: a CSV (hour,gco2_per_kwh; hours 0, 1, ... consecutive), relative "
           "to the scenario file, repeated cyclically over a longer run (scenarios/carbon/ has two)"),
      integer("power.carbon.start_hour", "0", "the profile's hour that the run's t = 0 falls in", 0, 1e6)
          .when(given("power.carbon.intensity", "no grid profile")),
      real("power.embodied.gpu_kg", "0",
           "manufacturing emissions of one GPU, kg CO2e (Luccioni et al. 2022 estimate 150 for an A100; 0: not "
           "counted)",
           0.0, false, std::nullopt),
      real("power.embodied.node_kg", "0",
           "manufacturing emissions of one node without its GPUs, kg CO2e (Luccioni et al. 2022: 2,500 for an HPE "
           "Apollo 6500 server; 0: not counted)",
           0.0, false, std::nullopt),
      quantity("power.embodied.lifetime", T, "2190d",
               "the hardware's service life, over which its embodied emissions are amortised (6 years)")
          .when(positive("power.embodied.gpu_kg"))
          .or_when(positive("power.embodied.node_kg")),
      real("power.fleet_compute_fraction", "0.7",
           "fleet: the fraction of a training GPU's time spent computing, the rest communicating (ASSUMPTION: the "
           "fleet does not simulate steps; a large job's simulated step puts most of its time in compute)",
           0.0, false, 1.0)
          .fleet_only()
          .into([](auto& s) -> auto& { return s.fleet_compute_fraction; }),
  };
}

}  // namespace fleetsim::scenario::detail

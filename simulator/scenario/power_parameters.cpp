#include "parameter_specs.hpp"

namespace fleetsim::scenario::detail {

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
      quantity("power.gpu.off", Dimension::Power, "0W", "accelerator draw when failed or in repair", 0.0, false),
      quantity("power.node", Dimension::Power, std::nullopt,
               "draw per powered node without its accelerators: CPUs, memory, NICs, switches, fans (default: half "
               "the node's accelerators' compute draw, an assumption)",
               0.0, false),
      real("power.network.scale_up_pj_per_bit", "10",
           "energy per bit sent over the scale-up links (NVLink, electrical)", 0.0, false, std::nullopt),
      real("power.network.scale_out_pj_per_bit", "5",
           "energy per bit sent through the scale-out network, every hop included (NIC, switches, optics)", 0.0, false,
           std::nullopt),
      quantity("power.storage.draw", Dimension::Power, "0W", "the storage servers' draw, busy or not", 0.0, false),
      real("power.storage.nj_per_byte", "0", "storage energy per byte written or read", 0.0, false, std::nullopt),
      real("power.pue", "1.1", "power usage effectiveness: facility power over IT power (cooling, power delivery)", 1.0,
           false, 10.0),
      quantity("power.gpu_power_limit", Dimension::Power, std::nullopt,
               "accelerator power limit: caps every state's draw and slows the compute (power.dvfs_exponent)"),
      real("power.dvfs_exponent", "3",
           "above idle, an accelerator's draw grows as its speed to this power (dynamic power ~ f V^2, V ~ f)", 1.0,
           false, 10.0),
      quantity("power.floor", Dimension::Power, std::nullopt,
               "ramp limiter: while the job runs, its accelerators burn at least this much (a dummy load); the "
               "extra is reported as its own component"),
      quantity("power.ramp_time", T, "100ms",
               "how long a synchronised change of the job's load takes at the facility (ramp rate = swing / this)"),
  };
}

}  // namespace fleetsim::scenario::detail

#pragma once
// The power model (docs/models/energy.md): what the hardware draws in each state, SimGrid-free.
//
//   accelerators   each GPU draws the power of its state: computing, communicating or waiting at a
//                  barrier, idle, paused for a checkpoint, or off (failed, in repair);
//   power floor    a ramp limiter: while the job runs, its GPUs burn at least `power_floor_w` (a
//                  dummy load keeps the facility's swings small); the extra is its own component;
//   nodes          CPUs, memory, NICs, NVSwitches and fans: a fixed draw per powered node;
//   network        energy per bit moved, by link class: scale-up (NVLink, electrical) and scale-out
//                  (NIC, switches, optics), counted once per bit sent, every hop included;
//   storage        a fixed draw of the storage servers plus an energy per byte moved;
//   overhead       cooling and power delivery: (PUE - 1) x the IT power.
// Every component is a plain draw in watts; energy is a draw times a duration. A GPU power limit
// caps every state's draw and slows the compute by the DVFS curve of `compute_speed`.

#include <array>
#include <string_view>

namespace fleetsim::models::energy {

enum class GpuState { Compute, Communicate, Idle, Checkpoint, Off };
inline constexpr int kGpuStates = 5;
inline constexpr std::array<GpuState, kGpuStates> kAllGpuStates = {GpuState::Compute, GpuState::Communicate,
                                                                   GpuState::Idle, GpuState::Checkpoint, GpuState::Off};
/// "compute", "communicate", "idle", "checkpoint", "off": the one place they are spelled.
[[nodiscard]] std::string_view gpu_state_name(GpuState s);

/// Watts and joules per unit; every field in SI (W, J/bit, J/byte, s).
struct PowerSpec {
  std::array<double, kGpuStates> gpu_w{700, 350, 100, 150, 0};  // by GpuState
  double node_w = 0;                                            // per powered node, GPUs excluded
  double scale_up_j_per_bit = 10e-12;                           // NVLink
  double scale_out_j_per_bit = 5e-12;                           // NIC to NIC, switches and optics included
  double storage_w = 0;                                         // storage servers, whether busy or not
  double storage_j_per_byte = 0;                                // each byte written or read
  double pue = 1.1;                                             // facility power / IT power
  double gpu_power_limit_w = 0;                                 // 0: none
  double dvfs_exponent = 3;                                     // compute draw above idle grows as speed^exponent
  double power_floor_w = 0;                                     // 0: none
  double ramp_s = 0.1;           // how long a synchronised change of the job's load takes
  double restart_stagger_s = 0;  // a restart brings the job's GPUs up in groups over this (0: at once)
};

/// A GPU's draw in `s`, under the power limit.
[[nodiscard]] double gpu_draw(const PowerSpec& p, GpuState s);

/// The compute speed under the power limit, as a fraction of the unlimited speed (1 without a limit
/// or with one at or above the compute draw). Above idle, a GPU's draw grows as speed^k (DVFS:
/// dynamic power ~ f V^2 with V ~ f gives k = 3): speed = ((limit - idle) / (compute - idle))^(1/k).
[[nodiscard]] double compute_speed(const PowerSpec& p);

/// GPU counts by state; time-weighted, so fractional (a training job spends part of each step in
/// each of compute and communicate).
using GpuMix = std::array<double, kGpuStates>;

/// A draw in watts, by component: the facility's total is the sum of every field.
struct PowerDraw {
  std::array<double, kGpuStates> gpu_w{};  // by GpuState
  double floor_w = 0;                      // the power floor's extra burn
  double node_w = 0;
  double network_w = 0;
  double storage_w = 0;
  double overhead_w = 0;  // cooling and power delivery
  [[nodiscard]] double gpus() const;
  [[nodiscard]] double it() const;        // everything but the overhead
  [[nodiscard]] double facility() const;  // every component
  PowerDraw& operator+=(const PowerDraw& o);
  [[nodiscard]] PowerDraw scaled(double k) const;  // watts x seconds = joules, and back
};

/// What a stretch of the fleet does: the inputs of one draw.
struct Activity {
  GpuMix job{};              // the job's GPUs, under the power floor while the job runs
  GpuMix other{};            // every other GPU (spares, GPUs of no job), no floor
  bool floor_held = false;   // the job's processes run (the floor applies to `job`)
  double nodes = 0;          // powered nodes
  double scale_up_bps = 0;   // bytes per second over NVLink, all GPUs together
  double scale_out_bps = 0;  // bytes per second over the scale-out network
  double storage_bps = 0;    // bytes per second written and read
};

/// The draw of an activity. Its facility() equals it() x pue to rounding.
[[nodiscard]] PowerDraw draw(const PowerSpec& p, const Activity& a);

}  // namespace fleetsim::models::energy

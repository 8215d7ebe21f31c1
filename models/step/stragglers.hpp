#pragma once
// Stragglers in synchronous training: every step waits for the slowest worker (a node).
//
//   persistent: a fraction of the nodes always runs at `persistent_speed` of nominal;
//   transient:  each node, independently in each step, runs at `transient_speed` with probability q.
//
// A step's compute scales with the slowest worker's speed; its communication and coordination do
// not. With k workers, a step has at least one transient straggler with probability 1 - (1 - q)^k
// (100 nodes at q = 1 %: 63.4 % of steps). The expected step time relative to a uniform fleet is
//   factor = (1 - c) + c * E[1 / min speed],
//   E[1 / min speed] = (1 - q)^k * b + (1 - (1 - q)^k) * max(b, 1 / transient_speed),
// with c the compute fraction of the step and b = 1 / persistent_speed when at least one node is a
// persistent straggler (round(fraction * k) >= 1), else 1.

namespace fleetsim::models {

struct StragglerSpec {
  double persistent_fraction = 0;    // of the nodes, [0, 1]
  double persistent_speed = 1;       // (0, 1]
  double transient_probability = 0;  // per node per step, [0, 1]
  double transient_speed = 1;        // (0, 1]
  // Slowdown episodes: each node, independently, enters an episode at exponential intervals of mean
  // episode_interval (s; 0 = never) and runs at episode_speed for a duration of mean episode_duration.
  double episode_interval = 0;
  double episode_duration = 1800;
  bool episode_exponential = true;  // else every episode lasts episode_duration
  double episode_speed = 1;
  // Diurnal thermal swing: every node's clock runs at 1 - amplitude * (1 + cos(2 pi (t - peak) / 1 d)) / 2,
  // slowest at `peak` seconds into each day, updated every `diurnal_resolution` seconds.
  double diurnal_amplitude = 0;
  double diurnal_peak = 15 * 3600.0;
  double diurnal_resolution = 3600;  // s (the scenario's default is 1h)
  // Mitigation: a node running below drain_below for drain_after seconds is drained (0: never).
  double drain_below = 0;
  double drain_after = 600;
  double drain_repair = 4 * 3600.0;  // seconds until a drained node is back, healthy
  [[nodiscard]] bool any() const
  {
    return (persistent_fraction > 0 && persistent_speed < 1) || (transient_probability > 0 && transient_speed < 1) ||
           (episode_interval > 0 && episode_speed < 1) || diurnal_amplitude > 0;
  }
  [[nodiscard]] bool dynamic() const
  {
    return (episode_interval > 0 && episode_speed < 1) || diurnal_amplitude > 0 || drain_below > 0;
  }
};

/// Persistent stragglers among `workers` nodes: round(fraction * workers).
[[nodiscard]] long persistent_stragglers(const StragglerSpec& s, long workers);

/// Speed of a node in one step: its host's speed, or the lower transient speed in a slowed step.
[[nodiscard]] double step_speed(const StragglerSpec& s, double host_speed, bool transient);

/// Probability that a step has at least one transient straggler among `workers`: 1 - (1 - q)^k.
[[nodiscard]] double probability_step_slowed(double q, long workers);

/// Expected step time with stragglers over the uniform step time (>= 1); see the header comment.
[[nodiscard]] double expected_step_factor(const StragglerSpec& s, long workers, double compute_fraction);

/// The same for a known fleet state: the slowest node runs at `slowest_speed` (persistent or in an
/// episode) and every clock at `clock_speed` (the diurnal swing); per-step transients come on top:
///   factor = (1 - c) + c * [(1 - p) b + p max(b, 1 / (transient_speed clock))],  b = 1 / (slowest clock).
[[nodiscard]] double step_factor(const StragglerSpec& s, long workers, double compute_fraction, double slowest_speed,
                                 double clock_speed);

/// The diurnal clock speed at simulated time t (1 without a swing).
[[nodiscard]] double diurnal_speed(const StragglerSpec& s, double t);

}  // namespace fleetsim::models

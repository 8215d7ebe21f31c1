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
  [[nodiscard]] bool any() const
  {
    return (persistent_fraction > 0 && persistent_speed < 1) || (transient_probability > 0 && transient_speed < 1);
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

}  // namespace fleetsim::models

#include "straggler_control.hpp"

#include "models/checkpoint/checkpoint_plan.hpp"
#include "models/resilience/run_plan.hpp"
#include "models/step/stragglers.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim::sim {

void StragglerControl::start() const
{
  const auto& st = s_.stragglers;
  if (st.diurnal_amplitude > 0)
    alarm(msg::Tick{}, st.diurnal_resolution);
  if (st.drain_below > 0)
    for (long n = 0; n < pool_.size(); ++n)
      if (pool_.base_speed(n) < st.drain_below)
        alarm(msg::DrainCheck{n, 0}, st.drain_after);
}

bool StragglerControl::apply(const SchedulerMessage& m) const
{
  const auto& st = s_.stragglers;
  return std::visit(Overloaded{
                        [&](const msg::SlowStart& e) {
                          if (!pool_.up(e.node))
                            return false;
                          pool_.start_episode(e.node, e.episode, st.episode_speed, now());
                          ++counters_.episodes;
                          alarm(msg::SlowEnd{e.node, e.episode}, e.duration);
                          if (st.episode_speed < st.drain_below && e.duration > st.drain_after)
                            alarm(msg::DrainCheck{e.node, e.episode}, st.drain_after);
                          return true;
                        },
                        [&](const msg::SlowEnd& e) {
                          pool_.end_episode(e.node, e.episode);
                          return true;
                        },
                        [&](const msg::Tick&) {
                          // The next tick on the fixed grid k x resolution, however late this one was handled.
                          const double next = (std::floor(now() / st.diurnal_resolution + 1e-9) + 1) *
                                              st.diurnal_resolution;
                          alarm(msg::Tick{}, next - now());
                          return true;
                        },
                        // Not the fleet's speed state.
                        [](const msg::Failure&) { return false; },
                        [](const msg::Planned&) { return false; },
                        [](const msg::Stopped&) { return false; },
                        [](const msg::IoDone&) { return false; },
                        [](const msg::Repaired&) { return false; },
                        [](const msg::DrainCheck&) { return false; },
                        [](const msg::Placed&) { return false; },
                    },
                    m);
}

void StragglerControl::repaired(long node) const
{
  const auto& st = s_.stragglers;
  if (st.drain_below > 0 && pool_.base_speed(node) < st.drain_below)
    alarm(msg::DrainCheck{node, 0}, st.drain_after);
}

bool StragglerControl::refresh(JobShape& shape, long replica_slots) const
{
  const auto& st = s_.stragglers;
  // The effective slowest speed: the slowest node, or with balanced micro-batches across generations
  // the replicas' combined pace (models/resilience/node_pool.hpp, compute_stretch).
  const double slowest = s_.heterogeneous.balanced ? 1.0 / pool_.compute_stretch(job_, replica_slots, true)
                                                   : pool_.slowest_active_speed(job_);
  const double f = models::step_factor(st, shape.gpus / s_.fleet.gpus_per_node, shape.compute_fraction, slowest,
                                       models::diurnal_speed(st, now()));
  if (f == shape.straggler_factor)
    return false;
  shape.straggler_factor = f;
  shape.step_time = shape.uniform_step_time * f;
  // checkpoint.interval is training time: the next stretch's step count follows the step time.
  shape.steps_per_checkpoint = models::steps_per_checkpoint(s_.checkpoint.interval, units::Seconds(shape.step_time));
  if (shape.steps_per_snapshot > 0)
    shape.steps_per_snapshot =
        models::steps_per_snapshot(policy_.snapshot_interval(s_.recovery).value_or(0), shape.step_time);
  return true;
}

bool StragglerControl::drain_due(const msg::DrainCheck& c) const
{
  const auto& st = s_.stragglers;
  if (!(st.drain_below > 0) || pool_.state(c.node) == models::NodeState::Repair)
    return false;
  // The node's own slowness (persistent, episode), not its accelerator generation: draining cannot
  // change that.
  if (c.episode == 0)
    return pool_.base_speed(c.node) < st.drain_below;
  return pool_.episode(c.node) == c.episode && pool_.episode_speed(c.node) < 1 &&
         std::min(pool_.base_speed(c.node), pool_.episode_speed(c.node)) < st.drain_below;
}

void StragglerControl::check_later(const msg::DrainCheck& c) const { alarm(c, s_.stragglers.drain_after); }

std::vector<long> StragglerControl::nodes_to_drain(long node) const
{
  // One restart for every job node slow long enough, not one each.
  const auto& st = s_.stragglers;
  std::vector<long> nodes = pool_.slow_job_nodes(job_, st.drain_below, st.drain_after, now());
  if (std::find(nodes.begin(), nodes.end(), node) == nodes.end())
    nodes.push_back(node);
  return nodes;
}

}  // namespace fleetsim::sim

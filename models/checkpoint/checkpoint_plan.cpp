#include "checkpoint_plan.hpp"

#include "models/core/check.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim::models {

double checkpoint_files(CheckpointFiles files, long gpus, int gpus_per_node)
{
  switch (files) {
    case CheckpointFiles::PerRank: return static_cast<double>(gpus);
    case CheckpointFiles::PerNode: return std::ceil(static_cast<double>(gpus) / gpus_per_node);
    case CheckpointFiles::Consolidated: return 1;
  }
  return 1;
}

double snapshot_pause(double bytes_per_gpu, units::BytesPerSecond snapshot_bandwidth)
{
  return snapshot_bandwidth.si() > 0 ? bytes_per_gpu / snapshot_bandwidth.si() : 0;
}

CheckpointPlan make_checkpoint_plan(const CheckpointSpec& c, double bytes, long gpus, int gpus_per_node)
{
  CheckpointPlan p;
  p.strategy = c.strategy;
  p.write_overhead = c.write_overhead.si();
  p.snapshot_s = snapshot_pause(c.state_per_gpu.si(), c.snapshot_bandwidth);
  p.host_buffers = c.host_buffers;
  p.remote_every = p.strategy == CheckpointStrategy::MultiLevel ? c.remote_every : 1;
  p.bytes = bytes;
  p.files = checkpoint_files(c.files, gpus, gpus_per_node);
  return p;
}

units::Seconds checkpoint_write_time(units::Bytes bytes, units::BytesPerSecond write_bandwidth, units::Seconds overhead)
{
  FLEETSIM_CHECK(write_bandwidth.si() > 0, "a positive write bandwidth");
  return overhead + bytes / write_bandwidth;
}

double checkpoint_cost(const CheckpointPlan& p, const StorageSpec& storage)
{
  if (p.strategy != CheckpointStrategy::Sync)
    return p.snapshot_s;
  return checkpoint_write_time(units::Bytes(p.bytes), storage.write_bandwidth, units::Seconds(p.write_overhead)).si();
}

IntervalPolicySpec interval_spec(const CheckpointPlan& p, const CheckpointSpec& c, const StorageSpec& storage)
{
  IntervalPolicySpec spec;
  if (p.strategy != CheckpointStrategy::Sync)
    spec.min_s = checkpoint_write_time(units::Bytes(p.bytes), storage.write_bandwidth, c.write_overhead).si() /
                 (p.host_buffers * p.remote_every);  // multi_level drains one checkpoint in remote_every
  spec.kind = parse_interval_policy(c.policy).value_or(IntervalPolicyKind::Fixed);
  spec.fixed_s = c.interval.si();
  spec.prior_mtbf_s = c.prior_mtbf.si();
  spec.prior_weight = c.prior_weight;
  return spec;
}

double alone_read_rate(const StorageSpec& st, long gpus, int gpus_per_node)
{
  double rate = st.read_bandwidth.si() > 0 ? st.read_bandwidth.si() : st.write_bandwidth.si();
  if (st.bandwidth.si() > 0)
    rate = std::min(rate, std::max(st.bandwidth.si(), st.burst_bandwidth.si()));
  if (st.client_bandwidth.si() > 0)
    rate = std::min(rate, st.client_bandwidth.si() * std::ceil(static_cast<double>(gpus) / gpus_per_node));
  return rate;
}

long steps_per_checkpoint(units::Seconds interval, units::Seconds step_time)
{
  FLEETSIM_CHECK(step_time.si() > 0, "a positive step time");
  return std::max(1L, std::lround(interval.si() / step_time.si()));
}

long steps_per_snapshot(double every, double step_time)
{
  return every > 0 ? steps_per_checkpoint(units::Seconds(every), units::Seconds(step_time)) : 1;
}

}  // namespace fleetsim::models

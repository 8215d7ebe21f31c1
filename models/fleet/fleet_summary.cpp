#include "fleet_summary.hpp"

#include "models/core/statistics.hpp"

#include <algorithm>

namespace fleetsim::models::fleet {

Distribution describe(const std::vector<double>& sample)
{
  Distribution d;
  d.count = sample.size();
  if (sample.empty())
    return d;
  double sum = 0;
  for (double x : sample)
    sum += x;
  d.mean = sum / static_cast<double>(sample.size());
  d.p50 = quantile(sample, 0.5);
  d.p90 = quantile(sample, 0.9);
  d.p99 = quantile(sample, 0.99);
  d.max = *std::max_element(sample.begin(), sample.end());
  return d;
}

std::vector<double> first_waits(const std::vector<JobRecord>& jobs, const Workload& specs, long lo, long hi)
{
  std::vector<double> out;
  for (size_t i = 0; i < jobs.size(); ++i)
    if (jobs[i].first_start >= 0 && specs[i].gpus >= lo && specs[i].gpus <= hi)
      out.push_back(jobs[i].first_start - specs[i].submit);
  return out;
}

JobCounts count_jobs(const std::vector<JobRecord>& jobs, const Workload& specs, long gpus, long nodes)
{
  JobCounts c;
  double racks = 0;
  long multi_node = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const JobRecord& job = jobs[i];
    c.started += job.first_start >= 0;
    c.finished += job.state == JobState::Done;
    c.running += job.state == JobState::Running || job.state == JobState::Detecting ||
                 job.state == JobState::Preempting || job.state == JobState::Checkpointing ||
                 job.state == JobState::Restoring;
    c.waiting += job.state == JobState::Waiting;
    c.pending += job.state == JobState::Pending;
    if (job.state == JobState::Done) {
      const double run = specs[i].work;
      c.bounded_slowdown.push_back(std::max(1.0, (job.end - specs[i].submit) / std::max(run, kSlowdownFloor)));
    }
    if (job.first_start >= 0 && job.held > gpus / std::max(1L, nodes)) {
      racks += static_cast<double>(job.racks);
      ++multi_node;
    }
  }
  if (multi_node > 0)
    c.racks_spanned_mean = racks / static_cast<double>(multi_node);
  return c;
}

}  // namespace fleetsim::models::fleet

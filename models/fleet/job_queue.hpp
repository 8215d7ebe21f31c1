#pragma once
// The fleet's queue of waiting jobs, in the scheduling policy's order: by a key (priority, the time
// the job queues from, its index), and the GPUs the waiting jobs ask for.

#include <set>
#include <tuple>
#include <vector>

namespace fleetsim::models::fleet {

class JobQueue {
public:
  using Key = std::tuple<int, double, long>;  // (-priority or 0, queued from, job)

  void insert(const Key& key, long gpus)
  {
    keys_.insert(key);
    demand_ += gpus;
  }
  void erase(const Key& key, long gpus)
  {
    keys_.erase(key);
    demand_ -= gpus;
  }
  /// The first `limit` jobs, in order.
  [[nodiscard]] std::vector<long> first(size_t limit) const
  {
    std::vector<long> out;
    for (auto it = keys_.begin(); it != keys_.end() && out.size() < limit; ++it)
      out.push_back(std::get<2>(*it));
    return out;
  }
  [[nodiscard]] size_t size() const { return keys_.size(); }
  [[nodiscard]] bool empty() const { return keys_.empty(); }
  [[nodiscard]] long demand() const { return demand_; }

private:
  std::set<Key> keys_;
  long demand_ = 0;
};

}  // namespace fleetsim::models::fleet

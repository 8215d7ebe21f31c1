#include "goodput.hpp"

#include "models/core/check.hpp"

#include "models/core/invariant.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace fleetsim::models {

std::string_view phase_name(Phase p)
{
  switch (p) {
    case Phase::Training: return "training";
    case Phase::Checkpoint: return "checkpoint";
    case Phase::Detection: return "detection";
    case Phase::Restart: return "restart";
    case Phase::Reload: return "reload";
    case Phase::Warmup: return "warmup";
    case Phase::Planned: return "planned";
    case Phase::Waiting: return "waiting";
    case Phase::DataStall: return "data_stall";
  }
  return "?";
}

namespace {

double& bucket(TimeBreakdown& b, Phase p)
{
  switch (p) {
    case Phase::Training: return b.productive;  // provisional: reclassified on commit/rollback
    case Phase::Checkpoint: return b.checkpoint;
    case Phase::Detection: return b.detection;
    case Phase::Restart: return b.restart;
    case Phase::Reload: return b.reload;
    case Phase::Warmup: return b.warmup;
    case Phase::Planned: return b.planned;
    case Phase::Waiting: return b.waiting;
    case Phase::DataStall: return b.data_stall;
  }
  return b.planned;
}

// Training work: its time, whole steps, tokens, and the parts of its time lost to a smaller job
// (shrink) and to stragglers, relative to the nominal rate.
struct Work {
  double s = 0;
  long steps = 0;
  double tokens = 0;
  double shrink = 0;
  double straggle = 0;
  Work& operator+=(const Work& o)
  {
    s += o.s;
    steps += o.steps;
    tokens += o.tokens;
    shrink += o.shrink;
    straggle += o.straggle;
    return *this;
  }
  Work& operator-=(const Work& o)
  {
    s -= o.s;
    steps -= o.steps;
    tokens -= o.tokens;
    shrink -= o.shrink;
    straggle -= o.straggle;
    return *this;
  }
};

// Net progress of the model in three tiers: in storage, in host memory only, not yet saved.
struct Progress {
  Work stored;
  Work memory;
  Work pending;
  [[nodiscard]] Work net() const
  {
    Work w = stored;
    w += memory;
    w += pending;
    return w;
  }
};

// The rates of one training stretch.
struct Rate {
  double step_time = 0;
  double tokens_per_step = 0;
  double straggler_factor = 1;
  // `d` seconds of training at this rate, `steps` whole steps, against the nominal rate r0.
  [[nodiscard]] Work work(double d, long steps, double r0) const
  {
    Work w;
    w.s = d;
    w.steps = steps;
    w.tokens = d / step_time * tokens_per_step;
    const double uniform = tokens_per_step * straggler_factor / step_time;  // same job, no stragglers
    const double actual = tokens_per_step / step_time;
    w.shrink = d * (1 - uniform / r0);
    w.straggle = d * (uniform - actual) / r0;
    return w;
  }
};

// Reads a trace record by record into a report: the phases into the breakdown and the timeline, and
// the model's progress through its three tiers (pending, host memory, storage) as checkpoints
// commit and interruptions roll it back.
class Accountant {
public:
  Accountant(double step_time, double tokens_per_step, size_t records, double start)
      : step_time_(step_time),
        tokens_per_step_(tokens_per_step),
        r0_(tokens_per_step / step_time),
        last_{step_time, tokens_per_step, 1},
        start_(start),
        clock_(start)
  {
    r_.timeline.reserve(records);  // at most one row per record
  }

  void add(const TraceRecord& rec)
  {
    if (const auto* seg = std::get_if<PhaseSegment>(&rec))
      segment(*seg);
    else if (const auto* in = std::get_if<Interruption>(&rec))
      interruption(*in);
    else if (const auto* cp = std::get_if<CheckpointCommitted>(&rec))
      committed(*cp);
    else if (std::holds_alternative<CheckpointDiscarded>(rec))
      discarded();
  }

  GoodputReport close();

private:
  void timeline_progress(TimelineRow& row) const
  {
    const Work net = p_.net();
    row.productive_s = net.s;
    row.steps = net.steps;
    row.tokens = net.tokens;
    row.goodput = row.t_end > start_ ? row.productive_s / (row.t_end - start_) : 0;
  }
  void segment(const PhaseSegment& seg);
  void interruption(const Interruption& in);
  void committed(const CheckpointCommitted& cp);
  void discarded();

  double step_time_;
  double tokens_per_step_;
  double r0_;  // nominal tokens per second
  GoodputReport r_;
  Progress p_;
  Rate last_;
  std::vector<Work> stored_at_;  // the work in storage after each checkpoint still held
  std::string cause_;            // what the recovery phases in progress are charged to
  double start_ = 0;             // when the job started (its window is [start_, the last segment's end])
  double clock_ = 0;
};

void Accountant::segment(const PhaseSegment& seg)
{
  check_invariant(std::fabs(seg.t_begin - clock_) < 1e-6, "phases tile the window", [&] {
    return "a " + std::string(phase_name(seg.phase)) + " segment begins at " + std::to_string(seg.t_begin) +
           " s, where the previous one ended at " + std::to_string(clock_) + " s";
  });
  const double d = seg.t_end - seg.t_begin;
  if (seg.phase == Phase::Training) {
    last_ = seg.step_time > 0 ? Rate{seg.step_time, seg.tokens_per_step, seg.straggler_factor}
                              : Rate{step_time_, tokens_per_step_, 1};
    p_.pending += last_.work(d, seg.steps, r0_);
  } else {
    bucket(r_.breakdown, seg.phase) += d;
    const char* charged = seg.phase == Phase::Checkpoint  ? "checkpoint"
                          : seg.phase == Phase::Planned   ? "planned"
                          : seg.phase == Phase::DataStall ? "data_stall"
                                                          : nullptr;
    const std::string cause = charged != nullptr ? std::string(charged)
                              : cause_.empty()   ? std::string("unattributed")
                                                 : cause_;
    r_.lost_by_cause[cause] += d;
    if (seg.queued)
      r_.queued_by_cause[cause] += d;
  }
  clock_ = seg.t_end;
  TimelineRow row;
  row.t_begin = seg.t_begin;
  row.t_end = seg.t_end;
  row.phase = seg.phase;
  row.interrupted = seg.interrupted;
  row.active_gpus = seg.active_gpus;
  row.step_time = seg.step_time > 0 ? seg.step_time : last_.step_time;
  timeline_progress(row);
  r_.timeline.push_back(row);
}

void Accountant::interruption(const Interruption& in)
{
  Work lost = p_.pending;
  p_.pending = Work{};
  if (!in.from_memory) {
    lost += p_.memory;
    p_.memory = Work{};
  }
  r_.breakdown.lost_work += lost.s;
  r_.lost_per_interruption.push_back(lost.s);
  cause_ = in.cause;
  r_.lost_by_cause[cause_] += lost.s;
  // The interruption happens at the end of the last row: show the rolled-back progress there.
  if (!r_.timeline.empty())
    timeline_progress(r_.timeline.back());
  if (in.reconfiguration)
    r_.reconfigurations++;
  else
    (in.planned ? r_.planned : r_.unexpected)++;
}

void Accountant::committed(const CheckpointCommitted& cp)
{
  // Training after the state was captured (an asynchronous write drained meanwhile) stays pending.
  const Work tail = last_.work(std::min(cp.uncommitted_s, p_.pending.s), cp.uncommitted_steps, r0_);
  p_.pending -= tail;
  if (cp.memory) {
    // Everything but the tail since the last snapshot is now safe in host memory.
    p_.memory += p_.pending;
  } else {
    p_.stored += p_.memory;
    p_.stored += p_.pending;
    p_.memory = Work{};
    r_.checkpoints++;
    stored_at_.push_back(p_.stored);
  }
  p_.pending = tail;
}

void Accountant::discarded()
{
  // The training since the checkpoint before the corrupt one is lost, charged to the corruption.
  check_invariant(!stored_at_.empty(), "a discarded checkpoint was committed",
                  [] { return std::string("a checkpoint is discarded with none committed"); });
  stored_at_.pop_back();
  const Work before = stored_at_.empty() ? Work{} : stored_at_.back();
  Work lost = p_.stored;
  lost -= before;
  p_.stored = before;
  r_.breakdown.lost_work += lost.s;
  r_.lost_by_cause["corrupt_checkpoint"] += lost.s;
  if (!r_.lost_per_interruption.empty())
    r_.lost_per_interruption.back() += lost.s;
  r_.corrupt_checkpoints++;
  if (!r_.timeline.empty())
    timeline_progress(r_.timeline.back());
}

GoodputReport Accountant::close()
{
  // The window closes with the pending work still in memory: it counts.
  const Work net = p_.net();
  const double clock = clock_ - start_;
  r_.breakdown.productive = net.s;
  r_.elapsed = clock;
  r_.ettr = clock > 0 ? r_.breakdown.productive / clock : 0;
  // Whole steps only; tokens (from time) include the partial step in flight at the window's end.
  r_.steps = net.steps;
  r_.tokens = net.tokens;
  r_.goodput_s = r_.tokens / r0_;
  r_.goodput_ratio = clock > 0 ? r_.goodput_s / clock : 0;
  // (Rounding leaves ~1e-16 relative residues where the rates are nominal: not worth a row.)
  const double negligible = 1e-9 * std::max(1.0, clock);
  if (std::fabs(net.straggle) > negligible)
    r_.lost_by_cause["stragglers"] += net.straggle;
  if (std::fabs(net.shrink) > negligible)
    r_.lost_by_cause["elastic_shrink"] += net.shrink;
  check_time_accounting(r_);
  return std::move(r_);
}

}  // namespace

GoodputReport account(const TraceLog& log, double step_time, double tokens_per_step, double start)
{
  FLEETSIM_CHECK(step_time > 0, "a training segment has a positive step time");
  Accountant a(step_time, tokens_per_step, log.size(), start);
  for (const TraceRecord& rec : log)
    a.add(rec);
  return a.close();
}

void check_time_accounting(const GoodputReport& r)
{
  const double clock = r.elapsed;
  const double tol = 1e-9 * std::max(1.0, clock);
  check_invariant(std::fabs(r.breakdown.total() - clock) <= tol, "the time breakdown fills the window", [&] {
    return "the breakdown sums to " + std::to_string(r.breakdown.total()) + " s of " + std::to_string(clock) + " s";
  });
  // Each phase's seconds from the timeline (a row per segment): training is productive or lost.
  TimeBreakdown rows;
  for (const TimelineRow& row : r.timeline)
    bucket(rows, row.phase) += row.t_end - row.t_begin;
  const double trained = rows.productive;
  rows.productive = r.breakdown.productive;
  rows.lost_work = trained - r.breakdown.productive;
  for (const BreakdownTerm& term : kBreakdownTerms)
    check_invariant(std::fabs(r.breakdown.*term.seconds - rows.*term.seconds) <= tol,
                    "the time breakdown matches the timeline", [&] {
                      return std::string(term.name) + " is " + std::to_string(r.breakdown.*term.seconds) +
                             " s in the breakdown, " + std::to_string(rows.*term.seconds) + " s on the timeline" +
                             (term.seconds == &TimeBreakdown::lost_work ? " (training less productive)" : "");
                    });
  // The losses by cause carry the stragglers' and the shrink's residues only when each is above
  // 1e-9 of the window: 1e-8 leaves room for the two dropped ones.
  const double loose = 1e-8 * std::max(1.0, clock);
  double charged = r.goodput_s;
  for (const auto& [name, v] : r.lost_by_cause)
    charged += v;
  check_invariant(std::fabs(charged - clock) <= loose, "every lost second is attributed", [&] {
    return "goodput and the losses by cause sum to " + std::to_string(charged) + " s of " + std::to_string(clock) +
           " s";
  });
  // Productive time is counted in seconds, goodput in tokens: they differ by what slower or smaller
  // steps cost, no more.
  const auto cause = [&](const char* name) {
    const auto it = r.lost_by_cause.find(name);
    return it == r.lost_by_cause.end() ? 0.0 : it->second;
  };
  const double from_tokens = r.goodput_s + cause("stragglers") + cause("elastic_shrink");
  check_invariant(std::fabs(r.breakdown.productive - from_tokens) <= loose,
                  "productive time matches the tokens trained", [&] {
                    return "productive " + std::to_string(r.breakdown.productive) + " s, but the tokens trained take " +
                           std::to_string(r.goodput_s) + " s at the nominal rate and the stragglers and the shrink " +
                           std::to_string(from_tokens - r.goodput_s) + " s more";
                  });
}

std::optional<double> time_to_tokens(const std::vector<TimelineRow>& timeline, double target)
{
  std::optional<double> when;
  double before = 0;  // net tokens at the start of the row
  for (const TimelineRow& row : timeline) {
    if (row.tokens >= target && before < target) {
      // Within a training row the net tokens grow steadily; any other row only keeps them.
      const bool grows = row.phase == Phase::Training && row.tokens > before;
      when = grows ? row.t_begin + (target - before) / (row.tokens - before) * (row.t_end - row.t_begin) : row.t_end;
    } else if (row.tokens < target) {
      when.reset();  // not yet, or taken back by an interruption
    }
    before = row.tokens;
  }
  return when;
}

}  // namespace fleetsim::models

#pragma once
// Hand-built trace records for the accounting tests: 2 s per step, 1000 tokens per step (500 tokens/s).
#include "models/accounting/trace_records.hpp"

namespace fleetsim::models::testing {

constexpr double kStep = 2.0;
constexpr double kTokensPerStep = 1000.0;
constexpr double kEps = 1e-9;

/// A phase segment; a training segment counts the whole steps inside it (a partial step is not counted).
inline PhaseSegment seg(double begin, double end, Phase phase, bool interrupted = false)
{
  PhaseSegment s;
  s.t_begin = begin;
  s.t_end = end;
  s.phase = phase;
  s.interrupted = interrupted;
  if (phase == Phase::Training)
    s.steps = static_cast<long>((end - begin) / kStep);
  return s;
}

}  // namespace fleetsim::models::testing

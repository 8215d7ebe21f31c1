#pragma once
// Named, seeded random streams. Every stochastic process draws from its own stream, derived from
// the run's root seed and the stream's name ("failures/faulty_gpu", "planned"), so that adding a
// cause or changing one rate does not reshuffle the draws of the others, and replica r of a sweep
// can reuse the same streams at every point (common random numbers).
//
// The generator is xoshiro256** seeded through splitmix64, and the distributions are written here
// rather than taken from <random>, whose distributions differ between standard libraries: the same
// seed gives the same numbers on every platform.

#include <cstdint>
#include <string_view>

namespace fleetsim::models {

class RandomStream {
public:
  RandomStream(std::uint64_t root_seed, std::string_view name);

  /// Uniform on [0, 1), 53 bits.
  double uniform();
  /// Exponential with the given rate (events per unit); +infinity when rate <= 0.
  double exponential(double rate);
  /// Uniform integer in [0, n); n > 0.
  std::uint64_t below(std::uint64_t n);
  std::uint64_t next();

private:
  std::uint64_t s_[4];
};

/// 64-bit FNV-1a of a name, used to derive stream seeds.
std::uint64_t stable_hash(std::string_view text);

}  // namespace fleetsim::models

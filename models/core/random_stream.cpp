#include "random_stream.hpp"

#include "check.hpp"

#include <cmath>
#include <limits>

namespace fleetsim::models {
namespace {

std::uint64_t splitmix64(std::uint64_t& x)
{
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

std::uint64_t stable_hash(std::string_view text)
{
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

RandomStream::RandomStream(std::uint64_t root_seed, std::string_view name)
{
  std::uint64_t x = root_seed;
  std::uint64_t mixed = splitmix64(x) ^ stable_hash(name);
  for (auto& word : s_)
    word = splitmix64(mixed);
}

std::uint64_t RandomStream::next()
{
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double RandomStream::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

double RandomStream::exponential(double rate)
{
  if (rate <= 0)
    return std::numeric_limits<double>::infinity();
  // 1 - u lies in (0, 1], so the logarithm is finite.
  return -std::log(1.0 - uniform()) / rate;
}

std::uint64_t RandomStream::below(std::uint64_t n)
{
  FLEETSIM_CHECK(n > 0, "below(0) has no valid result");
  // Lemire's nearly-divisionless method would be faster; rejection keeps it exact and simple.
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % n;
  std::uint64_t r = next();
  while (r >= limit)
    r = next();
  return r % n;
}

}  // namespace fleetsim::models

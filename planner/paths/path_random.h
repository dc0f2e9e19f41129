// The random numbers of the path search, identical on every platform: splitmix64 for the
// stream, integer arithmetic for every draw (the standard library's distributions are
// implementation-defined), and Boltzmann weights from a fixed table of powers of two
// instead of exp(), whose last bits differ between C libraries. A seed therefore gives
// the same path on any machine.
#pragma once

#include <cstdint>
#include <vector>

namespace eindecomp {

class PathRandom {
 public:
  explicit PathRandom(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  // Uniform in [0, n), n >= 1 (the high half of a 128-bit product: no modulo bias worth
  // naming at these n).
  uint64_t below(uint64_t n) { return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64); }

  // Index drawn with probability proportional to 2^(-energy[i] / 16) (a Boltzmann weight
  // with the energies already divided by the temperature and scaled by 16 / ln 2);
  // energies are clamped to 1023.
  std::size_t boltzmann(const std::vector<int>& energy);

 private:
  uint64_t state_;
};

// A 64-bit seed for one trial of a search seeded with `seed` (independent streams).
inline uint64_t trialSeed(uint64_t seed, uint64_t trial) {
  PathRandom r(seed ^ (trial * 0xd1342543de82ef95ULL));
  return r.next();
}

}  // namespace eindecomp

#include "planner/paths/path_random.h"

#include <algorithm>

namespace eindecomp {

namespace {

// round(2^58 * 2^(-j/16)) for j = 0..15.
constexpr uint64_t kPowersOfTwo[16] = {
    0x400000000000000ULL, 0x3d495f454921b31ULL, 0x3ab031b9f7490e5ULL, 0x383337bb0aa5384ULL,
    0x35d13f32b5a75acULL, 0x3389230547e1204ULL, 0x3159ca845541b6bULL, 0x2f4228e7d6030dbULL,
    0x2d413cccfe77992ULL, 0x2b560fba90a852bULL, 0x297fb5aa6c544e4ULL, 0x27bd4c982468447ULL,
    0x260dfc14636e2a6ULL, 0x2470f4dceac470dULL, 0x22e57078faa2f5cULL, 0x216ab0d9f3121ecULL,
};

uint64_t weightOf(int energy) {
  const int e = std::clamp(energy, 0, 1023);
  return kPowersOfTwo[e % 16] >> (e / 16);
}

}  // namespace

std::size_t PathRandom::boltzmann(const std::vector<int>& energy) {
  unsigned __int128 total = 0;
  for (int e : energy) total += weightOf(e);
  if (total == 0) return 0;
  // A uniform draw in [0, total) from 128 random bits (total < 2^65).
  const unsigned __int128 wide = (static_cast<unsigned __int128>(next()) << 64) | next();
  unsigned __int128 r = wide % total;
  for (std::size_t i = 0; i < energy.size(); ++i) {
    const uint64_t w = weightOf(energy[i]);
    if (r < w) return i;
    r -= w;
  }
  return energy.size() - 1;
}

}  // namespace eindecomp

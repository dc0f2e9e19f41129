#include "einrt/program/streaming_stores.h"

#include <cstdlib>

namespace einrt::program {

int64_t streamBytes() {
  static const int64_t bytes = [] {
    const char* env = std::getenv("EINRT_STREAM_BYTES");
    return env ? std::atoll(env) : int64_t{16} << 20;
  }();
  return bytes;
}

}  // namespace einrt::program

// The CUDA memory space (built only with the CUDA backend): random layout pairs with every
// block in device memory, packed and combined by einrt's kernels and moved over pinned
// staging (or CUDA-aware MPI where the probe allows), compared with the serial reference.
// On a machine without a GPU the case reports that and checks nothing else.
#include <cuda_runtime_api.h>
#include <doctest/doctest.h>

#include <einrt/cuda_device.h>

#include "tests/runtime/test_support.h"

using namespace einrt_test;

namespace {
// Device copies of a rank's host blocks (same block numbers).
struct DeviceBlocks {
  std::map<std::size_t, std::pair<void*, std::size_t>> blocks;  // block -> (pointer, bytes)
  einrt::BlockMap map;
  DeviceBlocks(const HostBlocks& host, einrt::DType dtype) {
    for (const auto& [b, ptr] : host.map) {
      const std::size_t bytes = dtype == einrt::DType::F64 ? host.f64[b].size() * 8 : host.f32[b].size() * 4;
      void* device = nullptr;
      REQUIRE(cudaMalloc(&device, bytes) == cudaSuccess);
      REQUIRE(cudaMemcpy(device, ptr, bytes, cudaMemcpyHostToDevice) == cudaSuccess);
      blocks[b] = {device, bytes};
      map[b] = device;
    }
  }
  void copyBack(HostBlocks& host) const {
    for (const auto& [b, entry] : blocks)
      REQUIRE(cudaMemcpy(host.map.at(b), entry.first, entry.second, cudaMemcpyDeviceToHost) == cudaSuccess);
  }
  ~DeviceBlocks() {
    for (const auto& [b, entry] : blocks) cudaFree(entry.first);
  }
};
}  // namespace

TEST_CASE("device buffers: random layout pairs match the serial reference") {
  einrt::Communicator comm(MPI_COMM_WORLD);
  const int p = comm.size(), me = comm.rank();
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) devices = 0;
  int fewest = devices;
  MPI_Allreduce(&devices, &fewest, 1, MPI_INT, MPI_MIN, comm.get());
  if (fewest == 0) {
    if (me == 0) MESSAGE("no CUDA device visible: the device-buffer path is not exercised on this machine");
    return;
  }
  REQUIRE(cudaSetDevice(me % devices) == cudaSuccess);
  std::mt19937_64 rng(baseSeed * 1000 + 700 + p);
  for (int c = 0; c < 40; ++c) {
    const std::vector<int64_t> shape = randomShape(rng);
    const einrt::Layout src = randomLayout(rng, shape, p, true);
    const einrt::Layout dst = randomLayout(rng, shape, p, false);
    const einrt::DType dtype = rng() % 2 ? einrt::DType::F64 : einrt::DType::F32;
    const uint64_t key = rng();
    CAPTURE(c);
    INFO("src: " << describe(src));
    INFO("dst: " << describe(dst));
    const std::vector<double> reference = referenceTensor(src, key);
    for (einrt::Transport transport : {einrt::Transport::Auto, einrt::Transport::PointToPoint}) {
      HostBlocks in = makeSourceBlocks(src, dtype, me, key);
      HostBlocks out = makeEmptyBlocks(dst, dtype, me, 12345.5);
      DeviceBlocks deviceIn(in, dtype), deviceOut(out, dtype);
      einrt::RedistributeOptions options;
      options.transport = transport;
      options.memory = einrt::MemorySpace::Cuda;
      options.device = &einrt::cudaDevice();
      comm.resetCounters();
      auto plan = einrt::planRedistribute(comm, "G", src, dst, dtype, options);
      plan.execute(deviceIn.map, deviceOut.map);
      deviceOut.copyBack(out);
      CHECK(countMismatches(dst, out, dtype, me, reference) == 0);
      CHECK(comm.totalBytesSentAllRanks() == impliedBytes(src, dst, dtype, p).total);
    }
  }
}

// Exceptions thrown by einrt. LayoutError: a layout or a (source, destination) pair that
// cannot describe the tensor (raised while planning, before any message is sent).
// CommError: an MPI call failed (the communicator returns errors instead of aborting);
// its message names the collective, the peer rank and the tensor.
#pragma once

#include <stdexcept>
#include <string>

namespace einrt {

class LayoutError : public std::invalid_argument {
 public:
  LayoutError(const std::string& tensor, const std::string& what);
  const std::string& tensor() const { return tensor_; }

 private:
  std::string tensor_;
};

class CommError : public std::runtime_error {
 public:
  // peer < 0 means the failing call was a collective over several ranks.
  CommError(const std::string& collective, int peer, const std::string& tensor, int mpiError,
            const std::string& detail);
  const std::string& collective() const { return collective_; }
  int peer() const { return peer_; }
  const std::string& tensor() const { return tensor_; }
  int mpiError() const { return mpiError_; }

 private:
  std::string collective_;
  int peer_;
  std::string tensor_;
  int mpiError_;
};

}  // namespace einrt

// Message formatting for einrt's exceptions: one place decides how failures read.
#include "einrt/errors.h"

namespace einrt {

LayoutError::LayoutError(const std::string& tensor, const std::string& what)
    : std::invalid_argument("einrt: tensor '" + tensor + "': " + what), tensor_(tensor) {}

namespace {
std::string commMessage(const std::string& collective, int peer, const std::string& tensor,
                        const std::string& detail) {
  std::string where = peer >= 0 ? " with peer rank " + std::to_string(peer) : " (collective over the group)";
  return "einrt: " + collective + " of tensor '" + tensor + "' failed" + where + ": " + detail;
}
}  // namespace

CommError::CommError(const std::string& collective, int peer, const std::string& tensor, int mpiError,
                     const std::string& detail)
    : std::runtime_error(commMessage(collective, peer, tensor, detail)),
      collective_(collective),
      peer_(peer),
      tensor_(tensor),
      mpiError_(mpiError) {}

}  // namespace einrt

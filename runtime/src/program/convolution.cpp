#include "einrt/program/convolution.h"

#include <atomic>

namespace einrt::program {

namespace {

std::atomic<ConvolutionFn> provider{nullptr};
const char* providerName = "";
std::atomic<bool> ranProvider{false}, ranLoops{false};

}  // namespace

void setConvolution(ConvolutionFn fn, const char* name) {
  providerName = name ? name : "";
  provider = fn;
}

ConvolutionFn convolutionProvider() { return provider.load(); }

void noteConvolutionPath(bool byProvider) { (byProvider ? ranProvider : ranLoops) = true; }

std::string convolutionPath() {
  std::string path;
  if (ranProvider) path = providerName;
  if (ranLoops) path += std::string(path.empty() ? "" : "+") + "loops";
  return path;
}

}  // namespace einrt::program

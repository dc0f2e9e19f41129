#include "codegen/render/locations.h"

#include <filesystem>

namespace eindecomp::codegen {

ToolLocations locateToolFiles() {
  namespace fs = std::filesystem;
  ToolLocations loc{EINCODEGEN_SOURCE_TEMPLATE_DIR, EINCODEGEN_EINRT_BUILD_DIR};
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return loc;
  const fs::path prefix = exe.parent_path().parent_path();
  const fs::path templates = prefix / EINCODEGEN_INSTALL_DATADIR / "eindecomp" / "templates";
  const fs::path einrt = prefix / EINCODEGEN_INSTALL_LIBDIR / "cmake" / "einrt";
  if (fs::exists(templates / "program.cpp.tpl", ec)) loc.templateDir = templates.string();
  if (fs::exists(einrt / "einrtConfig.cmake", ec)) loc.einrtDir = einrt.string();
  return loc;
}

}  // namespace eindecomp::codegen

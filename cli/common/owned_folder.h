// A folder a tool owns: eincodegen's projects (`-o DIR`) and einplan import's weights
// (`--weights DIR`). The files are written whole or not at all (output_folder.h: staged,
// then renamed; a failure leaves DIR as it was). DIR may be missing, empty, or one the
// same tool wrote before — recognised by its marker file, which lists the files it wrote;
// anything else (a non-empty folder of the user's) is refused unless `--force`. Inside
// its own folder the tool replaces only the files its marker lists: a file the user put
// there under a name this write would take is refused too (without `--force`), and files
// of an earlier write that this one no longer writes (an earlier model's weights, a
// backend no longer emitted) are removed; nothing else is touched.
#pragma once

#include <map>
#include <string>

namespace eindecomp::cli {

struct OwnedFolder {
  std::string option;   // names the folder in messages ("-o", "--weights")
  std::string what;     // what the folder holds, in messages ("the project", "the weights")
  std::string tool;     // who writes it, in messages ("eincodegen", "einplan import")
  std::string marker;   // the marker's file name (".eincodegen")
  bool keepUnchanged = false;  // leave a file already holding its new contents alone (its date kept)
};

// `files`: name -> contents, the marker added here. `provenance`: a line for the marker.
void writeOwnedFolder(const std::string& folder, const std::map<std::string, std::string>& files,
                      const std::string& provenance, const OwnedFolder& how, bool force);

}  // namespace eindecomp::cli

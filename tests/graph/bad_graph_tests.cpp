// Every malformed graph of bad_graph_cases.h, through the library and through the built
// `einplan check`: exit status 2, `FILE:LINE:COL: error:` on stderr with the expected
// line and words, nothing on stdout.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "bad_graph_cases.h"
#include "planner/graph/load.h"

using namespace eindecomp;
namespace fs = std::filesystem;

namespace {

// A fresh folder with every case written as a file, removed at the end.
struct CaseFolder {
  fs::path dir;
  CaseFolder() {
    dir = fs::temp_directory_path() / ("eindecomp-bad-graphs-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    for (const auto& c : badGraphCases()) std::ofstream(dir / c.name, std::ios::binary) << c.text;
  }
  ~CaseFolder() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("malformed graphs are rejected by the loader with their place and reason") {
  CaseFolder folder;
  for (const auto& c : badGraphCases()) {
    CAPTURE(std::string(c.name));
    const std::string path = (folder.dir / c.name).string();
    try {
      loadGraphFile(path);
      FAIL("accepted a malformed graph");
    } catch (const InputError& e) {
      const Diagnostic& d = e.diagnostic();
      CAPTURE(d.message);
      CHECK(e.exitCode() == kExitBadInput);
      CHECK(d.loc.file == path);
      if (c.line > 0) CHECK(d.loc.line == c.line);
      if (c.col > 0) CHECK(d.loc.col == c.col);
      for (const auto& w : c.words) CHECK_MESSAGE(d.message.find(w) != std::string::npos, "missing words: " << w);
    }
  }
}

TEST_CASE("cli: einplan check exits 2 on malformed graphs, prints FILE:LINE:COL and writes nothing" *
          doctest::test_suite("cli")) {
  CaseFolder folder;
  const fs::path out = folder.dir / "stdout.txt", err = folder.dir / "stderr.txt";
  for (const auto& c : badGraphCases()) {
    CAPTURE(std::string(c.name));
    const std::string path = (folder.dir / c.name).string();
    const std::string command = std::string("'") + EINPLAN_EXE + "' check '" + path + "' >'" + out.string() +
                                "' 2>'" + err.string() + "'";
    const int status = std::system(command.c_str());
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 2);
    CHECK(readFile(out).empty());
    const std::string message = readFile(err);
    CAPTURE(message);
    std::string place = path + ":";
    if (c.line > 0) place += std::to_string(c.line) + ":";
    if (c.col > 0) place += std::to_string(c.col) + ":";
    CHECK(message.rfind(place, 0) == 0);
    CHECK(message.find(": error: ") != std::string::npos);
    for (const auto& w : c.words) CHECK_MESSAGE(message.find(w) != std::string::npos, "missing words: " << w);
  }
}

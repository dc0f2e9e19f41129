// The edge where errors become exit codes: every command body runs inside
// runCommand, which prints an InputError as `FILE:LINE:COL: error: ...` on stderr and
// returns its exit code, and maps other exceptions to exit 2 with their message.
// Output files are written through writeFileAtomically so that a failing command
// leaves nothing half-written.
#pragma once

#include <functional>
#include <string>

namespace eindecomp::cli {

int runCommand(const std::function<int()>& body);

// Before any work: InputError (exit 2) naming `option` where `path` cannot be written (no
// such folder, a folder, /dev/full, ...); a warning where it is a FIFO nobody reads yet.
// "-" (standard output) passes.
void checkOutputFile(const std::string& path, const std::string& option);

// Writes `contents` to `path` via a temporary file in the same folder and a rename.
// "-" writes to standard output.
void writeFileAtomically(const std::string& path, const std::string& contents);

// The command line as typed, for provenance (set once in main): the arguments separated
// by spaces, each quoted for a POSIX shell where it needs quotes, so it can be run again.
void setCommandLine(int argc, char** argv);

// Turns off glibc's fastbins for this process. Planning and emitting a large graph
// allocate millions of small strings and vectors between larger buffers; every larger
// request made glibc consolidate the fastbins again (malloc_consolidate: 13 % of a
// 100,000-node plan, perf, 2026-11-27). Without them (the per-thread tcache still serves
// small sizes) that plan takes 11 s, not 14, and its emitted project 13 s, not 16.
void tuneAllocatorForLargeGraphs();
const std::string& commandLine();

// `arg` as a POSIX shell reads it back: as is when it holds only characters the shell
// leaves alone, else in single quotes.
std::string shellWord(const std::string& arg);

}  // namespace eindecomp::cli

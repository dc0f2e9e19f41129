// Untrusted text in diagnostics (planner/graph/excerpt.h): excerpts are bounded, one line
// and valid UTF-8 whatever the input held, and every InputError applies the same bound to
// its whole message and file name.
#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <string>

#include "planner/graph/diagnostic.h"
#include "planner/graph/einsum_parser.h"
#include "planner/graph/excerpt.h"
#include "planner/graph/expr_parser.h"
#include "planner/graph/load.h"

using namespace eindecomp;

namespace {

// Strict UTF-8 validation, written independently of excerpt.cpp: overlong forms,
// surrogates and code points above U+10FFFF are invalid.
bool validUtf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    std::size_t n = 0;
    uint32_t cp = 0;
    if (c < 0x80) n = 1, cp = c;
    else if ((c & 0xe0) == 0xc0) n = 2, cp = c & 0x1f;
    else if ((c & 0xf0) == 0xe0) n = 3, cp = c & 0x0f;
    else if ((c & 0xf8) == 0xf0) n = 4, cp = c & 0x07;
    else return false;
    if (i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k) {
      const unsigned char d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += n;
  }
  return true;
}

bool hasControl(const std::string& s, bool allowNewline) {
  for (unsigned char c : s)
    if ((c < 0x20 && !(allowNewline && (c == '\n' || c == '\t'))) || c == 0x7f) return true;
  return false;
}

}  // namespace

TEST_CASE("quoted: short text whole, escaped, valid UTF-8") {
  struct Row {
    std::string in, out;
  };
  const Row rows[] = {
      {"abc", "'abc'"},
      {"it's", "'it\\'s'"},
      {"a\nb\tc\\", "'a\\nb\\tc\\\\'"},
      {"\x1b[31mred", "'\\x1b[31mred'"},
      {"caf\xc3\xa9", "'caf\xc3\xa9'"},                 // é stays
      {"\xe2\x82\xac", "'\xe2\x82\xac'"},              // € stays
      {"\xf0\x9f\x98\x80", "'\xf0\x9f\x98\x80'"},      // an emoji stays
      {"a\xff" "b", "'a\\xffb'"},                       // invalid byte
      {"\xc0\xaf", "'\\xc0\\xaf'"},                     // overlong '/'
      {"\xed\xa0\x80", "'\\xed\\xa0\\x80'"},            // a surrogate
      {"\xc3", "'\\xc3'"},                              // cut sequence
      {"\xc2\x9b" "2J", "'\\xc2\\x9b2J'"},              // C1 control (CSI)
      {std::string("a\0b", 3), "'a\\x00b'"},
  };
  for (const auto& r : rows) {
    CAPTURE(r.in);
    CHECK(quoted(r.in) == r.out);
    CHECK(validUtf8(quoted(r.in)));
  }
}

TEST_CASE("quoted: long text keeps its ends and says its length") {
  const std::string big = "ij," + std::string(10 << 20, 'k') + ",jk->ik";
  const std::string q = quoted(big);
  CHECK(q.size() < 2 * kMaxExcerptBytes);
  CHECK(q.rfind("'ij,kkk", 0) == 0);
  CHECK(q.find("...") != std::string::npos);
  CHECK(q.find(",jk->ik' (" + std::to_string(big.size()) + " bytes)") != std::string::npos);
  // A multi-byte character at the cut is never split.
  std::string euros;
  for (int i = 0; i < 200; ++i) euros += "\xe2\x82\xac";
  CHECK(validUtf8(quoted(euros)));
  CHECK(quoted(euros).find("\\x") == std::string::npos);
  for (int cut = 0; cut < 4; ++cut) CHECK(validUtf8(quoted(std::string(cut, 'a') + euros)));
}

TEST_CASE("boundedMessage: newline kept, controls escaped, middle left out") {
  CHECK(boundedMessage("line 1\nline 2\tx") == "line 1\nline 2\tx");
  CHECK(boundedMessage("a\rb\x1b") == "a\\x0db\\x1b");
  const std::string big(1 << 20, 'x');
  const std::string m = boundedMessage(big + "END");
  CHECK(m.size() < kMaxMessageBytes + 100);
  CHECK(m.find("bytes left out") != std::string::npos);
  CHECK(m.substr(m.size() - 3) == "END");
  CHECK(oneLine("a\nb\xff") == "a\\x0ab\\xff");
}

TEST_CASE("every InputError is bounded and valid UTF-8, whatever its parts held") {
  const std::string hostile = std::string(5 << 20, 'q') + "\xff\x1b";
  const InputError e({{"dir\xfe/g.yaml", 3, 4}, "unknown field " + hostile});
  const std::string what = e.what();
  CHECK(what.size() < kMaxMessageBytes + 200);
  CHECK(validUtf8(what));
  CHECK_FALSE(hasControl(what, false));
  CHECK(what.rfind("dir\\xfe/g.yaml:3:4: error: unknown field qqq", 0) == 0);
  CHECK(validUtf8(e.diagnostic().message));
  CHECK(e.diagnostic().message.size() < kMaxMessageBytes + 100);
}

TEST_CASE("parser errors quote a bounded excerpt of a 10 MB input") {
  const std::string longEinsum = std::string(10 << 20, 'i') + "->\xff";
  const std::string longExpr = "x + " + std::string(10 << 20, '(') + "\xff";
  const std::string longYaml = "name: " + std::string(10 << 20, 'a') + "\xfe\nnodes: []\ninputs: []\n";
  const std::string longJson = "{\"name\": \"" + std::string(10 << 20, 'a') + "\xfe\"}";
  struct Row {
    const char* what;
    std::function<void()> run;
  };
  const Row rows[] = {
      {"einsum", [&] { parseEinsum(longEinsum); }},
      {"expression", [&] { parseExpr(longExpr); }},
      {"YAML graph", [&] { loadGraphText(longYaml, "g.yaml", GraphFormat::Yaml); }},
      {"JSON graph", [&] { loadGraphText(longJson, "g.json", GraphFormat::Json); }},
  };
  for (const auto& r : rows) {
    CAPTURE(r.what);
    try {
      r.run();
      FAIL("no error");
    } catch (const InputError& e) {
      const std::string what = e.what();
      CAPTURE(what.substr(0, 300));
      CHECK(what.size() < 2048);
      CHECK(validUtf8(what));
      CHECK_FALSE(hasControl(what, false));
    }
  }
}

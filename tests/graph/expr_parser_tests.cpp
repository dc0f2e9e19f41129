// The join expression parser: precedence and associativity against hand-written
// canonical forms, named joins against their definitions in SPEC 1, errors with their
// columns, and a seeded random round trip through the printer (expr.cpp) and back.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "planner/graph/expr_parser.h"

// Names brought in one by one: a using-directive would let eindecomp::toString hijack
// doctest's own unqualified toString calls.
using eindecomp::Expr;
using eindecomp::InputError;
using eindecomp::namedJoin;
using eindecomp::namedJoinNames;
using eindecomp::parseExpr;
using eindecomp::SourceLoc;

TEST_CASE("expressions parse with the usual precedence and associativity") {
  struct Case {
    const char* text;
    const char* canonical;  // written by hand, fully parenthesised
  };
  const std::vector<Case> cases = {
      {"x", "x"},
      {"y", "y"},
      {"2", "2"},
      {"0.5", "0.5"},
      {".25", "0.25"},
      {"1e3", "1000"},
      {"2.5E-1", "0.25"},
      {"x * y", "(x * y)"},
      {"x + y * 2", "(x + (y * 2))"},
      {"(x + y) * 2", "((x + y) * 2)"},
      {"x - y - 1", "((x - y) - 1)"},
      {"x / y / 2", "((x / y) / 2)"},
      {"x - y * 3 / 2 + 1", "((x - ((y * 3) / 2)) + 1)"},
      {"-x", "(-x)"},
      {"--x", "(-(-x))"},
      {"-x * y", "((-x) * y)"},
      {"x * -y", "(x * (-y))"},
      {"2 - -x", "(2 - (-x))"},
      {"-(x + y)", "(-(x + y))"},
      {"exp(x - y)", "exp((x - y))"},
      {"max(x, y)", "max(x, y)"},
      {"pow(x, 2) + sqrt(y)", "(pow(x, 2) + sqrt(y))"},
      {"relu(x) * sigmoid(y)", "(relu(x) * sigmoid(y))"},
      {"rsqrt(abs(tanh(x)) + log(y))", "rsqrt((abs(tanh(x)) + log(y)))"},
      {"min(max(x, 0), 6)", "min(max(x, 0), 6)"},
      {"  x*y  ", "(x * y)"},
      {"x*rsqrt(16)", "(x * rsqrt(16))"},
  };
  for (const auto& c : cases) {
    CAPTURE(std::string(c.text));
    CHECK(eindecomp::toString(parseExpr(c.text)) == c.canonical);
  }
}

TEST_CASE("named joins expand to their SPEC 1 definitions") {
  struct Case {
    const char* name;
    const char* expression;  // the same join written as an expression
  };
  const std::vector<Case> cases = {
      {"mul", "x * y"},   {"add", "x + y"},     {"sub", "x - y"},
      {"div", "x / y"},   {"max", "max(x, y)"}, {"min", "min(x, y)"},
      {"sqdiff", "(x - y) * (x - y)"},          {"absdiff", "abs(x - y)"},
  };
  CHECK(namedJoinNames().size() == cases.size());
  for (const auto& c : cases) {
    CAPTURE(std::string(c.name));
    REQUIRE(namedJoin(c.name).has_value());
    CHECK_MESSAGE((*namedJoin(c.name) == parseExpr(c.expression)), eindecomp::toString(*namedJoin(c.name)) << " vs " << eindecomp::toString(parseExpr(c.expression)));
  }
  CHECK_FALSE(namedJoin("x").has_value());
  CHECK_FALSE(namedJoin("mull").has_value());
}

TEST_CASE("bad expressions name the column within the expression and in the file") {
  struct Case {
    const char* text;
    int column;  // 1-based, within the expression
    const char* words;
  };
  const std::vector<Case> cases = {
      {"", 1, "empty expression"},
      {"exp(x - )", 9, "expected a number"},
      {"x +", 4, "the expression ends"},
      {"x y", 3, "after a complete expression"},
      {"(x + y", 7, "expected ')'"},
      {"foo(x)", 1, "unknown function 'foo'"},
      {"exq(x)", 1, "did you mean 'exp'"},
      {"max(x)", 1, "takes 2 arguments, not 1"},
      {"exp(x, y)", 1, "takes 1 argument, not 2"},
      {"z * 2", 1, "unknown name 'z'"},
      {"x * relu", 5, "needs its arguments"},
      {"x ; y", 3, "unexpected ';'"},
      {"x * 2a", 5, "bad number"},
      {"1e", 1, "bad exponent"},
      {"1e999", 1, "out of range"},
      {"max(x y)", 7, "expected ',' or ')'"},
      {"x * 'y'", 5, "found '\\''"},
  };
  for (const auto& c : cases) {
    CAPTURE(std::string(c.text));
    try {
      parseExpr(c.text, SourceLoc{"g.yaml", 7, 20});
      FAIL("accepted a bad expression");
    } catch (const InputError& e) {
      CHECK(e.exitCode() == 2);
      CHECK(e.diagnostic().loc.file == "g.yaml");
      CHECK(e.diagnostic().loc.line == 7);
      CHECK(e.diagnostic().loc.col == 20 + c.column - 1);
      CHECK(e.diagnostic().message.find(c.words) != std::string::npos);
      CHECK(e.diagnostic().message.find("at column " + std::to_string(c.column)) != std::string::npos);
    }
    // Without a known place the message still carries the column; the place stays unknown.
    try {
      parseExpr(c.text);
      FAIL("accepted a bad expression");
    } catch (const InputError& e) {
      CHECK(e.diagnostic().loc.col == 0);
    }
  }
}

// A random expression over every construct and every function of the table, for the
// round trip below; calls take the last three of the twelve choices.
static Expr randomExpr(std::mt19937_64& rng, int depth) {
  std::uniform_int_distribution<int> pick(0, depth <= 0 ? 3 : 11);
  const auto functions = eindecomp::scalarFunctions();
  switch (pick(rng)) {
    case 0: return Expr::x();
    case 1: return Expr::y();
    case 2: return Expr::num(std::uniform_real_distribution<double>(0, 1000)(rng));
    case 3: return Expr::num(std::numeric_limits<double>::infinity());
    case 4: return Expr::unary(Expr::Kind::Neg, randomExpr(rng, depth - 1));
    case 5: return Expr::binary(Expr::Kind::Add, randomExpr(rng, depth - 1), randomExpr(rng, depth - 1));
    case 6: return Expr::binary(Expr::Kind::Sub, randomExpr(rng, depth - 1), randomExpr(rng, depth - 1));
    case 7: return Expr::binary(Expr::Kind::Mul, randomExpr(rng, depth - 1), randomExpr(rng, depth - 1));
    case 8: return Expr::binary(Expr::Kind::Div, randomExpr(rng, depth - 1), randomExpr(rng, depth - 1));
    default: {
      const auto& f = functions[std::uniform_int_distribution<std::size_t>(0, functions.size() - 1)(rng)];
      std::vector<Expr> args;
      for (std::size_t i = 0; i < f.arity; ++i) args.push_back(randomExpr(rng, depth - 1));
      return Expr::call(f.function, std::move(args));
    }
  }
}

TEST_CASE("printed expressions parse back to the same tree (seeded random)") {
  const uint64_t seed = std::random_device{}();
  MESSAGE("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 500; ++i) {
    const Expr e = randomExpr(rng, 5);
    const std::string text = eindecomp::toString(e);
    CAPTURE(text);
    CHECK_MESSAGE((parseExpr(text) == e), eindecomp::toString(parseExpr(text)) << " vs " << eindecomp::toString(e));
  }
}

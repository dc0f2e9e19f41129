// Parsing a node's `join` (SPEC 1) into the Expr tree of expr.h: either a named join
// (mul add sub div max min sqdiff absdiff), expanded here into its expression, or a
// scalar expression over x and y read by a small recursive-descent parser:
//
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/') unary)*
//   unary   := '-' unary | primary
//   primary := NUMBER | 'inf' | 'x' | 'y' | FUNCTION '(' expr (',' expr)* ')' | '(' expr ')'
//
// FUNCTION is a name of the table in scalar_functions.h, called with exactly its arity.
// NUMBER is decimal with an optional fraction and exponent (2, 0.5, .5, 1e-3); 'inf' is
// infinity (-inf is unary minus applied to it), so masks such as where(y, x, -inf) can be
// written. There is no NaN literal.
// The loader, the fuzzers and later stages all call these, so there is one grammar.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "planner/graph/diagnostic.h"
#include "planner/graph/expr.h"

namespace eindecomp {

// The most operands, unary minus signs and nesting levels one expression may hold. It
// keeps the parser's recursion and every later recursive walk of the tree shallow,
// whatever a graph file contains; real joins use a handful.
inline constexpr std::size_t kMaxExprOperands = 1000;

// Parses `text` as a scalar expression. On error throws InputError whose message names
// the column within the expression; `where` is the place of the expression's first
// character in its file: when its line and column are known the diagnostic points at
// the exact column in the file, otherwise at `where` as given.
Expr parseExpr(const std::string& text, const SourceLoc& where = {});

// The named joins, in the order SPEC 1 lists them.
const std::vector<std::string>& namedJoinNames();

// The expression a named join stands for (mul -> x * y, sqdiff -> (x - y) * (x - y),
// absdiff -> abs(x - y), max -> max(x, y), ...); nullopt for any other text.
std::optional<Expr> namedJoin(const std::string& name);

// True for the words the grammar gives a meaning: x, y, inf and the function names. The
// loader uses it to tell a misspelt named join from an expression.
bool isExpressionWord(const std::string& word);

}  // namespace eindecomp

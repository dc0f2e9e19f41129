#include "planner/graph/expr_parser.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "planner/graph/identifiers.h"

namespace eindecomp {

namespace {

class ExprParser {
 public:
  ExprParser(const std::string& text, const SourceLoc& where) : text_(text), where_(where) {}

  Expr parseAll() {
    skipSpace();
    if (pos_ == text_.size()) fail("empty expression", pos_);
    Expr e = parseSum();
    skipSpace();
    if (pos_ != text_.size()) fail("unexpected " + quoted(text_.substr(pos_, 1)) + " after a complete expression", pos_);
    return e;
  }

 private:
  [[noreturn]] void fail(const std::string& what, std::size_t at) const {
    SourceLoc loc = where_;
    if (loc.line > 0 && loc.col > 0) loc.col += static_cast<int>(at);
    throw InputError({loc, "bad expression " + quoted(text_) + ": " + what + " at column " +
                               std::to_string(at + 1) + " of the expression"});
  }

  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  bool accept(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  Expr parseSum() {
    Expr left = parseProduct();
    for (;;) {
      if (accept('+')) left = Expr::binary(Expr::Kind::Add, std::move(left), parseProduct());
      else if (accept('-')) left = Expr::binary(Expr::Kind::Sub, std::move(left), parseProduct());
      else return left;
    }
  }

  Expr parseProduct() {
    Expr left = parseUnary();
    for (;;) {
      if (accept('*')) left = Expr::binary(Expr::Kind::Mul, std::move(left), parseUnary());
      else if (accept('/')) left = Expr::binary(Expr::Kind::Div, std::move(left), parseUnary());
      else return left;
    }
  }

  // Every operand, unary minus and nesting level passes here once, so counting the
  // visits bounds both the parser's recursion and the size (hence depth) of the tree
  // that the evaluator and the code generator later walk recursively.
  Expr parseUnary() {
    if (++operands_ > kMaxExprOperands)
      fail("expression too large: more than " + std::to_string(kMaxExprOperands) +
               " operands, signs and nesting levels",
           pos_);
    if (accept('-')) return Expr::unary(Expr::Kind::Neg, parseUnary());
    return parsePrimary();
  }

  Expr parsePrimary() {
    skipSpace();
    if (pos_ == text_.size()) fail("expected a number, x, y, a function or '(' but the expression ends", pos_);
    const char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      Expr inner = parseSum();
      if (!accept(')')) fail("expected ')'", pos_);
      return inner;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return parseNumber();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return parseNameOrCall();
    fail("expected a number, x, y, a function or '(' but found " + quoted(std::string(1, c)), pos_);
  }

  Expr parseNumber() {
    const std::size_t start = pos_;
    auto digits = [&] {
      std::size_t n = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_, ++n;
      return n;
    };
    std::size_t mantissa = digits();
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      mantissa += digits();
    }
    if (mantissa == 0) fail("bad number", start);
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (digits() == 0) fail("bad exponent in number", start);
    }
    if (pos_ < text_.size() && (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      fail("bad number " + quoted(text_.substr(start, pos_ - start + 1)), start);
    const std::string literal = text_.substr(start, pos_ - start);
    errno = 0;
    double value = std::strtod(literal.c_str(), nullptr);
    if (errno == ERANGE && !std::isfinite(value)) fail("number " + quoted(literal) + " is out of range", start);
    return Expr::num(value);
  }

  Expr parseNameOrCall() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    const std::string name = text_.substr(start, pos_ - start);
    skipSpace();
    const bool call = pos_ < text_.size() && text_[pos_] == '(';
    const ScalarFunctionInfo* function = findScalarFunction(name);
    if (!call) {
      if (name == "x") return Expr::x();
      if (name == "y") return Expr::y();
      if (name == "inf") return Expr::num(std::numeric_limits<double>::infinity());
      if (function) fail("function " + quoted(name) + " needs its arguments in parentheses", start);
      fail("unknown name " + quoted(name) + " (use x for the first operand and y for the second)", start);
    }
    if (!function) fail("unknown function " + quoted(name) + didYouMean(name, scalarFunctionNames()), start);
    ++pos_;  // '('
    std::vector<Expr> args;
    args.push_back(parseSum());
    while (accept(',')) args.push_back(parseSum());
    if (!accept(')')) fail("expected ',' or ')' in the arguments of " + quoted(name), pos_);
    if (args.size() != function->arity)
      fail("function " + quoted(name) + " takes " + std::to_string(function->arity) + " argument" +
               (function->arity == 1 ? "" : "s") + ", not " + std::to_string(args.size()),
           start);
    return Expr::call(function->function, std::move(args));
  }

  const std::string& text_;
  SourceLoc where_;
  std::size_t pos_ = 0;
  std::size_t operands_ = 0;
};

}  // namespace

Expr parseExpr(const std::string& text, const SourceLoc& where) { return ExprParser(text, where).parseAll(); }

bool isExpressionWord(const std::string& word) {
  return word == "x" || word == "y" || word == "inf" || findScalarFunction(word) != nullptr;
}

const std::vector<std::string>& namedJoinNames() {
  static const std::vector<std::string> names = {"mul", "add", "sub", "div", "max", "min", "sqdiff", "absdiff"};
  return names;
}

std::optional<Expr> namedJoin(const std::string& name) {
  using K = Expr::Kind;
  const Expr x = Expr::x(), y = Expr::y();
  if (name == "mul") return Expr::binary(K::Mul, x, y);
  if (name == "add") return Expr::binary(K::Add, x, y);
  if (name == "sub") return Expr::binary(K::Sub, x, y);
  if (name == "div") return Expr::binary(K::Div, x, y);
  if (name == "max") return Expr::call(ScalarFunction::Max, {x, y});
  if (name == "min") return Expr::call(ScalarFunction::Min, {x, y});
  if (name == "sqdiff") {
    Expr d = Expr::binary(K::Sub, x, y);
    return Expr::binary(K::Mul, d, d);
  }
  if (name == "absdiff") return Expr::call(ScalarFunction::Abs, {Expr::binary(K::Sub, x, y)});
  return std::nullopt;
}

}  // namespace eindecomp

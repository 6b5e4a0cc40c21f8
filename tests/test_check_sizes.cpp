// scripts/check-sizes.py (the house limits: 600 lines a file, 120 a function; CTest check_sizes runs it on
// the repository) fails, naming the file, the line, the function and its length, on one over them that no
// comment exempts; braces in strings, characters and comments, initializers and constructors' member
// initializers do not fool its brace matching.
#include <filesystem>
#include <string>

#include "tests/catch.hpp"
#include "tests/test_support.hpp"

namespace {

using warpsearch::test::CommandResult;
using warpsearch::test::put_file;
using warpsearch::test::run_shell;
using warpsearch::test::source_path;
using warpsearch::test::TempDir;

using warpsearch::test::contains;

CommandResult check_sizes(const std::string& root) {
  return run_shell("python3 '" + source_path("scripts/check-sizes.py") + "' '" + root + "'");
}

// `count` lines of statements.
std::string statements(int count, const std::string& line = "  x += 1;\n") {
  std::string text;
  for (int k = 0; k < count; ++k) text += line;
  return text;
}

// A function `name` of `length` lines, from the line of its `{` to the line of its `}`.
std::string function(const std::string& name, int length) {
  return "int " + name + "(int x) {\n" + statements(length - 3) + "  return x;\n}\n";
}

}  // namespace

TEST_CASE("check-sizes: a function of 121 lines fails with its file, line, name and length; 120 pass", "[sizes]") {
  TempDir tree;
  put_file(tree, "base/a.cpp",
           "namespace warpsearch {\n\n" + function("at_limit", 120) + "\n" + function("over", 121) + "\n}\n");
  const CommandResult result = check_sizes(tree.path());
  INFO(result.out);
  CHECK(result.exit_code == 1);
  CHECK(contains(result.out, "base/a.cpp:124: over: 121 lines (over 120)"));
  CHECK_FALSE(contains(result.out, "at_limit"));
}

TEST_CASE("check-sizes: braces in strings, characters, comments and raw strings are not counted", "[sizes]") {
  TempDir tree;
  const std::string tricky = "  const char* s = \"}}}\";\n  char c = '}';\n  // }}\n  /* } */\n  x += '{';\n";
  put_file(tree, "db/a.cpp",
           "namespace {\n\nint tricky(int x) {\n" + statements(30, tricky) + "  auto r = R\"(}\n}\n)\";\n" +
               statements(10) + "  return x;\n}\n\n}  // namespace\n");
  const CommandResult result = check_sizes(tree.path());
  INFO(result.out);
  CHECK(result.exit_code == 1);
  CHECK(contains(result.out, "db/a.cpp:3: tricky: 166 lines"));
}

TEST_CASE("check-sizes: TEST_CASEs, methods in classes and constructors count; initializers do not", "[sizes]") {
  TempDir tree;
  put_file(tree, "tests/test_a.cpp", "TEST_CASE(\"a long test\", \"[tag]\") {\n" + statements(130) + "}\n");
  put_file(tree, "core/b.hpp",
           "namespace warpsearch {\nclass Holder : public Base {\n public:\n  Holder(int y) : y_{y}, z_(y) {\n" +
               statements(125, "    y_ += 1;\n") + "  }\n  int method() const {\n" + statements(125, "    (void)0;\n") +
               "    return y_;\n  }\n private:\n  int y_, z_;\n};\n}  // namespace warpsearch\n");
  put_file(tree, "profile/c.cpp",
           "constexpr int kTable[] = {\n" + statements(200, "  1,\n") + "};\nstruct Point {\n" +
               statements(200, "  int member = 0;\n") + "};\n");
  const CommandResult result = check_sizes(tree.path());
  INFO(result.out);
  CHECK(result.exit_code == 1);
  CHECK(contains(result.out, "tests/test_a.cpp:1: TEST_CASE \"a long test\": 132 lines"));
  CHECK(contains(result.out, "core/b.hpp:4: Holder: 127 lines"));
  CHECK(contains(result.out, "core/b.hpp:131: method: 128 lines"));
  CHECK_FALSE(contains(result.out, "profile/c.cpp"));
}

TEST_CASE("check-sizes: 'stays one function' just above a function, or 'stays one file', exempts it", "[sizes]") {
  TempDir tree;
  put_file(tree, "kernels/gpu/k.cuh",
           "// The kernel stays one function on purpose: its registers live\n// across the loop.\ntemplate <int G>\n"
           "__global__ void kernel(int x) {\n" +
               statements(130) +
               "}\n\n// Not this one: stays one function is not said just above it.\n\nvoid other(int x) {\n" +
               statements(130) + "}\n");
  put_file(tree, "kernels/cpu/big.cpp", "// The table stays one file: generated.\n" + statements(700, "int v;\n"));
  put_file(tree, "kernels/cpu/bigger.cpp", statements(601, "int v;\n"));
  const CommandResult result = check_sizes(tree.path());
  INFO(result.out);
  CHECK(result.exit_code == 1);
  CHECK_FALSE(contains(result.out, "kernel:"));
  CHECK(contains(result.out, "kernels/gpu/k.cuh:139: other: 132 lines"));
  CHECK_FALSE(contains(result.out, "big.cpp"));
  CHECK(contains(result.out, "kernels/cpu/bigger.cpp: 601 lines (over 600)"));
}

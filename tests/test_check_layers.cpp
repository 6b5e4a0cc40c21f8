// scripts/check-layers.py (docs/architecture.md): the source tree keeps the layer order, and the check
// fails, naming the file, the line and the rule, on an include or a link that goes up or sideways.
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

CommandResult check_layers(const std::string& root) {
  return run_shell("python3 '" + source_path("scripts/check-layers.py") + "' '" + root + "'");
}

// A small tree that keeps the order: each layer includes its own headers and those below it.
void put_good_tree(const TempDir& tree) {
  put_file(tree, "base/text.hpp", "#pragma once\n#include <string>\n");
  put_file(tree, "core/alphabet.hpp", "#pragma once\n#include \"base/text.hpp\"\n");
  put_file(tree, "profile/scoring.hpp", "#pragma once\n#include \"core/alphabet.hpp\"\n");
  put_file(tree, "kernels/reference/reference.hpp", "#pragma once\n#include \"profile/scoring.hpp\"\n");
  put_file(tree, "kernels/cpu/striped.hpp", "#pragma once\n#include \"kernels/reference/reference.hpp\"\n");
  put_file(tree, "kernels/gpu/pair.cu",
           "#include \"kernels/reference/reference.hpp\"\n#include \"kernels/gpu/x.hpp\"\n");
  put_file(tree, "search/engine.cpp", "#include \"kernels/cpu/striped.hpp\"\n#include \"kernels/gpu/x.hpp\"\n");
  put_file(tree, "api/search.cpp", "#include \"warpsearch/search.hpp\"\n#include \"search/engine.hpp\"\n");
  put_file(tree, "db/CMakeLists.txt", "target_link_libraries(warpsearch_db PUBLIC warpsearch_core warpsearch_base)\n");
}

}  // namespace

TEST_CASE("check-layers: a tree that keeps the order passes", "[layers]") {
  TempDir tree;
  put_good_tree(tree);
  const CommandResult result = check_layers(tree.path());
  INFO(result.out);
  CHECK(result.exit_code == 0);
  CHECK(result.out.empty());
}

TEST_CASE("check-layers: an include that goes up fails with its file, line and rule", "[layers]") {
  TempDir tree;
  put_good_tree(tree);
  put_file(tree, "base/interrupt.cpp", "#include <csignal>\n#include \"core/alphabet.hpp\"\n");
  const CommandResult result = check_layers(tree.path());
  INFO(result.out);
  CHECK(result.exit_code == 1);
  CHECK(contains(result.out, "base/interrupt.cpp:2: #include \"core/alphabet.hpp\""));
  CHECK(contains(result.out, "core is up from base"));
}

TEST_CASE("check-layers: the GPU kernels may not include the CPU kernels (sideways)", "[layers]") {
  TempDir tree;
  put_good_tree(tree);
  put_file(tree, "kernels/gpu/xdrop.cu", "// X-drop\n\n#include \"kernels/cpu/striped.hpp\"\n");
  const CommandResult result = check_layers(tree.path());
  INFO(result.out);
  CHECK(result.exit_code == 1);
  CHECK(contains(result.out, "kernels/gpu/xdrop.cu:3:"));
  CHECK(contains(result.out, "kernels/cpu is sideways from kernels/gpu"));
}

TEST_CASE("check-layers: an include path that names no layer fails", "[layers]") {
  TempDir tree;
  put_good_tree(tree);
  put_file(tree, "db/fasta.cpp", "#include \"fasta.hpp\"\n");
  const CommandResult result = check_layers(tree.path());
  INFO(result.out);
  CHECK(result.exit_code == 1);
  CHECK(contains(result.out, "db/fasta.cpp:1: #include \"fasta.hpp\": not a header of any layer"));
}

TEST_CASE("check-layers: a layer's target may not link a layer above it", "[layers]") {
  TempDir tree;
  put_good_tree(tree);
  put_file(tree, "profile/CMakeLists.txt",
           "warpsearch_layer(warpsearch_profile)\n"
           "target_link_libraries(warpsearch_profile PUBLIC warpsearch_core\n"
           "                      warpsearch_db)\n");
  const CommandResult result = check_layers(tree.path());
  INFO(result.out);
  CHECK(result.exit_code == 1);
  CHECK(contains(result.out, "profile/CMakeLists.txt:2: warpsearch_profile links warpsearch_db"));
  CHECK(contains(result.out, "db is sideways from profile"));
}

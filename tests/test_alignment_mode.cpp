// The one alignment-mode enum (core/alignment_mode.hpp): its names, and the table kernels' refusal of
// xdrop, which only the X-drop aligners compute.
#include <stdexcept>
#include <string>

#include "core/alignment_mode.hpp"
#include "kernels/cpu/alignment.hpp"
#include "kernels/cpu/striped.hpp"
#include "kernels/reference/reference.hpp"
#include "tests/catch.hpp"

using namespace warpsearch;

TEST_CASE("alignment mode: names round-trip, unknown names throw", "[modes]") {
  for (const AlignmentMode mode :
       {AlignmentMode::local, AlignmentMode::global, AlignmentMode::semiglobal, AlignmentMode::xdrop})
    CHECK(parse_alignment_mode(alignment_mode_name(mode)) == mode);
  CHECK(std::string(alignment_mode_name(AlignmentMode::semiglobal)) == "semiglobal");
  CHECK(parse_alignment_mode("xdrop") == AlignmentMode::xdrop);
  CHECK_THROWS_AS(parse_alignment_mode("Local"), std::invalid_argument);
  CHECK_THROWS_AS(parse_alignment_mode(""), std::invalid_argument);
  CHECK_THROWS_WITH(parse_alignment_mode("banded"), Catch::Contains("banded") && Catch::Contains("xdrop"));
}

TEST_CASE("alignment mode: the table kernels and the reference reject xdrop", "[modes]") {
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  const std::string query = "\x00\x01\x02\x03", subject = "\x00\x01\x02";
  CHECK_NOTHROW(require_table_mode(AlignmentMode::semiglobal, "test"));
  CHECK_THROWS_WITH(require_table_mode(AlignmentMode::xdrop, "the test kernel"), Catch::Contains("the test kernel"));
  CHECK_THROWS_AS(reference::span(query, subject, scoring, AlignmentMode::xdrop), std::invalid_argument);
  CHECK_THROWS_AS(cpu::pair_span(query, subject, scoring, AlignmentMode::xdrop), std::invalid_argument);
  CHECK_THROWS_AS(cpu::align_pair(query, subject, scoring, AlignmentMode::xdrop), std::invalid_argument);
  for (const cpu::Isa isa : {cpu::Isa::scalar, cpu::best_isa()}) {
    const cpu::StripedScorer scorer(query, scoring, isa);
    CHECK_THROWS_AS(scorer.end(subject, AlignmentMode::xdrop), std::invalid_argument);
    CHECK_THROWS_AS(scorer.end_64_bits(subject, AlignmentMode::xdrop), std::invalid_argument);
    // An empty side needs no kernel, but the mode is refused all the same.
    CHECK_THROWS_AS(scorer.end("", AlignmentMode::xdrop), std::invalid_argument);
  }
  CHECK_THROWS_AS(cpu::striped_score_range(AlignmentMode::xdrop, 4, 3, scoring), std::invalid_argument);
}

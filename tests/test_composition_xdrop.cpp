// blastp's X-drop realignment (search/composition_xdrop.hpp): with an X-drop no alignment can reach, the
// extension is the best alignment anchored at its origin, which the reference X-drop with X infinite
// computes independently; with a finite X, cases whose stopping point can be worked out by hand; the
// operations always replay to the score; the start point on a hit's alignment.
#include <random>
#include <stdexcept>
#include <string>

#include "core/alphabet.hpp"
#include "kernels/reference/reference_xdrop.hpp"
#include "search/composition_xdrop.hpp"
#include "tests/catch.hpp"

using namespace warpsearch;

namespace {

ScoringScheme blosum62() { return ScoringScheme(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1}); }

// The scoring's own substitution scores in the realignment's matrix type.
ScaledMatrix table_of(const ScoringScheme& scoring) {
  ScaledMatrix m;
  for (int i = 0; i < kMaxCodes; ++i)
    for (int j = 0; j < kMaxCodes; ++j)
      m.scores[i][j] = scoring.score(static_cast<std::uint8_t>(i), static_cast<std::uint8_t>(j));
  return m;
}

std::string codes(const std::string& letters) { return Alphabet::protein().encode_string(letters); }

std::string random_protein(std::mt19937& rng, std::size_t length) {
  static const std::string letters = "ACDEFGHIKLMNPQRSTVWY";
  std::uniform_int_distribution<std::size_t> pick(0, letters.size() - 1);
  std::string s;
  for (std::size_t k = 0; k < length; ++k) s += letters[pick(rng)];
  return codes(s);
}

// The score of operations from (q, s) forwards, a gap of length k costing open + k * extend.
std::int64_t replay(const std::string& query, const std::string& subject, std::size_t q, std::size_t s,
                    const std::string& operations, const ScoringScheme& scoring) {
  std::int64_t score = 0;
  char previous = 'M';
  for (const char op : operations) {
    if (op == 'M') {
      score += scoring.score(static_cast<std::uint8_t>(query[q++]), static_cast<std::uint8_t>(subject[s++]));
    } else {
      score -= scoring.gap_extend() + (op != previous ? scoring.gap_open() : 0);
      if (op == 'I')
        ++q;
      else
        ++s;
    }
    previous = op;
  }
  return score;
}

std::string reversed(std::string s) { return {s.rbegin(), s.rend()}; }

}  // namespace

TEST_CASE("composition xdrop: with X out of reach the extension is the best origin-anchored alignment",
          "[composition][xdrop]") {
  const ScoringScheme scoring = blosum62();
  const ScaledMatrix matrix = table_of(scoring);
  const XdropRealignParameters unbounded{scoring.gap_open(), scoring.gap_extend(), XDrop::kInfinite};
  std::mt19937 rng(20251125);
  for (const std::size_t m : {1, 2, 11, 31, 64, 150}) {
    for (const std::size_t n : {1, 3, 32, 77, 160}) {
      INFO("lengths " << m << " x " << n);
      const std::string query = random_protein(rng, m), subject = random_protein(rng, n);
      const Extension expected = reference::extend_reference(query, subject, scoring, XDrop::infinite());
      const GappedExtension forward = extend_gapped(matrix, query, 0, m, subject, 0, n, +1, unbounded);
      CHECK(forward.score == expected.score);
      CHECK(replay(query, subject, 0, 0, forward.operations, scoring) == forward.score);
      // Backwards from the last residues: the same as forwards over the reversed sequences.
      const Extension expected_back =
          reference::extend_reference(reversed(query), reversed(subject), scoring, XDrop::infinite());
      const GappedExtension backward = extend_gapped(matrix, query, m - 1, m, subject, n - 1, n, -1, unbounded);
      CHECK(backward.score == expected_back.score);
      CHECK(replay(reversed(query), reversed(subject), 0, 0, backward.operations, scoring) == backward.score);
    }
  }
}

TEST_CASE("composition xdrop: a finite X stops at a weak stretch unless X covers its loss", "[composition][xdrop]") {
  const ScoringScheme scoring = blosum62();
  const ScaledMatrix matrix = table_of(scoring);
  // Five W/W pairs (11 each, 55), six G/P pairs (-2 each, -12), five W/W pairs again. A gap costs at
  // least 12 and gains nothing here, so the best path is the diagonal.
  const std::string query = codes("WWWWWGGGGGGWWWWW"), subject = codes("WWWWWPPPPPPWWWWW");
  const auto extend = [&](std::int64_t x) {
    return extend_gapped(matrix, query, 0, query.size(), subject, 0, subject.size(), +1,
                         XdropRealignParameters{scoring.gap_open(), scoring.gap_extend(), x});
  };
  // X = 12 (gap open + extend, the least BLAST allows): the sixth G/P pair falls 12 below 55, which is
  // not more than X; so the extension crosses and ends at 55 - 12 + 55.
  CHECK(extend(12).score == 98);
  // X = 0 is raised to open + extend (12): the same.
  CHECK(extend(0).score == 98);
  const std::string longer_query = codes("WWWWWGGGGGGGWWWWW"), longer_subject = codes("WWWWWPPPPPPPWWWWW");
  const auto extend_longer = [&](std::int64_t x) {
    return extend_gapped(matrix, longer_query, 0, longer_query.size(), longer_subject, 0, longer_subject.size(), +1,
                         XdropRealignParameters{scoring.gap_open(), scoring.gap_extend(), x});
  };
  // Seven G/P pairs fall 14 below the best: with X = 13 the extension stops after the first five W/W.
  const GappedExtension stopped = extend_longer(13);
  CHECK(stopped.score == 55);
  CHECK(stopped.query_length == 5);
  CHECK(stopped.subject_length == 5);
  CHECK(stopped.operations == "MMMMM");
  // With X = 14 it crosses: 55 - 14 + 55.
  const GappedExtension crossed = extend_longer(14);
  CHECK(crossed.score == 96);
  CHECK(crossed.operations == std::string(17, 'M'));
  // A cell limit the extension needs more than: refused, not cut short.
  XdropRealignParameters limited{scoring.gap_open(), scoring.gap_extend(), 14, 10};
  CHECK_THROWS_AS(extend_gapped(matrix, longer_query, 0, longer_query.size(), longer_subject, 0, longer_subject.size(),
                                +1, limited),
                  std::length_error);
  limited.max_cells = 100000;
  CHECK(
      extend_gapped(matrix, longer_query, 0, longer_query.size(), longer_subject, 0, longer_subject.size(), +1, limited)
          .score == 96);
}

TEST_CASE("composition xdrop: an alignment through a start point joins the two extensions", "[composition][xdrop]") {
  const ScoringScheme scoring = blosum62();
  const ScaledMatrix matrix = table_of(scoring);
  const XdropRealignParameters parameters{scoring.gap_open(), scoring.gap_extend(), 40};
  const std::string protein = codes("ACDEFGHIKLMNPQRSTVWY");
  std::int64_t diagonal = 0;
  for (const char c : protein) diagonal += scoring.score(static_cast<std::uint8_t>(c), static_cast<std::uint8_t>(c));
  for (const std::size_t start : {0, 1, 10, 19}) {
    INFO("start " << start);
    const ScaledAlignment a = xdrop_align(protein, protein, start, start, matrix, parameters);
    CHECK(a.score == diagonal);
    CHECK(a.query_begin == 0);
    CHECK(a.query_end == 20);
    CHECK(a.subject_begin == 0);
    CHECK(a.subject_end == 20);
    CHECK(a.operations == std::string(20, 'M'));
  }
  // A gap in the subject, left of the start: the left extension takes it (one query residue against a
  // gap), the alignment replays to its score.
  const std::string query = codes("WWWWWWWWCWWWWWWWW"), subject = codes("WWWWWWWWWWWWWWWW");
  const ScaledAlignment gapped = xdrop_align(query, subject, 12, 11, matrix, parameters);
  CHECK(gapped.score == 16 * 11 - 12);
  CHECK(gapped.query_begin == 0);
  CHECK(gapped.query_end == 17);
  CHECK(gapped.subject_end == 16);
  CHECK(replay(query, subject, gapped.query_begin, gapped.subject_begin, gapped.operations, scoring) == gapped.score);
}

TEST_CASE("composition xdrop: the start point is the middle of the best window of the best ungapped stretch",
          "[composition][xdrop]") {
  const ScaledMatrix matrix = table_of(blosum62());
  // Four G/G pairs (24), a query residue against a gap, fifteen W/W pairs (165): the W stretch is the
  // best; its windows of 11 all score 121, so the first is taken, and its middle is 5 pairs in.
  const std::string query = codes("GGGGC" + std::string(15, 'W')), subject = codes("GGGG" + std::string(15, 'W'));
  const std::string operations = "MMMMI" + std::string(15, 'M');
  const StartPoint start = gapped_start_point(query, subject, 0, 0, operations, matrix);
  CHECK(start.query == 10);
  CHECK(start.subject == 9);
  CHECK(start.stretch_score == 165);
  // A stretch of at most 11 pairs: its middle.
  const StartPoint short_start = gapped_start_point(query, subject, 0, 0, "MMMM", matrix);
  CHECK(short_start.query == 2);
  CHECK(short_start.subject == 2);
  CHECK(short_start.stretch_score == 24);
}

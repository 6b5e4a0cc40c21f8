// Pair alignment (local, global, semi-global) against the 64-bit references: score, start and end by
// the tie-break rules, the operations replayed with the scoring, the counts, the checkpointed
// (bounded-memory) traceback, every instruction set's spans, the traceback inside a given rectangle,
// and the operations byte for byte against a plain 64-bit Gotoh traceback (every instruction set's rows).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/cpu/alignment.hpp"
#include "kernels/cpu/query_scorer.hpp"
#include "kernels/reference/reference.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

using namespace warpsearch;
using warpsearch::PairAlignment;
using warpsearch::cpu::align_local;
using warpsearch::cpu::AlignmentLimits;

namespace {

std::string mutate(std::mt19937_64& rng, const std::string& source, int alphabet_size, double rate) {
  return warpsearch::test::mutated_codes(rng, source, alphabet_size, rate, 5);
}

// Everything an alignment promises, checked independently of its implementation.
void check_alignment(const std::string& query, const std::string& subject, const ScoringScheme& scoring,
                     const PairAlignment& alignment, AlignmentMode mode = AlignmentMode::local) {
  const Span expected = reference::span(query, subject, scoring, mode);
  REQUIRE(alignment.score == expected.score);
  REQUIRE(alignment.query_begin == expected.query_begin);
  REQUIRE(alignment.query_end == expected.query_end);
  REQUIRE(alignment.subject_begin == expected.subject_begin);
  REQUIRE(alignment.subject_end == expected.subject_end);
  if (mode == AlignmentMode::local && expected.score == 0) {
    REQUIRE(alignment.operations.empty());
    return;
  }
  // Replay: the operations consume exactly the two spans and score exactly the alignment's score.
  std::int64_t score = 0;
  std::uint32_t identities = 0, mismatches = 0, gap_opens = 0, gaps = 0;
  std::size_t i = alignment.query_begin, j = alignment.subject_begin;
  for (std::size_t column = 0; column < alignment.operations.size(); ++column) {
    const char op = alignment.operations[column];
    const bool continues = column > 0 && alignment.operations[column - 1] == op;
    if (op == 'M') {
      REQUIRE(i < alignment.query_end);
      REQUIRE(j < alignment.subject_end);
      score += scoring.score(static_cast<std::uint8_t>(query[i]), static_cast<std::uint8_t>(subject[j]));
      ++(query[i] == subject[j] ? identities : mismatches);
      ++i;
      ++j;
    } else {
      REQUIRE((op == 'I' || op == 'D'));
      score -= (continues ? 0 : scoring.gap_open()) + scoring.gap_extend();
      gap_opens += continues ? 0 : 1;
      ++gaps;
      ++(op == 'I' ? i : j);
    }
  }
  REQUIRE(i == alignment.query_end);
  REQUIRE(j == alignment.subject_end);
  REQUIRE(score == alignment.score);
  if (mode == AlignmentMode::local) {
    REQUIRE(alignment.operations.front() == 'M');
    REQUIRE(alignment.operations.back() == 'M');
  }
  if (mode == AlignmentMode::semiglobal && !alignment.operations.empty()) {
    // Free subject ends: an optimal alignment never begins or ends with a subject residue against a gap.
    REQUIRE(alignment.operations.front() != 'D');
    REQUIRE(alignment.operations.back() != 'D');
  }
  CHECK(alignment.identities == identities);
  CHECK(alignment.mismatches == mismatches);
  CHECK(alignment.gap_opens == gap_opens);
  CHECK(alignment.gaps == gaps);
  CHECK(identities + mismatches + gaps == alignment.operations.size());
}

// The oracle of the operations: a plain O(mn) Gotoh global alignment in 64-bit integers over whole
// matrices, traced back by the tie-breaks that align_in_rectangle promises (its operations are the
// tool's output, so they must match byte for byte, not merely score the same):
//   a cell's H comes from D (subject residue against a gap) only if D beats both M and I, else from
//   I (query residue against a gap) only if I beats M, else from M (the diagonal);
//   a gap extends the one before it only if extending scores strictly more than opening;
//   column 0 and row 0 are one gap each down (or left) to the origin.
std::string oracle_operations(std::string_view a, std::string_view b, const ScoringScheme& scoring,
                              std::int64_t* score) {
  const std::size_t rows = a.size() + 1, cols = b.size() + 1;
  const std::int64_t open = scoring.gap_open(), extend = scoring.gap_extend();
  const std::int64_t minus_infinity = std::numeric_limits<std::int64_t>::min() / 4;
  std::vector<std::int64_t> h(rows * cols), ins(rows * cols, minus_infinity), del(rows * cols, minus_infinity);
  auto at = [cols](std::size_t i, std::size_t j) { return i * cols + j; };
  auto diagonal = [&](std::size_t i, std::size_t j) {
    return h[at(i - 1, j - 1)] +
           scoring.score(static_cast<std::uint8_t>(a[i - 1]), static_cast<std::uint8_t>(b[j - 1]));
  };
  for (std::size_t j = 1; j < cols; ++j) h[at(0, j)] = -(open + static_cast<std::int64_t>(j) * extend);
  for (std::size_t i = 1; i < rows; ++i) {
    h[at(i, 0)] = ins[at(i, 0)] = -(open + static_cast<std::int64_t>(i) * extend);
    for (std::size_t j = 1; j < cols; ++j) {
      ins[at(i, j)] = std::max(ins[at(i - 1, j)] - extend, h[at(i - 1, j)] - open - extend);
      del[at(i, j)] = std::max(del[at(i, j - 1)] - extend, h[at(i, j - 1)] - open - extend);
      h[at(i, j)] = std::max({diagonal(i, j), ins[at(i, j)], del[at(i, j)]});
    }
  }
  *score = h[at(rows - 1, cols - 1)];

  std::string reversed;
  std::size_t i = rows - 1, j = cols - 1;
  char state = 'H';
  while (i > 0 && j > 0) {
    if (state == 'H') {
      const std::int64_t m = diagonal(i, j), gap_i = ins[at(i, j)], gap_d = del[at(i, j)];
      state = gap_d > std::max(m, gap_i) ? 'D' : gap_i > m ? 'I' : 'M';
    }
    reversed += state;
    if (state == 'M') {
      --i;
      --j;
      state = 'H';
    } else if (state == 'I') {
      const bool extends = ins[at(i - 1, j)] - extend > h[at(i - 1, j)] - open - extend;
      --i;
      state = extends ? 'I' : 'H';
    } else {
      const bool extends = del[at(i, j - 1)] - extend > h[at(i, j - 1)] - open - extend;
      --j;
      state = extends ? 'D' : 'H';
    }
  }
  reversed.append(i, 'I');
  reversed.append(j, 'D');
  return std::string(reversed.rbegin(), reversed.rend());
}

// align_in_rectangle over query [query_begin, query_end) x subject [subject_begin, subject_end) must give
// the oracle's operations, with the whole traceback table and with checkpointed bands of every height.
void check_rectangle_operations(const std::string& query, const std::string& subject, const ScoringScheme& scoring,
                                Span span) {
  std::int64_t score = 0;
  const std::string expected = oracle_operations(
      std::string_view(query).substr(span.query_begin, span.query_end - span.query_begin),
      std::string_view(subject).substr(span.subject_begin, span.subject_end - span.subject_begin), scoring, &score);
  span.score = score;
  for (std::uint64_t cells : {std::uint64_t{1} << 25, std::uint64_t{1}, std::uint64_t{100}, std::uint64_t{5000}}) {
    AlignmentLimits limits;
    limits.full_traceback_cells = cells;
    INFO("rectangle " << span.query_begin << ".." << span.query_end << " x " << span.subject_begin << ".."
                      << span.subject_end << ", score " << score << ", table limit " << cells);
    const PairAlignment alignment = cpu::align_in_rectangle(query, subject, scoring, span, limits);
    REQUIRE(alignment.operations == expected);
    REQUIRE(alignment.score == score);
  }
}

}  // namespace

TEST_CASE("alignment: cigar", "[alignment]") {
  CHECK(cpu::cigar("") == "");
  CHECK(cpu::cigar("M") == "1M");
  CHECK(cpu::cigar("MMMIIDMMMMMMMMMMMM") == "3M2I1D12M");
  REQUIRE_THROWS(cpu::cigar("MMX"));
}

TEST_CASE("alignment: hand-checked", "[alignment]") {
  const ScoringScheme scoring(SubstitutionMatrix::nucleotide(2, -3), GapOpen{1}, GapExtend{1});
  const auto& dna = Alphabet::nucleotide();
  const std::string query = dna.encode_string("ACGTACGT");
  const std::string subject = dna.encode_string("ACGTTACGT");
  const PairAlignment alignment = align_local(query, subject, scoring);
  CHECK(alignment.score == 14);
  CHECK(alignment.operations.size() == 9);
  CHECK(alignment.identities == 8);
  CHECK(alignment.gaps == 1);
  CHECK(alignment.gap_opens == 1);
  CHECK(alignment.operations.find('D') != std::string::npos);
  check_alignment(query, subject, scoring, alignment);
  // No positive cell: an empty alignment.
  const PairAlignment none = align_local(dna.encode_string("AAAA"), dna.encode_string("CCC"), scoring);
  CHECK((none.score == 0 && none.operations.empty() && none.query_end == 0));
  CHECK(align_local("", dna.encode_string("CCC"), scoring).score == 0);
}

TEST_CASE("alignment: random related pairs against the reference", "[alignment]") {
  std::mt19937_64 rng(41);
  std::vector<ScoringScheme> schemes;
  for (const auto& name : SubstitutionMatrix::builtin_names())
    schemes.emplace_back(SubstitutionMatrix::builtin(name), GapOpen{11}, GapExtend{1});
  for (auto [open, extend] : {std::pair{10, 1}, {5, 2}, {0, 1}, {20, 5}, {1, 1}})
    schemes.emplace_back(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{open}, GapExtend{extend});
  schemes.emplace_back(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  schemes.emplace_back(SubstitutionMatrix::nucleotide(1, -1), GapOpen{0}, GapExtend{1});
  std::uniform_int_distribution<std::size_t> length(1, 160);
  for (const auto& scoring : schemes) {
    const int letters = scoring.matrix().type() == SequenceType::nucleotide ? 4 : 20;
    for (int n = 0; n < 12; ++n) {
      const std::string core = test::random_codes(rng, length(rng), letters);
      const std::string query =
          test::random_codes(rng, length(rng) / 4, letters) + core + test::random_codes(rng, length(rng) / 4, letters);
      const std::string subject = test::random_codes(rng, length(rng) / 3, letters) +
                                  mutate(rng, core, letters, 0.05 * (n % 6)) +
                                  test::random_codes(rng, length(rng) / 3, letters);
      INFO(scoring.matrix().name() << " " << scoring.gap_open() << "/" << scoring.gap_extend() << " case " << n);
      check_alignment(query, subject, scoring, align_local(query, subject, scoring));
    }
  }
}

TEST_CASE("alignment: short edge lengths and repeats (many ties)", "[alignment]") {
  std::mt19937_64 rng(43);
  const ScoringScheme scoring(SubstitutionMatrix::nucleotide(1, -1), GapOpen{1}, GapExtend{1});
  for (std::size_t query_length : {1, 2, 3, 31, 32, 33}) {
    for (std::size_t subject_length : {1, 2, 5, 33, 64}) {
      const std::string query = test::random_codes(rng, query_length, 2);
      const std::string subject = test::random_codes(rng, subject_length, 2);
      INFO(query_length << " x " << subject_length);
      check_alignment(query, subject, scoring, align_local(query, subject, scoring));
    }
  }
  const std::string repeat(40, '\x01');
  check_alignment(repeat, repeat + repeat, scoring, align_local(repeat, repeat + repeat, scoring));
}

TEST_CASE("alignment: the checkpointed traceback gives the same alignment", "[alignment]") {
  std::mt19937_64 rng(47);
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  for (std::size_t length : {40, 300, 2500}) {
    const std::string query = test::random_codes(rng, length, 20);
    const std::string subject = test::random_codes(rng, 17, 20) + mutate(rng, query, 20, 0.25);
    const PairAlignment whole = align_local(query, subject, scoring);
    for (std::uint64_t cells : {1, 100, 5000}) {
      AlignmentLimits limits;
      limits.full_traceback_cells = cells;
      const PairAlignment banded = align_local(query, subject, scoring, limits);
      INFO("length " << length << ", table limit " << cells);
      REQUIRE(banded.operations == whole.operations);
      REQUIRE(banded.score == whole.score);
    }
    check_alignment(query, subject, scoring, whole);
  }
}

TEST_CASE("alignment: global and semi-global pairs against the reference", "[alignment][modes]") {
  std::mt19937_64 rng(71);
  std::vector<ScoringScheme> schemes;
  for (const auto& name : {"BLOSUM62", "PAM30", "BLOSUM45"})
    schemes.emplace_back(SubstitutionMatrix::builtin(name), GapOpen{11}, GapExtend{1});
  for (auto [open, extend] : {std::pair{0, 1}, {20, 5}, {1, 2}})
    schemes.emplace_back(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{open}, GapExtend{extend});
  schemes.emplace_back(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  schemes.emplace_back(SubstitutionMatrix::nucleotide(1, -1), GapOpen{0}, GapExtend{1});
  std::uniform_int_distribution<std::size_t> length(1, 200);
  for (const AlignmentMode mode : {AlignmentMode::global, AlignmentMode::semiglobal, AlignmentMode::local})
    for (const auto& scoring : schemes) {
      const int letters = scoring.matrix().type() == SequenceType::nucleotide ? 4 : 20;
      for (int n = 0; n < 10; ++n) {
        const std::string query = test::random_codes(rng, length(rng), letters);
        const std::string subject = n % 3 == 0 ? test::random_codes(rng, length(rng), letters)
                                               : test::random_codes(rng, length(rng) / 3, letters) +
                                                     mutate(rng, query, letters, 0.05 * (n % 6)) +
                                                     test::random_codes(rng, length(rng) / 3, letters);
        INFO(static_cast<int>(mode) << " " << scoring.matrix().name() << " " << scoring.gap_open() << "/"
                                    << scoring.gap_extend() << " case " << n);
        check_alignment(query, subject, scoring, cpu::align_pair(query, subject, scoring, mode), mode);
      }
    }
}

TEST_CASE("alignment: empty sides and all-gap alignments", "[alignment][modes]") {
  const auto& dna = Alphabet::nucleotide();
  const ScoringScheme scoring(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  const ScoringScheme unit(SubstitutionMatrix::nucleotide(1, -1), GapOpen{0}, GapExtend{1});
  for (const AlignmentMode mode : {AlignmentMode::local, AlignmentMode::global, AlignmentMode::semiglobal}) {
    INFO(static_cast<int>(mode));
    check_alignment("", dna.encode_string("ACG"), scoring, cpu::align_pair("", dna.encode_string("ACG"), scoring, mode),
                    mode);
    check_alignment(dna.encode_string("ACG"), "", scoring, cpu::align_pair(dna.encode_string("ACG"), "", scoring, mode),
                    mode);
    check_alignment("", "", scoring, cpu::align_pair("", "", scoring, mode), mode);
    // One query residue that is better deleted (-1) than mismatched (-1 too, but ending later).
    check_alignment(dna.encode_string("A"), dna.encode_string("C"), unit,
                    cpu::align_pair(dna.encode_string("A"), dna.encode_string("C"), unit, mode), mode);
  }
  const auto global = cpu::align_pair("", dna.encode_string("ACG"), scoring, AlignmentMode::global);
  CHECK((global.score == -(5 + 3 * 2) && global.operations == "DDD" && global.gap_opens == 1));
  const auto deleted = cpu::align_pair(dna.encode_string("A"), dna.encode_string("C"), unit, AlignmentMode::semiglobal);
  CHECK((deleted.score == -1 && deleted.operations == "I" && deleted.subject_end == 0));
}

TEST_CASE("alignment: every instruction set gives the reference's span", "[alignment][modes]") {
  std::mt19937_64 rng(73);
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{10}, GapExtend{1});
  for (const cpu::Isa isa : {cpu::Isa::scalar, cpu::Isa::sse41, cpu::Isa::avx2, cpu::Isa::avx512bw}) {
    if (!cpu::isa_supported(isa)) {
      WARN("this CPU does not run " << cpu::isa_name(isa) << ": its spans are not tested here");
      continue;
    }
    for (int n = 0; n < 12; ++n) {
      const std::string query = test::random_codes(rng, 1 + static_cast<std::size_t>(n) * 23, 20);
      const std::string subject =
          test::random_codes(rng, 30, 20) + mutate(rng, query, 20, 0.2) + test::random_codes(rng, 30, 20);
      for (const AlignmentMode mode : {AlignmentMode::local, AlignmentMode::global, AlignmentMode::semiglobal}) {
        const Span expected = reference::span(query, subject, scoring, mode);
        const Span span = cpu::pair_span(query, subject, scoring, mode, isa);
        INFO(cpu::isa_name(isa) << " mode " << static_cast<int>(mode) << " case " << n);
        REQUIRE(span.score == expected.score);
        REQUIRE(span.query_begin == expected.query_begin);
        REQUIRE(span.query_end == expected.query_end);
        REQUIRE(span.subject_begin == expected.subject_begin);
        REQUIRE(span.subject_end == expected.subject_end);
      }
    }
  }
}

TEST_CASE("alignment: traceback inside a given rectangle", "[alignment][modes]") {
  std::mt19937_64 rng(79);
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  const std::string query = test::random_codes(rng, 150, 20);
  const std::string subject =
      test::random_codes(rng, 40, 20) + mutate(rng, query, 20, 0.15) + test::random_codes(rng, 40, 20);
  for (const AlignmentMode mode : {AlignmentMode::local, AlignmentMode::global, AlignmentMode::semiglobal}) {
    // A span computed elsewhere (here: the reference, as the GPU would) is traced back as it is.
    const Span expected = reference::span(query, subject, scoring, mode);
    const Span span{expected.score, expected.query_begin, expected.query_end, expected.subject_begin,
                    expected.subject_end};
    INFO("mode " << static_cast<int>(mode));
    check_alignment(query, subject, scoring, cpu::align_in_rectangle(query, subject, scoring, span), mode);
    // A score the rectangle cannot reach is a bug somewhere: it throws rather than return a wrong alignment.
    Span wrong = span;
    wrong.score += 1;
    REQUIRE_THROWS_AS(cpu::align_in_rectangle(query, subject, scoring, wrong), std::logic_error);
  }
  Span outside{5, 0, 151, 0, 10};
  REQUIRE_THROWS_AS(cpu::align_in_rectangle(query, subject, scoring, outside), std::invalid_argument);
  Span reversed{5, 10, 9, 0, 10};
  REQUIRE_THROWS_AS(cpu::align_in_rectangle(query, subject, scoring, reversed), std::invalid_argument);
}

TEST_CASE("alignment: global checkpointed traceback and a pair beyond 16 bits", "[alignment][modes]") {
  std::mt19937_64 rng(83);
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  const std::string query = test::random_codes(rng, 700, 20);
  const std::string subject = mutate(rng, query, 20, 0.3);
  const auto whole = cpu::align_pair(query, subject, scoring, AlignmentMode::global);
  AlignmentLimits limits;
  limits.full_traceback_cells = 1000;
  const auto banded = cpu::align_pair(query, subject, scoring, AlignmentMode::global, limits);
  REQUIRE(banded.operations == whole.operations);
  check_alignment(query, subject, scoring, whole, AlignmentMode::global);

  // 3100 identical W: local score 34100 saturates 16 bits; the alignment still replays to it.
  const std::string w(3100, static_cast<char>(Alphabet::protein().encode('W')));
  const auto saturated = cpu::align_pair(w, w, scoring, AlignmentMode::local);
  CHECK(saturated.score == 3100 * 11);
  CHECK(saturated.operations == std::string(3100, 'M'));
}

TEST_CASE("alignment: the operations are the oracle's, byte for byte", "[alignment][traceback]") {
  std::mt19937_64 rng(89);
  std::vector<ScoringScheme> schemes;
  for (const auto& name : {"BLOSUM62", "PAM30", "BLOSUM45"})
    schemes.emplace_back(SubstitutionMatrix::builtin(name), GapOpen{11}, GapExtend{1});
  // Open 0 (a gap never strictly prefers extending over opening), large extends, the largest costs.
  for (auto [open, extend] : {std::pair{0, 1}, {1, 1}, {0, 40}, {3, 60}, {1, 126}, {126, 1}, {20, 5}})
    schemes.emplace_back(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{open}, GapExtend{extend});
  schemes.emplace_back(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  schemes.emplace_back(SubstitutionMatrix::nucleotide(1, -1), GapOpen{0}, GapExtend{1});
  schemes.emplace_back(SubstitutionMatrix::nucleotide(1, -2), GapOpen{2}, GapExtend{1});
  std::uniform_int_distribution<std::size_t> length(0, 300);
  for (const auto& scoring : schemes) {
    const int letters = scoring.matrix().type() == SequenceType::nucleotide ? 4 : 20;
    for (int n = 0; n < 16; ++n) {
      // Unrelated pairs; related pairs (mutated, with gaps); two-letter pairs (many ties); and every
      // code the matrix defines, padding and beyond included (kMaxCodes).
      const int kind = n % 4;
      const int codes = kind == 2 ? 2 : kind == 3 ? kMaxCodes : letters;
      const std::string query = test::random_codes(rng, length(rng), codes);
      const std::string subject = kind == 1 ? test::random_codes(rng, length(rng) / 8, codes) +
                                                  mutate(rng, query, codes, 0.05 * (n % 7)) +
                                                  test::random_codes(rng, length(rng) / 8, codes)
                                            : test::random_codes(rng, length(rng), codes);
      INFO(scoring.matrix().name() << " " << scoring.gap_open() << "/" << scoring.gap_extend() << " case " << n << ": "
                                   << query.size() << " x " << subject.size());
      const auto query_length = static_cast<std::uint32_t>(query.size());
      const auto subject_length = static_cast<std::uint32_t>(subject.size());
      check_rectangle_operations(query, subject, scoring, {0, 0, query_length, 0, subject_length});
      // A rectangle inside the pair (the substrings are what is aligned).
      std::uniform_int_distribution<std::uint32_t> query_cut(0, query_length), subject_cut(0, subject_length);
      const auto [query_begin, query_end] = std::minmax({query_cut(rng), query_cut(rng)});
      const auto [subject_begin, subject_end] = std::minmax({subject_cut(rng), subject_cut(rng)});
      check_rectangle_operations(query, subject, scoring, {0, query_begin, query_end, subject_begin, subject_end});
      // The rectangles the search asks for: each mode's optimal span.
      for (const AlignmentMode mode : {AlignmentMode::local, AlignmentMode::semiglobal}) {
        const Span span = reference::span(query, subject, scoring, mode);
        check_rectangle_operations(query, subject, scoring,
                                   {0, span.query_begin, span.query_end, span.subject_begin, span.subject_end});
      }
      // Every instruction set's traceback rows (align_pair runs them on its isa), whole and checkpointed.
      const AlignmentMode modes[] = {AlignmentMode::global, AlignmentMode::semiglobal, AlignmentMode::local};
      for (const cpu::Isa isa : {cpu::Isa::scalar, cpu::Isa::sse41, cpu::Isa::avx2, cpu::Isa::avx512bw}) {
        if (!cpu::isa_supported(isa)) continue;  // the striped test above warns
        for (std::uint64_t cells : {std::uint64_t{1} << 25, std::uint64_t{100}}) {
          AlignmentLimits limits;
          limits.full_traceback_cells = cells;
          const PairAlignment alignment = cpu::align_pair(query, subject, scoring, modes[n % 3], limits, isa);
          const std::string_view a =
              std::string_view(query).substr(alignment.query_begin, alignment.query_end - alignment.query_begin);
          const std::string_view b = std::string_view(subject).substr(alignment.subject_begin,
                                                                      alignment.subject_end - alignment.subject_begin);
          std::int64_t score = 0;
          const std::string expected = oracle_operations(a, b, scoring, &score);
          INFO(cpu::isa_name(isa) << " mode " << static_cast<int>(modes[n % 3]) << ", table limit " << cells);
          REQUIRE(alignment.operations == expected);
          REQUIRE(alignment.score == score);
        }
      }
    }
  }
}

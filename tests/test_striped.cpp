// The striped pair kernels (kernels/cpu/striped.hpp) against the 64-bit references: every instruction
// set this CPU runs, both widths, every mode; edge and random lengths, every built-in matrix, several gap
// pairs, DNA; local passes stopped at their best score; forced 16-bit saturation (it must be flagged, never returned
// wrong) and the 32-bit retry; the value range that bounds the 32-bit kernels, the 64-bit fallback, and pairs beyond
// the old length bound (a 2 kb query in a 4.4 Mb subject, a global pair whose boundary gaps leave 32 bits).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/striped.hpp"
#include "kernels/reference/reference.hpp"
#include "tests/catch.hpp"
#include "tests/cpu_kernel_support.hpp"
#include "tests/test_support.hpp"

using namespace warpsearch;
using cpu::Isa;
using cpu::Width;
using test::runnable_isas;

namespace {

constexpr AlignmentMode kModes[] = {AlignmentMode::local, AlignmentMode::global, AlignmentMode::semiglobal};
// The reference's end: what every striped result must equal.
void require_end(const cpu::PairEnd& end, const Span& expected) {
  REQUIRE(end.score == expected.score);
  REQUIRE(end.query_end == expected.query_end);
  REQUIRE(end.subject_end == expected.subject_end);
}

// Every instruction set and width against the reference, for one pair in every mode. A width may decline
// (nullopt) but never differ; the 32-bit width never declines at these lengths, and end() never does.
void check_pair(const std::string& query, const std::string& subject, const ScoringScheme& scoring) {
  for (AlignmentMode mode : kModes) {
    const Span expected = reference::span(query, subject, scoring, mode);
    for (Isa isa : runnable_isas()) {
      const cpu::StripedScorer scorer(query, scoring, isa);
      INFO(alignment_mode_name(mode) << " " << cpu::isa_name(isa) << " " << scoring.matrix().name() << " "
                                     << scoring.gap_open() << "/" << scoring.gap_extend() << " lengths " << query.size()
                                     << " x " << subject.size() << " expected score " << expected.score);
      require_end(scorer.end(subject, mode), expected);
      if (mode == AlignmentMode::local) {  // stopped at the best score, no cell scoring more: the same end
        require_end(scorer.end(subject, mode, Width::w16, expected.score), expected);
        require_end(scorer.end(subject, mode, Width::w32, expected.score), expected);
      }
      const std::optional<cpu::PairEnd> narrow = scorer.end_at_width(subject, mode, Width::w16);
      if (narrow) require_end(*narrow, expected);
      const std::optional<cpu::PairEnd> wide = scorer.end_at_width(subject, mode, Width::w32);
      REQUIRE(wide.has_value());
      require_end(*wide, expected);
    }
  }
}

std::vector<ScoringScheme> all_schemes() {
  std::vector<ScoringScheme> schemes;
  for (const std::string& name : SubstitutionMatrix::builtin_names())
    schemes.emplace_back(SubstitutionMatrix::builtin(name), GapOpen{11}, GapExtend{1});
  for (auto [open, extend] : {std::pair{10, 1}, {5, 2}, {0, 1}, {20, 5}, {1, 3}})
    schemes.emplace_back(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{open}, GapExtend{extend});
  for (auto [open, extend] : {std::pair{5, 2}, {0, 1}, {2, 4}})
    schemes.emplace_back(SubstitutionMatrix::nucleotide(2, -3), GapOpen{open}, GapExtend{extend});
  schemes.emplace_back(SubstitutionMatrix::nucleotide(1, -1), GapOpen{1}, GapExtend{1});
  return schemes;
}

}  // namespace

TEST_CASE("striped: hand-checked ends", "[striped]") {
  const ScoringScheme dna(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  const Alphabet& letters = Alphabet::nucleotide();
  for (Isa isa : runnable_isas()) {
    INFO(cpu::isa_name(isa));
    const cpu::StripedScorer scorer(letters.encode_string("ACGT"), dna, isa);
    auto end = scorer.end(letters.encode_string("TTACGTTT"), AlignmentMode::local);
    CHECK((end.score == 8 && end.query_end == 4 && end.subject_end == 6));
    end = scorer.end(letters.encode_string("TTACGTTT"), AlignmentMode::semiglobal);
    CHECK((end.score == 8 && end.query_end == 4 && end.subject_end == 6));
    // Global: 2 leading and 2 trailing subject residues against gaps, each gap 5 + 2 * 2.
    end = scorer.end(letters.encode_string("TTACGTTT"), AlignmentMode::global);
    CHECK((end.score == 8 - 2 * 9 && end.query_end == 4 && end.subject_end == 8));
    // Empty sides need no kernel: one gap, or nothing.
    CHECK(scorer.end("", AlignmentMode::global).score == -(5 + 4 * 2));
    CHECK(scorer.end("", AlignmentMode::semiglobal).score == -(5 + 4 * 2));
    CHECK(scorer.end("", AlignmentMode::local).score == 0);
    const cpu::StripedScorer empty("", dna, isa);
    CHECK(empty.end(letters.encode_string("ACG"), AlignmentMode::global).score == -(5 + 3 * 2));
    CHECK(empty.end(letters.encode_string("ACG"), AlignmentMode::semiglobal).score == 0);
    CHECK(empty.end("", AlignmentMode::global).score == 0);
  }
}

TEST_CASE("striped: bad arguments", "[striped]") {
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  REQUIRE_THROWS_AS(cpu::StripedScorer(std::string(1, '\x20'), scoring), std::invalid_argument);
  const cpu::StripedScorer scorer(std::string(5, '\x01'), scoring);
  REQUIRE_THROWS_AS(scorer.end_at_width(std::string(5, '\x01'), AlignmentMode::local, Width::w8),
                    std::invalid_argument);
}

TEST_CASE("striped: edge lengths, every ISA, width and mode", "[striped]") {
  std::mt19937_64 rng(53);
  const std::size_t lengths[] = {1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 257};
  const ScoringScheme protein(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  const ScoringScheme cheap_gaps(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{0}, GapExtend{1});
  const ScoringScheme dna(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  for (std::size_t m : lengths)
    for (std::size_t n : {std::size_t{1}, std::size_t{16}, std::size_t{33}, std::size_t{257}}) {
      check_pair(test::random_codes(rng, m, 20), test::random_codes(rng, n, 20), protein);
      const std::string query = test::random_codes(rng, m, 4);
      check_pair(query, test::mutated_codes(rng, query, 4, 0.2, 4).substr(0, n), dna);
      // A related pair with free gaps: long F runs across lane boundaries (lazy-F loop).
      const std::string related = test::random_codes(rng, m, 20);
      check_pair(related, test::mutated_codes(rng, related, 20, 0.3, 6), cheap_gaps);
    }
}

TEST_CASE("striped: random pairs over every matrix and gap pair", "[striped]") {
  std::mt19937_64 rng(59);
  std::uniform_int_distribution<std::size_t> length(1, 300);
  for (const ScoringScheme& scoring : all_schemes()) {
    const int letters = scoring.matrix().alphabet().size();  // every code, U/O/N included
    for (int n = 0; n < 6; ++n) {
      const std::string query = test::random_codes(rng, length(rng), letters);
      check_pair(query, test::random_codes(rng, length(rng), letters), scoring);
      check_pair(query,
                 test::random_codes(rng, length(rng) / 4, letters) +
                     test::mutated_codes(rng, query, letters, 0.1 * (n % 4), 5) +
                     test::random_codes(rng, length(rng) / 4, letters),
                 scoring);
    }
  }
}

TEST_CASE("striped: long pairs", "[striped]") {
  std::mt19937_64 rng(61);
  const ScoringScheme protein(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  const ScoringScheme dna(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  const std::string query = test::random_codes(rng, 1100, 20);
  check_pair(query, test::mutated_codes(rng, query, 20, 0.15, 8), protein);
  check_pair(query, test::random_codes(rng, 1500, 20), protein);
  const std::string bases = test::random_codes(rng, 2000, 4);
  check_pair(bases, test::random_codes(rng, 500, 4) + test::mutated_codes(rng, bases, 4, 0.1, 10), dna);
}

TEST_CASE("striped: 16-bit saturation is flagged and rescored in 32 bits", "[striped][saturation]") {
  const ScoringScheme blosum62(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  const std::string w(1, static_cast<char>(Alphabet::protein().encode('W')));  // W-W scores 11
  // 2978 * 11 = 32758 fits; 2979 * 11 = 32769 does not: the 16-bit kernel must decline, not clamp.
  for (std::size_t count : {2978, 2979, 3200}) {
    std::string query, subject;
    for (std::size_t i = 0; i < count; ++i) query += w;
    subject = query;
    const bool fits = count * 11 < 32767;
    for (Isa isa : runnable_isas()) {
      const cpu::StripedScorer scorer(query, blosum62, isa);
      for (AlignmentMode mode : kModes) {
        INFO(cpu::isa_name(isa) << " " << alignment_mode_name(mode) << " " << count << " x W");
        const auto narrow = scorer.end_at_width(subject, mode, Width::w16);
        if (!fits) REQUIRE_FALSE(narrow.has_value());
        const auto end = scorer.end(subject, mode);
        REQUIRE(end.score == static_cast<std::int64_t>(count) * 11);
        REQUIRE(end.query_end == count);
        REQUIRE(end.subject_end == count);
        if (narrow) require_end(*narrow, {end.score, 0, end.query_end, 0, end.subject_end});
      }
    }
  }

  // Global below -32768 (mismatches of -10 along the diagonal, gaps too dear to avoid them): the running
  // minimum must flag it although the boundary gaps (20 + 6000 * 5) fit.
  const ScoringScheme harsh(SubstitutionMatrix::nucleotide(1, -10), GapOpen{20}, GapExtend{5});
  const std::string a(6000, '\0'), c(6000, '\x01');
  const Span expected = reference::span(a, c, harsh, AlignmentMode::global);
  REQUIRE(expected.score < -32768);
  for (Isa isa : runnable_isas()) {
    INFO(cpu::isa_name(isa));
    const cpu::StripedScorer scorer(a, harsh, isa);
    REQUIRE_FALSE(scorer.end_at_width(c, AlignmentMode::global, Width::w16).has_value());
    require_end(scorer.end(c, AlignmentMode::global), expected);
  }
}

TEST_CASE("striped: near the 16-bit limits, a 16-bit result is exact or declined", "[striped][saturation]") {
  std::mt19937_64 rng(67);
  // Scores and boundary gaps that cross -32768 + margin and +32767 as the lengths grow.
  const ScoringScheme dna(SubstitutionMatrix::nucleotide(5, -4), GapOpen{10}, GapExtend{5});
  for (std::size_t m : {6440, 6560}) {
    const std::string query = test::random_codes(rng, m, 4);
    const std::string related = test::mutated_codes(rng, query, 4, 0.05, 3);
    const std::string unrelated = test::random_codes(rng, m + 37, 4);
    for (const std::string* subject : {&related, &unrelated}) {
      for (AlignmentMode mode : kModes) {
        const Span expected = reference::span(query, *subject, dna, mode);
        for (Isa isa : runnable_isas()) {
          if (isa == Isa::scalar) continue;  // the same template as the SIMD ones, and slow at this size
          const cpu::StripedScorer scorer(query, dna, isa);
          INFO(cpu::isa_name(isa) << " " << alignment_mode_name(mode) << " " << m << " x " << subject->size()
                                  << " score " << expected.score);
          if (const auto narrow = scorer.end_at_width(*subject, mode, Width::w16)) require_end(*narrow, expected);
          require_end(scorer.end(*subject, mode), expected);
        }
      }
    }
  }
}

namespace {

// The smallest and largest H, E and F of the mode's dynamic programme, written out as the kernels'
// recurrences (striped_kernel.hpp) with 64-bit integers: H over every cell and both boundaries, E and F
// over the inner cells, E(i, 1) and F(1, j) from the boundaries.
struct Extremes {
  std::int64_t h_low, h_high, gap_low, gap_high;
};

Extremes dp_extremes(const std::string& query, const std::string& subject, const ScoringScheme& scoring,
                     AlignmentMode mode) {
  const std::size_t m = query.size(), n = subject.size();
  const std::int64_t open = scoring.gap_open(), extend = scoring.gap_extend(), open_extend = open + extend;
  const bool local = mode == AlignmentMode::local, global = mode == AlignmentMode::global;
  std::vector<std::int64_t> h_above(n + 1), h(n + 1), f(n + 1);
  for (std::size_t j = 0; j <= n; ++j) {
    h_above[j] = global && j > 0 ? -(open + static_cast<std::int64_t>(j) * extend) : 0;
    f[j] = h_above[j] - open_extend;  // F of row 1
  }
  Extremes x{0, 0, f[0], f[0]};
  auto see_h = [&x](std::int64_t v) { x.h_low = std::min(x.h_low, v), x.h_high = std::max(x.h_high, v); };
  auto see_gap = [&x](std::int64_t v) { x.gap_low = std::min(x.gap_low, v), x.gap_high = std::max(x.gap_high, v); };
  for (std::size_t j = 0; j <= n; ++j) see_h(h_above[j]);
  for (std::size_t i = 1; i <= m; ++i) {
    h[0] = local ? 0 : -(open + static_cast<std::int64_t>(i) * extend);
    see_h(h[0]);
    std::int64_t e = h[0] - open_extend;  // E of column 1
    for (std::size_t j = 1; j <= n; ++j) {
      const std::int64_t diagonal = h_above[j - 1] + scoring.score(static_cast<std::uint8_t>(query[i - 1]),
                                                                   static_cast<std::uint8_t>(subject[j - 1]));
      see_gap(e);
      see_gap(f[j]);
      h[j] = std::max({diagonal, e, f[j], local ? std::int64_t{0} : diagonal});
      see_h(h[j]);
      e = std::max(e - extend, h[j] - open_extend);
      f[j] = std::max(f[j] - extend, h[j] - open_extend);
    }
    std::swap(h, h_above);
  }
  return x;
}

}  // namespace

TEST_CASE("striped: the score range holds every value of the dynamic programme", "[striped][range]") {
  std::mt19937_64 rng(71);
  std::uniform_int_distribution<std::size_t> length(1, 120);
  for (const ScoringScheme& scoring : all_schemes()) {
    const int letters = scoring.matrix().alphabet().size();
    const std::int64_t open_extend = scoring.gap_open() + scoring.gap_extend();
    for (int n = 0; n < 8; ++n) {
      // Unrelated, related, identical (the top of the range), and a query of padding codes (kMaxCodes:
      // what the kernels' padding positions score) against unrelated residues (the bottom).
      const std::string query = test::random_codes(rng, length(rng), n % 4 == 3 ? kMaxCodes : letters);
      const std::string subject = n % 4 == 0   ? test::random_codes(rng, length(rng), letters)
                                  : n % 4 == 1 ? test::mutated_codes(rng, query, letters, 0.2, 5)
                                  : n % 4 == 2 ? query
                                               : test::random_codes(rng, length(rng), letters);
      for (AlignmentMode mode : kModes) {
        const Extremes seen = dp_extremes(query, subject, scoring, mode);
        const cpu::ScoreRange range = cpu::striped_score_range(mode, query.size(), subject.size(), scoring);
        INFO(alignment_mode_name(mode) << " " << scoring.matrix().name() << " " << scoring.gap_open() << "/"
                                       << scoring.gap_extend() << " " << query.size() << " x " << subject.size());
        REQUIRE(seen.h_low >= range.low + open_extend);
        REQUIRE(seen.h_high <= range.high);
        REQUIRE(seen.gap_low >= range.low);
        REQUIRE(seen.gap_high <= range.high);
      }
    }
  }
  // The ranges by hand: local is [-oe, min(m, n) * best]; the boundary gaps set the others' bottom.
  const ScoringScheme dna(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  auto range = cpu::striped_score_range(AlignmentMode::local, 2000, 5000000, dna);
  CHECK((range.low == -7 && range.high == 4000));
  range = cpu::striped_score_range(AlignmentMode::semiglobal, 2000, 5000000, dna);
  CHECK((range.low == -(5 + 4000) - 7 && range.high == 4000));
  range = cpu::striped_score_range(AlignmentMode::global, 2000, 5000000, dna);
  CHECK((range.low == -(10 + 2 * 5002000) - 7 && range.high == 4000));
}

TEST_CASE("striped: the 64-bit fallback against the reference", "[striped][range]") {
  std::mt19937_64 rng(73);
  std::uniform_int_distribution<std::size_t> length(1, 150);
  for (const ScoringScheme& scoring : all_schemes()) {
    const int letters = scoring.matrix().alphabet().size();
    for (int n = 0; n < 4; ++n) {
      const std::string query = test::random_codes(rng, length(rng), letters);
      const std::string subject = n % 2 == 0 ? test::random_codes(rng, length(rng), letters)
                                             : test::random_codes(rng, length(rng) / 4, letters) +
                                                   test::mutated_codes(rng, query, letters, 0.15, 4);
      const cpu::StripedScorer scorer(query, scoring);
      for (AlignmentMode mode : kModes) {
        INFO(alignment_mode_name(mode) << " " << scoring.matrix().name() << " " << scoring.gap_open() << "/"
                                       << scoring.gap_extend() << " " << query.size() << " x " << subject.size());
        require_end(scorer.end_64_bits(subject, mode), reference::span(query, subject, scoring, mode));
      }
    }
  }
  const ScoringScheme dna(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  const cpu::StripedScorer scorer(Alphabet::nucleotide().encode_string("ACGT"), dna);
  CHECK(scorer.end_64_bits("", AlignmentMode::global).score == -(5 + 4 * 2));
  const auto end = scorer.end_64_bits(Alphabet::nucleotide().encode_string("TTACGTTT"), AlignmentMode::local);
  CHECK((end.score == 8 && end.query_end == 4 && end.subject_end == 6));
}

TEST_CASE("striped: a 2 kb query in a 4.4 Mb subject (local, beyond the former length bound)", "[striped][range]") {
  std::mt19937_64 rng(79);
  const ScoringScheme dna(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  const std::string query = test::random_codes(rng, 2000, 4);
  const std::size_t planted = 3100000;
  std::string subject = test::random_codes(rng, 4400000, 4);
  subject.replace(planted, query.size(), query);
  // An exact copy scores the most any local alignment can (2,000 matches of 2), and a second copy in
  // random DNA is beyond chance: the end is the copy's.
  const std::uint32_t end = static_cast<std::uint32_t>(planted + query.size());
  const cpu::StripedScorer scorer(query, dna);
  require_end(scorer.end(subject, AlignmentMode::local), {4000, 0, 2000, 0, end});
  const auto wide = scorer.end_at_width(subject, AlignmentMode::local, Width::w32);
  REQUIRE(wide.has_value());
  require_end(*wide, {4000, 0, 2000, 0, end});
}

TEST_CASE("striped: a global pair beyond the 32-bit range runs in 64 bits", "[striped][range]") {
  // Extend 127: the subject's 4.3 million gap columns cost more than 2^29. Open 0, so the best global
  // alignment matches the 10 query residues to their planted copy and deletes the rest of the subject,
  // wherever the copy is: 10 * 1 - (n - 10) * 127.
  std::mt19937_64 rng(83);
  const ScoringScheme dear(SubstitutionMatrix::nucleotide(1, -1), GapOpen{0}, GapExtend{127});
  const std::string query = test::random_codes(rng, 10, 4);
  std::string subject = test::random_codes(rng, 4300000, 4);
  subject.replace(1234567, query.size(), query);
  const std::int64_t expected = 10 - static_cast<std::int64_t>(subject.size() - 10) * 127;
  REQUIRE(expected < -(std::int64_t{1} << 29));
  for (Isa isa : runnable_isas()) {
    INFO(cpu::isa_name(isa));
    const cpu::StripedScorer scorer(query, dear, isa);
    REQUIRE_FALSE(scorer.end_at_width(subject, AlignmentMode::global, Width::w16).has_value());
    REQUIRE_FALSE(scorer.end_at_width(subject, AlignmentMode::global, Width::w32).has_value());
    require_end(scorer.end(subject, AlignmentMode::global), {expected, 0, 10, 0, 4300000});
  }
}

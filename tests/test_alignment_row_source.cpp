// The traceback's row source (cpu::GlobalRowSource, kernels/cpu/alignment.hpp): alignments whose rows
// come from a source are the CPU's, byte for byte, on the checkpointed and the linear-memory paths, at
// every spacing and thread count, when the source declines or the rectangle is below its min_cells; the
// source is asked for the rectangle and spacing the interface promises; rows of the wrong count or value
// are caught; and the checkpointed path's parallel band rebuild gives one thread's operations. The
// source here is a plain 64-bit Gotoh written for the test, not the library's rows.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/cpu/alignment.hpp"
#include "tests/catch.hpp"
#include "tests/random_sequences.hpp"

using namespace warpsearch;

namespace {

// What the library asked a source for.
struct RowRequest {
  std::size_t rows, columns, spacing;
  std::int32_t top_open;
};

// A row source over a plain scalar DP, which can decline, or give a row too few or a last value one too
// high (to show that its rows are the ones used), and records every request.
class ScalarRowSource final : public cpu::GlobalRowSource {
 public:
  enum class Answer { rows, decline, row_too_few, last_value_too_high };

  ScalarRowSource(const ScoringScheme& scoring, std::size_t spacing, std::uint64_t min_cells = 0,
                  Answer answer = Answer::rows)
      : scoring_(scoring), spacing_(spacing), min_cells_(min_cells), answer_(answer) {}

  std::uint64_t min_cells() const override { return min_cells_; }
  std::size_t spacing() const override { return spacing_; }

  bool rows(std::string_view a, std::string_view b, std::int32_t top_open, std::size_t spacing,
            std::vector<std::int32_t>& h, std::vector<std::int32_t>& ins, const DiagonalBand*) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      requests_.push_back({a.size(), b.size(), spacing, top_open});
    }
    if (answer_ == Answer::decline) return false;
    const std::int64_t open = scoring_.gap_open(), extend = scoring_.gap_extend();
    const std::int64_t minus_infinity = std::numeric_limits<std::int64_t>::min() / 4;
    const std::size_t n = b.size();
    // Row 0: one horizontal gap; no vertical gap ends there.
    std::vector<std::int64_t> h_above(n + 1), ins_above(n + 1, minus_infinity), h_row(n + 1), ins_row(n + 1);
    for (std::size_t j = 1; j <= n; ++j) h_above[j] = -(open + static_cast<std::int64_t>(j) * extend);
    for (std::size_t i = 1; i <= a.size(); ++i) {
      h_row[0] = ins_row[0] = -(top_open + static_cast<std::int64_t>(i) * extend);
      std::int64_t del = minus_infinity;
      for (std::size_t j = 1; j <= n; ++j) {
        ins_row[j] = std::max(ins_above[j] - extend, h_above[j] - open - extend);
        del = std::max(del - extend, h_row[j - 1] - open - extend);
        const std::int64_t match =
            h_above[j - 1] + scoring_.score(static_cast<std::uint8_t>(a[i - 1]), static_cast<std::uint8_t>(b[j - 1]));
        h_row[j] = std::max({match, ins_row[j], del});
      }
      std::swap(h_row, h_above);
      std::swap(ins_row, ins_above);
      if (i % spacing == 0 || i == a.size()) {
        for (std::size_t j = 0; j <= n; ++j) {
          h.push_back(static_cast<std::int32_t>(h_above[j]));
          ins.push_back(static_cast<std::int32_t>(ins_above[j]));
        }
      }
    }
    if (answer_ == Answer::row_too_few) h.resize(h.size() - (n + 1)), ins.resize(ins.size() - (n + 1));
    if (answer_ == Answer::last_value_too_high) h.back() += 1;
    return true;
  }

  std::vector<RowRequest> requests() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }

 private:
  const ScoringScheme& scoring_;
  std::size_t spacing_;
  std::uint64_t min_cells_;
  Answer answer_;
  mutable std::mutex mutex_;
  std::vector<RowRequest> requests_;
};

struct Pair {
  std::string query, subject;
};

// A related pair (a mutated core between random flanks) of about `length` residues each.
Pair related_pair(std::mt19937_64& rng, std::size_t length, int letters) {
  const std::string core = test::random_codes(rng, length, letters);
  return {test::random_codes(rng, length / 8, letters) + core + test::random_codes(rng, length / 10, letters),
          test::random_codes(rng, length / 9, letters) + test::mutated_codes(rng, core, letters, 0.2, 6) +
              test::random_codes(rng, length / 7, letters)};
}

std::vector<ScoringScheme> schemes() {
  std::vector<ScoringScheme> result;
  result.emplace_back(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  result.emplace_back(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  result.emplace_back(SubstitutionMatrix::nucleotide(1, -1), GapOpen{1}, GapExtend{1});  // many ties
  return result;
}

int letters(const ScoringScheme& scoring) { return scoring.matrix().type() == SequenceType::nucleotide ? 4 : 20; }

// Checkpointed: tables beyond 1,000 cells, checkpoint rows of any size.
cpu::AlignmentLimits checkpointed_limits(unsigned threads) {
  cpu::AlignmentLimits limits;
  limits.full_traceback_cells = 1000;
  limits.checkpoint_bytes = std::uint64_t{1} << 32;
  limits.threads = threads;
  return limits;
}

// Linear memory beyond leaves of 1,000 cells.
cpu::AlignmentLimits linear_limits(unsigned threads) {
  cpu::AlignmentLimits limits;
  limits.full_traceback_cells = 1000;
  limits.checkpoint_bytes = 0;
  limits.threads = threads;
  return limits;
}

void require_same(const PairAlignment& got, const PairAlignment& expected) {
  REQUIRE(got.operations == expected.operations);
  REQUIRE(got.score == expected.score);
  REQUIRE(got.query_begin == expected.query_begin);
  REQUIRE(got.query_end == expected.query_end);
  REQUIRE(got.subject_begin == expected.subject_begin);
  REQUIRE(got.subject_end == expected.subject_end);
  REQUIRE(got.identities == expected.identities);
  REQUIRE(got.mismatches == expected.mismatches);
  REQUIRE(got.gap_opens == expected.gap_opens);
  REQUIRE(got.gaps == expected.gaps);
}

// The spans of the pairs the tests align: local and global, each a rectangle beyond 1,000 cells.
struct Case {
  Pair pair;
  Span span;
  std::size_t rows() const { return span.query_end - span.query_begin; }
  std::size_t columns() const { return span.subject_end - span.subject_begin; }
};

std::vector<Case> cases(std::mt19937_64& rng, const ScoringScheme& scoring, std::vector<std::size_t> lengths) {
  std::vector<Case> result;
  for (const std::size_t length : lengths) {
    const Pair pair = related_pair(rng, length, letters(scoring));
    for (const AlignmentMode mode : {AlignmentMode::local, AlignmentMode::global}) {
      const Span span = cpu::pair_span(pair.query, pair.subject, scoring, mode);
      const Case c{pair, span};
      if (static_cast<std::uint64_t>(c.rows()) * (c.columns() + 1) > 1000) result.push_back(c);
    }
  }
  return result;
}

}  // namespace

TEST_CASE("row source: the checkpointed path with the source's rows", "[alignment][row_source]") {
  std::mt19937_64 rng(211);
  for (const ScoringScheme& scoring : schemes()) {
    const std::vector<std::size_t> lengths =
        letters(scoring) == 20 ? std::vector<std::size_t>{150, 330, 1500} : std::vector<std::size_t>{120, 400};
    for (const Case& c : cases(rng, scoring, lengths)) {
      const PairAlignment whole = cpu::align_in_rectangle(c.pair.query, c.pair.subject, scoring, c.span);
      const PairAlignment banded =
          cpu::align_in_rectangle(c.pair.query, c.pair.subject, scoring, c.span, checkpointed_limits(1));
      require_same(banded, whole);
      for (const std::size_t spacing : {std::size_t{1}, std::size_t{7}, std::size_t{64}, c.rows() + 5}) {
        for (const unsigned threads : {1u, 4u}) {
          INFO(scoring.matrix().name() << " " << c.rows() << " x " << c.columns() << ", spacing " << spacing << ", "
                                       << threads << " threads");
          ScalarRowSource source(scoring, spacing);
          cpu::AlignmentLimits limits = checkpointed_limits(threads);
          limits.row_source = &source;
          require_same(cpu::align_in_rectangle(c.pair.query, c.pair.subject, scoring, c.span, limits), whole);
          const std::vector<RowRequest> requests = source.requests();
          REQUIRE(requests.size() == 1);
          CHECK(requests[0].rows == c.rows());
          CHECK(requests[0].columns == c.columns());
          CHECK(requests[0].top_open == scoring.gap_open());
          if (spacing < c.rows())
            CHECK(requests[0].spacing == spacing);
          else
            CHECK(requests[0].spacing >= c.rows());
        }
      }
    }
  }
}

TEST_CASE("row source: declined, below min_cells, or with wrong rows", "[alignment][row_source]") {
  std::mt19937_64 rng(223);
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  const Case c = cases(rng, scoring, {300}).front();
  const std::uint64_t cells = static_cast<std::uint64_t>(c.rows()) * (c.columns() + 1);
  const PairAlignment whole = cpu::align_in_rectangle(c.pair.query, c.pair.subject, scoring, c.span);
  for (const unsigned threads : {1u, 4u}) {
    INFO(threads << " threads");
    cpu::AlignmentLimits limits = checkpointed_limits(threads);
    ScalarRowSource declining(scoring, 16, 0, ScalarRowSource::Answer::decline);
    limits.row_source = &declining;
    require_same(cpu::align_in_rectangle(c.pair.query, c.pair.subject, scoring, c.span, limits), whole);
    CHECK(declining.requests().size() == 1);

    ScalarRowSource above(scoring, 16, cells + 1);  // the rectangle is one cell short of min_cells
    limits.row_source = &above;
    require_same(cpu::align_in_rectangle(c.pair.query, c.pair.subject, scoring, c.span, limits), whole);
    CHECK(above.requests().empty());
    ScalarRowSource at(scoring, 16, cells);
    limits.row_source = &at;
    require_same(cpu::align_in_rectangle(c.pair.query, c.pair.subject, scoring, c.span, limits), whole);
    CHECK(at.requests().size() == 1);

    ScalarRowSource short_rows(scoring, 16, 0, ScalarRowSource::Answer::row_too_few);
    limits.row_source = &short_rows;
    REQUIRE_THROWS_AS(cpu::align_in_rectangle(c.pair.query, c.pair.subject, scoring, c.span, limits), std::logic_error);
    // The score is read from the source's last row: one too high there is caught by the score check.
    ScalarRowSource high(scoring, 16, 0, ScalarRowSource::Answer::last_value_too_high);
    limits.row_source = &high;
    REQUIRE_THROWS_AS(cpu::align_in_rectangle(c.pair.query, c.pair.subject, scoring, c.span, limits), std::logic_error);
  }
}

TEST_CASE("row source: the linear-memory path with the source's last rows", "[alignment][row_source]") {
  std::mt19937_64 rng(227);
  for (const ScoringScheme& scoring : schemes()) {
    for (const Case& c : cases(rng, scoring, {140, 420})) {
      const PairAlignment linear =
          cpu::align_in_rectangle(c.pair.query, c.pair.subject, scoring, c.span, linear_limits(1));
      for (const std::uint64_t min_cells : {std::uint64_t{0}, std::uint64_t{6000}}) {
        for (const unsigned threads : {1u, 4u}) {
          INFO(scoring.matrix().name() << " " << c.rows() << " x " << c.columns() << ", min_cells " << min_cells << ", "
                                       << threads << " threads");
          cpu::AlignmentLimits limits = linear_limits(threads);
          {  // with the exact band the CPU's rows are banded and the source's exact: the same operations
            ScalarRowSource banded_source(scoring, 7, min_cells);
            limits.row_source = &banded_source;
            require_same(cpu::align_in_rectangle(c.pair.query, c.pair.subject, scoring, c.span, limits), linear);
          }
          // Without it, the source is asked for every pass of min_cells cells or more.
          limits.exact_band = false;
          ScalarRowSource source(scoring, 7, min_cells);
          limits.row_source = &source;
          require_same(cpu::align_in_rectangle(c.pair.query, c.pair.subject, scoring, c.span, limits), linear);
          const std::vector<RowRequest> requests = source.requests();
          if (static_cast<std::uint64_t>(c.rows() / 2) * (c.columns() + 1) >= min_cells)
            REQUIRE(!requests.empty());  // at least the top split's two passes
          for (const RowRequest& request : requests) {
            CHECK(request.rows > 0);
            CHECK(request.spacing >= request.rows);  // the last row only
            CHECK(static_cast<std::uint64_t>(request.rows) * (request.columns + 1) >= min_cells);
            CHECK((request.top_open == scoring.gap_open() || request.top_open == 0));
          }
          ScalarRowSource declining(scoring, 7, min_cells, ScalarRowSource::Answer::decline);
          limits.row_source = &declining;
          require_same(cpu::align_in_rectangle(c.pair.query, c.pair.subject, scoring, c.span, limits), linear);
          CHECK(declining.requests().size() == requests.size());
        }
      }
    }
  }
}

TEST_CASE("row source: threads rebuild the checkpointed bands without changing them", "[alignment][row_source]") {
  std::mt19937_64 rng(229);
  for (const ScoringScheme& scoring : schemes()) {
    for (const Case& c : cases(rng, scoring, {2000})) {
      const PairAlignment one =
          cpu::align_in_rectangle(c.pair.query, c.pair.subject, scoring, c.span, checkpointed_limits(1));
      // About sqrt(8 * 2000) = 127 rows per band: more bands than threads.
      REQUIRE(c.rows() > 8 * 127);
      require_same(one, cpu::align_in_rectangle(c.pair.query, c.pair.subject, scoring, c.span));
      for (const unsigned threads : {2u, 3u, 4u, 8u}) {
        INFO(scoring.matrix().name() << " " << c.rows() << " x " << c.columns() << ", " << threads << " threads");
        require_same(
            cpu::align_in_rectangle(c.pair.query, c.pair.subject, scoring, c.span, checkpointed_limits(threads)), one);
      }
    }
  }
}

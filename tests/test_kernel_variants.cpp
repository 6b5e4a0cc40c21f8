// Every CPU kernel variant, listed once in a registry and checked by one test against the 64-bit
// reference, as parasail checks each of its functions: the scan kernels (instruction set x starting
// width), the striped end kernels (instruction set x mode x 16/32 bits, and the 64-bit fallback), the
// score-and-rectangle passes and the whole alignment (instruction set x mode, the operations replayed).
// A variant added to the kernels and to the registry is tested on the whole corpus at once; the edge cases
// of each family stay in its own test file (test_cpu_kernels, test_striped, test_alignment).
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/alignment_mode.hpp"
#include "core/span.hpp"
#include "kernels/cpu/alignment.hpp"
#include "kernels/cpu/query_scorer.hpp"
#include "kernels/cpu/striped.hpp"
#include "kernels/reference/reference.hpp"
#include "tests/catch.hpp"
#include "tests/cpu_kernel_support.hpp"
#include "tests/test_support.hpp"

using namespace warpsearch;
using warpsearch::cpu::Isa;
using warpsearch::cpu::Width;
using warpsearch::test::runnable_isas;

namespace {

// What a variant computed for one pair: the score, and as much of the rectangle and operations as
// it computes.
struct Computed {
  bool declined = false;  // a fixed-width kernel that cannot guarantee this pair's result
  Span span;
  bool ends = false, starts = false;
  std::optional<std::string> operations;
};

struct Variant {
  std::string name;
  AlignmentMode mode;
  std::function<Computed(const std::string& query, const std::string& subject, const ScoringScheme& scoring)> run;
};
// The scan kernel's score of one subject.
std::int32_t scan_score(const cpu::QueryScorer& scorer, const std::string& subject, std::uint8_t pad, Width width) {
  const test::PackedBatch packed({subject}, pad);
  std::int32_t score = -1;
  scorer.score(packed.batch(), &score, width);
  return score;
}

// The registry: every variant this machine and build can run.
std::vector<Variant> cpu_kernel_variants() {
  std::vector<Variant> variants;
  const AlignmentMode table_modes[] = {AlignmentMode::local, AlignmentMode::global, AlignmentMode::semiglobal};
  for (const Isa isa : runnable_isas()) {
    const std::string isa_name = cpu::isa_name(isa);
    for (const Width width : {Width::w8, Width::w16, Width::w32})
      variants.push_back({"scan " + isa_name + " from " + std::to_string(static_cast<int>(width)) + " bits",
                          AlignmentMode::local, [isa, width](const auto& q, const auto& s, const auto& scoring) {
                            const cpu::QueryScorer scorer(q, scoring, isa);
                            Computed c;
                            c.span.score = scan_score(scorer, s, scoring.matrix().alphabet().pad_code(), width);
                            return c;
                          }});
    for (const AlignmentMode mode : table_modes) {
      const std::string mode_name = alignment_mode_name(mode);
      for (const Width width : {Width::w16, Width::w32})
        variants.push_back(
            {"striped end " + isa_name + " " + mode_name + " " + std::to_string(static_cast<int>(width)) + " bits",
             mode, [isa, mode, width](const auto& q, const auto& s, const auto& scoring) {
               const auto end = cpu::StripedScorer(q, scoring, isa).end_at_width(s, mode, width);
               Computed c;
               c.declined = !end;
               if (end) {
                 c.span.score = end->score;
                 c.span.query_end = end->query_end;
                 c.span.subject_end = end->subject_end;
                 c.ends = true;
               }
               return c;
             }});
      variants.push_back({"pair span " + isa_name + " " + mode_name, mode,
                          [isa, mode](const auto& q, const auto& s, const auto& scoring) {
                            Computed c;
                            c.span = cpu::pair_span(q, s, scoring, mode, isa);
                            c.ends = c.starts = true;
                            return c;
                          }});
      variants.push_back({"alignment " + isa_name + " " + mode_name, mode,
                          [isa, mode](const auto& q, const auto& s, const auto& scoring) {
                            const PairAlignment a = cpu::align_pair(q, s, scoring, mode, {}, isa);
                            Computed c;
                            c.span = a;
                            c.ends = c.starts = true;
                            c.operations = a.operations;
                            return c;
                          }});
    }
  }
  for (const AlignmentMode mode : table_modes)
    variants.push_back({std::string("striped end 64 bits ") + alignment_mode_name(mode), mode,
                        [mode](const auto& q, const auto& s, const auto& scoring) {
                          const cpu::PairEnd end = cpu::StripedScorer(q, scoring, Isa::scalar).end_64_bits(s, mode);
                          Computed c;
                          c.span.score = end.score;
                          c.span.query_end = end.query_end;
                          c.span.subject_end = end.subject_end;
                          c.ends = true;
                          return c;
                        }});
  return variants;
}

// The score of the operations over the rectangle (they must consume it exactly).
std::int64_t replayed(const std::string& operations, const std::string& query, const std::string& subject,
                      const Span& span, const ScoringScheme& scoring) {
  std::int64_t score = 0;
  std::size_t i = span.query_begin, j = span.subject_begin;
  for (std::size_t k = 0; k < operations.size(); ++k) {
    const char op = operations[k];
    if (op == 'M') {
      score += scoring.score(static_cast<std::uint8_t>(query[i++]), static_cast<std::uint8_t>(subject[j++]));
    } else {
      score -= (k > 0 && operations[k - 1] == op ? 0 : scoring.gap_open()) + scoring.gap_extend();
      ++(op == 'I' ? i : j);
    }
  }
  CHECK(i == span.query_end);
  CHECK(j == span.subject_end);
  return score;
}

struct Pair {
  std::string query, subject;
};

// Random pairs, related pairs (mutated copies, pieces inside random flanks) and edge lengths.
std::vector<Pair> corpus(std::mt19937_64& rng, int alphabet_size) {
  std::vector<Pair> pairs;
  std::uniform_int_distribution<std::size_t> length(1, 300);
  for (std::size_t q : {1, 2, 7, 16, 33})
    pairs.push_back({test::random_codes(rng, q, alphabet_size), test::random_codes(rng, length(rng), alphabet_size)});
  for (int n = 0; n < 12; ++n) {
    const std::string query = test::random_codes(rng, length(rng), alphabet_size);
    pairs.push_back({query, test::random_codes(rng, length(rng), alphabet_size)});
    pairs.push_back({query, test::mutated_codes(rng, query, alphabet_size, 0.1 * (n % 4), 5)});
    pairs.push_back({query, test::random_codes(rng, 40, alphabet_size) +
                                test::mutated_codes(rng, query.substr(query.size() / 3), alphabet_size, 0.15, 5) +
                                test::random_codes(rng, 25, alphabet_size)});
  }
  return pairs;
}

}  // namespace

TEST_CASE("kernel variants: every CPU kernel variant in the registry equals the 64-bit reference", "[kernels]") {
  const std::vector<Variant> variants = cpu_kernel_variants();
  // Scan x 3 widths, striped x 3 modes x 2 widths, pair span and alignment x 3 modes, per instruction
  // set; and the 64-bit fallback.
  REQUIRE(variants.size() == runnable_isas().size() * 15 + 3);
  std::mt19937_64 rng(20261125);
  const ScoringScheme schemes[] = {
      ScoringScheme(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1}),
      ScoringScheme(SubstitutionMatrix::builtin("PAM30"), GapOpen{9}, GapExtend{1}),
      ScoringScheme(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2}),
      ScoringScheme(SubstitutionMatrix::nucleotide(1, -2), GapOpen{0}, GapExtend{2}),
  };
  std::size_t checked = 0, declined = 0;
  for (const ScoringScheme& scoring : schemes) {
    const int alphabet_size = scoring.matrix().alphabet().type() == SequenceType::protein ? 20 : 4;
    const std::vector<Pair> pairs = corpus(rng, alphabet_size);
    for (const Pair& pair : pairs)
      for (const Variant& variant : variants) {
        INFO(variant.name << ", " << scoring.matrix().name() << " " << scoring.gap_open() << "/" << scoring.gap_extend()
                          << ", lengths " << pair.query.size() << " x " << pair.subject.size());
        const Span expected = reference::span(pair.query, pair.subject, scoring, variant.mode);
        const Computed got = variant.run(pair.query, pair.subject, scoring);
        if (got.declined) {
          ++declined;
          continue;
        }
        ++checked;
        REQUIRE(got.span.score == expected.score);
        if (got.ends) {
          CHECK(got.span.query_end == expected.query_end);
          CHECK(got.span.subject_end == expected.subject_end);
        }
        if (got.starts) {
          CHECK(got.span.query_begin == expected.query_begin);
          CHECK(got.span.subject_begin == expected.subject_begin);
        }
        if (got.operations)
          CHECK(replayed(*got.operations, pair.query, pair.subject, got.span, scoring) == expected.score);
      }
  }
  // The fixed-width kernels decline only pairs near their bounds: on this corpus, none.
  CHECK(declined == 0);
  CHECK(checked > 1000);
}

// GPU hot columns vs the column maxima of a plain 64-bit local DP on the CPU: DNA and protein, queries
// shorter and longer than one stripe of the kernel, stretches cut into several pieces, owned parts after
// a context, planted copies that make wide hot runs. Skips (with a warning) where no GPU is usable.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/long_subject.hpp"
#include "kernels/gpu/gpu_scorer.hpp"
#include "kernels/gpu/hot_columns.hpp"
#include "profile/scoring.hpp"
#include "tests/catch.hpp"
#include "tests/gpu_test_support.hpp"
#include "tests/random_sequences.hpp"

namespace {

using warpsearch::GapExtend;
using warpsearch::GapOpen;
using warpsearch::ScoringScheme;
using warpsearch::SubstitutionMatrix;
using warpsearch::gpu::HotColumnScanner;
using warpsearch::gpu::HotColumnTask;

// The best cell of each column of the local DP of query against subject (64-bit Gotoh; a gap of length
// k costs open + k * extend).
std::vector<long long> column_maxima(const std::string& query, const std::string& subject,
                                     const ScoringScheme& scoring) {
  constexpr long long kMinusInfinity = -(1LL << 60);
  const long long first = scoring.gap_open() + scoring.gap_extend();
  const long long extend = scoring.gap_extend();
  std::vector<long long> h(query.size() + 1, 0), e(query.size() + 1, kMinusInfinity), maxima(subject.size(), 0);
  for (std::size_t j = 0; j < subject.size(); ++j) {
    long long diagonal = 0, f = kMinusInfinity;
    for (std::size_t i = 1; i <= query.size(); ++i) {
      e[i] = std::max(e[i] - extend, h[i] - first);
      f = std::max(f - extend, h[i - 1] - first);
      const long long value = std::max(
          {0LL,
           diagonal + scoring.score(static_cast<std::uint8_t>(query[i - 1]), static_cast<std::uint8_t>(subject[j])),
           e[i], f});
      diagonal = h[i];
      h[i] = value;
      maxima[j] = std::max(maxima[j], value);
    }
  }
  return maxima;
}

bool have_gpu() { return warpsearch::test::gpu_usable("GPU hot-column test"); }

// A subject of `length` random residues with mutated copies of the query planted at `copies` places.
std::string subject_with_copies(std::mt19937_64& rng, const std::string& query, std::size_t length, int copies,
                                int alphabet_size) {
  std::string subject = warpsearch::test::random_codes(rng, length, alphabet_size);
  for (int c = 0; c < copies; ++c) {
    const std::string copy = warpsearch::test::mutated_codes(rng, query, alphabet_size, 0.1, 3);
    if (copy.size() >= length) continue;
    const std::size_t at = std::uniform_int_distribution<std::size_t>(0, length - copy.size())(rng);
    subject.replace(at, copy.size(), copy);
  }
  return subject;
}

void check(const ScoringScheme& scoring, int alphabet_size, const std::vector<std::size_t>& query_lengths,
           std::size_t subject_length, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> queries, subjects;
  std::vector<HotColumnTask> tasks;
  for (const std::size_t m : query_lengths) {
    queries.push_back(warpsearch::test::random_codes(rng, m, alphabet_size));
    subjects.push_back(subject_with_copies(rng, queries.back(), subject_length, 3, alphabet_size));
  }
  for (std::size_t k = 0; k < queries.size(); ++k) {
    // A threshold a planted copy passes and random sequence rarely does: a third of the self score.
    long long self = 0;
    for (const char c : queries[k]) self += scoring.score(static_cast<std::uint8_t>(c), static_cast<std::uint8_t>(c));
    const std::int64_t threshold = std::max<long long>(1, self / 3);
    const std::uint64_t reach = warpsearch::cpu::alignment_reach(queries[k].size(), scoring, threshold);
    REQUIRE(reach > 0);
    tasks.push_back({queries[k], subjects[k], k % 2 == 0 ? 0 : std::min<std::uint64_t>(reach - 1, subject_length / 4),
                     reach, threshold});
  }
  HotColumnScanner scanner(0, scoring);
  std::vector<std::vector<std::uint8_t>> hot;
  scanner.scan(tasks, hot);
  REQUIRE(hot.size() == tasks.size());
  for (std::size_t k = 0; k < tasks.size(); ++k) {
    const std::vector<long long> maxima = column_maxima(queries[k], subjects[k], scoring);
    REQUIRE(hot[k].size() == subjects[k].size() - tasks[k].owned_from);
    std::size_t flagged = 0, wrong = 0;
    for (std::size_t c = 0; c < hot[k].size(); ++c) {
      const bool expected = maxima[tasks[k].owned_from + c] >= tasks[k].threshold;
      flagged += expected ? 1 : 0;
      if ((hot[k][c] != 0) != expected) ++wrong;
    }
    INFO("task " << k << ": query " << queries[k].size() << ", subject " << subjects[k].size() << ", owned from "
                 << tasks[k].owned_from << ", threshold " << tasks[k].threshold);
    CHECK(wrong == 0);
    CHECK(flagged > 0);  // the planted copies make hot columns: the comparison tests something
  }
}

}  // namespace

TEST_CASE("GPU hot columns equal the 64-bit DP's column maxima", "[gpu][hot]") {
  if (!have_gpu()) return;
  SECTION("DNA, short and multi-stripe queries, several pieces") {
    const ScoringScheme dna(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
    check(dna, 4, {1, 37, 300, 512, 513, 1500}, 30000, 7);
  }
  SECTION("protein, BLOSUM62") {
    const ScoringScheme protein(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
    check(protein, 20, {50, 700}, 20000, 11);
  }
}

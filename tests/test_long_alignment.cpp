// Long pair alignment: the linear-memory traceback (Myers-Miller, kernels/cpu/alignment.hpp) forced on
// small rectangles against the 64-bit references in every mode, and a 100,000 x 100,000 global
// alignment whose operations are rescored here and whose memory growth is measured.
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/cpu/alignment.hpp"
#include "kernels/reference/reference.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

using namespace warpsearch;

namespace {

constexpr AlignmentMode kModes[] = {AlignmentMode::local, AlignmentMode::global, AlignmentMode::semiglobal};

// The score of the operations over the alignment's rectangle, by the gap rule of profile/scoring.hpp,
// written here without the library's replay; fails the test when the operations do not consume the
// rectangle exactly.
std::int64_t rescore(std::string_view query, std::string_view subject, const ScoringScheme& scoring,
                     const PairAlignment& alignment) {
  std::int64_t score = 0;
  std::size_t i = alignment.query_begin, j = alignment.subject_begin;
  char previous = 'M';
  bool inside = true;  // every operation is M, I or D and stays inside the rectangle
  for (const char op : alignment.operations) {
    if (op == 'M') {
      inside = inside && i < alignment.query_end && j < alignment.subject_end;
      if (!inside) break;
      score += scoring.score(static_cast<std::uint8_t>(query[i++]), static_cast<std::uint8_t>(subject[j++]));
    } else {
      inside = inside && (op == 'I' || op == 'D');
      score -= (op == previous ? 0 : scoring.gap_open()) + scoring.gap_extend();
      ++(op == 'I' ? i : j);
    }
    previous = op;
  }
  REQUIRE(inside);
  REQUIRE(i == alignment.query_end);
  REQUIRE(j == alignment.subject_end);
  return score;
}

// Limits that send every rectangle above `leaf` cells to the linear-memory path.
cpu::AlignmentLimits linear_limits(std::uint64_t leaf) {
  cpu::AlignmentLimits limits;
  limits.full_traceback_cells = leaf;
  limits.checkpoint_bytes = 0;
  return limits;
}

// The process's peak resident memory (VmHWM), in bytes; 0 where /proc does not tell.
std::uint64_t peak_resident_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  return 0;
}

// Resets the peak to the current resident size (Linux 4.0 and later); false where it cannot.
bool reset_peak_resident() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  return static_cast<bool>(clear);
}

}  // namespace

TEST_CASE("long alignment: the linear-memory path against the reference", "[alignment][linear]") {
  std::mt19937_64 rng(97);
  std::vector<ScoringScheme> schemes;
  for (const auto& name : {"BLOSUM62", "PAM30"})
    schemes.emplace_back(SubstitutionMatrix::builtin(name), GapOpen{11}, GapExtend{1});
  // Open 0 (extending never beats opening), cheap and dear gaps, the dearest extend the scoring allows
  // (open + extend <= 127; extend >= 1, so there is no free extension).
  for (auto [open, extend] : {std::pair{0, 1}, {1, 1}, {20, 5}, {3, 60}, {0, 127}, {126, 1}})
    schemes.emplace_back(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{open}, GapExtend{extend});
  schemes.emplace_back(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  schemes.emplace_back(SubstitutionMatrix::nucleotide(1, -1), GapOpen{0}, GapExtend{1});
  schemes.emplace_back(SubstitutionMatrix::nucleotide(1, -2), GapOpen{2}, GapExtend{1});
  std::uniform_int_distribution<std::size_t> length(0, 90);
  for (const auto& scoring : schemes) {
    const int letters = scoring.matrix().type() == SequenceType::nucleotide ? 4 : 20;
    for (int n = 0; n < 24; ++n) {
      // Unrelated, related (long gaps across the middle rows), and two-letter pairs (many ties).
      const int kind = n % 3;
      const std::string query = test::random_codes(rng, length(rng), kind == 2 ? 2 : letters);
      const std::string subject = kind == 1 ? test::random_codes(rng, length(rng) / 6, letters) +
                                                  test::mutated_codes(rng, query, letters, 0.1 * (n % 5), 12) +
                                                  test::random_codes(rng, length(rng) / 6, letters)
                                            : test::random_codes(rng, length(rng), kind == 2 ? 2 : letters);
      for (const AlignmentMode mode : kModes) {
        const Span expected = reference::span(query, subject, scoring, mode);
        std::string single_thread_operations;
        for (std::uint64_t leaf : {std::uint64_t{0}, std::uint64_t{2}, std::uint64_t{40}, std::uint64_t{300}}) {
          INFO(scoring.matrix().name() << " " << scoring.gap_open() << "/" << scoring.gap_extend() << " mode "
                                       << static_cast<int>(mode) << " case " << n << ": " << query.size() << " x "
                                       << subject.size() << ", leaf " << leaf);
          cpu::AlignmentLimits limits = linear_limits(leaf);
          // Threads share out the passes and the halves; the operations must not change.
          if (leaf == 2) {
            limits.threads = 3;
            REQUIRE(cpu::align_pair(query, subject, scoring, mode, limits).operations == single_thread_operations);
          }
          const PairAlignment alignment = cpu::align_pair(query, subject, scoring, mode, limits);
          if (leaf == 0) single_thread_operations = alignment.operations;
          REQUIRE(alignment.score == expected.score);
          REQUIRE(alignment.query_begin == expected.query_begin);
          REQUIRE(alignment.query_end == expected.query_end);
          REQUIRE(alignment.subject_begin == expected.subject_begin);
          REQUIRE(alignment.subject_end == expected.subject_end);
          REQUIRE(rescore(query, subject, scoring, alignment) == expected.score);
        }
      }
    }
  }
}

TEST_CASE("long alignment: a 100,000 x 100,000 global alignment in linear memory", "[alignment][linear]") {
  std::mt19937_64 rng(101);
  const ScoringScheme dna(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  const std::string query = test::random_codes(rng, 100000, 4);
  // Substitutions, insertions and deletions of 1 to 4 residues, each at 8% / 3 of the positions: about
  // 87% of the query's residues are kept, in a subject of about the same length (cut or filled at its
  // end to 100,000).
  std::string subject = test::mutated_codes(rng, query, 4, 0.08, 4);
  subject.resize(std::min<std::size_t>(subject.size(), 100000));
  while (subject.size() < 100000) subject += static_cast<char>(rng() % 4);

  const bool measured = reset_peak_resident() && peak_resident_bytes() > 0;
  const std::uint64_t before = peak_resident_bytes();
  cpu::AlignmentLimits limits;  // the default paths and budgets, on two threads
  limits.threads = 2;
  const PairAlignment alignment = cpu::align_pair(query, subject, dna, AlignmentMode::global, limits);
  const std::uint64_t growth = peak_resident_bytes() - before;

  REQUIRE(alignment.query_end == 100000);
  REQUIRE(alignment.subject_end == 100000);
  REQUIRE(rescore(query, subject, dna, alignment) == alignment.score);
  // A related pair: about 87,000 identities (+174,000), 2,700 substitutions (-8,000) and 5,300 gaps
  // averaging 2.5 residues (-53,000) make about +110,000; unrelated DNA would score below zero.
  CHECK(alignment.score > 60000);
  CHECK(alignment.identities > 80000);
  // The checkpointed traceback would keep ~180 MB of rows here, a whole table 10 GB; the linear path
  // keeps a few rows, the profiles and one leaf table of at most 2^25 bytes per thread (two here).
  if (measured) {
    INFO("peak resident growth " << growth / 1024 << " KiB");
    CHECK(growth < (std::uint64_t{80} << 20));
  } else {
    WARN("this system does not report or reset the peak resident size: the memory bound is not checked");
  }
}

TEST_CASE("long alignment: a rectangle beyond the traceback's 32-bit rows is refused", "[alignment][linear]") {
  // Extend 127: 4.3 million gap columns cost more than 2^29, below the rows' minus infinity. The
  // rectangle is refused before any row is computed, whatever score it is given.
  const ScoringScheme dear(SubstitutionMatrix::nucleotide(1, -1), GapOpen{0}, GapExtend{127});
  const std::string query(10, '\x01'), subject(4300000, '\x02');
  REQUIRE_THROWS_AS(cpu::align_in_rectangle(query, subject, dear, {0, 0, 10, 0, 4300000}), std::overflow_error);
  // At extend 1 the same rectangle fits (its boundary gaps cost 4.3 million), on the linear path (10 rows
  // of 4.3 million columns): 10 mismatches and 4,299,990 deletions at -1 each.
  const ScoringScheme cheap(SubstitutionMatrix::nucleotide(1, -1), GapOpen{0}, GapExtend{1});
  const PairAlignment alignment = cpu::align_in_rectangle(query, subject, cheap, {-4300000, 0, 10, 0, 4300000});
  CHECK(rescore(query, subject, cheap, alignment) == -4300000);
}

TEST_CASE("long alignment: warpsearch align, a 2 kb read in a 4.4 Mb genome", "[alignment][linear][cli]") {
  // Beyond the former 4.2-million-residue bound of the striped passes: the whole command, local and
  // semi-global, with the CIGAR. An exact planted copy is the best any alignment can score (2,000
  // matches of 2), and a second one in random DNA is beyond chance.
  std::mt19937_64 rng(103);
  const char bases[] = "ACGT";
  std::string read(2000, 'A'), genome(4400000, 'A');
  for (char& c : read) c = bases[rng() % 4];
  for (char& c : genome) c = bases[rng() % 4];
  genome.replace(3100000, read.size(), read);
  test::TempDir dir;
  std::string genome_fasta = ">genome\n";
  for (std::size_t k = 0; k < genome.size(); k += 80) genome_fasta += genome.substr(k, 80) + "\n";
  test::write_file(dir.file("read.fa"), ">read\n" + read + "\n");
  test::write_file(dir.file("genome.fa"), genome_fasta);
  for (const std::string mode : {"local", "semiglobal"}) {
    const test::CommandResult result =
        test::run_warpsearch("align --quiet --device cpu --mode " + mode + " --cigar --query '" + dir.file("read.fa") +
                             "' --target '" + dir.file("genome.fa") + "'");
    INFO(mode << ": " << result.err);
    REQUIRE(result.exit_code == 0);
    CHECK(result.out.find("read\tgenome\t4000\t1\t2000\t3100001\t3102000\t2000M\n") != std::string::npos);
  }
}

// The traceback's 16-bit rows (AlignmentLimits::narrow_rows, fits_narrow_rows in
// kernels/cpu/alignment_rows.hpp): wherever a rectangle fits them, the operations are those of the 32-bit
// rows on every instruction set, every path and at the edges of the range they accept, and the plain
// reference's score.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/alignment.hpp"
#include "kernels/cpu/alignment_rows.hpp"
#include "kernels/reference/reference.hpp"
#include "tests/catch.hpp"
#include "tests/random_sequences.hpp"

using namespace warpsearch;
using cpu::Isa;

namespace {

std::vector<Isa> supported_isas() {
  std::vector<Isa> isas;
  for (Isa isa : {Isa::avx512bw, Isa::avx2, Isa::sse41, Isa::scalar})
    if (cpu::isa_supported(isa)) isas.push_back(isa);
  return isas;
}

// The alignment with 16-bit rows and with 32-bit rows; the test fails where they differ.
void require_same_operations(const std::string& a, const std::string& b, const ScoringScheme& scoring,
                             AlignmentMode mode, cpu::AlignmentLimits limits, Isa isa) {
  limits.narrow_rows = true;
  const PairAlignment narrow = cpu::align_pair(a, b, scoring, mode, limits, isa);
  limits.narrow_rows = false;
  const PairAlignment wide = cpu::align_pair(a, b, scoring, mode, limits, isa);
  REQUIRE(narrow.score == wide.score);
  REQUIRE(narrow.operations == wide.operations);
}

}  // namespace

TEST_CASE("narrow rows: the operations are the 32-bit rows', on every instruction set and path",
          "[alignment][narrow]") {
  std::mt19937_64 rng(61);
  const ScoringScheme dna(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  const ScoringScheme protein(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  const ScoringScheme free_open(SubstitutionMatrix::nucleotide(1, -1), GapOpen{0}, GapExtend{1});
  // Lengths around the vectors' widths (8, 16 and 32 columns) and a few hundred residues.
  const std::size_t lengths[] = {1, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 200, 380, 700};
  struct Path {
    const char* name;
    std::uint64_t full_traceback_cells, checkpoint_bytes;
  };
  const Path paths[] = {Path{"whole table", std::uint64_t{1} << 25, std::uint64_t{64} << 20},
                        Path{"linear, leaves of 4,096 cells", 4096, 0}};
  for (const Isa isa : supported_isas())
    for (const ScoringScheme* scoring : {&dna, &protein, &free_open}) {
      const int codes = scoring == &protein ? 20 : 4;
      for (const std::size_t length : lengths)
        for (int kind = 0; kind < 3; ++kind) {
          // Related (a narrow band), unrelated (the whole rectangle), two-letter repeats (ties).
          const std::string a = test::random_codes(rng, length, kind == 2 ? 2 : codes);
          const std::string b = kind == 1 ? test::random_codes(rng, length + length / 5, codes)
                                          : test::mutated_codes(rng, a, kind == 2 ? 2 : codes, 0.15, 4);
          for (const Path& path : paths)
            for (const bool exact_band : {true, false})
              for (const AlignmentMode mode :
                   {AlignmentMode::local, AlignmentMode::global, AlignmentMode::semiglobal}) {
                INFO(cpu::isa_name(isa) << ", " << scoring->matrix().name() << " " << scoring->gap_open() << "/"
                                        << scoring->gap_extend() << ", " << a.size() << " x " << b.size() << ", kind "
                                        << kind << ", " << path.name << ", band " << exact_band << ", mode "
                                        << static_cast<int>(mode));
                cpu::AlignmentLimits limits;
                limits.full_traceback_cells = path.full_traceback_cells;
                limits.checkpoint_bytes = path.checkpoint_bytes;
                limits.exact_band = exact_band;
                require_same_operations(a, b, *scoring, mode, limits, isa);
              }
        }
    }
}

TEST_CASE("narrow rows: the rectangles they accept, and the operations at the edges of their range",
          "[alignment][narrow]") {
  const ScoringScheme protein(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  const ScoringScheme dna(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  CHECK(cpu::detail::fits_narrow_rows(380, 380, dna, dna.gap_open()));
  CHECK(cpu::detail::fits_narrow_rows(1000, 1000, protein, protein.gap_open()));
  CHECK_FALSE(cpu::detail::fits_narrow_rows(3000, 3000, protein, protein.gap_open()));

  // The largest square of W against W that fits: every diagonal cell scores 11 more than the last, so
  // the values reach the top of the range; one residue more does not fit.
  std::size_t n = 1;
  while (cpu::detail::fits_narrow_rows(n + 1, n + 1, protein, protein.gap_open())) ++n;
  CHECK(n > 2000);
  CHECK(n < 3000);
  const std::uint8_t w = Alphabet::protein().encode('W');
  const std::string high(n, static_cast<char>(w));
  for (const Isa isa : supported_isas()) {
    for (const bool exact_band : {true, false}) {
      INFO(cpu::isa_name(isa) << ", " << n << " x " << n << " W, band " << exact_band);
      cpu::AlignmentLimits limits;
      limits.exact_band = exact_band;
      require_same_operations(high, high, protein, AlignmentMode::global, limits, isa);
    }
  }
  CHECK(cpu::align_pair(high, high, protein, AlignmentMode::global).score ==
        reference::span(high, high, protein, AlignmentMode::global).score);

  // The bottom: one residue against the longest subject that fits, at a dear extend, so that the
  // row-0 gap and the horizontal gaps' scan come close to the range's ends.
  const ScoringScheme dear(SubstitutionMatrix::nucleotide(2, -3), GapOpen{40}, GapExtend{12});
  std::size_t columns = 1;
  while (cpu::detail::fits_narrow_rows(1, columns + 1, dear, dear.gap_open())) ++columns;
  CHECK(columns > 500);
  std::mt19937_64 rng(67);
  const std::string one = test::random_codes(rng, 1, 4);
  const std::string longest = test::random_codes(rng, columns, 4);
  for (const Isa isa : supported_isas())
    for (const AlignmentMode mode : {AlignmentMode::global, AlignmentMode::semiglobal}) {
      INFO(cpu::isa_name(isa) << ", 1 x " << columns << ", mode " << static_cast<int>(mode));
      require_same_operations(one, longest, dear, mode, {}, isa);
      require_same_operations(longest, one, dear, mode, {}, isa);
    }
}

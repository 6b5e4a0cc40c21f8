// Composition-based statistics (search/composition.hpp) and SEG (profile/seg.hpp): properties that can be
// checked by hand, the fine-scale aligner against the reference Smith-Waterman, and SEG's intervals
// against segmasker (Debian ncbi-blast+), skipped with a message where it is missing.
#include <cmath>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/alphabet.hpp"
#include "kernels/reference/reference.hpp"
#include "profile/seg.hpp"
#include "search/composition.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

using namespace warpsearch;
using warpsearch::test::have_tool;
using warpsearch::test::read_file;
using warpsearch::test::run_shell;
using warpsearch::test::source_path;
using warpsearch::test::TempDir;
using warpsearch::test::write_file;

namespace {

struct Record {
  std::string id, codes;
};

// The first `count` records of a bundled protein FASTA, as residue codes.
std::vector<Record> read_proteins(const std::string& relative, std::size_t count) {
  std::istringstream in(read_file(source_path(relative)));
  std::vector<Record> records;
  std::string line, letters;
  const auto flush = [&] {
    if (!records.empty()) records.back().codes = Alphabet::protein().encode_string(letters);
    letters.clear();
  };
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '>') {
      flush();
      if (records.size() == count) return records;
      records.push_back({line.substr(1, line.find(' ') - 1), ""});
    } else {
      letters += line;
    }
  }
  flush();
  return records;
}

ScoringScheme blosum62() { return ScoringScheme(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1}); }

}  // namespace

TEST_CASE("composition: BLOSUM62's frequency ratios and joint probabilities are its scores", "[composition]") {
  // The start matrix is the ratios' log at 32 times the precision; BLOSUM62 is their half-bit logarithm,
  // rounded. Taken back to half bits, the fine matrix is within rounding (half a unit, and the fine
  // matrix's own rounding) of BLOSUM62, for the 20 amino acids, B and Z.
  const CompositionAdjustment adjustment(blosum62(), CompositionMode::conditional);
  const SubstitutionMatrix& matrix = SubstitutionMatrix::builtin("BLOSUM62");
  const double half_bit = std::log(2.0) / 2;
  const double scale = adjustment.ungapped_lambda() / ScaledMatrix::kScale / half_bit;
  for (std::uint8_t a = 0; a <= 22; ++a)
    for (std::uint8_t b = 0; b <= 22; ++b) {
      if (a == 21 || b == 21) continue;  // J: not a letter of NCBI's BLOSUM62 file
      INFO("codes " << int(a) << ", " << int(b));
      CHECK(std::abs(adjustment.start_matrix().scores[a][b] * scale - matrix.score(a, b)) < 0.52);
    }
  // The joint probabilities sum to 1 and the background is their marginal.
  double total = 0;
  for (const auto& row : blosum62_joint_probabilities())
    for (double p : row) total += p;
  CHECK(std::abs(total - 1) < 1e-12);
  CHECK(std::abs(blosum62_background()[0] - 0.0742162) < 1e-6);  // A, NCBI's BLOSUM62_bg
}

TEST_CASE("composition: BLOSUM62's ungapped lambda is the published 0.3176", "[composition]") {
  const CompositionAdjustment adjustment(blosum62(), CompositionMode::scaled_lambda);
  CHECK(std::abs(adjustment.ungapped_lambda() - 0.3176) < 5e-5);
}

TEST_CASE("composition: adjusted target frequencies have the pair's marginals and relative entropy 0.44",
          "[composition]") {
  const auto proteins = read_proteins("data/queries.fa", 4);
  REQUIRE(proteins.size() == 4);
  for (std::size_t k = 0; k + 1 < proteins.size(); ++k) {
    const Composition a = composition_of(proteins[k].codes), b = composition_of(proteins[k + 1].codes);
    // Marginals as mode 2 uses them: mixed with BLOSUM62's background (here with weight 1/2).
    std::array<double, 20> rows{}, columns{};
    for (int i = 0; i < 20; ++i) {
      rows[i] = 0.5 * a.probability[i] + 0.5 * blosum62_background()[i];
      columns[i] = 0.5 * b.probability[i] + 0.5 * blosum62_background()[i];
    }
    const TargetFrequencies x = adjusted_target_frequencies(rows, columns, 0.44);
    double total = 0;
    for (int i = 0; i < 20; ++i) {
      double row = 0, column = 0;
      for (int j = 0; j < 20; ++j) {
        row += x[i][j];
        column += x[j][i];
        CHECK(x[i][j] > 0);
      }
      total += row;
      CHECK(std::abs(row - rows[i]) < 1e-12);
      CHECK(std::abs(column - columns[i]) < 1e-12);
    }
    CHECK(std::abs(total - 1) < 1e-12);
    CHECK(std::abs(relative_entropy(x, rows, columns) - 0.44) < 1e-9);
    // Optimality: any other feasible point of the same relative entropy is farther from BLOSUM62's joint
    // probabilities. A small move along a marginal-preserving direction, taken back to relative entropy
    // 0.44 to first order, must not decrease the distance.
    const TargetFrequencies& q = blosum62_joint_probabilities();
    const auto distance = [&](const TargetFrequencies& y) {
      double d = 0;
      for (int i = 0; i < 20; ++i)
        for (int j = 0; j < 20; ++j) d += y[i][j] * std::log(y[i][j] / q[i][j]);
      return d;
    };
    TargetFrequencies moved = x;
    const double step = 1e-6;
    moved[0][1] += step, moved[0][2] -= step, moved[3][1] -= step, moved[3][2] += step;
    const double entropy_change = relative_entropy(moved, rows, columns) - 0.44;
    // Compensate the entropy with the same kind of move on another 2x2 block.
    const double slope = std::log(x[5][6] / (rows[5] * columns[6])) - std::log(x[5][7] / (rows[5] * columns[7])) -
                         std::log(x[8][6] / (rows[8] * columns[6])) + std::log(x[8][7] / (rows[8] * columns[7]));
    const double t = -entropy_change / slope;
    moved[5][6] += t, moved[5][7] -= t, moved[8][6] -= t, moved[8][7] += t;
    CHECK(distance(moved) >= distance(x) - 1e-15);
  }
}

TEST_CASE("composition: the adjusted matrix scores pairs of the standard composition as BLOSUM62 does",
          "[composition]") {
  // With BLOSUM62's own background on both sides, mode 1 keeps the matrix (lambda ratio 1, clamped), so
  // the adjusted fine matrix is the start matrix on the 20 amino acids.
  const CompositionAdjustment adjustment(blosum62(), CompositionMode::scaled_lambda);
  Composition standard;
  for (int i = 0; i < 20; ++i) standard.probability[i] = blosum62_background()[i];
  standard.residues = 1000;
  CHECK(adjustment.lambda_ratio(standard, standard) > 0.99);
  // Mode 3 with two compositions dominated by one letter each rewards that letter's identity less than
  // the standard matrix does (the point of the adjustment): A rich query and subject.
  const CompositionAdjustment unconditional(blosum62(), CompositionMode::unconditional);
  Composition rich = standard;
  for (int i = 0; i < 20; ++i) rich.probability[i] *= 0.5;
  rich.probability[0] += 0.5;
  const ScaledMatrix m = unconditional.matrix_for(rich, 1000, rich, 1000);
  CHECK(m.rule == AdjustmentRule::matrix_adjustment);
  CHECK(m.scores[0][0] < adjustment.start_matrix().scores[0][0]);
  // X scores as the composition-weighted mean of its row, at most -1 at the fine scale.
  CHECK(m.scores[0][23] <= -1);
}

TEST_CASE("composition: the fine-scale aligner scores 32 times the reference Smith-Waterman", "[composition]") {
  // With the standard matrix multiplied by 32 (and the gap costs too), every local alignment score is 32
  // times the reference's, on random and related pairs.
  const ScoringScheme scoring = blosum62();
  ScaledMatrix scaled;
  for (int a = 0; a < 28; ++a)
    for (int b = 0; b < 28; ++b)
      scaled.scores[a][b] = a < 27 && b < 27
                                ? 32 * scoring.score(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b))
                                : -(1 << 20);
  std::mt19937_64 rng(20261125);
  for (int round = 0; round < 40; ++round) {
    const std::string query = warpsearch::test::random_codes(rng, 1 + rng() % 300, 20);
    const std::string subject = round % 2 ? warpsearch::test::random_codes(rng, 1 + rng() % 300, 20)
                                          : warpsearch::test::mutated_codes(rng, query, 20, 0.3, 4);
    const auto reference = reference::local_score(query, subject, scoring);
    const ScaledAlignment a = align_scaled(query, 0, query.size(), subject, 0, subject.size(), scaled, 32 * 11, 32);
    INFO("round " << round);
    CHECK(a.score == 32 * reference);
    // The operations re-score to the score.
    std::int64_t rescored = 0;
    std::size_t qi = a.query_begin, sj = a.subject_begin;
    char previous = 'M';
    for (const char op : a.operations) {
      if (op == 'M')
        rescored += scaled.scores[static_cast<std::uint8_t>(query[qi++])][static_cast<std::uint8_t>(subject[sj++])];
      else {
        rescored -= op != previous ? 32 * 12 : 32;
        if (op == 'I')
          ++qi;
        else
          ++sj;
      }
      previous = op;
    }
    CHECK(rescored == a.score);
    CHECK(qi == a.query_end);
    CHECK(sj == a.subject_end);
  }
}

TEST_CASE("seg: parameters", "[seg]") {
  CHECK(SegParameters::parse("yes").window == 12);
  const SegParameters p = SegParameters::parse("10 1.8 2.1");
  CHECK(p.window == 10);
  CHECK(p.locut == 1.8);
  CHECK(p.hicut == 2.1);
  CHECK_THROWS_AS(SegParameters::parse("10 1.8"), std::invalid_argument);
  CHECK_THROWS_AS(SegParameters::parse("ten 1 2"), std::invalid_argument);
  // A poly-Q run inside an ordinary sequence is masked, the rest is not.
  const std::string letters = "MKTAYIAKQRQISFVKSHFSRQ" + std::string(30, 'Q') + "LEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQV";
  const auto intervals = seg_intervals(Alphabet::protein().encode_string(letters), SegParameters{});
  REQUIRE(!intervals.empty());
  for (std::uint32_t k = 22; k < 52; ++k) {
    bool covered = false;
    for (const auto& m : intervals) covered = covered || (m.begin <= k && k < m.end);
    CHECK(covered);
  }
}

TEST_CASE("seg: the same intervals as segmasker on real proteins", "[seg][blast]") {
  if (!have_tool("segmasker")) {
    WARN("segmasker not installed (Debian: ncbi-blast+): SEG comparison skipped");
    return;
  }
  const auto proteins = read_proteins("data/uniprot_sample.fa", 600);
  TempDir dir;
  std::string fasta;
  for (std::size_t k = 0; k < proteins.size(); ++k)
    fasta += ">p" + std::to_string(k) + "\n" + Alphabet::protein().decode_string(proteins[k].codes) + "\n";
  write_file(dir.file("p.fa"), fasta);
  for (const SegParameters parameters : {SegParameters{}, SegParameters::for_composition()}) {
    INFO("window " << parameters.window << " locut " << parameters.locut << " hicut " << parameters.hicut);
    const auto run = run_shell("segmasker -in '" + dir.file("p.fa") + "' -outfmt interval -window " +
                               std::to_string(parameters.window) + " -locut " + std::to_string(parameters.locut) +
                               " -hicut " + std::to_string(parameters.hicut));
    REQUIRE(run.exit_code == 0);
    // segmasker: ">p12" then "begin - end" lines, 0-based and inclusive.
    std::map<std::size_t, std::vector<bool>> expected;
    std::istringstream in(run.out);
    std::string line;
    std::size_t current = 0;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      if (line[0] == '>') {
        current = std::stoul(line.substr(2));
        expected[current].assign(proteins[current].codes.size(), false);
        continue;
      }
      std::size_t begin = 0, end = 0;
      char dash = 0;
      std::istringstream fields(line);
      fields >> begin >> dash >> end;
      for (std::size_t k = begin; k <= end; ++k) expected[current][k] = true;
    }
    std::size_t masked = 0, differing = 0;
    for (std::size_t k = 0; k < proteins.size(); ++k) {
      std::vector<bool> ours(proteins[k].codes.size(), false);
      for (const auto& m : seg_intervals(proteins[k].codes, parameters))
        for (std::uint32_t i = m.begin; i < m.end; ++i) ours[i] = true;
      std::vector<bool> theirs = expected.count(k) ? expected[k] : std::vector<bool>(ours.size(), false);
      for (bool b : ours) masked += b;
      if (ours != theirs) {
        ++differing;
        UNSCOPED_INFO("record " << proteins[k].id << " differs from segmasker");
      }
    }
    CHECK(masked > 1000);  // the comparison says something
    CHECK(differing == 0);
  }
}

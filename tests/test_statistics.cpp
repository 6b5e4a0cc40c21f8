// Karlin-Altschul statistics against BLAST+ itself (values printed by blastp/blastn 2.12.0, Debian
// 12's ncbi-blast+) and against a brute-force computation of the length adjustment.
#include <cmath>
#include <cstdint>
#include <string>

#include "profile/scoring.hpp"
#include "statistics/statistics.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

using namespace warpsearch;

namespace {

bool close_relative(double a, double b, double tolerance) {
  return std::fabs(a - b) <= tolerance * std::max(std::fabs(a), std::fabs(b));
}

ScoringScheme protein(const char* matrix, int open, int extend) {
  return ScoringScheme(SubstitutionMatrix::builtin(matrix), GapOpen{open}, GapExtend{extend});
}
ScoringScheme dna(int reward, int penalty, int open, int extend) {
  return ScoringScheme(SubstitutionMatrix::nucleotide(reward, penalty), GapOpen{open}, GapExtend{extend});
}

// The definition, evaluated at every integer: the largest ell >= 0 with f(ell) >= ell and
// K (m - ell)(N - n ell) > max(m, N), where f(ell) = beta + alpha/lambda (ln K + ln((m-ell)(N-n ell))).
std::uint64_t brute_force_length_adjustment(double K, double a_over_l, double beta, double m, double N, double n) {
  std::uint64_t best = 0;
  for (std::uint64_t ell = 0; ell < static_cast<std::uint64_t>(m); ++ell) {
    const double e = static_cast<double>(ell);
    const double space = (m - e) * (N - n * e);
    if (space <= 0 || K * space <= std::max(m, N)) break;
    if (beta + a_over_l * (std::log(K) + std::log(space)) >= e) best = ell;
  }
  return best;
}

// The database of the blastp checks: makeblastdb of data/uniprot_sample.fa.
constexpr std::uint64_t kUniprotResidues = 1842118;
constexpr std::uint64_t kUniprotSequences = 4000;

}  // namespace

TEST_CASE("published parameters are found for blastp's and blastn's supported pairs", "[statistics]") {
  // NCBI's tables (blast_stat.c); the BLOSUM62 rows are also quoted in docs and papers:
  // 11/1 lambda 0.267 K 0.041 H 0.14 alpha 1.9 beta -30; 10/1 lambda 0.243 K 0.024.
  const auto p = published_parameters(protein("BLOSUM62", 11, 1));
  REQUIRE(p.found);
  CHECK(p.row.parameters.lambda == 0.267);
  CHECK(p.row.parameters.K == 0.041);
  CHECK(p.row.parameters.H == 0.14);
  CHECK(p.row.parameters.alpha == 1.9);
  CHECK(p.row.parameters.beta == -30);
  CHECK(p.row.has_finite_size);
  CHECK(published_parameters(protein("BLOSUM62", 10, 1)).row.parameters.K == 0.024);
  // blastp -outfmt 0 footer for BLOSUM62 11/1: "Gapped Lambda 0.267 K 0.0410 H 0.140 a 1.90 alpha 42.6 sigma 43.6".
  CHECK(std::fabs(p.row.finite_size.alpha_v - 42.6) < 0.05);
  CHECK(std::fabs(p.row.finite_size.sigma - 43.6) < 0.05);
  // Every matrix's default pair as BLAST chooses it.
  CHECK(EvalueCalculator::supported(protein("BLOSUM45", 14, 2)));
  CHECK(EvalueCalculator::supported(protein("BLOSUM50", 13, 2)));
  CHECK(EvalueCalculator::supported(protein("BLOSUM80", 10, 1)));
  CHECK(EvalueCalculator::supported(protein("BLOSUM90", 10, 1)));
  CHECK(EvalueCalculator::supported(protein("PAM30", 9, 1)));
  CHECK(EvalueCalculator::supported(protein("PAM70", 10, 1)));
  CHECK(EvalueCalculator::supported(protein("PAM250", 14, 2)));
  CHECK_FALSE(EvalueCalculator::supported(protein("BLOSUM62", 12, 3)));
  CHECK_FALSE(EvalueCalculator::supported(protein("PAM30", 11, 1)));
  // blastn: the default (2/-3, 5/2), megablast's affine pairs, a reward/penalty pair scaled by 2.
  CHECK(EvalueCalculator::supported(dna(2, -3, 5, 2)));
  CHECK(EvalueCalculator::supported(dna(1, -2, 2, 2)));
  CHECK(EvalueCalculator::supported(dna(1, -1, 4, 1)));
  CHECK(EvalueCalculator::supported(dna(5, -4, 10, 6)));
  CHECK(EvalueCalculator::supported(dna(2, -4, 4, 4)));
  CHECK(EvalueCalculator::supported(dna(2, -4, 2, 2)));  // 1/-2 with 1/1, scaled
  CHECK_FALSE(EvalueCalculator::supported(dna(2, -4, 3, 3)));
  CHECK_FALSE(EvalueCalculator::supported(dna(3, -7, 5, 2)));
  CHECK_FALSE(EvalueCalculator::supported(dna(2, -3, 7, 7)));
}

TEST_CASE("unsupported scoring schemes throw, listing what is supported", "[statistics]") {
  auto message = [](const ScoringScheme& s) {
    try {
      EvalueCalculator calc(s, 1000, 10);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  const std::string b62 = message(protein("BLOSUM62", 12, 3));
  CHECK(b62.find("BLOSUM62") != std::string::npos);
  CHECK(b62.find("11/1") != std::string::npos);
  CHECK(b62.find("9/2") != std::string::npos);
  const std::string n = message(dna(2, -3, 7, 7));
  CHECK(n.find("5/2") != std::string::npos);
  CHECK(n.find("4/4") != std::string::npos);
  const std::string scaled = message(dna(4, -6, 7, 7));
  CHECK(scaled.find("10/4") != std::string::npos);  // 2/-3's 5/2 scaled by 2
  const std::string unknown = message(dna(3, -7, 5, 2));
  CHECK(unknown.find("3/-7") != std::string::npos);
  CHECK(unknown.find("1/-2") != std::string::npos);
  CHECK(supported_gap_pairs(protein("PAM30", 9, 1)).find("7/2, 6/2, 5/2, 10/1, 9/1, 8/1") != std::string::npos);
  REQUIRE_THROWS_AS(EvalueCalculator(protein("BLOSUM62", 11, 1), 0, 0), std::invalid_argument);
}

TEST_CASE("length adjustment equals the brute-force definition", "[statistics]") {
  struct Case {
    double K, a_over_l, beta;
  };
  const Case cases[] = {{0.041, 1.9 / 0.267, -30},
                        {0.010, 4.0 / 0.206, -87},
                        {0.15, 0.35 / 0.309, -3},
                        {0.42 / 1.0, 0.75 / 0.63, -2},
                        {0.134, 1 / 0.4012, 0}};
  const std::uint64_t query_lengths[] = {1, 5, 20, 57, 100, 361, 1000, 5478};
  const std::uint64_t databases[][2] = {{1842118, 4000}, {1000, 10}, {261000000, 600000}, {50, 1}, {481139, 300}};
  for (const auto& c : cases)
    for (std::uint64_t m : query_lengths)
      for (const auto& db : databases) {
        INFO("K " << c.K << " m " << m << " N " << db[0] << " n " << db[1]);
        CHECK(length_adjustment(c.K, c.a_over_l, c.beta, m, db[0], db[1]) ==
              brute_force_length_adjustment(c.K, c.a_over_l, c.beta, static_cast<double>(m), static_cast<double>(db[0]),
                                            static_cast<double>(db[1])));
      }
}

TEST_CASE("effective search spaces equal blastp's", "[statistics]") {
  // blastp 2.12.0 -outfmt 0 "Effective search space used" for data/queries.fa against
  // makeblastdb of data/uniprot_sample.fa (1,842,118 residues, 4,000 sequences), BLOSUM62 11/1,
  // -comp_based_stats 0 -seg no.
  const EvalueCalculator calc(protein("BLOSUM62", 11, 1), kUniprotResidues, kUniprotSequences);
  CHECK(calc.length_adjustment(57) == 30);
  CHECK(calc.search_space(57) == 46497186.0);
  CHECK(calc.search_space(635) == 796803956.0);
  CHECK(calc.search_space(361) == 406802214.0);
  CHECK(calc.search_space(237) == 230436054.0);
  CHECK(calc.search_space(921) == 1202947350.0);
  // blastn 2.12.0 -task blastn (2/-3, 5/2, -dust no), a database of 300 random sequences,
  // 481,139 bases: "Effective search space used" for queries of 400 and 80 bases.
  const EvalueCalculator n(dna(2, -3, 5, 2), 481139, 300);
  CHECK(n.search_space(400) == 179963981.0);
  CHECK(n.search_space(80) == 29495818.0);
}

TEST_CASE("E-values and bit scores equal blastp's and blastn's", "[statistics]") {
  // (query length, subject length, raw score, E-value, bit score) as printed by blastp 2.12.0 with
  // -outfmt 15 (JSON, 6 significant digits), queries from data/queries.fa, database
  // data/uniprot_sample.fa, BLOSUM62 11/1, -comp_based_stats 0 -seg no.
  struct Hit {
    std::uint32_t qlen, slen;
    int score;
    double evalue, bits;
  };
  const EvalueCalculator b62(protein("BLOSUM62", 11, 1), kUniprotResidues, kUniprotSequences);
  SECTION("blastp default: Spouge's finite-size correction") {
    const Hit hits[] = {{57, 1827, 55, 0.217405, 25.7942},     {57, 618, 50, 1.05458, 23.8682},
                        {635, 1243, 77, 0.0416245, 34.2686},   {635, 672, 87, 0.00245417, 38.1206},
                        {635, 1253, 61, 3.24173, 28.1054},     {361, 357, 717, 2.35177e-93, 280.796},
                        {361, 343, 474, 3.63651e-57, 187.193}, {237, 212, 385, 4.35072e-47, 152.91},
                        {31, 1827, 40, 7.62973, 20.0162},      {31, 181, 49, 0.426953, 23.483}};
    for (const auto& h : hits) {
      INFO("qlen " << h.qlen << " slen " << h.slen << " score " << h.score);
      CHECK(close_relative(b62.evalue(h.score, h.qlen, h.slen), h.evalue, 1e-4));
      CHECK(std::fabs(b62.bitscore(h.score) - h.bits) < 1e-3);
    }
  }
  SECTION("blastp with OLD_FSC=1: length-adjusted Karlin-Altschul") {
    const Hit hits[] = {{57, 1827, 55, 0.799091, 25.7942},     {57, 618, 50, 3.03654, 23.8682},
                        {635, 1243, 77, 0.0385013, 34.2686},   {635, 672, 87, 0.0026663, 38.1206},
                        {361, 357, 717, 1.20577e-76, 280.796}, {237, 197, 352, 1.44079e-34, 140.198},
                        {31, 1827, 49, 3.87678, 23.483}};
    for (const auto& h : hits) {
      INFO("qlen " << h.qlen << " score " << h.score);
      CHECK(close_relative(b62.evalue(h.score, h.qlen), h.evalue, 1e-4));
    }
  }
  SECTION("blastn (no finite-size parameters: length-adjusted, odd scores rounded down for reward 2)") {
    // blastn 2.12.0 -task blastn -dust no -outfmt 15, database of 300 random sequences (481,139 bases).
    const EvalueCalculator n23(dna(2, -3, 5, 2), 481139, 300);
    CHECK(close_relative(n23.evalue(613, 400, 2819), 5.62769e-159, 1e-4));
    CHECK(close_relative(n23.evalue(26, 400), 6.46672, 1e-4));
    CHECK(close_relative(n23.evalue(27, 400), 6.46672, 1e-4));
    CHECK(close_relative(n23.evalue(24, 80), 3.69936, 1e-4));
    CHECK(std::fabs(n23.bitscore(26) - 24.7301) < 1e-3);
    CHECK(std::fabs(n23.bitscore(27) - 25.6318) < 1e-3);
    const EvalueCalculator n12(dna(1, -2, 2, 2), 481139, 300);
    CHECK(close_relative(n12.evalue(288, 400), 5.04058e-159, 1e-4));
    CHECK(close_relative(n12.evalue(12, 80), 2.24986, 1e-4));
    CHECK(std::fabs(n12.bitscore(13) - 25.6339) < 1e-3);
    const EvalueCalculator n24(dna(2, -4, 4, 4), 481139, 300);  // 1/-2 2/2 scaled by 2
    CHECK(close_relative(n24.evalue(576, 400), 5.04058e-159, 1e-4));
    CHECK(std::fabs(n24.bitscore(26) - 25.6339) < 1e-3);
    const EvalueCalculator n45(dna(4, -5, 6, 5), 481139, 300);
    CHECK(close_relative(n45.evalue(1263, 400), 9.56292e-147, 1e-4));
    CHECK(close_relative(n45.evalue(48, 80), 7.81389, 1e-4));
    const EvalueCalculator n11(dna(1, -1, 3, 2), 481139, 300);
    CHECK(close_relative(n11.evalue(13, 80), 5.45232, 1e-4));
    CHECK(std::fabs(n11.bitscore(15) - 25.2777) < 1e-3);
  }
}

TEST_CASE("a matrix read from a file has no published parameters", "[statistics]") {
  test::TempDir dir;
  const std::string letters = "ARNDCQEGHILKMFPSTWYVBJZX*";
  std::string text = " ";
  for (char c : letters) text += std::string(" ") + c;
  text += "\n";
  for (char r : letters) {
    text += r;
    for (char c : letters) text += r == c ? " 4" : " -1";
    text += "\n";
  }
  test::write_file(dir.file("BLOSUM62"), text);
  const ScoringScheme from_file(SubstitutionMatrix::from_file(dir.file("BLOSUM62")), GapOpen{11}, GapExtend{1});
  CHECK_FALSE(EvalueCalculator::supported(from_file));
  REQUIRE_THROWS_AS(EvalueCalculator(from_file, 1000, 10), std::invalid_argument);
  CHECK(supported_gap_pairs(from_file).find("no published") != std::string::npos);
}

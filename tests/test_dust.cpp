// DUST (profile/dust.hpp): properties that can be checked by hand, and the intervals against dustmasker
// (Debian ncbi-blast+) on the bundled DNA and on generated sequences rich in low-complexity stretches,
// skipped with a message where dustmasker is missing.
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/alphabet.hpp"
#include "profile/dust.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

using namespace warpsearch;
using warpsearch::test::have_tool;
using warpsearch::test::random_codes;
using warpsearch::test::read_file;
using warpsearch::test::run_shell;
using warpsearch::test::source_path;
using warpsearch::test::TempDir;
using warpsearch::test::write_file;

namespace {

struct Record {
  std::string id, codes;
};

std::vector<Record> read_dna(const std::string& relative) {
  std::istringstream in(read_file(source_path(relative)));
  std::vector<Record> records;
  std::string line, letters;
  const auto flush = [&] {
    if (!records.empty()) records.back().codes = Alphabet::nucleotide().encode_string(letters);
    letters.clear();
  };
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '>') {
      flush();
      records.push_back({line.substr(1, line.find(' ') - 1), ""});
    } else {
      letters += line;
    }
  }
  flush();
  return records;
}

// Random DNA with low-complexity stretches inside: homopolymers, di- and trinucleotide microsatellites,
// tandem copies of longer units (some with point changes), and a few very short sequences.
std::vector<Record> low_complexity_dna(std::size_t count) {
  std::mt19937_64 rng(20060926);
  std::uniform_int_distribution<int> base(0, 3), kind(0, 4), pieces(1, 6);
  std::vector<Record> records;
  for (std::size_t k = 0; k < count; ++k) {
    std::string codes;
    if (k % 25 == 0) {
      codes = random_codes(rng, 1 + k % 10, 4);  // 1 to 10 bases (dustmasker refuses empty records)
    } else {
      for (int piece = pieces(rng); piece > 0; --piece) {
        codes += random_codes(rng, std::uniform_int_distribution<std::size_t>(0, 300)(rng), 4);
        std::string unit;
        int copies = 0;
        switch (kind(rng)) {
          case 0:
            unit = std::string(1, static_cast<char>(base(rng)));
            copies = std::uniform_int_distribution<int>(5, 120)(rng);
            break;
          case 1:
            unit = random_codes(rng, 2, 4);
            copies = std::uniform_int_distribution<int>(3, 50)(rng);
            break;
          case 2:
            unit = random_codes(rng, 3, 4);
            copies = std::uniform_int_distribution<int>(3, 40)(rng);
            break;
          default:
            unit = random_codes(rng, std::uniform_int_distribution<std::size_t>(4, 40)(rng), 4);
            copies = std::uniform_int_distribution<int>(2, 8)(rng);
            break;
        }
        std::string repeat;
        for (int c = 0; c < copies; ++c) repeat += unit;
        if (kind(rng) == 0)  // a few point changes
          for (int change = 0; change < 1 + static_cast<int>(repeat.size() / 20); ++change)
            repeat[std::uniform_int_distribution<std::size_t>(0, repeat.size() - 1)(rng)] =
                static_cast<char>(base(rng));
        codes += repeat;
      }
      codes += random_codes(rng, std::uniform_int_distribution<std::size_t>(0, 100)(rng), 4);
    }
    records.push_back({"g" + std::to_string(k), codes});
  }
  return records;
}

bool covered(const std::vector<MaskedInterval>& intervals, std::uint32_t position) {
  for (const MaskedInterval& m : intervals)
    if (m.begin <= position && position < m.end) return true;
  return false;
}

}  // namespace

TEST_CASE("dust: parameters", "[dust]") {
  CHECK(DustParameters::parse("yes").level == 20);
  CHECK(DustParameters::parse("yes").window == 64);
  CHECK(DustParameters::parse("yes").linker == 1);
  const DustParameters p = DustParameters::parse("10 32 5");
  CHECK(p.level == 10);
  CHECK(p.window == 32);
  CHECK(p.linker == 5);
  CHECK_THROWS_AS(DustParameters::parse("20 64"), std::invalid_argument);
  CHECK_THROWS_AS(DustParameters::parse("20 64 1 2"), std::invalid_argument);
  CHECK_THROWS_AS(DustParameters::parse("high 64 1"), std::invalid_argument);
  CHECK_THROWS_AS(DustParameters::parse("1 64 1"), std::invalid_argument);
  CHECK_THROWS_AS(DustParameters::parse("20 65 1"), std::invalid_argument);
  CHECK_THROWS_AS(DustParameters::parse("20 64 0"), std::invalid_argument);
}

TEST_CASE("dust: homopolymers and microsatellites are masked, random DNA mostly not", "[dust]") {
  const DustParameters defaults;
  // A run of one base longer than the window is one triplet repeated: all of it is masked.
  const auto poly_a = dust_intervals(std::string(100, '\0'), defaults);
  REQUIRE(poly_a.size() == 1);
  CHECK(poly_a[0].begin == 0);
  CHECK(poly_a[0].end == 100);
  // Three bases make a single triplet: nothing to score.
  CHECK(dust_intervals(std::string(3, '\0'), defaults).empty());
  CHECK(dust_intervals("", defaults).empty());

  std::mt19937_64 rng(7);
  const std::string left = random_codes(rng, 200, 4), right = random_codes(rng, 200, 4);
  std::string ca;  // (CA)30
  for (int k = 0; k < 30; ++k) ca += std::string{'\1', '\0'};
  const std::string codes = left + ca + right;
  const auto intervals = dust_intervals(codes, defaults);
  for (std::uint32_t k = 200; k < 260; ++k) CHECK(covered(intervals, k));
  std::size_t masked = 0;
  for (const MaskedInterval& m : intervals) masked += m.end - m.begin;
  CHECK(masked < 100);  // the flanks, random, stay (almost) unmasked

  const std::string hard = dust_masked(codes, defaults);
  REQUIRE(hard.size() == codes.size());
  for (std::size_t k = 0; k < codes.size(); ++k)
    CHECK(hard[k] == (covered(intervals, static_cast<std::uint32_t>(k)) ? '\4' : codes[k]));
}

TEST_CASE("dust: the same intervals as dustmasker", "[dust][blast]") {
  if (!have_tool("dustmasker")) {
    WARN("dustmasker not installed (Debian: ncbi-blast+): DUST comparison skipped");
    return;
  }
  std::vector<Record> records = read_dna("data/dna_sample.fa");
  for (Record& r : read_dna("data/dna_queries.fa")) records.push_back(std::move(r));
  REQUIRE(records.size() > 300);
  for (Record& r : low_complexity_dna(400)) records.push_back(std::move(r));
  TempDir dir;
  std::string fasta;
  for (std::size_t k = 0; k < records.size(); ++k)
    fasta += ">s" + std::to_string(k) + "\n" + Alphabet::nucleotide().decode_string(records[k].codes) + "\n";
  write_file(dir.file("dna.fa"), fasta);
  // blastn's default, then coarser and finer levels, short windows and long linkers.
  for (const DustParameters parameters :
       {DustParameters{}, DustParameters{10, 32, 1}, DustParameters{30, 64, 5}, DustParameters{20, 20, 1},
        DustParameters{2, 8, 32}, DustParameters{64, 64, 1}, DustParameters{15, 40, 3}}) {
    INFO("level " << parameters.level << " window " << parameters.window << " linker " << parameters.linker);
    const auto run = run_shell("dustmasker -in '" + dir.file("dna.fa") + "' -outfmt interval -level " +
                               std::to_string(parameters.level) + " -window " + std::to_string(parameters.window) +
                               " -linker " + std::to_string(parameters.linker));
    REQUIRE(run.exit_code == 0);
    // dustmasker: ">s12" then "begin - end" lines, 0-based and inclusive.
    std::map<std::size_t, std::vector<std::pair<std::uint32_t, std::uint32_t>>> expected;
    std::istringstream in(run.out);
    std::size_t current = 0;
    for (std::string line; std::getline(in, line);) {
      if (line.empty()) continue;
      if (line[0] == '>') {
        current = std::stoul(line.substr(2));
        continue;
      }
      std::uint32_t begin = 0, end = 0;
      char dash = 0;
      std::istringstream fields(line);
      fields >> begin >> dash >> end;
      expected[current].emplace_back(begin, end + 1);
    }
    std::size_t masked = 0, differing = 0;
    for (std::size_t k = 0; k < records.size(); ++k) {
      std::vector<std::pair<std::uint32_t, std::uint32_t>> ours;
      for (const MaskedInterval& m : dust_intervals(records[k].codes, parameters)) {
        ours.emplace_back(m.begin, m.end);
        masked += m.end - m.begin;
      }
      if (ours != expected[k]) {
        ++differing;
        UNSCOPED_INFO("record " << records[k].id << " (s" << k << ") differs from dustmasker");
      }
    }
    CHECK(masked > 5000);  // the comparison says something
    CHECK(differing == 0);
  }
}

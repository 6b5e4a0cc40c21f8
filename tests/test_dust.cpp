// DUST (profile/dust.hpp): properties that can be checked by hand, the intervals against dustmasker
// (Debian ncbi-blast+) on the bundled DNA and on generated sequences rich in low-complexity stretches, and
// `warpsearch blastn -dust yes -soft_masking false` against blastn's same command line
// (tests/dust_compare.py); skipped with a message where BLAST+ is missing.
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
using warpsearch::test::run_warpsearch;
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

namespace {

std::string quoted(const std::string& path) { return "'" + path + "'"; }

// A database of the bundled DNA and of loci with low-complexity stretches, and queries of three kinds: pieces
// of the bundled DNA with a low-complexity stretch inserted (dusted, the stretch no longer finds the loci),
// mutated pieces of the loci around one of their stretches (the alignment crosses dusted bases), and the
// reverse complements of half of those (minus-strand hits).
void write_dust_search_data(const TempDir& dir) {
  const std::vector<Record> sample = read_dna("data/dna_sample.fa");
  std::mt19937_64 rng(13);
  const Alphabet& dna = Alphabet::nucleotide();
  std::vector<std::string> stretches;
  for (const auto& [unit, copies] : std::vector<std::pair<std::string, int>>{
           {"A", 40}, {"CA", 25}, {"AGG", 15}, {"ATTC", 10}, {"T", 30}, {"GC", 20}, {"CCGAT", 8}}) {
    std::string letters;
    for (int c = 0; c < copies; ++c) letters += unit;
    stretches.push_back(dna.encode_string(letters));
  }
  const auto stretch = [&](std::size_t k) { return stretches[k % stretches.size()]; };
  std::string db, queries;
  for (std::size_t k = 0; k < sample.size(); ++k)
    db += ">dna" + std::to_string(k + 1) + "\n" + dna.decode_string(sample[k].codes) + "\n";
  std::vector<std::string> loci;
  for (std::size_t k = 0; k < 20; ++k) {
    std::string locus;
    for (std::size_t s = 0; s < 3; ++s) locus += random_codes(rng, 400, 4) + stretch(k + 3 * s);
    locus += random_codes(rng, 300, 4);
    loci.push_back(locus);
    db += ">locus" + std::to_string(k + 1) + "\n" + dna.decode_string(locus) + "\n";
  }
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  std::uniform_int_distribution<int> base(0, 3);
  for (std::size_t k = 0, made = 0; k < sample.size() && made < 20; k += 7) {
    if (sample[k].codes.size() < 700) continue;
    const std::string piece = sample[k].codes.substr(100, 500);
    ++made;
    queries += ">ins" + std::to_string(made) + "\n" +
               dna.decode_string(piece.substr(0, 250) + stretch(made) + piece.substr(250)) + "\n";
  }
  for (std::size_t k = 0; k < loci.size(); ++k) {
    std::string piece = loci[k].substr(150, 550);  // a stretch starts at 400
    for (char& c : piece)
      if (coin(rng) < 0.02) c = static_cast<char>(base(rng));
    queries += ">loc" + std::to_string(k + 1) + "\n" + dna.decode_string(piece) + "\n";
    if (k % 2 == 1) {  // the minus strand: blastn masks the reverse complement of the masked query
      std::string reverse(piece.rbegin(), piece.rend());
      for (char& c : reverse) c = static_cast<char>(dna.complement(static_cast<std::uint8_t>(c)));
      queries += ">rev" + std::to_string(k + 1) + "\n" + dna.decode_string(reverse) + "\n";
    }
  }
  write_file(dir.file("db.fa"), db);
  write_file(dir.file("queries.fa"), queries);
}

}  // namespace

TEST_CASE("dust: warpsearch blastn -dust yes -soft_masking false against blastn's", "[dust][blast]") {
  for (const char* tool : {"blastn", "makeblastdb", "dustmasker", "python3"})
    if (!have_tool(tool)) {
      WARN(tool << " not installed (Debian: ncbi-blast+, python3): comparison with blastn skipped");
      return;
    }
  TempDir dir;
  write_dust_search_data(dir);
  const std::string db = dir.file("db"), query = dir.file("queries.fa");
  REQUIRE(run_shell("makeblastdb -in " + quoted(dir.file("db.fa")) + " -dbtype nucl -parse_seqids -out " + quoted(db))
              .exit_code == 0);
  REQUIRE(run_warpsearch("makedb --quiet " + quoted(dir.file("db.fa")) + " " + quoted(db)).exit_code == 0);
  REQUIRE(run_shell("dustmasker -in " + quoted(query) + " -outfmt interval > " + quoted(dir.file("queries.dust")))
              .exit_code == 0);
  // blastn's gapped X-drop (-xdrop_gap_final, 100 bits by default) stops 2 of these alignments at an
  // inserted stretch (48 of 50 pairs agree): a larger one lets blastn find what the exact search finds.
  const std::string arguments =
      "-task blastn -query " + quoted(query) + " -db " + quoted(db) +
      " -reward 2 -penalty -3 -gapopen 5 -gapextend 2 -max_target_seqs 50 -evalue 1e-10 -xdrop_gap_final 1000" +
      " -outfmt '6 qseqid sseqid score evalue qstart qend sstart send'";
  const std::string hard = " -dust yes -soft_masking false";
  REQUIRE(run_shell("blastn " + arguments + hard + " > " + quoted(dir.file("blast.tsv"))).exit_code == 0);
  const auto ours = run_warpsearch("blastn " + arguments + hard + " -out " + quoted(dir.file("ours.tsv")));
  INFO(ours.err);
  REQUIRE(ours.exit_code == 0);
  const auto c =
      run_shell("python3 " + quoted(source_path("tests/dust_compare.py")) + " " + quoted(dir.file("blast.tsv")) + " " +
                quoted(dir.file("ours.tsv")) + " " + quoted(dir.file("queries.dust")) + " 0.95 45");
  UNSCOPED_INFO(c.out);
  WARN(c.out.substr(0, c.out.find('\n')));  // the measured agreement, in the test log
  CHECK(c.exit_code == 0);

  // Masking changes what is found: unmasked, the inserted stretches find the loci.
  const auto unmasked = run_warpsearch("blastn " + arguments + " -dust no -soft_masking false");
  REQUIRE(unmasked.exit_code == 0);
  const std::string masked = read_file(dir.file("ours.tsv"));
  CHECK(unmasked.out != masked);
  const auto hits_of = [](const std::string& table, const std::string& query_id, const std::string& subject_prefix) {
    std::size_t n = 0;
    std::istringstream in(table);
    for (std::string line; std::getline(in, line);)
      if (line.rfind(query_id + "\t" + subject_prefix, 0) == 0) ++n;
    return n;
  };
  CHECK(hits_of(unmasked.out, "ins1", "locus") > hits_of(masked, "ins1", "locus"));
  // blastn's default (-dust yes) applies with -soft_masking false alone; `search --dust` is the same masking;
  // soft masking (blastn's default) leaves the scores as they are.
  CHECK(run_warpsearch("blastn " + arguments + " -soft_masking false").out == masked);
  const auto search = run_warpsearch("search --program blastn --dust '20 64 1' -q " + quoted(query) + " -d " +
                                     quoted(db) + " --max-target-seqs 50 --evalue 1e-10 --quiet" +
                                     " --outfmt '6 qseqid sseqid score evalue qstart qend sstart send'");
  CHECK(search.out == masked);
  CHECK(run_warpsearch("blastn " + arguments + " -dust yes").out == unmasked.out);
  const auto noted = run_warpsearch("blastn " + arguments + " -dust '10 64 1'");
  CHECK(noted.out == unmasked.out);
  CHECK(noted.err.find("not applied") != std::string::npos);
  for (const std::string& bad : {"search --dust '20 64' -q " + quoted(query) + " -d " + quoted(db),
                                 "blastn " + arguments + " -dust '20 70 1' -soft_masking false",
                                 "blastx -query " + quoted(query) + " -db " + quoted(db) + " -dust yes"}) {
    INFO(bad);
    const auto refused = run_warpsearch(bad);
    CHECK(refused.exit_code == 2);
    CHECK(refused.err.find("dust") != std::string::npos);
  }
}

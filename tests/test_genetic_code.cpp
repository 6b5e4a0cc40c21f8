// Genetic codes and frames (core/genetic_code.hpp): every codon of every code against NCBI's own table
// (gc.prt from Debian's ncbi-data) and against BLAST+'s translation (blastx), codons with N, stops, the
// six frames and their coordinates.
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "core/alphabet.hpp"
#include "core/genetic_code.hpp"
#include "profile/scoring.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

using namespace warpsearch;

namespace {

const char* const kGcPrt = "/usr/share/ncbi/data/gc.prt";  // Debian's ncbi-data package

// id -> ncbieaa, read from NCBI's ASN.1 text with a reader of its own. Empty when the file is absent.
std::map<int, std::string> read_gc_prt(const std::string& path) {
  std::map<int, std::string> codes;
  std::ifstream in(path);
  if (!in) return codes;
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  const std::regex entry(R"re(id\s+(\d+)\s*,\s*ncbieaa\s+"([^"]*)")re");
  for (std::sregex_iterator it(all.begin(), all.end(), entry), end; it != end; ++it)
    codes[std::stoi((*it)[1])] = (*it)[2];
  return codes;
}

// The 64 codons in NCBI's order (T C A G for each base), as letters.
std::vector<std::string> codons_in_ncbi_order() {
  std::vector<std::string> codons;
  for (char b1 : std::string("TCAG"))
    for (char b2 : std::string("TCAG"))
      for (char b3 : std::string("TCAG")) codons.push_back({b1, b2, b3});
  return codons;
}

char translate_letters(const GeneticCode& code, const std::string& codon) {
  const Alphabet& nucleotide = Alphabet::nucleotide();
  const std::uint8_t aa = code.translate(nucleotide.encode(static_cast<unsigned char>(codon[0])),
                                         nucleotide.encode(static_cast<unsigned char>(codon[1])),
                                         nucleotide.encode(static_cast<unsigned char>(codon[2])));
  return Alphabet::protein().decode(aa);
}

std::string translate_letters(const std::string& dna, int frame, int id = 1) {
  return Alphabet::protein().decode_string(
      translate_frame(Alphabet::nucleotide().encode_string(dna), frame, GeneticCode::ncbi(id)));
}

bool have_blastx() { return std::system("command -v blastx >/dev/null 2>&1") == 0; }

}  // namespace

TEST_CASE("genetic code: the codes NCBI defines, and no others", "[translate]") {
  const std::vector<int> expected = {1,  2,  3,  4,  5,  6,  9,  10, 11, 12, 13, 14, 15, 16,
                                     21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33};
  CHECK(GeneticCode::ids() == expected);
  for (int id : expected) {
    CHECK(GeneticCode::ncbi(id).id() == id);
    CHECK(GeneticCode::ncbi(id).amino_acids().size() == 64);
  }
  for (int missing : {0, 7, 8, 17, 18, 19, 20, 34, -1}) {
    INFO("code " << missing);
    std::string message;
    try {
      GeneticCode::ncbi(missing);
    } catch (const std::invalid_argument& e) {
      message = e.what();
    }
    CHECK(message.find("does not exist") != std::string::npos);
    CHECK(message.find("1 2 3 4 5 6 9 10") != std::string::npos);
  }
  CHECK(GeneticCode::ncbi(1).name() == "Standard");
}

TEST_CASE("genetic code: every codon of every code equals NCBI's gc.prt", "[translate]") {
  const auto table = read_gc_prt(kGcPrt);
  if (table.empty()) {
    WARN("skipped: " << kGcPrt << " is absent (install Debian's ncbi-data)");
    return;
  }
  const auto codons = codons_in_ncbi_order();
  std::set<int> checked;
  for (const auto& [id, amino_acids] : table) {
    INFO("code " << id);
    REQUIRE(amino_acids.size() == 64);
    const GeneticCode& code = GeneticCode::ncbi(id);  // throws if the file holds a code we lack
    for (std::size_t c = 0; c < 64; ++c) {
      INFO("codon " << codons[c]);
      char expected = amino_acids[c];
      // gc.prt 4.2 (Debian 12's ncbi-data) prints CTG as A in codes 27-30; NCBI corrected it to L, and
      // BLAST+ 2.12 translates L (the blastx test below checks that independently).
      if (id >= 27 && id <= 30 && codons[c] == "CTG" && expected == 'A') expected = 'L';
      CHECK(translate_letters(code, codons[c]) == expected);
    }
    checked.insert(id);
  }
  for (int id : GeneticCode::ids())
    if (!checked.count(id)) WARN("code " << id << " is not in " << kGcPrt << " (an older table); not checked here");
  CHECK(checked.size() >= 25);
}

TEST_CASE("genetic code: every codon of every code equals blastx's translation", "[translate][blast]") {
  if (!have_blastx()) {
    WARN("skipped: blastx (Debian's ncbi-blast+) is not installed");
    return;
  }
  test::TempDir dir;
  std::string all_codons;
  for (const auto& codon : codons_in_ncbi_order()) all_codons += codon;
  test::write_file(dir.file("q.fa"), ">q\n" + all_codons + "\n");
  // Any protein of 64 residues: blastx aligns the query's +1 frame to it end to end (ungapped, no
  // filtering), and qseq is then BLAST's translation of every codon.
  test::write_file(dir.file("s.fa"), ">s\nFFLLSSSSYYYYCCWWLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG\n");
  int compared = 0;
  for (int id : GeneticCode::ids()) {
    INFO("code " << id);
    const std::string command = "blastx -query '" + dir.file("q.fa") + "' -subject '" + dir.file("s.fa") +
                                "' -query_gencode " + std::to_string(id) +
                                " -seg no -comp_based_stats 0 -ungapped -evalue 1000 -strand plus"
                                " -outfmt '6 qframe qstart qend qseq' 2>/dev/null > '" +
                                dir.file("out") + "'";
    if (std::system(command.c_str()) != 0) {
      WARN("blastx does not know genetic code " << id << " (an older BLAST+); not checked against it");
      continue;
    }
    std::istringstream out(test::read_file(dir.file("out")));
    std::string frame, start, end, qseq;
    out >> frame >> start >> end >> qseq;
    REQUIRE(frame == "1");
    REQUIRE(start == "1");
    REQUIRE(end == "192");
    CHECK(qseq == std::string(GeneticCode::ncbi(id).amino_acids()));
    CHECK(translate_letters(all_codons, 1, id) == qseq);
    ++compared;
  }
  CHECK(compared >= 25);
}

TEST_CASE("genetic code: stops, and stops that other codes read as amino acids", "[translate]") {
  CHECK(translate_letters(GeneticCode::ncbi(1), "TGA") == '*');
  CHECK(translate_letters(GeneticCode::ncbi(4), "TGA") == 'W');
  CHECK(translate_letters(GeneticCode::ncbi(2), "AGA") == '*');
  CHECK(translate_letters(GeneticCode::ncbi(1), "AGA") == 'R');
  CHECK(translate_letters(GeneticCode::ncbi(6), "TAA") == 'Q');
  // A stop is the protein alphabet's '*', which BLOSUM62 scores with its own row.
  const std::uint8_t stop = GeneticCode::ncbi(1).translate(3, 0, 0);  // TAA
  const auto blosum62 = SubstitutionMatrix::builtin("BLOSUM62");
  const Alphabet& protein = Alphabet::protein();
  CHECK(stop == protein.encode('*'));
  CHECK(blosum62.score(stop, stop) == 1);
  CHECK(blosum62.score(stop, protein.encode('W')) == -4);
}

TEST_CASE("genetic code: a codon with N is the amino acid all its resolutions agree on, else X", "[translate]") {
  // Derived here from the 64-letter tables, independently of the code's own table.
  const auto codons = codons_in_ncbi_order();
  for (int id : GeneticCode::ids()) {
    const GeneticCode& code = GeneticCode::ncbi(id);
    INFO("code " << id);
    for (int mask = 1; mask < 8; ++mask)
      for (const auto& codon : codons) {
        std::string ambiguous = codon;
        for (int b = 0; b < 3; ++b)
          if (mask & (1 << b)) ambiguous[static_cast<std::size_t>(b)] = 'N';
        std::set<char> resolutions;
        for (std::size_t c = 0; c < 64; ++c) {
          bool matches = true;
          for (std::size_t b = 0; b < 3; ++b)
            if (ambiguous[b] != 'N' && ambiguous[b] != codons[c][b]) matches = false;
          if (matches) resolutions.insert(code.amino_acids()[c]);
        }
        INFO("codon " << ambiguous);
        CHECK(translate_letters(code, ambiguous) == (resolutions.size() == 1 ? *resolutions.begin() : 'X'));
      }
  }
  CHECK(translate_letters(GeneticCode::ncbi(1), "GGN") == 'G');
  CHECK(translate_letters(GeneticCode::ncbi(1), "CTN") == 'L');
  CHECK(translate_letters(GeneticCode::ncbi(1), "TAN") == 'X');
  CHECK(translate_letters(GeneticCode::ncbi(1), "NNN") == 'X');
  // Other ambiguity codes read as N: AAR (K in BLAST) is AAN here, X.
  CHECK(translate_letters(GeneticCode::ncbi(1), "AAR") == 'X');
}

TEST_CASE("genetic code: the six frames, as BLAST numbers them", "[translate]") {
  //                 ATG GCC TGA AAC TT  (+1)
  const std::string dna = "ATGGCCTGAAACTT";  // 14 bases
  // Reverse complement: AAGTTTCAGGCCAT
  CHECK(translate_letters(dna, 1) == "MA*N");
  CHECK(translate_letters(dna, 2) == "WPET");   // TGG CCT GAA ACT T
  CHECK(translate_letters(dna, 3) == "GLKL");   // GGC CTG AAA CTT
  CHECK(translate_letters(dna, -1) == "KFQA");  // AAG TTT CAG GCC AT
  CHECK(translate_letters(dna, -2) == "SFRP");  // AGT TTC AGG CCA T
  CHECK(translate_letters(dna, -3) == "VSGH");  // GTT TCA GGC CAT
  for (int frame : kReadingFrames) CHECK(translate_letters(dna, frame).size() == frame_length(dna.size(), frame));
  CHECK(frame_length(2, 1) == 0);
  CHECK(frame_length(3, 1) == 1);
  CHECK(frame_length(3, 2) == 0);
  CHECK(frame_length(5, -3) == 1);
  CHECK_THROWS_AS(translate_letters(dna, 0), std::invalid_argument);
  CHECK_THROWS_AS(translate_letters(dna, 4), std::invalid_argument);
  for (int f = 0; f < 6; ++f) CHECK(frame_index(kReadingFrames[f]) == f);
}

TEST_CASE("genetic code: amino-acid spans map to BLAST's nucleotide coordinates", "[translate]") {
  // Frame +2 of 14 bases: amino acid 1 (0-based) is bases 5..7 (1-based).
  CHECK(nucleotide_span(2, 1, 2, 14).start == 5);
  CHECK(nucleotide_span(2, 1, 2, 14).end == 7);
  CHECK(nucleotide_span(1, 0, 4, 14).start == 1);
  CHECK(nucleotide_span(1, 0, 4, 14).end == 12);
  // Frame -1 of 14 bases: amino acid 0 is the last three bases, 14..12 as BLAST prints them.
  CHECK(nucleotide_span(-1, 0, 1, 14).start == 14);
  CHECK(nucleotide_span(-1, 0, 1, 14).end == 12);
  // Frame -3: amino acids 1..2 are reverse-complement bases 6..11 (1-based), plus strand 9..4.
  CHECK(nucleotide_span(-3, 1, 3, 14).start == 9);
  CHECK(nucleotide_span(-3, 1, 3, 14).end == 4);
  // Every span against the translation itself: the codon at the span's start translates to the amino acid.
  const std::string dna = "ATGGCCTGAAACTTGCAGTACC";
  const Alphabet& nucleotide = Alphabet::nucleotide();
  const std::string codes = nucleotide.encode_string(dna);
  for (int frame : kReadingFrames) {
    const std::string protein = translate_frame(codes, frame, GeneticCode::ncbi(1));
    for (std::size_t a = 0; a < protein.size(); ++a) {
      const NucleotideSpan span = nucleotide_span(frame, a, a + 1, dna.size());
      std::string codon;
      if (frame > 0) {
        codon = codes.substr(span.start - 1, 3);
      } else {
        for (std::uint64_t i = span.start; i >= span.end; --i)
          codon += static_cast<char>(nucleotide.complement(static_cast<std::uint8_t>(codes[i - 1])));
      }
      REQUIRE(codon.size() == 3);
      INFO("frame " << frame << " amino acid " << a);
      CHECK(GeneticCode::ncbi(1).translate(static_cast<std::uint8_t>(codon[0]), static_cast<std::uint8_t>(codon[1]),
                                           static_cast<std::uint8_t>(codon[2])) ==
            static_cast<std::uint8_t>(protein[a]));
    }
  }
}

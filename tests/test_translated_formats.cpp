// Translated searches in BLAST's structured and pairwise reports: frames (Hsp_query-frame, Hsp_hit-frame;
// query_frame, hit_frame; the pairwise "Frame =" line), coordinates (XML and JSON give from < to on minus
// frames; the pairwise lines step three bases per residue), the parameters and statistics blocks (genetic
// codes; search spaces counted in amino acids) and the fields BLAST writes for them, compared
// with BLAST+'s blastx, tblastn and tblastx on real proteins hidden in DNA (tests/blast_compare.py compares
// every field of the alignments both tools report identically).
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "db/fasta.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

using namespace warpsearch;

namespace {

std::string quoted(const std::string& path) { return "'" + path + "'"; }

// Synonymous codons of the standard code, so that the DNA is not a repeat of one codon per residue.
const char* codons_of(char amino) {
  switch (amino) {
    case 'A': return "GCT GCC GCA GCG";
    case 'C': return "TGT TGC";
    case 'D': return "GAT GAC";
    case 'E': return "GAA GAG";
    case 'F': return "TTT TTC";
    case 'G': return "GGT GGC GGA GGG";
    case 'H': return "CAT CAC";
    case 'I': return "ATT ATC ATA";
    case 'K': return "AAA AAG";
    case 'L': return "CTG CTC TTA CTT";
    case 'M': return "ATG";
    case 'N': return "AAT AAC";
    case 'P': return "CCG CCT CCA";
    case 'Q': return "CAG CAA";
    case 'R': return "CGT AGA CGC";
    case 'S': return "TCT AGC TCC";
    case 'T': return "ACC ACT ACA";
    case 'V': return "GTG GTT GTC";
    case 'W': return "TGG";
    default: return "TAT TAC";  // Y
  }
}

std::string reverse_complement(const std::string& dna) {
  std::string out(dna.rbegin(), dna.rend());
  for (char& c : out) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'A';
  return out;
}

std::string random_dna(std::mt19937_64& rng, std::size_t length) {
  std::string dna(length, 'A');
  for (char& c : dna) c = "ACGT"[rng() % 4];
  return dna;
}

struct Data {
  test::TempDir dir;
  std::string proteins, dna, piece;  // FASTA files
};

// Six sample proteins back-translated into random DNA, alternately on the plus and minus strand (so in
// every frame); and a piece of that DNA with one base in ten changed, for tblastx.
void make_data(Data& d) {
  std::mt19937_64 rng(31);
  std::string proteins, chromosome;
  FastaReader reader(test::source_path("data/uniprot_sample.fa"), SequenceType::protein);
  std::size_t picked = 0;
  for (SequenceRecord record; picked < 6 && reader.next(record);) {
    const std::string letters = Alphabet::protein().decode_string(record.codes);
    if (letters.size() < 60 || letters.size() > 400 ||
        letters.find_first_not_of("ACDEFGHIKLMNPQRSTVWY") != std::string::npos)
      continue;
    proteins += ">" + record.id + "\n" + letters + "\n";
    std::string coding;
    for (char amino : letters) {
      const std::string choices = codons_of(amino);
      const std::size_t count = (choices.size() + 1) / 4;
      coding += choices.substr(4 * (rng() % count), 3);
    }
    chromosome += random_dna(rng, 40 + picked);
    chromosome += picked % 2 == 0 ? coding : reverse_complement(coding);
    ++picked;
  }
  REQUIRE(picked == 6);
  chromosome += random_dna(rng, 57);
  std::string piece = chromosome.substr(100, 1400);
  for (char& c : piece)
    if (rng() % 10 == 0) c = "ACGT"[rng() % 4];
  d.proteins = d.dir.file("proteins.fa");
  d.dna = d.dir.file("dna.fa");
  d.piece = d.dir.file("piece.fa");
  test::write_file(d.proteins, proteins);
  test::write_file(d.dna, ">chromosome\n" + chromosome + "\n>contig2 a mutated piece\n" + piece + "\n");
  test::write_file(d.piece, ">piece\n" + piece + "\n");
}

// Runs BLAST+ (a shell command that writes FORMAT to `blast`) and warpsearch (search arguments), and
// compares the two with tests/blast_compare.py; `filter` (a sed script) edits both files first.
void compare(const Data& d, const std::string& blast_command, const std::string& search, const std::string& format,
             const std::string& kind, int minimum, const std::string& filter = "", bool with_statistics = true) {
  INFO(blast_command << " -outfmt " << format);
  const std::string blast = d.dir.file("blast.out"), ours = d.dir.file("ours.out");
  const auto b = test::run_shell(blast_command + " -outfmt " + format + " > " + quoted(blast) + " 2>/dev/null");
  REQUIRE(b.exit_code == 0);
  const auto w = test::run_warpsearch(search + " --quiet --device cpu --outfmt " + format + " -o " + quoted(ours));
  INFO(w.err);
  REQUIRE(w.exit_code == 0);
  if (!filter.empty())
    REQUIRE(test::run_shell("sed -i -e '" + filter + "' " + quoted(blast) + " " + quoted(ours)).exit_code == 0);
  const auto c = test::run_shell("python3 " + quoted(test::source_path("tests/blast_compare.py")) + " " + kind + " " +
                                 quoted(blast) + " " + quoted(ours) + " " + std::to_string(minimum));
  INFO(c.out);
  CHECK(c.exit_code == 0);
  // The search parameters and statistics the structured reports state (the genetic codes; the length
  // adjustment and search space of a translated query or database, counted in amino acids).
  if (with_statistics && kind != "pairwise") {
    const auto stated = [&](const std::string& path) {
      std::vector<std::string> lines;
      std::istringstream in(test::read_file(path));
      bool block = false;
      for (std::string line; std::getline(in, line);) {
        if (line.find("\"params\"") != std::string::npos || line.find("\"stat\"") != std::string::npos) block = true;
        if (block || line.find("<Parameters_") != std::string::npos || line.find("<Statistics_") != std::string::npos)
          lines.push_back(line);
        if (block && line.find('}') != std::string::npos) block = false;
      }
      return lines;
    };
    CHECK(stated(ours) == stated(blast));
  }
}

}  // namespace

TEST_CASE("translated reports: frames and coordinates in XML, JSON and pairwise as BLAST+ writes them",
          "[translate][output][blast]") {
  for (const char* tool : {"makeblastdb", "blastx", "tblastn", "tblastx", "python3"})
    if (!test::have_tool(tool)) {
      WARN(tool << " not installed (Debian: ncbi-blast+): comparison with BLAST+ skipped");
      return;
    }
  Data d;
  make_data(d);
  const std::string bp = d.dir.file("bp"), bn = d.dir.file("bn"), pw = d.dir.file("p.wsdb"), nw = d.dir.file("n.wsdb");
  REQUIRE(test::run_shell("makeblastdb -in " + quoted(d.proteins) + " -dbtype prot -parse_seqids -out " + quoted(bp))
              .exit_code == 0);
  REQUIRE(test::run_shell("makeblastdb -in " + quoted(d.dna) + " -dbtype nucl -parse_seqids -out " + quoted(bn))
              .exit_code == 0);
  REQUIRE(test::run_warpsearch("makedb --quiet " + quoted(d.proteins) + " " + quoted(pw)).exit_code == 0);
  REQUIRE(test::run_warpsearch("makedb --quiet " + quoted(d.dna) + " " + quoted(nw)).exit_code == 0);
  // BLAST+ without composition-based statistics or filtering, with Smith-Waterman tracebacks; -evalue
  // spares its slow tracebacks of the many weak HSPs.
  const std::string exact = " -comp_based_stats 0 -seg no -use_sw_tback -evalue 1e-5";
  const std::string blastx = "blastx -query " + quoted(d.dna) + " -db " + quoted(bp) + exact;
  const std::string ours_blastx =
      "search --program blastx -q " + quoted(d.dna) + " -d " + quoted(pw) + " --evalue 1e-5";
  const std::string tblastn = "tblastn -query " + quoted(d.proteins) + " -db " + quoted(bn) + exact;
  const std::string ours_tblastn =
      "search --program tblastn -q " + quoted(d.proteins) + " -d " + quoted(nw) + " --evalue 1e-5";
  SECTION("blastx") {
    compare(d, blastx, ours_blastx, "5", "xml", 6);
    compare(d, blastx, ours_blastx, "15", "json", 6);
    compare(d, blastx, ours_blastx, "0", "pairwise", 6);
  }
  SECTION("tblastn") {
    compare(d, tblastn, ours_tblastn, "5", "xml", 8);
    compare(d, tblastn, ours_tblastn, "15", "json", 8);
    compare(d, tblastn, ours_tblastn, "0", "pairwise", 8);
  }
  SECTION("tblastx") {
    // BLAST's tblastx is ungapped and gives bit scores with ungapped parameters (docs/translated_search.md):
    // the bit scores are set aside, every other field of the shared alignments must agree.
    const std::string tblastx = "tblastx -query " + quoted(d.piece) + " -db " + quoted(bn) + " -seg no -evalue 1e-5";
    const std::string ours = "search --program tblastx -q " + quoted(d.piece) + " -d " + quoted(nw) + " --evalue 1e-5";
    // Its statistics (ungapped parameters) and parameters (no gap costs) differ for the same reason.
    compare(d, tblastx, ours, "5", "xml", 2, "/<Hsp_bit-score>/d", false);
    compare(d, tblastx, ours, "15", "json", 2, "/\"bit_score\"/d", false);
    compare(d, tblastx, ours, "0", "pairwise", 2, "s/^ Score = [0-9.e+]* bits/ Score = - bits/", false);
  }
}

// Translated searches on the command line: the search command's --program choice and its errors, and
// proteins of the bundled sample hidden in random DNA on both strands, found by blastx and tblastn at
// their loci and frames, against BLAST+'s blastx and tblastn where installed.
#include <cstdlib>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/alphabet.hpp"
#include "db/fasta.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"
#include "tests/translation_support.hpp"

using namespace warpsearch;

namespace {

const Alphabet& protein = Alphabet::protein();
const Alphabet& nucleotide = Alphabet::nucleotide();
using test::back_translate;
using test::reverse_complement;

}  // namespace

TEST_CASE("search CLI: --program, its default and its errors", "[translate][cli]") {
  test::TempDir dir;
  test::write_file(dir.file("p.fa"), ">p1\nMKVLAAGIVGLLLAWHHQERK\n>p2\nWWWPPPGGGCCCMMM\n");
  test::write_file(dir.file("d.fa"), ">d1\nATGAAAGTTCTGGCGGCGGGCATTGTGGGCCTGCTGCTGGCGTGGCATCATCAGGAACGCAAA\n");
  REQUIRE(test::run_warpsearch("makedb '" + dir.file("p.fa") + "' '" + dir.file("p.wsdb") + "' --quiet").exit_code ==
          0);
  REQUIRE(test::run_warpsearch("makedb '" + dir.file("d.fa") + "' '" + dir.file("d.wsdb") + "' --quiet").exit_code ==
          0);
  const auto search = [&](const std::string& query, const std::string& db, const std::string& more) {
    return test::run_warpsearch("search --device cpu -q '" + dir.file(query) + "' -d '" + dir.file(db) +
                                "' --outfmt '6 qseqid sseqid qstart qend sstart send qframe sframe score' " + more);
  };
  const auto dna_vs_proteins = search("d.fa", "p.wsdb", "--quiet");
  CHECK(dna_vs_proteins.exit_code == 2);
  CHECK(dna_vs_proteins.err.find("--program blastx") != std::string::npos);
  CHECK(dna_vs_proteins.err.find("--program blastp") != std::string::npos);
  CHECK(dna_vs_proteins.out.empty());
  const auto proteins_vs_dna = search("p.fa", "d.wsdb", "--quiet");
  CHECK(proteins_vs_dna.exit_code == 2);
  CHECK(proteins_vs_dna.err.find("--program tblastn") != std::string::npos);
  CHECK(proteins_vs_dna.err.find("--program blastn") != std::string::npos);

  // The DNA encodes p1 in frame +1: blastx finds it there, whole; tblastn finds p1 at bases 1..63.
  const auto blastx = search("d.fa", "p.wsdb", "--quiet --program blastx --max-target-seqs 1");
  CHECK(blastx.exit_code == 0);
  CHECK(blastx.out.rfind("d1\tp1\t1\t63\t1\t21\t1\t0\t", 0) == 0);
  const auto tblastn = search("p.fa", "d.wsdb", "--quiet --program tblastn --max-target-seqs 1");
  CHECK(tblastn.exit_code == 0);
  CHECK(tblastn.out.rfind("p1\td1\t1\t21\t1\t63\t0\t1\t", 0) == 0);
  const auto tblastx = search("d.fa", "d.wsdb", "--quiet --program tblastx --evalue 1e-3");
  CHECK(tblastx.exit_code == 0);
  CHECK(tblastx.out.find("d1\td1\t1\t63\t1\t63\t1\t1\t") != std::string::npos);

  const auto wrong_db = search("p.fa", "p.wsdb", "--quiet --program tblastn");
  CHECK(wrong_db.exit_code == 2);
  CHECK(wrong_db.err.find("tblastn searches nucleotide databases") != std::string::npos);
  const auto bad_code = search("d.fa", "p.wsdb", "--quiet --program blastx --query-gencode 8");
  CHECK(bad_code.exit_code == 2);
  CHECK(bad_code.err.find("--query-gencode: genetic code 8 does not exist") != std::string::npos);
  const auto unused_code = search("p.fa", "p.wsdb", "--quiet --db-gencode 2");
  CHECK(unused_code.exit_code == 2);
  CHECK(unused_code.err.find("--db-gencode is for programs that translate the database") != std::string::npos);
  const auto protein_as_dna = search("p.fa", "p.wsdb", "--quiet --program blastx");
  CHECK(protein_as_dna.exit_code != 0);  // E, L, ... are not nucleotides: the record is named
  CHECK(protein_as_dna.err.find("p1") != std::string::npos);
  const auto dna_as_protein = search("d.fa", "p.wsdb", "--program blastp");
  CHECK(dna_as_protein.exit_code == 0);
  CHECK(dna_as_protein.err.find("looks like nucleotide sequences, searched as protein") != std::string::npos);
}

TEST_CASE("blastx and tblastn find real proteins hidden in DNA on both strands, at BLAST's loci and frames",
          "[translate][cli][blast]") {
  // Proteins of the bundled sample (twenty standard letters only), back-translated into a random DNA
  // background, alternately on the plus and minus strand, in all three frames.
  std::vector<std::pair<std::string, std::string>> picked;  // id, letters
  {
    FastaReader reader(test::source_path("data/uniprot_sample.fa"), SequenceType::protein);
    for (SequenceRecord record; picked.size() < 6 && reader.next(record);) {
      const std::string letters = protein.decode_string(record.codes);
      if (letters.size() < 60 || letters.size() > 400 ||
          letters.find_first_not_of("ACDEFGHIKLMNPQRSTVWY") != std::string::npos)
        continue;
      picked.emplace_back(record.id, letters);
    }
  }
  REQUIRE(picked.size() == 6);
  std::mt19937_64 rng(2024);
  std::string dna;
  struct Planted {
    std::uint64_t start, end;  // 1-based, as BLAST prints them (start > end on the minus strand)
    int frame;
  };
  std::vector<Planted> planted;
  for (std::size_t k = 0; k < picked.size(); ++k) {
    dna += test::random_codes(rng, 40 + k, 4);
    const std::string coding = back_translate(protein.encode_string(picked[k].second), rng);
    const std::uint64_t first = dna.size() + 1, last = dna.size() + coding.size();
    if (k % 2 == 0) {
      dna += coding;
      planted.push_back({first, last, static_cast<int>((first - 1) % 3) + 1});
    } else {
      dna += reverse_complement(coding);
      planted.push_back({last, first, 0});
    }
  }
  dna += test::random_codes(rng, 57, 4);
  for (Planted& p : planted)
    if (p.frame == 0) p.frame = -static_cast<int>((dna.size() - p.start) % 3) - 1;
  test::TempDir dir;
  test::write_file(dir.file("dna.fa"), ">chromosome\n" + nucleotide.decode_string(dna) + "\n");
  std::string proteins;
  for (const auto& [id, letters] : picked) proteins += ">" + id + "\n" + letters + "\n";
  test::write_file(dir.file("proteins.fa"), proteins);
  REQUIRE(
      test::run_warpsearch("makedb '" + dir.file("dna.fa") + "' '" + dir.file("dna.wsdb") + "' --quiet").exit_code ==
      0);
  REQUIRE(test::run_warpsearch("makedb '" + dir.file("proteins.fa") + "' '" + dir.file("proteins.wsdb") + "' --quiet")
              .exit_code == 0);
  const std::string columns =
      "qseqid sseqid qstart qend sstart send qframe sframe score evalue bitscore qcovhsp sstrand";
  const auto blastx = test::run_warpsearch("search --quiet --device cpu --program blastx -q '" + dir.file("dna.fa") +
                                           "' -d '" + dir.file("proteins.wsdb") + "' --outfmt '6 " + columns + "'");
  const auto tblastn =
      test::run_warpsearch("search --quiet --device cpu --program tblastn -q '" + dir.file("proteins.fa") + "' -d '" +
                           dir.file("dna.wsdb") + "' --outfmt '6 " + columns + "'");
  REQUIRE(blastx.exit_code == 0);
  REQUIRE(tblastn.exit_code == 0);
  // Each protein's best hit: the whole protein at its planted locus and frame.
  const auto best_rows = [](const std::string& out, int key_column) {
    std::map<std::string, std::vector<std::string>> best;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
      std::vector<std::string> fields;
      std::istringstream cells(line);
      for (std::string cell; std::getline(cells, cell, '\t');) fields.push_back(cell);
      if (!best.count(fields[static_cast<std::size_t>(key_column)]))
        best[fields[static_cast<std::size_t>(key_column)]] = fields;
    }
    return best;
  };
  const auto blastx_best = best_rows(blastx.out, 1), tblastn_best = best_rows(tblastn.out, 0);
  for (std::size_t k = 0; k < picked.size(); ++k) {
    INFO(picked[k].first);
    const std::vector<std::string> x = blastx_best.at(picked[k].first), t = tblastn_best.at(picked[k].first);
    const std::string length = std::to_string(picked[k].second.size());
    CHECK(x == std::vector<std::string>{"chromosome", picked[k].first, std::to_string(planted[k].start),
                                        std::to_string(planted[k].end), "1", length, std::to_string(planted[k].frame),
                                        "0", x[8], x[9], x[10], x[11], "N/A"});
    CHECK(t == std::vector<std::string>{picked[k].first, "chromosome", "1", length, std::to_string(planted[k].start),
                                        std::to_string(planted[k].end), "0", std::to_string(planted[k].frame), t[8],
                                        t[9], t[10], "100", "N/A"});
    CHECK(x[8] == t[8]);
  }
  if (std::system("command -v blastx >/dev/null 2>&1 && command -v tblastn >/dev/null 2>&1") != 0) {
    WARN("skipped the comparison with BLAST+: blastx or tblastn is not installed");
    return;
  }
  // BLAST+ without composition-based statistics or filtering, with Smith-Waterman tracebacks (which
  // also keep its HSPs apart: no sum statistics over linked HSPs): the same best hits, rows equal column
  // for column (scores, E-values and bit scores included). -evalue spares its slow tracebacks of the
  // many weak HSPs.
  const std::string blast_options =
      " -comp_based_stats 0 -seg no -use_sw_tback -evalue 1e-5 -outfmt '6 " + columns + "' 2>&1";
  const std::string blast_x = dir.file("blastx.tsv"), blast_t = dir.file("tblastn.tsv");
  REQUIRE(std::system(("makeblastdb -in '" + dir.file("proteins.fa") + "' -dbtype prot -out '" + dir.file("bp") +
                       "' >/dev/null && blastx -query '" + dir.file("dna.fa") + "' -db '" + dir.file("bp") + "'" +
                       blast_options + " > '" + blast_x + "'")
                          .c_str()) == 0);
  REQUIRE(std::system(("makeblastdb -in '" + dir.file("dna.fa") + "' -dbtype nucl -out '" + dir.file("bn") +
                       "' >/dev/null && tblastn -query '" + dir.file("proteins.fa") + "' -db '" + dir.file("bn") + "'" +
                       blast_options + " > '" + blast_t + "'")
                          .c_str()) == 0);
  const auto blast_x_best = best_rows(test::read_file(blast_x), 1),
             blast_t_best = best_rows(test::read_file(blast_t), 0);
  for (std::size_t k = 0; k < picked.size(); ++k) {
    INFO(picked[k].first);
    CHECK(blastx_best.at(picked[k].first) == blast_x_best.at(picked[k].first));
    CHECK(tblastn_best.at(picked[k].first) == blast_t_best.at(picked[k].first));
  }
}

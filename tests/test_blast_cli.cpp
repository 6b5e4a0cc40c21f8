// BLAST+ as the oracle of warpsearch's formats and command lines: the same command line run by blastp
// (or blastn) and by `warpsearch blastp` (or blastn), on a BLAST database made with -parse_seqids and a
// warpsearch database of the same name, must give the same fields on every alignment both report
// identically (tests/blast_compare.py says which those are). blastp runs with -comp_based_stats 0 -seg no
// -use_sw_tback, blastn with -task blastn and warpsearch's nucleotide scoring, so that its scores are
// exact ones. Skipped with a message where BLAST+ or python3 is missing.
#include <algorithm>
#include <cctype>
#include <random>
#include <string>

#include "tests/catch.hpp"
#include "tests/test_support.hpp"

using warpsearch::test::read_file;
using warpsearch::test::run_warpsearch;
using warpsearch::test::source_path;
using warpsearch::test::TempDir;
using warpsearch::test::write_file;

namespace {

using Shell = warpsearch::test::CommandResult;
Shell shell(const std::string& command) { return warpsearch::test::run_shell(command); }
bool have(const std::string& tool) { return warpsearch::test::have_tool(tool); }

std::string quoted(const std::string& path) { return "'" + path + "'"; }

using warpsearch::test::contains;

// Runs `PROGRAM ARGS -outfmt FORMAT` with BLAST+ and with warpsearch, and compares the two outputs.
void compare(const TempDir& dir, const std::string& program, const std::string& arguments, const std::string& format,
             const std::string& kind, int minimum) {
  INFO(program << " -outfmt '" << format << "'");
  const std::string blast = dir.file("blast.out"), ours = dir.file("ours.out");
  const auto b = shell("cd " + quoted(dir.path()) + " && " + program + " " + arguments + " -outfmt '" + format +
                       "' > " + quoted(blast));
  INFO(b.out);
  REQUIRE(b.exit_code == 0);
  const auto w = run_warpsearch(program + " " + arguments + " -outfmt '" + format + "' -out " + quoted(ours));
  INFO(w.err);
  REQUIRE(w.exit_code == 0);
  const auto c = shell("python3 " + quoted(source_path("tests/blast_compare.py")) + " " + kind + " " + quoted(blast) +
                       " " + quoted(ours) + " " + std::to_string(minimum));
  INFO(c.out);
  CHECK(c.exit_code == 0);
}

bool blast_available(const char* program) {
  for (const std::string& tool : {std::string(program), std::string("makeblastdb"), std::string("python3")})
    if (!have(tool)) {
      WARN(tool << " not installed (Debian: ncbi-blast+, python3): comparison with BLAST+ skipped");
      return false;
    }
  return true;
}

}  // namespace

TEST_CASE("blast cli: warpsearch blastp writes BLAST+'s fields in every format", "[blast][cli]") {
  if (!blast_available("blastp")) return;
  TempDir dir;
  const std::string db = dir.file("sample");
  REQUIRE(shell("makeblastdb -in " + quoted(source_path("data/uniprot_sample.fa")) +
                " -dbtype prot -parse_seqids -out " + quoted(db))
              .exit_code == 0);
  REQUIRE(
      run_warpsearch("makedb --quiet " + quoted(source_path("data/uniprot_sample.fa")) + " " + quoted(db)).exit_code ==
      0);
  const std::string arguments = "-query " + quoted(source_path("data/queries.fa")) + " -db " + quoted(db) +
                                " -comp_based_stats 0 -seg no -use_sw_tback -max_target_seqs 20";
  // Columns 1-12 std, 13 btop (tells co-optimal alignments apart), 14 qcovs; then the rest.
  compare(dir, "blastp", arguments,
          "6 std btop qcovs qseqid qacc sseqid sacc sallseqid sallacc sgi qgi qlen slen score length pident nident "
          "mismatch positive gapopen gaps ppos frames qframe sframe qseq sseq staxid staxids ssciname sscinames "
          "scomname sblastname sskingdom sstrand qcovhsp qcovus stitle salltitles",
          "tab", 80);
  compare(dir, "blastp", arguments, "7 std btop qcovs positive", "tab7", 80);
  compare(dir, "blastp", arguments, "10 std btop qcovs sacc", "csv",
          80);  // no titles: BLAST's CSV leaves commas unquoted
  compare(dir, "blastp", arguments, "5", "xml", 80);
  compare(dir, "blastp", arguments, "15", "json", 80);
  compare(dir, "blastp", arguments, "0", "pairwise", 80);
  if (have("xmllint")) {
    REQUIRE(run_warpsearch("blastp " + arguments + " -outfmt 5 -out " + quoted(dir.file("ours.xml"))).exit_code == 0);
    CHECK(shell("xmllint --noout " + quoted(dir.file("ours.xml"))).exit_code == 0);
  }
}

TEST_CASE("blast cli: with -seg yes the query's own letters and identities, as blastp reports them", "[blast][cli]") {
  if (!blast_available("blastp")) return;
  TempDir dir;
  const std::string db = dir.file("sample");
  REQUIRE(shell("makeblastdb -in " + quoted(source_path("data/uniprot_sample.fa")) +
                " -dbtype prot -parse_seqids -out " + quoted(db))
              .exit_code == 0);
  REQUIRE(
      run_warpsearch("makedb --quiet " + quoted(source_path("data/uniprot_sample.fa")) + " " + quoted(db)).exit_code ==
      0);
  // SEG masks low-complexity stretches of the queries as X for the search; blastp prints the query's own
  // letters in qseq and BTOP and counts identities and positives on them.
  const std::string arguments = "-query " + quoted(source_path("data/queries.fa")) + " -db " + quoted(db) +
                                " -comp_based_stats 0 -seg yes -use_sw_tback -max_target_seqs 20";
  compare(dir, "blastp", arguments, "6 qseqid sseqid score qstart qend sstart send qseq", "qseq", 40);
  compare(dir, "blastp", arguments, "6 std btop qseq nident positive ppos", "tab", 40);
}

TEST_CASE("blast cli: Biopython's SearchIO reads warpsearch's XML and commented tabular as it reads BLAST's",
          "[blast][cli]") {
  if (!blast_available("blastp")) return;
  // The python that has Biopython: the one on PATH, or Debian's (python3-biopython).
  std::string python;
  for (const char* candidate : {"python3", "/usr/bin/python3"})
    if (python.empty() && shell(std::string(candidate) + " -c 'import Bio.SearchIO'").exit_code == 0)
      python = candidate;
  if (python.empty()) {
    WARN("Biopython not installed (Debian: python3-biopython): SearchIO check skipped");
    return;
  }
  TempDir dir;
  const std::string db = dir.file("sample");
  REQUIRE(shell("makeblastdb -in " + quoted(source_path("data/uniprot_sample.fa")) +
                " -dbtype prot -parse_seqids -out " + quoted(db))
              .exit_code == 0);
  REQUIRE(
      run_warpsearch("makedb --quiet " + quoted(source_path("data/uniprot_sample.fa")) + " " + quoted(db)).exit_code ==
      0);
  const std::string arguments = "-query " + quoted(source_path("data/queries.fa")) + " -db " + quoted(db) +
                                " -comp_based_stats 0 -seg no -use_sw_tback -max_target_seqs 20";
  for (const auto& [format, kind] :
       {std::pair<std::string, std::string>{"5", "searchio-xml"}, {"7 std positive btop", "searchio-tab7"}}) {
    INFO(kind);
    REQUIRE(shell("blastp " + arguments + " -outfmt '" + format + "' > " + quoted(dir.file("blast.out"))).exit_code ==
            0);
    REQUIRE(run_warpsearch("blastp " + arguments + " -outfmt '" + format + "' -out " + quoted(dir.file("ours.out")))
                .exit_code == 0);
    const auto c = shell(python + " " + quoted(source_path("tests/blast_compare.py")) + " " + kind + " " +
                         quoted(dir.file("blast.out")) + " " + quoted(dir.file("ours.out")) + " 80");
    INFO(c.out);
    CHECK(c.exit_code == 0);
  }
}

TEST_CASE("blast cli: warpsearch blastn writes BLAST+'s fields, and SAM that samtools reads", "[blast][cli]") {
  if (!blast_available("blastn")) return;
  TempDir dir;
  // The sample's IDs ("GJ063650.1:1-1723") are not Seq-ids that -parse_seqids reads; local IDs are.
  REQUIRE(shell("awk '/^>/{n++; sub(/^>[^ ]*/, \">dna\" n)} 1' " + quoted(source_path("data/dna_sample.fa")) + " > " +
                quoted(dir.file("dna.fa")))
              .exit_code == 0);
  const std::string db = dir.file("dna");
  REQUIRE(shell("makeblastdb -in " + quoted(dir.file("dna.fa")) + " -dbtype nucl -parse_seqids -out " + quoted(db))
              .exit_code == 0);
  REQUIRE(run_warpsearch("makedb --quiet " + quoted(dir.file("dna.fa")) + " " + quoted(db)).exit_code == 0);
  const std::string arguments = "-task blastn -query " + quoted(source_path("data/dna_queries.fa")) + " -db " +
                                quoted(db) +
                                " -reward 2 -penalty -3 -gapopen 5 -gapextend 2 -dust no -max_target_seqs 20";
  compare(dir, "blastn", arguments,
          "6 std btop qcovs sstrand frames qframe sframe sseqid sacc qcovhsp positive ppos stitle", "tab", 40);
  compare(dir, "blastn", arguments, "5", "xml", 40);
  compare(dir, "blastn", arguments, "15", "json", 40);
  compare(dir, "blastn", arguments, "0", "pairwise", 40);

  // SAM: BLAST's own outfmt 17 puts the query in RNAME; warpsearch writes SAM with the database as the
  // reference. Its records are checked against blastn's tabular output: position, strand, CIGAR span,
  // AS (the score) and NM (mismatches and gap columns).
  const auto b = shell(std::string("cd ") + quoted(dir.path()) + " && blastn " + arguments +
                       " -outfmt '6 qseqid sseqid sstart send sstrand score mismatch gaps' > blast.tsv");
  REQUIRE(b.exit_code == 0);
  const auto w = run_warpsearch("blastn " + arguments + " -outfmt 17 -out " + quoted(dir.file("ours.sam")));
  INFO(w.err);
  REQUIRE(w.exit_code == 0);
  const auto c = shell("python3 " + quoted(source_path("tests/blast_compare.py")) + " sam-vs-tab " +
                       quoted(dir.file("blast.tsv")) + " " + quoted(dir.file("ours.sam")) + " 40");
  INFO(c.out);
  CHECK(c.exit_code == 0);
  if (have("samtools")) {
    CHECK(shell("samtools quickcheck " + quoted(dir.file("ours.sam"))).exit_code == 0);
    const auto view = shell("samtools view -F 4 " + quoted(dir.file("ours.sam")) + " | awk '$2 == 16' | wc -l");
    CHECK(std::stoi(view.out) > 0);  // minus-strand hits carry FLAG 16
  } else {
    WARN("samtools not installed: SAM not read back");
  }
}

TEST_CASE("blast cli: subject identifiers as blastp prints them from a -parse_seqids database", "[blast][cli]") {
  if (!blast_available("blastp")) return;
  TempDir dir;
  // One FASTA ID of each kind -parse_seqids reads differently; the subjects are prefixes of one
  // sequence, so that every one is hit with an alignment both tools report identically.
  const std::string sequence =
      "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQFEVVHSLAKWKRQTLGQHDFSAGEGLYTHMKALRPDEDRLSPLHSV"
      "YVDQWDWERVMGDGERQFSTLKSTVEAIWAGIKATEAAVSEEFGLAPFLPDQIHFVHSQELLSRYPDLDAKGRERAIAKDLGAVFLVGIGGKLSDGHRHDVRAPDYDDW";
  const char* ids[] = {"sp|P12345|NAME_HUMAN",
                       "sp|P12346.2|NAME2",
                       "ref|NM_000123.1|",
                       "gi|123|ref|NP_000001.1|",
                       "NM_000124.1",
                       "myseq1",
                       "lcl|myseq2",
                       "P12347",
                       "gb|AAA12345.1|",
                       "pdb|1ABC|A",
                       "gnl|db|ident5",
                       "tr|Q9XYZ1|Q9XYZ1_X",
                       "XP_123456.2",
                       "seq.with.dots",
                       "abc|def",
                       "A0A0B0PUI5"};
  std::string fasta;
  std::size_t length = 100;
  for (const char* id : ids)
    fasta += ">" + std::string(id) + " title of " + id + "\n" + sequence.substr(0, length++) + "\n";
  write_file(dir.file("ids.fa"), fasta);
  write_file(dir.file("query.fa"), ">query\n" + sequence + "\n");
  const std::string db = dir.file("ids");
  REQUIRE(shell("makeblastdb -in " + quoted(dir.file("ids.fa")) + " -dbtype prot -parse_seqids -out " + quoted(db))
              .exit_code == 0);
  REQUIRE(run_warpsearch("makedb --quiet " + quoted(dir.file("ids.fa")) + " " + quoted(db)).exit_code == 0);
  compare(dir, "blastp",
          "-query " + quoted(dir.file("query.fa")) + " -db " + quoted(db) + " -comp_based_stats 0 -seg no",
          "6 std btop qcovs sseqid sacc sallseqid sallacc sgi sallgi stitle salltitles", "tab", 16);
  compare(dir, "blastp",
          "-query " + quoted(dir.file("query.fa")) + " -db " + quoted(db) + " -comp_based_stats 0 -seg no", "5", "xml",
          16);
}

TEST_CASE("blast cli: -subject FASTA is searched as a database of its own", "[blast][cli]") {
  if (!blast_available("blastp")) return;
  TempDir dir;
  REQUIRE(shell("head -40 " + quoted(source_path("data/uniprot_sample.fa")) + " > " + quoted(dir.file("subjects.fa")))
              .exit_code == 0);
  const std::string arguments = "-query " + quoted(source_path("data/queries.fa")) + " -subject " +
                                quoted(dir.file("subjects.fa")) + " -comp_based_stats 0 -seg no -use_sw_tback";
  // BLAST leaves -subject IDs unparsed (saccver is the whole ID); sseqid is the whole ID in both.
  compare(dir, "blastp", arguments,
          "6 qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue "
          "bitscore btop score",
          "tab", 20);
  // The database made for the run is gone afterwards.
  const auto left = shell("ls -d \"${TMPDIR:-/tmp}\"/warpsearch-subject-* 2>/dev/null | wc -l");
  CHECK(left.out == "0\n");
  CHECK(run_warpsearch("blastp " + arguments + " -db " + quoted(dir.file("x"))).exit_code == 2);
}

TEST_CASE("blast cli: BLAST's options are accepted, noted or refused", "[blast][cli]") {
  TempDir dir;
  const std::string db = dir.file("sample");
  REQUIRE(
      run_warpsearch("makedb --quiet " + quoted(source_path("data/uniprot_sample.fa")) + " " + quoted(db)).exit_code ==
      0);
  const std::string query = " -query " + quoted(source_path("data/queries.fa")) + " -db " + quoted(db);

  SECTION("the default report is BLAST's pairwise one") {
    const auto r = run_warpsearch("blastp" + query + " -max_target_seqs 2");
    REQUIRE(r.exit_code == 0);
    CHECK(contains(r.out, "Query= "));
    CHECK(contains(r.out, " Score = "));
    CHECK(r.err.empty());
  }
  SECTION("heuristic options: one note each on stderr, the same hits") {
    const auto plain = run_warpsearch("blastp" + query + " -outfmt 6 -max_target_seqs 5");
    const auto noted = run_warpsearch("blastp" + query +
                                      " -outfmt 6 -max_target_seqs 5 -word_size 2 -threshold 13 "
                                      "-xdrop_gap 30 -window_size 0");
    REQUIRE(noted.exit_code == 0);
    CHECK(noted.out == plain.out);
    CHECK(std::count(noted.err.begin(), noted.err.end(), '\n') == 4);
    CHECK(contains(noted.err, "-word_size steers BLAST's heuristics and does not change an exact search"));
  }
  SECTION("values that ask for what an exact search does need no note") {
    const auto r = run_warpsearch("blastp" + query +
                                  " -outfmt 6 -max_target_seqs 2 -seg no -comp_based_stats 0 "
                                  "-use_sw_tback -max_hsps 1 -evalue 1e-5 -num_threads 1");
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.empty());
  }
  SECTION("options mapped onto the search act as in BLAST") {
    const auto r = run_warpsearch("blastp" + query + " -outfmt '6 qseqid evalue' -evalue 1e-10 -max_target_seqs 3");
    REQUIRE(r.exit_code == 0);
    CHECK(!r.out.empty());
    for (std::size_t at = r.out.find('\t'); at != std::string::npos; at = r.out.find('\t', at + 1))
      CHECK(std::stod(r.out.substr(at + 1)) <= 1e-10);
  }
  SECTION("usage errors exit 2") {
    for (const std::string bad : {" -bogus 1", " -remote", " -perc_identity 90", " -outfmt 3", " -evalue", " stray",
                                  " -strand plus_minus", " -evalue 0"}) {
      INFO(bad);
      const auto r = run_warpsearch("blastp" + query + bad);
      CHECK(r.exit_code == 2);
      CHECK(r.out.empty());
    }
    const auto nucleotide = run_warpsearch("blastn" + query);
    CHECK(nucleotide.exit_code == 2);
    CHECK(contains(nucleotide.err, "protein database"));
  }
  SECTION("-help lists the options") {
    const auto r = run_warpsearch("blastp -help");
    CHECK(r.exit_code == 0);
    CHECK(contains(r.out, "-max_target_seqs"));
    CHECK(contains(r.out, "-word_size"));
  }
}

TEST_CASE("blast cli: blastx, tblastn and tblastx run the translated searches of search --program", "[blast][cli]") {
  TempDir dir;
  // The bundled proteins' first three written as DNA (one codon per amino acid) inside random DNA, on
  // alternating strands: what blastx finds in the proteins, tblastn and tblastx in the DNA.
  const std::string amino_acids = "ARNDCQEGHILKMFPSTWYV";
  const char* codons[] = {"GCT", "CGT", "AAT", "GAT", "TGT", "CAA", "GAA", "GGT", "CAT", "ATT",
                          "CTG", "AAA", "ATG", "TTT", "CCG", "TCT", "ACT", "TGG", "TAT", "GTT"};
  std::mt19937_64 rng(31);
  const auto random_dna = [&](std::size_t length) {
    std::string dna(length, 'A');
    for (auto& c : dna) c = "ACGT"[rng() % 4];
    return dna;
  };
  std::string coding_fasta, genome_fasta, protein_fasta;
  {
    const std::string text = read_file(source_path("data/queries.fa"));
    std::size_t at = 0;
    for (int k = 0; k < 3; ++k) {
      const std::size_t header = text.find('>', at), line_end = text.find('\n', header);
      const std::size_t next = text.find('>', line_end);
      std::string protein;
      for (std::size_t i = line_end; i < std::min(next, text.size()); ++i)
        if (std::isalpha(static_cast<unsigned char>(text[i]))) protein += text[i];
      at = next;
      std::string dna;
      for (const char residue : protein) {
        const std::size_t a = amino_acids.find(residue);
        if (a != std::string::npos) dna += codons[a];
      }
      if (k % 2) {
        std::reverse(dna.begin(), dna.end());
        for (auto& c : dna) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'A';
      }
      protein_fasta += ">p" + std::to_string(k) + "\n" + protein + "\n";
      coding_fasta += ">c" + std::to_string(k) + "\n" + dna + "\n";
      genome_fasta += ">g" + std::to_string(k) + "\n" + random_dna(2000) + dna + random_dna(1500) + "\n";
    }
  }
  write_file(dir.file("coding.fa"), coding_fasta);
  write_file(dir.file("genome.fa"), genome_fasta);
  write_file(dir.file("proteins.fa"), protein_fasta);
  const std::string proteins = dir.file("proteins"), genome = dir.file("genome");
  REQUIRE(run_warpsearch("makedb --quiet " + quoted(source_path("data/uniprot_sample.fa")) + " " + quoted(proteins))
              .exit_code == 0);
  REQUIRE(run_warpsearch("makedb --quiet " + quoted(dir.file("genome.fa")) + " " + quoted(genome)).exit_code == 0);
  const std::string dna_queries = quoted(dir.file("coding.fa"));
  const std::string protein_queries = quoted(dir.file("proteins.fa"));
  struct Case {
    std::string program, queries, db;
  };
  for (const Case& c : {Case{"blastx", dna_queries, proteins}, Case{"tblastn", protein_queries, genome},
                        Case{"tblastx", dna_queries, genome}}) {
    INFO(c.program);
    const auto blast = run_warpsearch(c.program + " -query " + c.queries + " -db " + quoted(c.db) +
                                      " -outfmt '6 std qframe sframe' -max_target_seqs 5 -evalue 1e-3");
    INFO(blast.err);
    REQUIRE(blast.exit_code == 0);
    const auto search =
        run_warpsearch("search --quiet --program " + c.program + " -q " + c.queries + " -d " + quoted(c.db) +
                       " --outfmt '6 std qframe sframe' --max-target-seqs 5 --evalue 1e-3");
    REQUIRE(search.exit_code == 0);
    CHECK(std::count(blast.out.begin(), blast.out.end(), '\n') >= 3);
    CHECK(blast.out == search.out);
    // The database's alphabet must be the program's, and the message names the program that fits.
    const auto wrong =
        run_warpsearch(c.program + " -query " + c.queries + " -db " + quoted(c.db == proteins ? genome : proteins));
    CHECK(wrong.exit_code == 2);
    CHECK(contains(wrong.err, c.db == proteins ? "is a nucleotide database" : "is a protein database"));
  }
  // -subject makes a database of the program's subject alphabet.
  const auto subject = run_warpsearch("tblastn -query " + protein_queries + " -subject " +
                                      quoted(dir.file("genome.fa")) + " -outfmt 6 -evalue 1e-3");
  INFO(subject.err);
  CHECK(subject.exit_code == 0);
  CHECK(std::count(subject.out.begin(), subject.out.end(), '\n') >= 3);
}

TEST_CASE("blast cli: a database made from blastdbcmd's FASTA and taxid map reports as the original", "[blast][cli]") {
  if (!blast_available("blastdbcmd")) return;
  TempDir dir;
  // The bundled sample with a taxid per record (made up: 9606 and 10090 in turn), as a BLAST database.
  const std::string fasta = read_file(source_path("data/uniprot_sample.fa"));
  std::string map;
  int records = 0;
  for (std::size_t at = fasta.find('>'); at != std::string::npos; at = fasta.find('>', at + 1)) {
    const std::size_t end = fasta.find_first_of(" \n", at);
    map += fasta.substr(at + 1, end - at - 1) + (records++ % 2 ? " 10090\n" : " 9606\n");
  }
  write_file(dir.file("taxid.map"), map);
  REQUIRE(shell("cd " + quoted(dir.path()) + " && makeblastdb -in " + quoted(source_path("data/uniprot_sample.fa")) +
                " -dbtype prot -parse_seqids -taxid_map taxid.map -out blastdb > /dev/null")
              .exit_code == 0);
  // The documented way out of it (docs/makedb.md), and a database made from the original FASTA.
  REQUIRE(shell("cd " + quoted(dir.path()) +
                " && blastdbcmd -db blastdb -entry all -outfmt '>%i %t\n%s' > out.fa && "
                "blastdbcmd -db blastdb -entry all -outfmt '%i %T' > out.map")
              .exit_code == 0);
  REQUIRE(run_warpsearch("makedb --quiet --taxid-map " + quoted(dir.file("out.map")) + " " +
                         quoted(dir.file("out.fa")) + " " + quoted(dir.file("converted")))
              .exit_code == 0);
  REQUIRE(run_warpsearch("makedb --quiet --taxid-map " + quoted(dir.file("taxid.map")) + " " +
                         quoted(source_path("data/uniprot_sample.fa")) + " " + quoted(dir.file("original")))
              .exit_code == 0);
  const std::string search = "blastp -query " + quoted(source_path("data/queries.fa")) +
                             " -outfmt '6 qseqid sseqid sacc stitle staxids evalue bitscore' -max_target_seqs 5 -db ";
  const auto converted = run_warpsearch(search + quoted(dir.file("converted")));
  const auto original = run_warpsearch(search + quoted(dir.file("original")));
  REQUIRE(converted.exit_code == 0);
  CHECK(std::count(converted.out.begin(), converted.out.end(), '\n') >= 20);
  CHECK(converted.out == original.out);
  CHECK(contains(converted.out, "\t10090\t"));
}

TEST_CASE("cli: --version names the version, commit, build type, CUDA and CPU kernels", "[cli]") {
  const auto r = run_warpsearch("--version");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.rfind("warpsearch " WARPSEARCH_VERSION "\n", 0) == 0);
  for (const char* line : {"\ncommit: ", "\nbuild type: ", "\nCUDA: ", "\nCPU kernels: "}) CHECK(contains(r.out, line));
  CHECK(!contains(r.out, "commit: \n"));
  // The commit is the one built (the build step runs `git describe` at every build, not at configure time).
  const auto describe = shell("git -C " + quoted(source_path(".")) + " describe --always --tags 2>/dev/null");
  if (describe.exit_code != 0 || describe.out.empty()) {
    WARN("the source is not a git checkout here: the commit is not compared");
    return;
  }
  const std::string commit = describe.out.substr(0, describe.out.find('\n'));
  INFO(r.out);
  const bool named =
      contains(r.out, "\ncommit: " + commit + "\n") || contains(r.out, "\ncommit: " + commit + "-dirty\n");
  CHECK(named);
}

TEST_CASE("cli: the default thread count follows the CPU affinity mask", "[cli]") {
  if (!have("taskset") || shell("taskset -c 0 true").exit_code != 0) {
    WARN("taskset not usable here: skipped");
    return;
  }
  TempDir dir;
  const std::string db = dir.file("sample");
  REQUIRE(
      run_warpsearch("makedb --quiet " + quoted(source_path("data/uniprot_sample.fa")) + " " + quoted(db)).exit_code ==
      0);
  const auto r =
      shell("taskset -c 0 '" WARPSEARCH_BINARY "' search --device cpu -q " + quoted(source_path("data/queries.fa")) +
            " -d " + quoted(db) + " --max-target-seqs 1 -o /dev/null");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.out, ", 1 thread)"));
}

TEST_CASE("cli: the man page renders without warnings and the completion offers the commands", "[cli]") {
  if (have("groff")) {
    const auto r = shell("groff -man -Tutf8 -ww -z " + quoted(source_path("tools/warpsearch.1")));
    INFO(r.out);
    CHECK(r.exit_code == 0);
    CHECK(r.out.empty());
  } else {
    WARN("groff not installed: man page not rendered");
  }
  if (have("bash")) {
    const auto r = shell("bash -c 'source " + source_path("tools/warpsearch.bash-completion") +
                         "; COMP_WORDS=(warpsearch bl); COMP_CWORD=1; _warpsearch; echo ${COMPREPLY[*]}; "
                         "COMP_WORDS=(warpsearch blastp -max_t); COMP_CWORD=2; _warpsearch; echo ${COMPREPLY[*]}; "
                         "COMP_WORDS=(warpsearch search --outfmt 1); COMP_CWORD=3; _warpsearch; echo ${COMPREPLY[*]}'");
    CHECK(r.out == "blastp blastn\n-max_target_seqs\n10 15 17\n");
  }
}

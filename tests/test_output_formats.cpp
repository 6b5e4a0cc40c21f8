// The output formats' own rules: identifiers parsed as makeblastdb -parse_seqids parses them, and each
// format's grammar kept whatever bytes a FASTA header holds, checked by real parsers (python3's json
// and csv modules, xmllint, samtools) where they are installed.
#include <algorithm>
#include <sstream>
#include <string>

#include "db/makedb.hpp"
#include "output/output.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

using warpsearch::test::read_file;
using warpsearch::test::run_warpsearch;
using warpsearch::test::TempDir;
using warpsearch::test::write_file;

namespace {

using Shell = warpsearch::test::CommandResult;
Shell shell(const std::string& command) { return warpsearch::test::run_shell(command); }
bool have(const std::string& tool) { return warpsearch::test::have_tool(tool); }

std::string quoted(const std::string& path) { return "'" + path + "'"; }

}  // namespace

TEST_CASE("output: FASTA IDs are parsed as makeblastdb -parse_seqids parses them", "[output]") {
  using warpsearch::parse_sequence_id;
  using warpsearch::SequenceType;
  // Each row: what blastp 2.12 printed as sseqid, sacc, saccver and sgi for a database made with
  // -parse_seqids from a FASTA with that ID.
  struct Case {
    const char* id;
    const char* seqid;
    const char* accession;
    const char* accession_version;
    unsigned long long gi;
  };
  const Case cases[] = {
      {"sp|P12345|NAME_HUMAN", "sp|P12345|NAME_HUMAN", "P12345", "P12345", 0},
      {"sp|P12346.2|NAME2", "sp|P12346.2|NAME2", "P12346", "P12346.2", 0},
      {"ref|NM_000123.1|", "ref|NM_000123.1|", "NM_000123", "NM_000123.1", 0},
      {"gi|123|ref|NP_000001.1|", "gi|123|ref|NP_000001.1|", "NP_000001", "NP_000001.1", 123},
      {"NM_000124.1", "NM_000124.1", "NM_000124.1", "NM_000124.1", 0},  // a nucleotide accession in a protein DB
      {"myseq1", "myseq1", "myseq1", "myseq1", 0},
      {"lcl|myseq2", "myseq2", "myseq2", "myseq2", 0},
      {"P12347", "sp|P12347|", "P12347", "P12347", 0},
      {"gb|AAA12345.1|", "gb|AAA12345.1|", "AAA12345", "AAA12345.1", 0},
      {"pdb|1ABC|A", "pdb|1ABC|A", "1ABC_A", "1ABC_A", 0},
      {"gnl|db|ident5", "gnl|db|ident5", "db:ident5", "db:ident5", 0},
      {"tr|Q9XYZ1|Q9XYZ1_X", "tr|Q9XYZ1|Q9XYZ1_X", "Q9XYZ1", "Q9XYZ1", 0},
      {"XP_123456.2", "ref|XP_123456.2|", "XP_123456", "XP_123456.2", 0},
      {"seq.with.dots", "seq.with.dots", "seq.with.dots", "seq.with.dots", 0},
      {"abc|def", "gnl|abc|def", "abc:def", "abc:def", 0},
      {"A0A0B0PUI5", "sp|A0A0B0PUI5|", "A0A0B0PUI5", "A0A0B0PUI5", 0},
  };
  for (const Case& c : cases) {
    INFO(c.id);
    const auto parsed = parse_sequence_id(c.id, SequenceType::protein);
    CHECK(parsed.seqid == c.seqid);
    CHECK(parsed.accession == c.accession);
    CHECK(parsed.accession_version == c.accession_version);
    CHECK(parsed.gi == c.gi);
  }
  // BLAST's XML and JSON name a general ID's tag alone as its accession.
  CHECK(parse_sequence_id("gnl|db|ident5", SequenceType::protein).report_accession == "ident5");
  CHECK(parse_sequence_id("abc|def", SequenceType::protein).report_accession == "def");
  CHECK(parse_sequence_id("sp|P12346.2|NAME2", SequenceType::protein).report_accession == "P12346");
  // UniProt's pattern is for proteins; RefSeq's nucleotide prefixes for nucleotides.
  CHECK(parse_sequence_id("P12347", SequenceType::nucleotide).seqid == "P12347");
  CHECK(parse_sequence_id("NM_000124.1", SequenceType::nucleotide).seqid == "ref|NM_000124.1|");
}

TEST_CASE("output: each format's escaping", "[output]") {
  using namespace warpsearch;
  const std::string replacement = "\xEF\xBF\xBD";
  SECTION("tabular and CSV") {
    CHECK(tabular_field("a\tb\r\nc") == "a b  c");
    CHECK(csv_field("plain text") == "plain text");
    CHECK(csv_field("a,b") == "\"a,b\"");
    CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
    CHECK(csv_field("two\nlines") == "\"two\nlines\"");
  }
  SECTION("JSON: control bytes escaped, invalid UTF-8 replaced, valid UTF-8 kept") {
    CHECK(json_string("a\"b\\c") == "\"a\\\"b\\\\c\"");
    CHECK(json_string(std::string("\x01\x1f\x7f", 3)) == "\"\\u0001\\u001f\\u007f\"");
    CHECK(json_string("\t\n\r") == "\"\\t\\n\\r\"");
    CHECK(json_string("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80") == "\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"");
    CHECK(json_string("\xFF") == "\"" + replacement + "\"");
    CHECK(json_string("\xC0\xAF") == "\"" + replacement + replacement + "\"");                    // overlong '/'
    CHECK(json_string("\xED\xA0\x80") == "\"" + replacement + replacement + replacement + "\"");  // a surrogate
    CHECK(json_string("\xE2\x82") == "\"" + replacement + replacement + "\"");                    // cut short
    CHECK(json_string("\xF4\x90\x80\x80").find("\xF4") == std::string::npos);                     // beyond U+10FFFF
  }
  SECTION("XML: markup escaped, forbidden control bytes replaced") {
    CHECK(xml_text("<a & 'b' \"c\">") == "&lt;a &amp; &apos;b&apos; &quot;c&quot;&gt;");
    CHECK(xml_text(std::string("x\x01y", 3)) == "x" + replacement + "y");
    CHECK(xml_text("\t") == "&#x9;");
    CHECK(xml_text("\xFE") == replacement);
  }
  SECTION("SAM names") {
    CHECK(sam_qname("read@1 x") == "read_1_x");
    CHECK(sam_qname("") == "_");
    CHECK(sam_qname(std::string(300, 'a')).size() == 254);
    CHECK(sam_rname("*chr=1") == "_chr=1");
    CHECK(sam_rname("chr 1\x01") == "chr_1_");
    CHECK(sam_rname("=x") == "_x");
  }
}

TEST_CASE("output: headers with hostile bytes keep every format parseable", "[output][cli]") {
  TempDir dir;
  // Header bytes the FASTA reader lets through: TAB and SOH in descriptions, bytes that are not UTF-8,
  // the markup of XML, the separators and quotes of CSV and JSON, '@', '*' and '=' that SAM names limit.
  const std::string protein =
      "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQFEVVHSLAKWKRQTLGQHDFSAGEGLYTHMKALRPDE";
  const std::string fasta =
      ">p1&<x>\"q\" desc\twith tab, comma \"quote\" \x01soh \xFF\xFE bad utf8 caf\xC3\xA9 <b>&amp;</b>\n" + protein +
      "\n>=p2*@{\"k\":1} \\backslash\\ del, \xC0\xAF overlong\n" + protein.substr(5) + "\n";
  write_file(dir.file("hostile.fa"), fasta);
  REQUIRE(run_warpsearch("makedb --quiet " + quoted(dir.file("hostile.fa")) + " " + quoted(dir.file("db"))).exit_code ==
          0);
  const std::string search =
      "search --quiet --device cpu -q " + quoted(dir.file("hostile.fa")) + " -d " + quoted(dir.file("db"));
  auto run = [&](const std::string& format, const std::string& file) {
    const auto r = run_warpsearch(search + " --outfmt '" + format + "' -o " + quoted(dir.file(file)));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return read_file(dir.file(file));
  };

  SECTION("tabular: one line per hit, the same number of fields on each") {
    for (const std::string kind : {"6", "7"}) {
      const std::string out = run(kind + " qseqid sseqid stitle salltitles sacc evalue", "out.tsv");
      std::size_t rows = 0;
      std::size_t start = 0;
      for (std::size_t end; (end = out.find('\n', start)) != std::string::npos; start = end + 1) {
        const std::string line = out.substr(start, end - start);
        if (line.rfind("#", 0) == 0) continue;
        ++rows;
        CHECK(std::count(line.begin(), line.end(), '\t') == 5);
        CHECK(line.find('\r') == std::string::npos);
      }
      CHECK(rows == 4);  // each query hits both subjects
    }
  }
  const std::string python = have("python3") ? "python3" : "";
  SECTION("CSV, parsed by python's csv module") {
    run("10 qseqid sseqid stitle evalue", "out.csv");
    if (python.empty()) {
      WARN("python3 not installed: CSV not parsed");
      return;
    }
    const auto r = shell(
        "python3 -c \"import csv,sys; rows=list(csv.reader(open(sys.argv[1], newline='', "
        "encoding='latin-1'))); assert len(rows)==4 and all(len(r)==4 for r in rows), rows; "
        "assert any('comma \\\"quote\\\"' in r[2] for r in rows), rows\" " +
        quoted(dir.file("out.csv")));
    INFO(r.out);
    CHECK(r.exit_code == 0);
  }
  SECTION("JSON Lines and BLAST JSON, parsed by python's json module as UTF-8") {
    run("json", "out.jsonl");
    run("15", "out.json");
    if (python.empty()) {
      WARN("python3 not installed: JSON not parsed");
      return;
    }
    auto r = shell(
        "python3 -c \"import json,sys; rows=[json.loads(l) for l in open(sys.argv[1], encoding='utf-8', "
        "errors='strict')]; assert len(rows)==4; assert any('with tab' in r['stitle'] for r in rows)\" " +
        quoted(dir.file("out.jsonl")));
    INFO(r.out);
    CHECK(r.exit_code == 0);
    r = shell(
        "python3 -c \"import json,sys; d=json.load(open(sys.argv[1], encoding='utf-8', errors='strict')); "
        "assert len(d['BlastOutput2'])==2; t=d['BlastOutput2'][0]['report']['results']['search']['query_title']; "
        "assert '\\t' in t and '\\x01' in t and '\\ufffd' in t, t\" " +
        quoted(dir.file("out.json")));
    INFO(r.out);
    CHECK(r.exit_code == 0);
  }
  SECTION("BLAST XML, checked by xmllint") {
    run("5", "out.xml");
    if (!have("xmllint")) {
      WARN("xmllint not installed (Debian: libxml2-utils): XML not checked");
      return;
    }
    const auto r = shell("xmllint --noout " + quoted(dir.file("out.xml")));
    INFO(r.out);
    CHECK(r.exit_code == 0);
    CHECK(shell("xmllint --xpath 'count(//Hsp)' " + quoted(dir.file("out.xml"))).out.substr(0, 1) == "4");
  }
  SECTION("SAM, nucleotide subjects with names SAM forbids, checked by samtools") {
    const std::string dna = "ACGTTGCAAGGCTTAACCGGTTAACCGGATCGATCGGCTAGCTAGGATCCATGCAAGTTCGATCGATGGCATCGA";
    write_file(dir.file("hostile_dna.fa"),
               ">*chr=1@x\xFF desc\tx\n" + dna + "\n>read@2,\"q\" d\n" + dna.substr(10, 40) + "\n");
    REQUIRE(run_warpsearch("makedb --quiet " + quoted(dir.file("hostile_dna.fa")) + " " + quoted(dir.file("dnadb")))
                .exit_code == 0);
    const auto r = run_warpsearch("search --quiet --device cpu -q " + quoted(dir.file("hostile_dna.fa")) + " -d " +
                                  quoted(dir.file("dnadb")) + " --outfmt sam -o " + quoted(dir.file("out.sam")));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    if (!have("samtools")) {
      WARN("samtools not installed: SAM not checked");
      return;
    }
    auto check = shell("samtools quickcheck " + quoted(dir.file("out.sam")) + " && samtools view " +
                       quoted(dir.file("out.sam")) + " | wc -l");
    INFO(check.out);
    CHECK(check.exit_code == 0);
    CHECK(std::stoi(check.out) >= 4);  // each query on each subject, on one strand or both
    // Every QNAME and RNAME keeps to the SAM specification's patterns.
    check = shell("samtools view " + quoted(dir.file("out.sam")) +
                  " | awk -F'\\t' '$1 !~ /^[!-?A-~]+$/ || $3 !~ "
                  "/^[0-9A-Za-z!#$%&+.\\/:;?@^_|~-][0-9A-Za-z!#$%&*+.\\/:;=?@^_|~-]*$/' "
                  "| wc -l");
    INFO(check.out);
    CHECK(check.out == "0\n");
    check = shell("samtools view -H " + quoted(dir.file("out.sam")) + " | grep -c '^@SQ'");
    CHECK(check.out == "2\n");
  }
}

TEST_CASE("output: SAM is for nucleotide databases, and bad formats are usage errors", "[output][cli]") {
  TempDir dir;
  write_file(dir.file("p.fa"), ">p1\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQ\n");
  REQUIRE(run_warpsearch("makedb --quiet " + quoted(dir.file("p.fa")) + " " + quoted(dir.file("db"))).exit_code == 0);
  const std::string search =
      "search --quiet --device cpu -q " + quoted(dir.file("p.fa")) + " -d " + quoted(dir.file("db"));
  for (const std::string bad : {"17", "sam", "3", "6 nosuchcolumn", "15 qseqid", "html"}) {
    INFO(bad);
    const auto r = run_warpsearch(search + " --outfmt '" + bad + "'");
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
  }
  // "std" expands to BLAST 2.12's twelve default columns.
  const auto standard = run_warpsearch(search + " --outfmt '6 std'");
  const auto plain = run_warpsearch(search + " --outfmt 6");
  REQUIRE(standard.exit_code == 0);
  CHECK(standard.out == plain.out);
  CHECK(std::count(plain.out.begin(), plain.out.end(), '\t') == 11);
  // A column named twice appears once, where first named (blastp 2.12 prints "qseqid evalue qseqid std
  // evalue" as qseqid, evalue, then std without its evalue).
  const auto twice = run_warpsearch(search + " --outfmt '6 qseqid evalue qseqid std evalue'");
  REQUIRE(twice.exit_code == 0);
  CHECK(std::count(twice.out.begin(), twice.out.end(), '\t') == 12);
  const auto once = run_warpsearch(search +
                                   " --outfmt '6 qseqid evalue qaccver saccver pident length mismatch gapopen "
                                   "qstart qend sstart send bitscore'");
  CHECK(twice.out == once.out);
}

TEST_CASE("output: several alignments of one subject are grouped under it", "[output]") {
  using namespace warpsearch;
  TempDir dir;
  // Subject 0 holds the query's first and last ten residues apart; subject 1 the whole query.
  const std::string query_letters = "MKTAYIAKQRQISFVKSHFSRQLEERLGLI";  // 30 residues
  write_file(dir.file("s.fa"),
             ">sp|P11111|TWO_HSPS two pieces\nMKTAYIAKQRWWWWWWWWWWEERLGLIWWW\n>s2 whole\n" + query_letters + "\n");
  MakeDbOptions options;
  options.input = dir.file("s.fa");
  options.output = dir.file("db");
  make_database(options);
  const Database database = Database::open(dir.file("db"));
  const Alphabet& alphabet = database.alphabet();
  const Query query{"q1", "query one", alphabet.encode_string(query_letters)};
  auto hit = [&](std::uint64_t subject, std::uint32_t qb, std::uint32_t sb, std::uint32_t n, int score,
                 const std::string& subject_letters) {
    Hit h;
    h.subject = subject;
    h.subject_length = 30;
    h.score = score;
    h.evalue = 1e-3;
    h.bitscore = 20.0;
    h.query_begin = qb;
    h.query_end = qb + n;
    h.subject_begin = sb;
    h.subject_end = sb + n;
    h.operations.assign(n, 'M');
    h.identities = n;
    h.subject_aligned_codes = alphabet.encode_string(subject_letters.substr(sb, n));
    return h;
  };
  const std::string subject0 = "MKTAYIAKQRWWWWWWWWWWEERLGLIWWW";
  QueryResult result;
  result.hits = {hit(0, 0, 0, 10, 50, subject0), hit(1, 0, 0, 30, 150, query_letters), hit(0, 20, 20, 7, 35, subject0)};
  auto written = [&](const std::string& spec) {
    const OutputFormat format = OutputFormat::parse(spec);
    std::ostringstream out;
    format.begin(out, database, OutputContext{});
    format.write(out, query, result, database);
    format.end(out);
    return out.str();
  };
  // Tabular: subject 0's two lines together, in the order of its first one; qcovs counts both (17 of 30).
  CHECK(written("6 sacc qstart qend qcovs qcovhsp") ==
        "P11111\t1\t10\t57\t33\nP11111\t21\t27\t57\t23\ns2\t1\t30\t100\t100\n");
  const std::string xml = written("5");
  auto count = [](const std::string& text, const std::string& part) {
    std::size_t n = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
  };
  CHECK(count(xml, "<Hit>") == 2);
  CHECK(count(xml, "<Hsp>") == 3);
  CHECK(xml.find("<Hsp_num>2</Hsp_num>") < xml.find("<Hit_num>2</Hit_num>"));  // the second HSP under the first hit
  const std::string json = written("15");
  CHECK(count(json, "\"num\": 2") == 2);  // hit 2, and HSP 2 of hit 1
  const std::string pairwise = written("0");
  CHECK(count(pairwise, "\n>") == 2);
  CHECK(count(pairwise, " Score = ") == 3);
}

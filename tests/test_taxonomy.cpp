// Taxonomy: makedb --taxid-map / --taxid store a taxid per subject (the staxids column and
// Database::taxid give them back, whatever form of the record's ID the map uses); --taxdump names them
// (sscinames, scomnames, sblastnames, sskingdoms: expected values derived here from the fixture
// tests/data/taxdump by a walk of its own); --taxids / --negative-taxids select the subjects before the
// scan (the backend is never handed a left-out subject, and the cells counted are those of the selected
// subjects only); and, where BLAST+ is installed, staxids and the filters agree with blastp's.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "db/database.hpp"
#include "db/makedb.hpp"
#include "output/taxonomy.hpp"
#include "search/scan_backend.hpp"
#include "search/warpsearch.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

using namespace warpsearch;
using test::run_shell;
using test::run_warpsearch;

namespace {

std::string quoted(const std::string& path) { return "'" + path + "'"; }

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) parts.push_back(part);
  return parts;
}

// The fixture's taxdump, read independently of output/taxonomy.cpp: per taxid its parent, rank and
// names by class.
struct Dump {
  struct Node {
    std::uint32_t parent = 0;
    std::string rank;
    std::map<std::string, std::string> names;  // class -> first name of that class
  };
  std::map<std::uint32_t, Node> nodes;
  std::map<std::uint32_t, std::uint32_t> merged;

  static std::vector<std::string> fields(const std::string& line) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
      const std::size_t bar = line.find("\t|", start);
      if (bar == std::string::npos) break;
      out.push_back(line.substr(start, bar - start));
      start = bar + 2;
      if (start < line.size() && line[start] == '\t') ++start;
    }
    return out;
  }
  explicit Dump(const std::string& directory) {
    std::string line;
    std::ifstream node_file(directory + "/nodes.dmp");
    while (std::getline(node_file, line)) {
      const auto f = fields(line);
      nodes[static_cast<std::uint32_t>(std::stoul(f[0]))].parent = static_cast<std::uint32_t>(std::stoul(f[1]));
      nodes[static_cast<std::uint32_t>(std::stoul(f[0]))].rank = f[2];
    }
    std::ifstream name_file(directory + "/names.dmp");
    while (std::getline(name_file, line)) {
      const auto f = fields(line);
      nodes[static_cast<std::uint32_t>(std::stoul(f[0]))].names.emplace(f[3], f[1]);
    }
    std::ifstream merged_file(directory + "/merged.dmp");
    while (std::getline(merged_file, line)) {
      const auto f = fields(line);
      merged[static_cast<std::uint32_t>(std::stoul(f[0]))] = static_cast<std::uint32_t>(std::stoul(f[1]));
    }
  }
  std::uint32_t current(std::uint32_t taxid) const {
    const auto m = merged.find(taxid);
    return m == merged.end() ? taxid : m->second;
  }
  bool known(std::uint32_t taxid) const { return taxid != 0 && nodes.count(current(taxid)) > 0; }
  // The taxon and its ancestors, the taxon first.
  std::vector<std::uint32_t> lineage(std::uint32_t taxid) const {
    std::vector<std::uint32_t> line;
    for (std::uint32_t t = current(taxid); nodes.count(t) > 0;) {
      line.push_back(t);
      const std::uint32_t up = nodes.at(t).parent;
      if (up == t) break;
      t = up;
    }
    return line;
  }
  std::string name(std::uint32_t taxid, const std::string& name_class) const {
    const auto& names = nodes.at(current(taxid)).names;
    const auto found = names.find(name_class);
    return found == names.end() ? "" : found->second;
  }
  // What each column should say for a taxid.
  std::string column(std::uint32_t taxid, const std::string& which) const {
    if (!known(taxid)) return "N/A";
    if (which == "sscinames") return name(taxid, "scientific name");
    if (which == "scomnames") {
      for (const char* name_class : {"genbank common name", "common name", "scientific name"})
        if (!name(taxid, name_class).empty()) return name(taxid, name_class);
    }
    for (const std::uint32_t t : lineage(taxid)) {
      if (which == "sblastnames" && !name(t, "blast name").empty()) return name(t, "blast name");
      const std::string& rank = nodes.at(t).rank;
      if (which == "sskingdoms" && (rank == "superkingdom" || rank == "domain")) return name(t, "scientific name");
    }
    return "N/A";
  }
  bool under(std::uint32_t taxid, std::uint32_t ancestor) const {
    if (taxid == ancestor) return true;
    const auto line = lineage(taxid);
    return std::find(line.begin(), line.end(), current(ancestor)) != line.end();
  }
};

// Proteins in five forms of ID, each with a taxid (some in a form the map names differently: without
// version, as a GI, in a full FASTA ID), some not in the map (0), one merged into another (12345 ->
// 9606), one unknown to the taxdump.
struct Records {
  std::vector<std::string> ids, letters;
  std::vector<std::uint32_t> taxids;
  std::string map;  // the taxid map file's text
};

constexpr std::uint32_t kTaxa[] = {9606, 63221, 10090, 562, 1423, 11069, 3711, 12345, 0, 424242};

Records make_records(std::size_t count, std::uint64_t seed) {
  static const char kAmino[] = "ACDEFGHIKLMNPQRSTVWY";
  std::mt19937_64 rng(seed);
  Records r;
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t taxid = kTaxa[i % std::size(kTaxa)];
    char number[16];
    std::snprintf(number, sizeof number, "%06zu", i);
    std::string id, key;
    switch (i % 5) {
      case 0:
        id = "sp|Q9" + std::string(number + 2) + "|PROT" + number + "_HUMAN";
        key = "Q9" + std::string(number + 2);
        break;
      case 1:
        id = "ref|NP_" + std::string(number) + ".1|";
        key = "NP_" + std::string(number);
        break;
      case 2:
        id = "gi|" + std::to_string(1000 + i) + "|emb|CAB" + number + ".2|";
        key = std::to_string(1000 + i);
        break;
      case 3:
        id = "local" + std::string(number);
        key = id;
        break;
      default:
        id = "XP_" + std::string(number) + ".3";
        key = "ref|XP_" + std::string(number) + ".3|";
        break;
    }
    if (taxid != 0) r.map += key + (i % 2 ? "\t" : " ") + std::to_string(taxid) + "\n";
    std::string letters(std::uniform_int_distribution<std::size_t>(40, 260)(rng), 'A');
    for (auto& c : letters) c = kAmino[rng() % 20];
    r.ids.push_back(id);
    r.letters.push_back(letters);
    r.taxids.push_back(taxid);
  }
  return r;
}

std::string fasta(const Records& r) {
  std::string text;
  for (std::size_t i = 0; i < r.ids.size(); ++i)
    text += ">" + r.ids[i] + " rec" + std::to_string(i) + "\n" + r.letters[i] + "\n";
  return text;
}

// The record number of a "rec<N>" title.
std::size_t record_of(const std::string& title) { return std::stoul(title.substr(3)); }

std::string taxdump_dir() { return test::source_path("tests/data/taxdump"); }

// A backend that scores with the CPU backend and notes every subject it is handed.
class RecordingBackend final : public ScanBackend {
 public:
  RecordingBackend(const ScoringScheme& scoring, std::set<std::uint64_t>& scanned)
      : inner_(make_cpu_backend(scoring, 2)), scanned_(scanned) {}
  void set_queries(const std::vector<PreparedQuery>& queries) override { inner_->set_queries(queries); }
  void scan(const Chunk& chunk, const std::int8_t* subject_frames, const ScoreSink& sink,
            const QueryDone& done) override {
    for (std::size_t s = 0; s < chunk.size(); ++s) scanned_.insert(chunk.original_indices()[s]);
    inner_->scan(chunk, subject_frames, sink, done);
  }
  void locate(const std::vector<HitPair>& pairs, std::vector<Span>& spans) override { inner_->locate(pairs, spans); }
  const SubjectRegions* hit_regions(std::size_t prepared, std::uint64_t subject,
                                    std::int8_t subject_frame) const override {
    return inner_->hit_regions(prepared, subject, subject_frame);
  }
  std::string description() const override { return "recording " + inner_->description(); }

 private:
  std::unique_ptr<ScanBackend> inner_;
  std::set<std::uint64_t>& scanned_;
};

}  // namespace

TEST_CASE("taxonomy: makedb --taxid-map stores each record's taxid, and staxids prints it", "[taxonomy]") {
  test::TempDir dir;
  const Records r = make_records(60, 11);
  test::write_file(dir.file("s.fa"), fasta(r));
  test::write_file(dir.file("map.txt"), "\n" + r.map + "  \n");
  // Small chunks: the subjects of one search lie in several chunks.
  REQUIRE(run_warpsearch("makedb --quiet --chunk-size 2000 --taxid-map " + quoted(dir.file("map.txt")) + " " +
                         quoted(dir.file("s.fa")) + " " + quoted(dir.file("db")))
              .exit_code == 0);
  const Database db = Database::open(dir.file("db"));
  REQUIRE(db.num_chunks() > 3);
  REQUIRE(db.has_taxids());
  for (std::size_t i = 0; i < r.ids.size(); ++i) CHECK(db.taxid(i) == r.taxids[i]);
  db.verify();
  CHECK(run_warpsearch("dbinfo --verify " + quoted(dir.file("db"))).out.find("taxonomy IDs    stored") !=
        std::string::npos);

  const auto result =
      run_warpsearch("search --quiet --device cpu -q " + quoted(dir.file("s.fa")) + " -d " + quoted(dir.file("db")) +
                     " --outfmt '6 qseqid stitle staxid staxids' --evalue 1e-20");
  REQUIRE(result.exit_code == 0);
  std::size_t rows = 0;
  std::set<std::size_t> self_hits;
  for (const auto& line : split(result.out, '\n')) {
    const auto f = split(line, '\t');
    REQUIRE(f.size() == 4);
    const std::size_t subject = record_of(f[1]);
    CHECK(f[3] == std::to_string(r.taxids[subject]));
    CHECK(f[2] == (r.taxids[subject] == 0 ? "N/A" : f[3]));  // BLAST's staxid says N/A where staxids says 0
    if (f[0] == r.ids[subject]) self_hits.insert(subject);
    ++rows;
  }
  CHECK(self_hits.size() == r.ids.size());
  CHECK(rows >= r.ids.size());

  SECTION("--taxid gives every record one taxid") {
    REQUIRE(run_warpsearch("makedb --quiet --taxid 9606 " + quoted(dir.file("s.fa")) + " " + quoted(dir.file("one")))
                .exit_code == 0);
    const Database one = Database::open(dir.file("one"));
    for (std::size_t i = 0; i < r.ids.size(); ++i) CHECK(one.taxid(i) == 9606);
  }
  SECTION("a database made without taxids has none: staxids 0, names N/A, and a filter is refused") {
    REQUIRE(run_warpsearch("makedb --quiet " + quoted(dir.file("s.fa")) + " " + quoted(dir.file("plain"))).exit_code ==
            0);
    const Database plain = Database::open(dir.file("plain"));
    CHECK_FALSE(plain.has_taxids());
    CHECK(run_warpsearch("dbinfo " + quoted(dir.file("plain"))).out.find("taxonomy IDs    none") != std::string::npos);
    CHECK(plain.taxid(0) == 0);
    const auto names = run_warpsearch(
        "search --quiet --device cpu -q " + quoted(dir.file("s.fa")) + " -d " + quoted(dir.file("plain")) +
        " --outfmt '6 staxids sscinames' --evalue 1e-20 --taxdump " + quoted(taxdump_dir()));
    REQUIRE(names.exit_code == 0);
    for (const auto& line : split(names.out, '\n')) CHECK(line == "0\tN/A");
    const auto refused = run_warpsearch("search --quiet -q " + quoted(dir.file("s.fa")) + " -d " +
                                        quoted(dir.file("plain")) + " --taxids 9606");
    CHECK(refused.exit_code != 0);
    CHECK(refused.err.find("--taxid-map") != std::string::npos);
  }
  SECTION("bad map lines and conflicting options are refused with the line or the options named") {
    test::write_file(dir.file("bad.txt"), "Q90000 9606\nNP_000001 human\n");
    const auto bad = run_warpsearch("makedb --quiet --taxid-map " + quoted(dir.file("bad.txt")) + " " +
                                    quoted(dir.file("s.fa")) + " " + quoted(dir.file("bad")));
    CHECK(bad.exit_code != 0);
    CHECK(bad.err.find("line 2") != std::string::npos);
    const auto both = run_warpsearch("makedb --quiet --taxid 1 --taxid-map " + quoted(dir.file("map.txt")) + " " +
                                     quoted(dir.file("s.fa")) + " " + quoted(dir.file("both")));
    CHECK(both.exit_code != 0);
    CHECK_FALSE(test::path_exists(dir.file("both")));
    const auto lists = run_warpsearch("search --quiet -q " + quoted(dir.file("s.fa")) + " -d " +
                                      quoted(dir.file("db")) + " --taxids 9606 --negative-taxids 562");
    CHECK(lists.exit_code != 0);
    const auto none = run_warpsearch("search --quiet -q " + quoted(dir.file("s.fa")) + " -d " + quoted(dir.file("db")) +
                                     " --taxids 9443");
    CHECK(none.exit_code != 0);
    CHECK(none.err.find("no subject") != std::string::npos);
    const auto word = run_warpsearch("search --quiet -q " + quoted(dir.file("s.fa")) + " -d " + quoted(dir.file("db")) +
                                     " --taxids human");
    CHECK(word.exit_code != 0);
    CHECK(word.err.find("--taxids") != std::string::npos);
  }
}

TEST_CASE("taxonomy: --taxdump names the taxa as the fixture's tree says", "[taxonomy]") {
  test::TempDir dir;
  const Records r = make_records(30, 12);
  test::write_file(dir.file("s.fa"), fasta(r));
  test::write_file(dir.file("map.txt"), r.map);
  REQUIRE(run_warpsearch("makedb --quiet --taxid-map " + quoted(dir.file("map.txt")) + " " + quoted(dir.file("s.fa")) +
                         " " + quoted(dir.file("db")))
              .exit_code == 0);
  const Dump dump(taxdump_dir());
  const std::vector<std::string> columns = {"sscinames", "scomnames", "sblastnames", "sskingdoms"};
  const std::string outfmt =
      "6 stitle staxids sscinames scomnames sblastnames sskingdoms ssciname scomname sblastname sskingdom";
  const auto check_rows = [&](const test::CommandResult& result, bool named) {
    REQUIRE(result.exit_code == 0);
    std::set<std::uint32_t> seen;
    for (const auto& line : split(result.out, '\n')) {
      const auto f = split(line, '\t');
      REQUIRE(f.size() == 10);
      const std::uint32_t taxid = r.taxids[record_of(f[0])];
      CHECK(f[1] == std::to_string(taxid));
      for (std::size_t c = 0; c < columns.size(); ++c) {
        const std::string expected = named ? dump.column(taxid, columns[c]) : "N/A";
        CHECK(f[2 + c] == expected);
        CHECK(f[6 + c] == expected);  // one taxid per subject: the singular column says the same
      }
      seen.insert(taxid);
    }
    CHECK(seen.size() == std::size(kTaxa));  // every kind of taxid, the merged and unknown ones included
  };
  const std::string search = "search --quiet --device cpu -q " + quoted(dir.file("s.fa")) + " -d " +
                             quoted(dir.file("db")) + " --evalue 1e-20 --outfmt '" + outfmt + "'";
  check_rows(run_warpsearch(search + " --taxdump " + quoted(taxdump_dir())), true);
  check_rows(run_warpsearch(search), false);
  // The environment variable stands for --taxdump (the tool inherits this process's environment).
  ::setenv("WARPSEARCH_TAXDUMP", taxdump_dir().c_str(), 1);
  const auto from_environment = run_warpsearch(search);
  ::unsetenv("WARPSEARCH_TAXDUMP");
  check_rows(from_environment, true);
  // JSON (outfmt 15) names the taxid and its scientific name, as BLAST does.
  const auto json =
      run_warpsearch(search.substr(0, search.find(" --outfmt")) + " --outfmt 15 --taxdump " + quoted(taxdump_dir()));
  REQUIRE(json.exit_code == 0);
  CHECK(json.out.find("\"taxid\": 9606,\n                  \"sciname\": \"Homo sapiens\"") != std::string::npos);
  // A missing taxdump is an error naming the option.
  const auto missing = run_warpsearch(search + " --taxdump " + quoted(dir.file("nowhere")));
  CHECK(missing.exit_code != 0);
  CHECK(missing.err.find("--taxdump") != std::string::npos);
}

TEST_CASE("taxonomy: the taxid filters select the subjects before the scan", "[taxonomy]") {
  test::TempDir dir;
  const Records r = make_records(80, 13);
  test::write_file(dir.file("s.fa"), fasta(r));
  test::write_file(dir.file("map.txt"), r.map);
  TaxidMap map = TaxidMap::read(dir.file("map.txt"));
  MakeDbOptions make;
  make.input = dir.file("s.fa");
  make.output = dir.file("db");
  make.chunk_residues = 3000;
  make.taxid_of = [&](std::string_view id) { return map.taxid_of(id); };
  make_database(make);
  const Database db = Database::open(dir.file("db"));
  REQUIRE(db.num_chunks() > 3);
  const Taxonomy taxonomy = Taxonomy::load(taxdump_dir());
  const Dump dump(taxdump_dir());

  const Alphabet& protein = Alphabet::of(SequenceType::protein);
  std::vector<Query> queries;
  double query_residues = 0;
  for (std::size_t i = 0; i < r.ids.size(); i += 3) {
    queries.push_back({r.ids[i], "", protein.encode_string(r.letters[i])});
    query_residues += static_cast<double>(r.letters[i].size());
  }
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});

  struct Case {
    const char* name;
    TaxidFilter filter;
    bool with_taxonomy;
    std::function<bool(std::uint32_t)> passes;  // the expectation, from the fixture's own tree
  };
  const std::vector<Case> cases = {
      {"primates and below (taxonomy)",
       {{9443}, {}},
       true,
       [&](std::uint32_t t) { return t != 0 && dump.under(t, 9443); }},
      {"Homo sapiens exactly (no taxonomy)", {{9606}, {}}, false, [](std::uint32_t t) { return t == 9606; }},
      {"not bacteria (taxonomy)", {{}, {2}}, true, [&](std::uint32_t t) { return !(t != 0 && dump.under(t, 2)); }},
      {"no taxid", {{0}, {}}, false, [](std::uint32_t t) { return t == 0; }},
      {"not mouse, not E. coli", {{}, {10090, 562}}, false, [](std::uint32_t t) { return t != 10090 && t != 562; }},
  };

  // The unfiltered search: what the filtered ones must reproduce for their subjects (scores and
  // coordinates; E-values change with the size of the searched database).
  std::set<std::uint64_t> all_scanned;
  SearchOptions base;
  base.device = Device::cpu;
  base.threads = 2;
  base.max_evalue = 10;
  SearchEngine unfiltered_engine(db, scoring, base, std::make_unique<RecordingBackend>(scoring, all_scanned));
  const auto unfiltered = unfiltered_engine.search(queries);
  CHECK(all_scanned.size() == r.ids.size());

  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.name) {
      SearchOptions options = base;
      options.subject_filter = subjects_passing(db, c.filter, c.with_taxonomy ? &taxonomy : nullptr);
      std::set<std::uint64_t> expected;
      double expected_residues = 0;
      for (std::size_t i = 0; i < r.ids.size(); ++i)
        if (c.passes(r.taxids[i])) {
          expected.insert(i);
          expected_residues += static_cast<double>(r.letters[i].size());
        }
      REQUIRE_FALSE(expected.empty());
      REQUIRE(expected.size() < r.ids.size());
      std::set<std::uint64_t> scanned;
      SearchEngine engine(db, scoring, options, std::make_unique<RecordingBackend>(scoring, scanned));
      SearchProgress last;
      const auto results = engine.search(queries, [&](const SearchProgress& p) { last = p; });
      // Only the selected subjects reach the backend, and the cells are theirs.
      CHECK(scanned == expected);
      CHECK(last.cells_total == Approx(query_residues * expected_residues));
      CHECK(last.cells_done == Approx(query_residues * expected_residues));
      for (std::size_t q = 0; q < queries.size(); ++q) {
        const std::size_t record = q * 3;
        bool self = false;
        // Each subject's best HSP (the first listed): the same alignment in both searches. (Weaker HSPs
        // may pass the E-value cut-off only in the smaller database.)
        std::map<std::uint64_t, const Hit*> reference;
        for (const Hit& hit : unfiltered[q].hits) reference.emplace(hit.subject, &hit);
        std::set<std::uint64_t> compared;
        for (const Hit& hit : results[q].hits) {
          CHECK(expected.count(hit.subject) == 1);
          self = self || hit.subject == record;
          const auto found = reference.find(hit.subject);
          if (found == reference.end() || !compared.insert(hit.subject).second) continue;
          CHECK(hit.score == found->second->score);
          CHECK(hit.subject_begin == found->second->subject_begin);
          CHECK(hit.subject_end == found->second->subject_end);
          CHECK(hit.query_begin == found->second->query_begin);
        }
        CHECK(self == (expected.count(record) == 1));
      }
    }
  }
}

TEST_CASE("taxonomy: staxids and the taxid filters agree with BLAST+", "[taxonomy][blast]") {
  if (!test::have_tool("makeblastdb") || !test::have_tool("blastp")) {
    WARN("makeblastdb or blastp not found: comparison with BLAST+ skipped");
    return;
  }
  test::TempDir dir;
  const Records r = make_records(50, 14);
  // Related records, so that queries find other subjects than themselves.
  Records related = r;
  std::mt19937_64 rng(15);
  for (std::size_t i = 1; i < related.letters.size(); i += 2) {
    related.letters[i] = related.letters[i - 1];
    for (auto& c : related.letters[i])
      if (rng() % 4 == 0) c = "ACDEFGHIKLMNPQRSTVWY"[rng() % 20];
  }
  test::write_file(dir.file("s.fa"), fasta(related));
  test::write_file(dir.file("map.txt"), related.map);
  REQUIRE(run_shell("makeblastdb -in " + quoted(dir.file("s.fa")) + " -dbtype prot -parse_seqids -taxid_map " +
                    quoted(dir.file("map.txt")) + " -out " + quoted(dir.file("blastdb")))
              .exit_code == 0);
  REQUIRE(run_warpsearch("makedb --quiet --taxid-map " + quoted(dir.file("map.txt")) + " " + quoted(dir.file("s.fa")) +
                         " " + quoted(dir.file("db")))
              .exit_code == 0);
  const std::string common =
      " -query " + quoted(dir.file("s.fa")) +
      " -outfmt '6 qseqid sseqid staxids evalue bitscore staxid' -evalue 1e-5 -comp_based_stats 0 -seg no"
      " -use_sw_tback -max_target_seqs 100";
  for (const std::string filter : {"", " -taxids 9606,562,0", " -negative_taxids 9606,11069", " -taxidlist LIST"}) {
    std::string given = filter;
    if (filter == " -taxidlist LIST") {
      test::write_file(dir.file("list.txt"), "10090\n63221\n1423\n");
      given = " -taxidlist " + quoted(dir.file("list.txt"));
    }
    DYNAMIC_SECTION("filter:" << filter) {
      const auto blast = run_shell("blastp -db " + quoted(dir.file("blastdb")) + common + given + " 2>/dev/null");
      const auto ours = run_warpsearch("blastp -device cpu -db " + quoted(dir.file("db")) + common + given);
      REQUIRE(blast.exit_code == 0);
      REQUIRE(ours.exit_code == 0);
      const auto blast_rows = split(blast.out, '\n');
      const auto our_rows = split(ours.out, '\n');
      REQUIRE(blast_rows.size() > 10);
      // Every row BLAST reports (staxids, E-value and bit score included: E-values use the size of the
      // searched subjects in both) is among ours; the exact search may find more.
      const std::set<std::string> mine(our_rows.begin(), our_rows.end());
      for (const auto& row : blast_rows) CHECK(mine.count(row) == 1);
      // And ours keep to the filter: the taxids BLAST reports are the only ones we report.
      std::set<std::string> blast_taxa, our_taxa;
      for (const auto& row : blast_rows) blast_taxa.insert(split(row, '\t')[2]);
      for (const auto& row : our_rows) our_taxa.insert(split(row, '\t')[2]);
      CHECK(our_taxa == blast_taxa);
      // The XML report's statistics: the database lines describe the whole database, the length
      // adjustment and search space the searched subjects, in both.
      const std::string xml =
          " -query " + quoted(dir.file("s.fa")) + " -outfmt 5 -evalue 1e-5 -comp_based_stats 0 -seg no";
      const auto statistics = [](const std::string& text) {
        std::string lines;
        for (const auto& line : split(text, '\n'))
          if (line.find("<Statistics_") != std::string::npos) lines += line + "\n";
        return lines;
      };
      const auto blast_xml = run_shell("blastp -db " + quoted(dir.file("blastdb")) + xml + given + " 2>/dev/null");
      const auto our_xml = run_warpsearch("blastp -device cpu -db " + quoted(dir.file("db")) + xml + given);
      REQUIRE(our_xml.exit_code == 0);
      CHECK_FALSE(statistics(our_xml.out).empty());
      CHECK(statistics(our_xml.out) == statistics(blast_xml.out));
    }
  }
}

TEST_CASE("taxonomy: a damaged taxids file is caught by its checksum and its size", "[taxonomy][database]") {
  test::TempDir dir;
  const Records r = make_records(20, 16);
  test::write_file(dir.file("s.fa"), fasta(r));
  REQUIRE(run_warpsearch("makedb --quiet --taxid 562 " + quoted(dir.file("s.fa")) + " " + quoted(dir.file("db")))
              .exit_code == 0);
  {
    std::fstream file(dir.file("db/taxids"), std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(4);
    file.put('\x7f');
  }
  {
    const Database db = Database::open(dir.file("db"));
    CHECK_THROWS_WITH(db.taxid(0), Catch::Contains("taxids") && Catch::Contains("checksum"));
    CHECK_THROWS_WITH(db.verify(), Catch::Contains("taxids"));
  }
  test::write_file(dir.file("db/taxids"), std::string(8, '\0'));
  CHECK_THROWS_WITH(Database::open(dir.file("db")), Catch::Contains("taxids"));
}

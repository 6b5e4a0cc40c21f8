// Translated searches (blastx, tblastn, tblastx) against brute force with the 64-bit reference over
// every frame: which hits, in which order, with which scores, E-values, frames and coordinates; and the
// same output whatever the threads or chunking. The command line's side: test_translated_cli.cpp.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <sstream>

#include "core/genetic_code.hpp"
#include "db/database.hpp"
#include "db/fasta.hpp"
#include "db/makedb.hpp"
#include "kernels/reference/reference.hpp"
#include "output/output.hpp"
#include "search/scan_backend.hpp"
#include "search/translation.hpp"
#include "search/warpsearch.hpp"
#include "statistics/statistics.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"
#include "tests/translation_support.hpp"

using namespace warpsearch;

namespace {

const Alphabet& protein = Alphabet::protein();
const Alphabet& nucleotide = Alphabet::nucleotide();
using test::back_translate;
using test::reverse_complement;

void write_fasta(const std::string& path, const std::vector<std::string>& codes, const Alphabet& alphabet,
                 const std::string& prefix) {
  std::string fasta;
  for (std::size_t s = 0; s < codes.size(); ++s)
    fasta += ">" + prefix + std::to_string(s) + "\n" + alphabet.decode_string(codes[s]) + "\n";
  test::write_file(path, fasta);
}

std::string make_db(const std::string& fasta, const std::string& output, std::uint64_t chunk_residues) {
  MakeDbOptions options;
  options.input = fasta;
  options.output = output;
  options.chunk_residues = chunk_residues;
  make_database(options);
  return output;
}

// One expected hit: the subject, both frames (0 untranslated), the score and E-value, and the span in
// the searched sequences (amino acids of the frames).
struct Expected {
  std::uint64_t subject;
  int query_frame, subject_frame;
  int score;
  double evalue;
  Span span;
};

int frame_rank(int frame) { return frame >= 0 ? frame : 3 - frame; }

// Every (query frame, subject, subject frame) scored by the reference; E-values as BLAST computes them
// for one HSP: Spouge's finite-size correction on the query frame's length and the subject's (a third
// of its bases when translated), divided by BLAST's gap decay divisor 0.9 (statistics nullptr: raw
// scores). Ranked as the engine
// ranks, cut at the thresholds and max_target_seqs.
std::vector<Expected> brute_force(const std::string& query, bool translate_query,
                                  const std::vector<std::string>& subjects, bool translate_subjects,
                                  const ScoringScheme& scoring, const EvalueCalculator* statistics,
                                  const SearchOptions& options) {
  const GeneticCode& query_code = GeneticCode::ncbi(options.query_genetic_code);
  const GeneticCode& subject_code = GeneticCode::ncbi(options.database_genetic_code);
  std::vector<std::pair<int, std::string>> query_frames, subject_frames;
  if (translate_query) {
    for (int frame : kReadingFrames) query_frames.emplace_back(frame, translate_frame(query, frame, query_code));
  } else {
    query_frames.emplace_back(0, query);
  }
  std::vector<Expected> all;
  for (std::size_t s = 0; s < subjects.size(); ++s) {
    subject_frames.clear();
    if (translate_subjects) {
      for (int frame : kReadingFrames)
        subject_frames.emplace_back(frame, translate_frame(subjects[s], frame, subject_code));
    } else {
      subject_frames.emplace_back(0, subjects[s]);
    }
    for (const auto& [qf, q] : query_frames)
      for (const auto& [sf, subject] : subject_frames) {
        if (q.empty() || subject.empty()) continue;
        const Span span = reference::local_span(q, subject, scoring);
        const int score = static_cast<int>(span.score);
        // BLAST's subject length for a translated subject is its nucleotide length / 3, whatever the frame.
        const std::size_t n = translate_subjects ? subjects[s].size() / 3 : subject.size();
        const double evalue =
            statistics
                ? statistics->evalue(score, static_cast<std::uint32_t>(q.size()), static_cast<std::uint32_t>(n)) / 0.9
                : 0.0;
        if (score < options.min_score || (statistics && evalue > options.max_evalue)) continue;
        all.push_back({s, qf, sf, score, evalue, span});
      }
  }
  std::sort(all.begin(), all.end(), [](const Expected& a, const Expected& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.evalue != b.evalue) return a.evalue < b.evalue;
    if (a.subject != b.subject) return a.subject < b.subject;
    if (a.query_frame != b.query_frame) return frame_rank(a.query_frame) < frame_rank(b.query_frame);
    return frame_rank(a.subject_frame) < frame_rank(b.subject_frame);
  });
  if (all.size() > options.max_target_seqs) all.resize(options.max_target_seqs);

  return all;
}

// Hits seen by check_against: in all, and with a minus frame on either side (so that a test that passes
// is known to have compared some of each).
struct Seen {
  std::size_t hits = 0, minus = 0;
};

// The engine lists a subject's hits (every frame) together, subjects in the order of their best hit, as
// BLAST does: the ranked expectation regrouped so.
std::vector<Expected> grouped_by_subject(std::vector<Expected> ranked) {
  std::map<std::size_t, std::size_t> first_of;
  for (std::size_t k = 0; k < ranked.size(); ++k) first_of.emplace(ranked[k].subject, k);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [&](const Expected& a, const Expected& b) { return first_of[a.subject] < first_of[b.subject]; });
  return ranked;
}

void check_against(const std::vector<Hit>& hits, const std::vector<Expected>& ranked, bool with_evalues,
                   Seen* seen = nullptr) {
  const std::vector<Expected> expected = grouped_by_subject(ranked);
  REQUIRE(hits.size() == expected.size());
  if (seen) {
    seen->hits += hits.size();
    for (const Hit& h : hits) seen->minus += h.query_frame < 0 || h.subject_frame < 0 ? 1 : 0;
  }
  std::size_t differences = 0;
  for (std::size_t k = 0; k < hits.size(); ++k) {
    const Hit& h = hits[k];
    const Expected& e = expected[k];
    const bool same = h.subject == e.subject && h.query_frame == e.query_frame && h.subject_frame == e.subject_frame &&
                      h.score == e.score && h.query_begin == e.span.query_begin && h.query_end == e.span.query_end &&
                      h.subject_begin == e.span.subject_begin && h.subject_end == e.span.subject_end &&
                      (!with_evalues || std::abs(h.evalue - e.evalue) <= 1e-9 * std::max(1e-300, e.evalue));
    if (same) continue;
    if (++differences <= 5)
      UNSCOPED_INFO("hit " << k << ": got subject " << h.subject << " frames " << h.query_frame << "/"
                           << h.subject_frame << " score " << h.score << " E " << h.evalue << " q[" << h.query_begin
                           << "," << h.query_end << ") s[" << h.subject_begin << "," << h.subject_end
                           << "); expected subject " << e.subject << " frames " << e.query_frame << "/"
                           << e.subject_frame << " score " << e.score << " E " << e.evalue << " q["
                           << e.span.query_begin << "," << e.span.query_end << ") s[" << e.span.subject_begin << ","
                           << e.span.subject_end << ")");
  }
  CHECK(differences == 0);
}

// Random proteins, some holding a mutated piece of another protein; and random DNA holding
// back-translations of such pieces on either strand.
struct TranslatedFixture {
  test::TempDir dir;
  std::vector<std::string> proteins;  // codes
  std::vector<std::string> dnas;      // codes
};

void make_fixture(TranslatedFixture& f, std::uint64_t seed, std::size_t proteins, std::size_t dnas) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> protein_length(1, 250), dna_length(1, 900);
  for (std::size_t p = 0; p < proteins; ++p) f.proteins.push_back(test::random_codes(rng, protein_length(rng), 20));
  for (std::size_t d = 0; d < dnas; ++d) {
    std::string dna = test::random_codes(rng, dna_length(rng), 4);
    if (d % 3 == 0) {
      const std::string& source = f.proteins[d % proteins];
      const std::string piece =
          test::mutated_codes(rng, source.substr(source.size() / 5, 1 + source.size() / 2), 20, 0.15, 3);
      std::string coding = back_translate(piece, rng);
      if (d % 2 == 1) coding = reverse_complement(coding);
      dna.insert(rng() % (dna.size() + 1), coding);
    }
    if (d % 11 == 5) dna[dna.size() / 2] = 4;  // an N
    f.dnas.push_back(dna);
  }
  // Proteins that share pieces of the DNA's translations too (for blastx).
  for (std::size_t p = 0; p < proteins; p += 4) {
    const std::string frame = translate_frame(f.dnas[p % dnas], kReadingFrames[p % 6], GeneticCode::ncbi(1));
    if (frame.size() > 10) f.proteins[p] += test::mutated_codes(rng, frame.substr(frame.size() / 3), 20, 0.1, 2);
    std::replace(f.proteins[p].begin(), f.proteins[p].end(), static_cast<char>(protein.encode('*')),
                 static_cast<char>(protein.encode('W')));
  }
}

std::string render(const std::vector<Query>& queries, const std::vector<QueryResult>& results, const Database& db) {
  std::ostringstream out;
  const auto format = OutputFormat::parse(
      "6 qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore score qframe sframe "
      "qseq sseq cigar");
  for (std::size_t q = 0; q < queries.size(); ++q) format.write(out, queries[q], results[q], db);
  return out.str();
}

SearchOptions cpu_options(Program program) {
  SearchOptions options;
  options.device = Device::cpu;
  options.threads = 2;
  options.program = program;
  options.max_target_seqs = 100000;
  options.max_hsps = 1;  // the best alignment of each frame pair, which the brute force computes
  return options;
}

// The CPU backend, with its hit regions passed through (counting those of translated frames, `used`)
// or hidden (the HSP search then looks at whole frames).
class RegionsBackend final : public ScanBackend {
 public:
  RegionsBackend(const ScoringScheme& scoring, bool regions, std::atomic<std::size_t>& used)
      : inner_(make_cpu_backend(scoring, 2)), regions_(regions), used_(used) {}
  void set_queries(const std::vector<PreparedQuery>& queries) override { inner_->set_queries(queries); }
  void scan(const Chunk& chunk, const std::int8_t* subject_frames, const ScoreSink& sink,
            const QueryDone& done) override {
    inner_->scan(chunk, subject_frames, sink, done);
  }
  void locate(const std::vector<HitPair>& pairs, std::vector<Span>& spans) override { inner_->locate(pairs, spans); }
  const SubjectRegions* hit_regions(std::size_t prepared, std::uint64_t subject,
                                    std::int8_t subject_frame) const override {
    if (!regions_) return nullptr;
    const auto* found = inner_->hit_regions(prepared, subject, subject_frame);
    if (found && subject_frame != 0) ++used_;
    return found;
  }
  std::string description() const override { return inner_->description(); }

 private:
  std::unique_ptr<ScanBackend> inner_;
  bool regions_;
  std::atomic<std::size_t>& used_;
};

}  // namespace

TEST_CASE("translate_chunk: every frame of every subject, sorted by length, padded as a database chunk",
          "[translate]") {
  TranslatedFixture f;
  make_fixture(f, 5, 4, 40);
  f.dnas.push_back(nucleotide.encode_string("AC"));    // no whole codon in any frame
  f.dnas.push_back(nucleotide.encode_string("ACGT"));  // one codon in frames +1, +2, -1, -2
  // A chromosome-like subject: its frames are translated in pieces on several threads.
  std::mt19937_64 rng(3);
  std::string chromosome(800003, '\0');
  for (char& base : chromosome) base = static_cast<char>(rng() % 4);
  f.dnas.push_back(chromosome);
  write_fasta(f.dir.file("dna.fa"), f.dnas, nucleotide, "d");
  const Database db = Database::open(make_db(f.dir.file("dna.fa"), f.dir.file("dna.wsdb"), 5000));
  REQUIRE(db.num_chunks() > 1);
  const GeneticCode& code = GeneticCode::ncbi(5);
  std::map<std::pair<std::uint64_t, int>, std::string> seen;  // (FASTA position, frame) -> codes
  for (std::size_t c = 0; c < db.num_chunks(); ++c) {
    const Chunk chunk = db.chunk(c);
    const TranslatedChunk translated = translate_chunk(chunk, code, 3);
    const Chunk& t = translated.chunk;
    INFO("chunk " << c);
    CHECK(t.info().first_subject == 6 * chunk.info().first_subject);
    REQUIRE(translated.source.size() == t.size());
    REQUIRE(translated.frame.size() == t.size());
    const SubjectBatch batch = t.batch();
    std::uint64_t residues = 0;
    for (std::size_t k = 0; k < t.size(); ++k) {
      if (k > 0) CHECK(t.lengths()[k - 1] <= t.lengths()[k]);
      const std::uint64_t source = translated.source[k];
      const std::string expected = translate_frame(chunk.subject_codes(source), translated.frame[k], code);
      CHECK(t.subject_codes(k) == expected);
      CHECK(t.original_indices()[k] == chunk.original_indices()[source]);
      for (std::size_t i = t.lengths()[k]; i % 4 != 0; ++i) CHECK(batch.residue(k, i) == protein.pad_code());
      seen[{t.original_indices()[k], translated.frame[k]}] = expected;
      residues += t.lengths()[k];
    }
    CHECK(t.info().residues == residues);
  }
  // Every frame of every subject with a whole codon, once.
  std::size_t frames = 0;
  for (std::size_t s = 0; s < f.dnas.size(); ++s)
    for (int frame : kReadingFrames) {
      if (frame_length(f.dnas[s].size(), frame) == 0) continue;
      ++frames;
      CHECK(seen.count({s, frame}) == 1);
    }
  CHECK(seen.size() == frames);
  const auto words = [] { return std::unique_ptr<std::uint32_t[]>(new std::uint32_t[2]()); };
  CHECK_NOTHROW(Chunk::in_memory(ChunkInfo{0, 1, 5, 2, 5, 5}, {5}, {0}, {0}, words()));
  CHECK_THROWS_AS(Chunk::in_memory(ChunkInfo{0, 1, 6, 2, 5, 5}, {5}, {0}, {0}, words()), std::invalid_argument);
  CHECK_THROWS_AS(Chunk::in_memory(ChunkInfo{0, 1, 5, 2, 5, 5}, {5}, {1}, {0}, words()), std::invalid_argument);
  CHECK_THROWS_AS(Chunk::in_memory(ChunkInfo{0, 1, 5, 2, 5, 5}, {5}, {0}, {0}, nullptr), std::invalid_argument);
}

TEST_CASE("blastx: every query frame against every subject, as the reference scores it", "[translate][search]") {
  TranslatedFixture f;
  make_fixture(f, 11, 120, 12);
  write_fasta(f.dir.file("proteins.fa"), f.proteins, protein, "p");
  const Database db = Database::open(make_db(f.dir.file("proteins.fa"), f.dir.file("proteins.wsdb"), 6000));
  REQUIRE(db.num_chunks() > 1);
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  std::vector<Query> queries;
  for (std::size_t d = 0; d < 6; ++d) queries.push_back({"q" + std::to_string(d), "", f.dnas[d]});
  queries.push_back({"tiny", "", nucleotide.encode_string("ACGTA")});  // frames of 1, 1, 1 amino acids
  std::uint64_t residues = 0;
  for (const auto& p : f.proteins) residues += p.size();

  SECTION("raw scores") {
    SearchOptions options = cpu_options(Program::blastx);
    options.raw_scores_only = true;
    options.min_score = 25;
    SearchEngine engine(db, scoring, options);
    const auto results = engine.search(queries);
    Seen seen;
    for (std::size_t q = 0; q < queries.size(); ++q) {
      INFO("query " << q);
      check_against(results[q].hits, brute_force(queries[q].codes, true, f.proteins, false, scoring, nullptr, options),
                    false, &seen);
    }
    CHECK(seen.hits >= 20);
    CHECK(seen.minus >= 5);
  }
  SECTION("E-values, one strand") {
    SearchOptions options = cpu_options(Program::blastx);
    options.max_evalue = 5.0;
    const EvalueCalculator statistics(scoring, residues, f.proteins.size());
    for (Strand strand : {Strand::both, Strand::minus}) {
      options.strand = strand;
      SearchEngine engine(db, scoring, options);
      const auto results = engine.search(queries);
      for (std::size_t q = 0; q < queries.size(); ++q) {
        INFO("query " << q << " strand " << static_cast<int>(strand));
        auto expected = brute_force(queries[q].codes, true, f.proteins, false, scoring, &statistics, options);
        if (strand == Strand::minus)
          expected.erase(
              std::remove_if(expected.begin(), expected.end(), [](const Expected& e) { return e.query_frame > 0; }),
              expected.end());
        check_against(results[q].hits, expected, true);
        for (const Hit& hit : results[q].hits) CHECK((hit.strand == Strand::minus) == (hit.query_frame < 0));
      }
    }
  }
}

TEST_CASE("tblastn: every query against every subject frame, as the reference scores it", "[translate][search]") {
  TranslatedFixture f;
  make_fixture(f, 23, 16, 90);
  write_fasta(f.dir.file("dna.fa"), f.dnas, nucleotide, "d");
  const Database db = Database::open(make_db(f.dir.file("dna.fa"), f.dir.file("dna.wsdb"), 9000));
  REQUIRE(db.num_chunks() > 1);
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  std::vector<Query> queries;
  for (std::size_t p = 0; p < 5; ++p) queries.push_back({"p" + std::to_string(p), "", f.proteins[p]});
  std::uint64_t residues = 0;
  for (const auto& d : f.dnas) residues += d.size();

  SearchOptions options = cpu_options(Program::tblastn);
  options.max_evalue = 5.0;
  const EvalueCalculator statistics(scoring, residues / 3, f.dnas.size());
  SearchEngine engine(db, scoring, options);
  const auto results = engine.search(queries);
  Seen seen;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    INFO("query " << q);
    check_against(results[q].hits, brute_force(queries[q].codes, false, f.dnas, true, scoring, &statistics, options),
                  true, &seen);
    for (const Hit& hit : results[q].hits) CHECK(hit.subject_length == f.dnas[hit.subject].size());
  }
  CHECK(seen.hits >= 20);
  CHECK(seen.minus >= 5);
  SECTION("genetic code 2 translates the database differently") {
    options.database_genetic_code = 2;
    options.raw_scores_only = true;
    options.min_score = 30;
    SearchEngine mito(db, scoring, options);
    const auto mito_results = mito.search(queries);
    for (std::size_t q = 0; q < queries.size(); ++q)
      check_against(mito_results[q].hits, brute_force(queries[q].codes, false, f.dnas, true, scoring, nullptr, options),
                    false);
  }
}

TEST_CASE("tblastx: every query frame against every subject frame", "[translate][search]") {
  TranslatedFixture f;
  make_fixture(f, 31, 8, 24);
  write_fasta(f.dir.file("dna.fa"), f.dnas, nucleotide, "d");
  const Database db = Database::open(make_db(f.dir.file("dna.fa"), f.dir.file("dna.wsdb"), 4000));
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  std::vector<Query> queries;
  for (std::size_t d = 0; d < 3; ++d) queries.push_back({"q" + std::to_string(d), "", f.dnas[d * 3]});
  SearchOptions options = cpu_options(Program::tblastx);
  options.raw_scores_only = true;
  options.min_score = 28;
  options.query_genetic_code = 11;
  SearchEngine engine(db, scoring, options);
  const auto results = engine.search(queries);
  Seen seen;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    INFO("query " << q);
    check_against(results[q].hits, brute_force(queries[q].codes, true, f.dnas, true, scoring, nullptr, options), false,
                  &seen);
  }
  CHECK(seen.hits >= 10);
  CHECK(seen.minus >= 3);
}

TEST_CASE("translated searches: the output does not depend on threads, chunking or query batching",
          "[translate][search]") {
  TranslatedFixture f;
  make_fixture(f, 47, 30, 60);
  write_fasta(f.dir.file("dna.fa"), f.dnas, nucleotide, "d");
  write_fasta(f.dir.file("proteins.fa"), f.proteins, protein, "p");
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  std::vector<Query> dna_queries, protein_queries;
  for (std::size_t d = 0; d < 4; ++d) dna_queries.push_back({"q" + std::to_string(d), "", f.dnas[d]});
  for (std::size_t p = 0; p < 4; ++p) protein_queries.push_back({"p" + std::to_string(p), "", f.proteins[p]});
  for (Program program : {Program::blastx, Program::tblastn, Program::tblastx}) {
    INFO(program_name(program));
    const bool dna_db = translates_subjects(program);
    const auto& queries = translates_query(program) ? dna_queries : protein_queries;
    std::string first;
    for (const auto& [chunk, threads, batch] :
         {std::tuple<std::uint64_t, unsigned, std::size_t>{1 << 20, 1, 4096}, {3000, 3, 1}, {7000, 2, 3}}) {
      const std::string name = "db" + std::to_string(chunk);
      const Database db = Database::open(
          make_db(f.dir.file(dna_db ? "dna.fa" : "proteins.fa"), f.dir.file(name + program_name(program)), chunk));
      SearchOptions options = cpu_options(program);
      options.threads = threads;
      options.query_batch = batch;
      options.max_target_seqs = 7;
      SearchEngine engine(db, scoring, options);
      const std::string output = render(queries, engine.search(queries), db);
      if (first.empty()) {
        first = output;
        CHECK(!first.empty());
      } else {
        CHECK(output == first);
      }
    }
  }
}

TEST_CASE("translated searches: program and database must agree", "[translate][search]") {
  test::TempDir dir;
  test::write_file(dir.file("p.fa"), ">p\nMKVLAAGIVG\n");
  test::write_file(dir.file("d.fa"), ">d\nACGTACGTAGCTAGCTAGCATCGAT\n");
  const Database proteins = Database::open(make_db(dir.file("p.fa"), dir.file("p.wsdb"), 1 << 20));
  const Database dna = Database::open(make_db(dir.file("d.fa"), dir.file("d.wsdb"), 1 << 20));
  const ScoringScheme blosum(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  const ScoringScheme bases(SubstitutionMatrix::nucleotide(2, -3), GapOpen{5}, GapExtend{2});
  CHECK_THROWS_AS(SearchEngine(proteins, blosum, cpu_options(Program::tblastn)), std::invalid_argument);
  CHECK_THROWS_AS(SearchEngine(dna, blosum, cpu_options(Program::blastx)), std::invalid_argument);
  CHECK_THROWS_AS(SearchEngine(dna, bases, cpu_options(Program::tblastn)), std::invalid_argument);
  CHECK_NOTHROW(SearchEngine(dna, blosum, cpu_options(Program::tblastn)));
  CHECK_NOTHROW(SearchEngine(dna, blosum, cpu_options(Program::tblastx)));
  SearchOptions bad_code = cpu_options(Program::blastx);
  bad_code.query_genetic_code = 7;
  CHECK_THROWS_AS(SearchEngine(proteins, blosum, bad_code), std::invalid_argument);
  CHECK(program_for(SequenceType::protein, SequenceType::protein) == Program::blastp);
  CHECK(program_for(SequenceType::nucleotide, SequenceType::nucleotide) == Program::blastn);
  CHECK_THROWS_AS(program_for(SequenceType::nucleotide, SequenceType::protein), std::invalid_argument);
  CHECK(program_named("tblastx") == Program::tblastx);
  CHECK_THROWS_AS(program_named("blastz"), std::invalid_argument);
}

// Frames of kLongSubjectLength amino acids and more are scanned in segments; the HSP search then looks
// for hot columns only in the regions of each frame where the scan found cells at the threshold. The
// regions are kept per frame: the HSPs are those found with the whole frames searched.
TEST_CASE("tblastn: the scan's hit regions of long frames give the HSPs of whole frames", "[translate][search]") {
  test::TempDir dir;
  std::mt19937_64 rng(20261126);
  const ScoringScheme scoring(SubstitutionMatrix::builtin("BLOSUM62"), GapOpen{11}, GapExtend{1});
  std::vector<Query> queries;
  std::vector<std::string> coding;
  for (std::size_t p = 0; p < 3; ++p) {
    const std::string codes = test::random_codes(rng, 120 + 90 * p, 20);
    queries.push_back({"p" + std::to_string(p), "", codes});
    coding.push_back(back_translate(codes, rng));
  }
  // Two subjects whose frames are long (over 3 * kLongSubjectLength bases), and a short one; copies of
  // the coding sequences on both strands at any offset (so in every frame), 10% of the bases changed.
  std::vector<std::string> dnas;
  for (const std::size_t length : {std::size_t{230000}, std::size_t{260000}, std::size_t{4000}}) {
    std::string dna = test::random_codes(rng, length, 4);
    for (int copy = 0; copy < (length > 10000 ? 6 : 1); ++copy) {
      std::string piece = coding[static_cast<std::size_t>(copy) % coding.size()];
      for (auto& base : piece)  // substitutions only: no frameshifts
        if (rng() % 10 == 0) base = static_cast<char>(rng() % 4);
      if (copy % 2) piece = reverse_complement(piece);
      const std::size_t at = std::uniform_int_distribution<std::size_t>(0, dna.size() - piece.size())(rng);
      dna.replace(at, piece.size(), piece);
    }
    dnas.push_back(dna);
  }
  REQUIRE(dnas[0].size() / 3 >= kLongSubjectLength);
  write_fasta(dir.file("dna.fa"), dnas, nucleotide, "d");
  const Database db = Database::open(make_db(dir.file("dna.fa"), dir.file("dna.wsdb"), 1u << 22));
  SearchOptions options = cpu_options(Program::tblastn);
  options.max_hsps = 0;  // every HSP
  options.max_evalue = 1e-5;
  std::atomic<std::size_t> used{0};
  std::atomic<std::size_t> unused{0};
  SearchEngine with_regions(db, scoring, options, std::make_unique<RegionsBackend>(scoring, true, used));
  SearchEngine whole_frames(db, scoring, options, std::make_unique<RegionsBackend>(scoring, false, unused));
  const auto results = with_regions.search(queries);
  const std::string expected = render(queries, whole_frames.search(queries), db);
  CHECK(render(queries, results, db) == expected);
  std::size_t hits = 0, minus = 0;
  for (const auto& result : results)
    for (const Hit& hit : result.hits) {
      ++hits;
      minus += hit.subject_frame < 0 ? 1 : 0;
    }
  CHECK(hits >= 10);  // most planted copies are found
  CHECK(minus >= 4);
  CHECK(used.load() > 0);  // the regions of long frames were there and taken
}

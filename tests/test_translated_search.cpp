// Translated searches (blastx, tblastn, tblastx) against brute force with the 64-bit reference over
// every frame: which hits, in which order, with which scores, E-values, frames and coordinates; the
// same output whatever the threads or chunking; the command line's program choice and its errors; and
// proteins of the bundled sample hidden in random DNA on both strands, found at their loci and frames,
// against BLAST+'s blastx and tblastn where installed.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <sstream>

#include "core/genetic_code.hpp"
#include "db/database.hpp"
#include "db/fasta.hpp"
#include "db/makedb.hpp"
#include "kernels/reference/reference.hpp"
#include "output/output.hpp"
#include "search/translation.hpp"
#include "search/warpsearch.hpp"
#include "statistics/statistics.hpp"
#include "tests/catch.hpp"
#include "tests/test_support.hpp"

using namespace warpsearch;

namespace {

const Alphabet& protein = Alphabet::protein();
const Alphabet& nucleotide = Alphabet::nucleotide();

std::string reverse_complement(const std::string& codes) {
  std::string result(codes.rbegin(), codes.rend());
  for (auto& c : result) c = static_cast<char>(nucleotide.complement(static_cast<std::uint8_t>(c)));
  return result;
}

// Nucleotide codes of a protein's codes (the twenty amino acids), a random codon of the standard code
// for each, read from the code's 64-letter table.
std::string back_translate(const std::string& protein_codes, std::mt19937_64& rng) {
  const std::string_view table = GeneticCode::ncbi(1).amino_acids();
  const std::uint8_t ncbi_base_code[4] = {3, 1, 0, 2};  // T C A G as A C G T codes
  std::map<char, std::vector<std::string>> codons;
  for (std::size_t c = 0; c < 64; ++c)
    codons[table[c]].push_back({static_cast<char>(ncbi_base_code[c / 16]), static_cast<char>(ncbi_base_code[c / 4 % 4]),
                                static_cast<char>(ncbi_base_code[c % 4])});
  std::string dna;
  for (char code : protein_codes) {
    const auto& choices = codons.at(protein.decode(static_cast<std::uint8_t>(code)));
    dna += choices[rng() % choices.size()];
  }
  return dna;
}

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

}  // namespace

TEST_CASE("translate_chunk: every frame of every subject, sorted by length, padded as a database chunk",
          "[translate]") {
  TranslatedFixture f;
  make_fixture(f, 5, 4, 40);
  f.dnas.push_back(nucleotide.encode_string("AC"));    // no whole codon in any frame
  f.dnas.push_back(nucleotide.encode_string("ACGT"));  // one codon in frames +1, +2, -1, -2
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
  CHECK_THROWS_AS(Chunk::in_memory(ChunkInfo{0, 1, 5, 2, 5, 5}, {5}, {0}, {0}, {0}), std::invalid_argument);
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

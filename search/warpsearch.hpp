// warpsearch's public face: search queries against a database, exactly.
//
//   auto db = warpsearch::Database::open("uniprot.wsdb");
//   warpsearch::ScoringScheme scoring(warpsearch::SubstitutionMatrix::builtin("BLOSUM62"),
//                                     warpsearch::GapOpen{11}, warpsearch::GapExtend{1});
//   warpsearch::SearchEngine engine(db, scoring, warpsearch::SearchOptions{});
//   for (const auto& result : engine.search(queries)) ...
//
// Scores are exact Smith-Waterman scores with affine gaps (a gap of length k costs open + k * extend),
// whichever backend computes them; the output of a search does not depend on the backend, the number of
// threads or the number of GPUs.
//
// Co-optimal alignments are broken the same way everywhere: the end is the maximal cell with the
// smallest subject position, then the smallest query position; the start is, among the maximal
// alignments ending there, the one with the largest subject start, then the largest query start.
// Hits of equal score are ordered by their subject's position in the source FASTA.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "profile/scoring.hpp"

namespace warpsearch {

enum class Device { automatic, cpu, gpu };
enum class Strand : std::uint8_t { plus, minus, both };

// BLAST's programs, by what the queries and the database hold and what is translated (in six frames
// with an NCBI genetic code, core/genetic_code.hpp): blastp protein queries against proteins, blastn
// nucleotides against nucleotides, blastx translated nucleotide queries against proteins, tblastn
// protein queries against a translated nucleotide database, tblastx translated against translated.
// automatic: blastp or blastn by the database's alphabet, the queries being in the same alphabet.
// tblastn and tblastx scan on the CPU backend whatever SearchOptions::device says
// (docs/translated_search.md).
enum class Program : std::uint8_t { automatic, blastp, blastn, blastx, tblastn, tblastx };

const char* program_name(Program program);  // "blastx"; "automatic"
// The program of a name (blastp, blastn, blastx, tblastn, tblastx); std::invalid_argument otherwise.
Program program_named(const std::string& name);
bool translates_query(Program program);     // blastx, tblastx
bool translates_subjects(Program program);  // tblastn, tblastx
// The alphabets a program's queries and database hold (automatic: the database's, given).
SequenceType query_type(Program program, SequenceType database);
SequenceType database_type(Program program, SequenceType database);
// The program for queries and a database of these alphabets: blastp or blastn when they agree;
// std::invalid_argument naming the two choices when they differ (a translated search, or the queries
// read in the database's alphabet).
Program program_for(SequenceType queries, SequenceType database);

// A contiguous run of the database's subjects in its length-sorted order (db/database.hpp), across
// chunks: a process of a distributed search covers a few of them.
struct SubjectRange {
  std::uint64_t first = 0;
  std::uint64_t count = 0;
};

// What orders the candidate hits of a query: higher score first, then lower E-value (0 without
// statistics), then lower subject position in the source FASTA, then the plus strand first.
// Translated searches: then the query frame, then the subject frame, each in BLAST's order
// +1 +2 +3 -1 -2 -3 (0 when untranslated).
struct CandidateKey {
  int score = 0;
  double evalue = 0.0;
  std::uint64_t subject = 0;
  Strand strand = Strand::plus;
  std::int8_t query_frame = 0, subject_frame = 0;
};
// true when a ranks before b in that order.
inline bool ranks_before(const CandidateKey& a, const CandidateKey& b) {
  if (a.score != b.score) return a.score > b.score;
  if (a.evalue != b.evalue) return a.evalue < b.evalue;
  if (a.subject != b.subject) return a.subject < b.subject;
  if (a.strand != b.strand) return a.strand < b.strand;
  // +1 +2 +3 -1 -2 -3 ascending: a positive frame is its own rank, a negative one 3 - frame.
  const auto rank = [](std::int8_t frame) { return frame >= 0 ? frame : 3 - frame; };
  if (a.query_frame != b.query_frame) return rank(a.query_frame) < rank(b.query_frame);
  return rank(a.subject_frame) < rank(b.subject_frame);
}

// Called once per query batch, between the scan and the alignment of the hits, with each query's
// candidates (best first, at most max_target_seqs); returns, per query, how many of them (a prefix) to
// align and report. Distributed searches use it to align only the hits that rank in the global top.
using CandidateSelector = std::function<std::vector<std::size_t>(const std::vector<std::vector<CandidateKey>>&)>;

// How composition-based statistics realign a hit (search/composition.hpp).
enum class CompositionRealignment : std::uint8_t { smith_waterman, xdrop };

struct SearchOptions {
  std::size_t max_target_seqs = 500;  // subjects (and strands) kept per query
  // HSPs reported per subject and strand, best first (0: every one that passes the cut-offs). Which
  // alignments count as distinct HSPs: search/hsps.hpp.
  std::size_t max_hsps = 0;
  double max_evalue = 10.0;           // hits with a larger E-value are dropped
  int min_score = 1;                  // hits with a smaller raw score are dropped
  bool raw_scores_only = false;       // no E-values: for scoring schemes without published statistics
  Strand strand = Strand::both;       // nucleotide searches: which query strands are searched
  unsigned threads = 0;               // CPU threads; 0 = every core
  Device device = Device::automatic;  // automatic: the GPUs when one is usable, else the CPU
  std::vector<int> gpus;              // GPU ordinals to use; empty = every usable GPU
  std::size_t query_batch = 4096;     // queries searched per pass over the database
  // Host memory for the aligned hits of a batch not yet handed to search()'s sink, in bytes (estimated:
  // each kept subject counted as one alignment spanning the query). A batch whose hits would need more
  // is aligned and handed over in parts, in query order; at least one query at a time. 0: no bound.
  std::uint64_t hit_memory = std::uint64_t{1} << 30;
  // Device memory each GPU may use, in bytes; 0 = what the device has free. A database chunk larger
  // than that is scanned in several batches of subjects (same results, more transfers).
  std::uint64_t gpu_memory_limit = 0;
  // Distributed searches: the subjects searched, empty for all (E-values always use the whole database's
  // size), and the selection of the candidates to align (empty: all are aligned).
  std::vector<SubjectRange> subjects;
  CandidateSelector select_candidates;
  // Per subject (by FASTA position), whether it is searched; empty: every subject. Subjects left out are
  // never scanned (output/taxonomy.hpp builds it for BLAST's -taxids), and, as BLAST does for a restricted
  // database, E-values use the size of the subjects searched.
  std::vector<bool> subject_filter;
  // What is searched (Program), and the NCBI genetic codes that translate nucleotide queries (blastx,
  // tblastx) and nucleotide subjects (tblastn, tblastx).
  Program program = Program::automatic;
  int query_genetic_code = 1;
  int database_genetic_code = 1;
  // Composition-based statistics of blastp (search/composition.hpp): 0 off, 1 scaled lambda, 2
  // conditional matrix adjustment (blastp's default), 3 unconditional. Applied to the reported hits of
  // protein-protein searches with BLOSUM62 and E-values, ignored otherwise; the scan is unchanged.
  int composition_based_stats = 0;
  // How the hits are realigned with the adjusted matrix: smith_waterman (exact, as blastp -use_sw_tback),
  // or xdrop (blastp's default: an X-drop extension from a start point on the exact hit).
  CompositionRealignment composition_realignment = CompositionRealignment::smith_waterman;
};

struct Query {
  std::string id;
  std::string description;
  std::string codes;  // residue codes (core/alphabet.hpp), of the program's query alphabet
};

struct Hit {
  std::uint64_t subject = 0;  // the subject's 0-based position in the database's source FASTA
  std::uint32_t subject_length = 0;
  Strand strand = Strand::plus;  // minus: the query's reverse complement matched the subject
  int score = 0;
  double evalue = 0.0;    // NaN with raw_scores_only
  double bitscore = 0.0;  // NaN with raw_scores_only
  // The alignment, 0-based and end-exclusive, on the query strand that was searched (for a minus-strand
  // hit, positions in the reverse complement of the query).
  std::uint32_t query_begin = 0, query_end = 0, subject_begin = 0, subject_end = 0;
  std::string operations;  // per column: 'M' aligned pair, 'I' query residue vs gap, 'D' subject residue vs gap
  std::uint32_t identities = 0, mismatches = 0, gap_opens = 0, gaps = 0;
  std::string subject_aligned_codes;  // the subject residues subject_begin..subject_end (for qseq/sseq)
  // Translated searches: the frames searched (+1..+3, -1..-3; 0 untranslated). In a translated query
  // (blastx, tblastx) query_begin/query_end count amino acids of the query frame's translation, whose
  // residues query_begin..query_end are query_aligned_codes; in a translated subject (tblastn, tblastx)
  // subject_begin/subject_end count amino acids of the subject frame, subject_aligned_codes are amino
  // acids, and subject_length is the subject's length in nucleotides. nucleotide_span()
  // (core/genetic_code.hpp) gives the nucleotide coordinates BLAST prints. A minus query frame has
  // strand minus.
  int query_frame = 0, subject_frame = 0;
  std::string query_aligned_codes;
};

struct QueryResult {
  std::size_t query = 0;  // index into the searched queries
  // Best subject first; a subject's HSPs together, best first (score, then subject start).
  std::vector<Hit> hits;
};

struct SearchProgress {
  std::size_t queries_done = 0, queries_total = 0;
  double cells_done = 0.0, cells_total = 0.0;  // query residues x database residues
  std::size_t queries_aligned = 0;             // queries whose results have gone to search()'s sink
  // Wall time so far, in seconds: in the scan (scores of every query against every subject, the
  // database streamed to the backend), and after it in aligning the kept hits (start and end, then the
  // traceback). Where the backend locates while it scans (a GPU), a query's hits are aligned as soon as
  // its scan is done, during the rest of the scan: hits_seconds is the time spent aligning hits, during
  // the scan or after it, and locate_seconds the part of it locating them (start and end).
  double scan_seconds = 0.0, align_seconds = 0.0, hits_seconds = 0.0, locate_seconds = 0.0;
  // Of locate_seconds: finding the hot columns of long subjects' hits (docs/long_sequences.md).
  double hot_columns_seconds = 0.0;
};

class ScanBackend;

// Owns its backends (threads, GPU buffers). Not thread-safe: one search() at a time per engine.
class SearchEngine {
 public:
  // Throws std::invalid_argument when the scoring and the database disagree (protein vs nucleotide),
  // when E-values are asked for but the scoring has no published statistics (the message lists the
  // supported gap pairs), or when Device::gpu is asked for and no GPU is usable.
  SearchEngine(const Database& database, ScoringScheme scoring, SearchOptions options);
  // The same with a given backend (search/scan_backend.hpp) instead of options.device's: for tests.
  SearchEngine(const Database& database, ScoringScheme scoring, SearchOptions options,
               std::unique_ptr<ScanBackend> backend);
  SearchEngine(SearchEngine&&) noexcept;
  ~SearchEngine();

  using ProgressCallback = std::function<void(const SearchProgress&)>;
  using ResultSink = std::function<void(QueryResult&&)>;

  // Searches queries against the whole database; one result per query, in query order. progress, if
  // given, is called after each step (a database part scanned, results handed over) and every quarter
  // of a second in between, from one thread at a time (not always the caller's).
  std::vector<QueryResult> search(const std::vector<Query>& queries, const ProgressCallback& progress = {});
  // The same, streamed: sink gets each query's result once, in query order, as soon as it and every
  // query before it are aligned (a query batch, or the part of it that SearchOptions::hit_memory
  // holds), so that results can be written while later batches are searched. sink is called from one
  // thread at a time (not always the caller's); an exception it throws ends the search.
  void search(const std::vector<Query>& queries, const ResultSink& sink, const ProgressCallback& progress = {});

  // "cpu (avx2, 2 threads)", "gpu (2 x NVIDIA H100)": what the search runs on.
  std::string backend_description() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpsearch

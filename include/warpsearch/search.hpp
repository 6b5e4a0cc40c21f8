// Database search: every query against every subject, exact Smith-Waterman scores with affine gaps,
// E-values and bit scores by Karlin-Altschul statistics, hits as BLAST's tabular output has them.
//
// The results do not depend on the device, the number of threads or the number of GPUs. Co-optimal
// alignments are broken the same way everywhere: the end is the maximal cell with the smallest subject
// position, then the smallest query position; the start, among the maximal alignments ending there, the
// one with the largest subject start, then the largest query start. Hits of equal score keep the order
// of their subjects in the source FASTA.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "warpsearch/common.hpp"
#include "warpsearch/database.hpp"
#include "warpsearch/scoring.hpp"

namespace warpsearch {
inline namespace v0 {

enum class Strand : std::uint8_t { plus, minus, both };

// The options of `warpsearch search`, with the same defaults. Values out of range throw
// std::invalid_argument when a Searcher is made, naming the field.
struct SearchOptions {
  Scoring scoring;
  double evalue = 10.0;               // hits with a larger E-value are dropped (> 0)
  std::size_t max_target_seqs = 500;  // subjects (and strands) kept per query (1 .. 2^30)
  // Local alignments (HSPs) per subject and strand, best first; 0: every one that passes the cut-offs,
  // or only the best with raw_scores (as `warpsearch search` without --max-hsps).
  std::size_t max_hsps = 0;
  int min_score = 1;        // hits with a smaller raw score are dropped
  bool raw_scores = false;  // no E-values or bit scores (NaN): for scoring without statistics
  // blastp's composition-based statistics for the reported hits (protein, BLOSUM62): 0 none, 1 scaled
  // lambda, 2 conditional matrix adjustment (blastp's default), 3 unconditional
  // (docs/composition_statistics.md).
  int comp_based_stats = 0;
  Strand strand = Strand::both;  // nucleotide databases: the query strands searched
  unsigned threads = 0;  // CPU threads; 0 = every CPU this process may use (affinity, cgroup quota; at most 4096)
  Device device = Device::automatic;
  std::vector<int> gpus;               // GPU ordinals; empty = every usable GPU
  std::size_t query_batch = 4096;      // queries searched per pass over the database (1 .. 2^24)
  std::uint64_t gpu_memory_limit = 0;  // bytes of device memory per GPU; 0 = what it has free
  bool skip_invalid = false;           // FASTA queries: skip invalid records instead of stopping
  bool aligned_sequences = false;      // fill Hit::qseq and Hit::sseq
};

// One hit, with the fields of BLAST's tabular output (outfmt 6 and its named columns). Coordinates are
// 1-based and inclusive, query coordinates on the query's plus strand; a minus-strand hit has
// sstart > send, as BLAST shows it.
struct Hit {
  std::string qseqid;
  std::string sseqid;
  double pident = 0;         // 100 * nident / length
  std::uint64_t length = 0;  // alignment columns
  std::uint64_t mismatch = 0;
  std::uint64_t gapopen = 0;
  std::uint64_t qstart = 0, qend = 0, sstart = 0, send = 0;
  double evalue = 0;    // NaN with raw_scores
  double bitscore = 0;  // NaN with raw_scores
  int score = 0;        // raw score
  std::uint64_t qlen = 0, slen = 0;
  std::string cigar;       // M aligned pair, I query residue against a gap, D subject residue against a gap
  std::string qseq, sseq;  // aligned letters with '-' for gaps (SearchOptions::aligned_sequences)
  long qcovhsp = 0;        // percent of the query covered, rounded
  std::string stitle;      // the subject's whole FASTA header
  Strand sstrand = Strand::plus;
  std::uint64_t nident = 0, gaps = 0;
  std::uint64_t subject = 0;  // the subject's 0-based position in the database's source
};

struct QueryResult {
  std::size_t query = 0;  // index of the query among those searched (FASTA: among the valid records)
  std::string qseqid;
  std::uint64_t qlen = 0;
  std::vector<Hit> hits;  // best first
};

// A search engine bound to one database and one set of options: its CPU threads and GPU buffers live
// as long as it does, so a program that searches many times keeps one. Move-only. Not thread-safe:
// one search at a time per Searcher (use one Searcher per thread; they may share a Database).
class Searcher {
 public:
  // Throws std::invalid_argument for bad options, a scoring that does not fit the database (protein
  // against nucleotide), E-values asked for where the scoring has no published statistics (the message
  // lists the supported gap pairs), or Device::gpu where no GPU is usable.
  Searcher(const Database& database, SearchOptions options);
  Searcher(Searcher&&) noexcept;
  Searcher& operator=(Searcher&&) noexcept;
  ~Searcher();

  // One result per query, in query order. Throws std::invalid_argument for a query with an invalid
  // letter or no residues, naming it.
  std::vector<QueryResult> search(const std::vector<Sequence>& queries);
  // Queries from a FASTA file (plain or gzip; "-" reads stdin). Throws std::runtime_error naming the
  // file, line and record, as `warpsearch search` does.
  std::vector<QueryResult> search_fasta(const std::string& fasta_path);

  // "cpu (avx2, 2 threads)", "gpu (2 x NVIDIA H100)": what the searches run on.
  std::string backend() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One-shot forms: a Searcher made, used once and dropped.
std::vector<QueryResult> search(const Database& database, const std::vector<Sequence>& queries,
                                const SearchOptions& options = {});
std::vector<QueryResult> search_fasta(const Database& database, const std::string& fasta_path,
                                      const SearchOptions& options = {});

}  // namespace v0
}  // namespace warpsearch

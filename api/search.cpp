// Searcher, search: over search/warpsearch.hpp's SearchEngine, with the hit fields output/output.cpp
// prints.
#include "api/engine.hpp"  // first: see there

#include <cmath>
#include <stdexcept>
#include <utility>

#include "api/convert.hpp"
#include "api/database_impl.hpp"
#include "warpsearch/search.hpp"

namespace warpsearch {
inline namespace v0 {
namespace {

// The options checks of `warpsearch search` (tools/cmd_search.cpp), named by the fields here.
engine::SearchOptions to_engine(const SearchOptions& options) {
  if (!(options.evalue > 0)) throw std::invalid_argument("evalue must be positive");
  if (options.max_target_seqs == 0 || options.max_target_seqs > (std::size_t{1} << 30))
    throw std::invalid_argument("max_target_seqs takes a number of hits from 1 to 1073741824");
  if (options.query_batch == 0 || options.query_batch > (std::size_t{1} << 24))
    throw std::invalid_argument("query_batch takes a number of queries from 1 to 16777216");
  if (options.threads > 4096) throw std::invalid_argument("threads takes a number from 0 (every usable CPU) to 4096");
  for (const int gpu : options.gpus)
    if (gpu < 0) throw std::invalid_argument("gpus takes GPU numbers from 0, not " + std::to_string(gpu));
  engine::SearchOptions out;
  out.max_target_seqs = options.max_target_seqs;
  if (options.max_hsps > (std::size_t{1} << 30))
    throw std::invalid_argument("max_hsps takes a number of alignments from 1 to 1073741824");
  out.max_hsps = options.max_hsps > 0 ? options.max_hsps : options.raw_scores ? 1 : 0;
  out.max_evalue = options.evalue;
  out.min_score = options.min_score;
  out.raw_scores_only = options.raw_scores;
  if (options.comp_based_stats < 0 || options.comp_based_stats > 3)
    throw std::invalid_argument("comp_based_stats takes 0, 1, 2 or 3, not " + std::to_string(options.comp_based_stats));
  out.composition_based_stats = options.comp_based_stats;
  out.strand = options.strand == Strand::plus    ? engine::Strand::plus
               : options.strand == Strand::minus ? engine::Strand::minus
                                                 : engine::Strand::both;
  out.threads = options.threads;
  out.device = detail::to_engine(options.device);
  out.gpus = options.gpus;
  out.query_batch = options.query_batch;
  out.gpu_memory_limit = options.gpu_memory_limit;
  return out;
}

// A hit as BLAST's tabular output shows it (output/output.cpp): query coordinates on the query's plus
// strand; a minus-strand hit shows the subject reversed, and its operations and aligned strings reversed
// and complemented.
Hit present(const engine::Query& query, const engine::Hit& hit, const engine::Database& database,
            bool aligned_sequences) {
  const engine::Alphabet& alphabet = database.alphabet();
  const std::uint64_t m = query.codes.size();
  const bool minus = hit.strand == engine::Strand::minus;
  Hit out;
  out.qseqid = query.id;
  out.sseqid = std::string(database.id(hit.subject));
  out.subject = hit.subject;
  out.length = hit.operations.size();
  out.nident = hit.identities;
  out.mismatch = hit.mismatches;
  out.gapopen = hit.gap_opens;
  out.gaps = hit.gaps;
  out.pident = out.length ? 100.0 * hit.identities / static_cast<double>(out.length) : 0.0;
  out.evalue = hit.evalue;
  out.bitscore = hit.bitscore;
  out.score = hit.score;
  out.qlen = m;
  out.slen = hit.subject_length;
  out.sstrand = minus ? Strand::minus : Strand::plus;
  out.stitle = out.sseqid;
  const auto description = database.description(hit.subject);
  if (!description.empty()) out.stitle += " " + std::string(description);
  if (!minus) {
    out.qstart = hit.query_begin + 1;
    out.qend = hit.query_end;
    out.sstart = hit.subject_begin + 1;
    out.send = hit.subject_end;
    out.cigar = engine::cigar(hit.operations);
  } else {
    out.qstart = m - hit.query_end + 1;
    out.qend = m - hit.query_begin;
    out.sstart = hit.subject_end;
    out.send = hit.subject_begin + 1;
    out.cigar = engine::cigar(std::string(hit.operations.rbegin(), hit.operations.rend()));
  }
  // As BLAST prints it (output/output.cpp): rounded, but 100 only for the whole query.
  const std::uint64_t covered = out.qend - out.qstart + 1;
  out.qcovhsp = m == 0 ? 0 : std::lround(100.0 * static_cast<double>(covered) / static_cast<double>(m));
  if (out.qcovhsp == 100 && covered < m) out.qcovhsp = 99;
  if (aligned_sequences) {
    // Letters on the searched strand, then flipped back for a minus-strand hit.
    const auto letter = [&](std::uint8_t code) { return alphabet.decode(minus ? alphabet.complement(code) : code); };
    std::size_t qi = hit.query_begin, si = 0;
    for (const char op : hit.operations) {
      const auto query_code = [&] {
        const std::size_t position = qi++;
        const auto code = static_cast<std::uint8_t>(query.codes[minus ? m - 1 - position : position]);
        return minus ? alphabet.complement(code) : code;  // the searched strand's code
      };
      out.qseq += op != 'D' ? letter(query_code()) : '-';
      out.sseq += op != 'I' ? letter(static_cast<std::uint8_t>(hit.subject_aligned_codes[si++])) : '-';
    }
    if (minus) {
      out.qseq.assign(out.qseq.rbegin(), out.qseq.rend());
      out.sseq.assign(out.sseq.rbegin(), out.sseq.rend());
    }
  }
  return out;
}

}  // namespace

struct Searcher::Impl {
  Impl(std::shared_ptr<const Database::Impl> opened, SearchOptions given)
      : database(std::move(opened)),
        options(std::move(given)),
        engine(database->database,
               detail::scoring_scheme(options.scoring,
                                      database->database.info().type == engine::SequenceType::nucleotide, "databases"),
               to_engine(options)) {}

  std::vector<QueryResult> run(const std::vector<engine::Query>& queries) {
    const std::vector<engine::QueryResult> results = engine.search(queries);
    std::vector<QueryResult> out(results.size());
    for (std::size_t q = 0; q < results.size(); ++q) {
      out[q].query = q;
      out[q].qseqid = queries[q].id;
      out[q].qlen = queries[q].codes.size();
      out[q].hits.reserve(results[q].hits.size());
      for (const engine::Hit& hit : results[q].hits)
        out[q].hits.push_back(present(queries[q], hit, database->database, options.aligned_sequences));
    }
    return out;
  }

  std::shared_ptr<const Database::Impl> database;  // outlives the engine, which refers to it
  SearchOptions options;
  engine::SearchEngine engine;
};

Searcher::Searcher(const Database& database, SearchOptions options)
    : impl_(std::make_unique<Impl>(database.impl_, std::move(options))) {}
Searcher::Searcher(Searcher&&) noexcept = default;
Searcher& Searcher::operator=(Searcher&&) noexcept = default;
Searcher::~Searcher() = default;

std::vector<QueryResult> Searcher::search(const std::vector<Sequence>& queries) {
  const engine::Alphabet& alphabet = impl_->database->database.alphabet();
  std::vector<engine::Query> converted;
  converted.reserve(queries.size());
  for (std::size_t q = 0; q < queries.size(); ++q)
    converted.push_back({queries[q].id, queries[q].description, detail::encode(queries[q], alphabet, "query", q)});
  return impl_->run(converted);
}

std::vector<QueryResult> Searcher::search_fasta(const std::string& fasta_path) {
  std::vector<engine::Query> queries;
  engine::FastaReader reader(fasta_path, impl_->database->database.info().type, impl_->options.skip_invalid);
  for (engine::SequenceRecord record; reader.next(record);)
    queries.push_back({std::move(record.id), std::move(record.description), std::move(record.codes)});
  return impl_->run(queries);
}

std::string Searcher::backend() const { return impl_->engine.backend_description(); }

std::vector<QueryResult> search(const Database& database, const std::vector<Sequence>& queries,
                                const SearchOptions& options) {
  return Searcher(database, options).search(queries);
}

std::vector<QueryResult> search_fasta(const Database& database, const std::string& fasta_path,
                                      const SearchOptions& options) {
  return Searcher(database, options).search_fasta(fasta_path);
}

}  // namespace v0
}  // namespace warpsearch

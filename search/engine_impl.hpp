// SearchEngine's private state and the steps it is made of, shared by search/engine.cpp (the batches:
// preparing the queries, the scan, handing results over) and search/engine_hits.cpp (aligning the kept
// candidates: hot columns, HSPs, traceback). Private to search/.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <exception>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <thread>

#include "base/interrupt.hpp"
#include "base/parallel.hpp"
#include "base/usable_cpus.hpp"
#include "core/genetic_code.hpp"
#include "db/subject_filter.hpp"
#include "kernels/cpu/alignment.hpp"
#include "kernels/cpu/long_subject.hpp"
#include "search/composition.hpp"
#include "search/hsps.hpp"
#include "search/scan_backend.hpp"
#include "search/top_hits.hpp"
#include "search/translation.hpp"
#include "search/warpsearch.hpp"
#include "statistics/statistics.hpp"

namespace warpsearch {
namespace engine_detail {

inline std::string reverse_complement(const std::string& codes, const Alphabet& alphabet) {
  std::string result(codes.rbegin(), codes.rend());
  for (auto& c : result) c = static_cast<char>(alphabet.complement(static_cast<std::uint8_t>(c)));
  return result;
}

// Subject residues read for one round of hit alignment (search_batch), at most (and one chunk's more).
constexpr std::uint64_t kRoundResidues = std::uint64_t{1} << 27;
// Queries aligned together after the scan, at most: their results are written before the next part
// is aligned, so that output and progress move during a long alignment phase. Enough hits per part
// (hundreds of queries, each with up to max_target_seqs subjects) to keep every thread busy.
constexpr std::size_t kPartQueries = 256;

// A kept candidate to align: where its hits go (the HSPs of one subject and strand, in candidate order),
// the searched strand (prepared[prepared]) and the subject's codes (subjects[subject] of its round).
struct HitJob {
  std::vector<Hit>* hits;
  std::size_t prepared;
  const Candidate* candidate;
  std::size_t subject;
};

inline bool gpu_wanted(const SearchOptions& options) {
  if (options.device == Device::cpu) return false;
#ifdef WARPSEARCH_HAVE_CUDA
  if (options.device == Device::gpu) return true;
  return usable_gpu_count() > 0;
#else
  if (options.device == Device::gpu)
    throw std::invalid_argument(
        "--device gpu: no usable GPU, this warpsearch was built without CUDA (rebuild with -DWARPSEARCH_CUDA=ON)");
  return false;
#endif
}

// The progress of one search() call: the caller's callback gets a copy of the state after every step,
// and every kTick in between from a thread of its own, with the cells the backend has scored so far in
// the database part it is scanning (counted with relaxed atomic adds, never under a lock).
class ProgressFeed {
 public:
  static constexpr std::chrono::milliseconds kTick{250};

  ProgressFeed(SearchEngine::ProgressCallback report, SearchProgress start)
      : report_(std::move(report)), state_(start) {
    if (report_) ticker_ = std::thread([this] { tick(); });
  }
  ProgressFeed(const ProgressFeed&) = delete;
  ProgressFeed& operator=(const ProgressFeed&) = delete;
  ~ProgressFeed() {
    if (!ticker_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_one();
    ticker_.join();
  }

  // Changes the state (change(SearchProgress&)) and reports it.
  template <class Change>
  void update(const Change& change) {
    std::lock_guard<std::mutex> lock(mutex_);
    change(state_);
    report_locked();
  }
  // A database part of `cells` cells starts (its cells count in live_cells() as they are scored) / ends.
  void begin_part(double cells) {
    std::lock_guard<std::mutex> lock(mutex_);
    live_cells_.store(0, std::memory_order_relaxed);
    part_cells_ = cells;
  }
  void end_part() {
    update([&](SearchProgress& progress) {
      progress.cells_done += part_cells_;
      part_cells_ = 0;
      live_cells_.store(0, std::memory_order_relaxed);
    });
  }
  std::atomic<std::uint64_t>& live_cells() { return live_cells_; }
  SearchProgress state() {
    std::lock_guard<std::mutex> lock(mutex_);
    return state_;
  }

 private:
  void report_locked() {
    if (!report_) return;
    SearchProgress shown = state_;
    shown.cells_done += std::min(static_cast<double>(live_cells_.load(std::memory_order_relaxed)), part_cells_);
    report_(shown);
  }
  void tick() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, kTick, [&] { return stopping_; })) report_locked();
  }

  SearchEngine::ProgressCallback report_;
  std::mutex mutex_;
  std::condition_variable wake_;
  SearchProgress state_;
  double part_cells_ = 0;
  std::atomic<std::uint64_t> live_cells_{0};
  bool stopping_ = false;
  std::thread ticker_;
};

// value_of(key_of(j)) for each j < count, computed once per distinct key, on the threads: the queries'
// thresholds per length, a round's HSP cutoffs per query and subject length. Each is a search over
// E-values, and a batch can hold thousands of queries or a round thousands of hits.
template <class Key, class Value, class KeyOf, class ValueOf>
std::vector<Value> once_per_key(std::size_t count, const KeyOf& key_of, const ValueOf& value_of, unsigned threads) {
  std::map<Key, Value> values;
  for (std::size_t j = 0; j < count; ++j) values.emplace(key_of(j), Value{});
  std::vector<typename std::map<Key, Value>::value_type*> distinct;
  for (auto& entry : values) distinct.push_back(&entry);
  parallel_for(distinct.size(), threads,
               [&](std::size_t k, unsigned) { distinct[k]->second = value_of(distinct[k]->first); });
  std::vector<Value> out(count);
  for (std::size_t j = 0; j < count; ++j) out[j] = values.at(key_of(j));
  return out;
}

}  // namespace engine_detail

using namespace engine_detail;  // NOLINT: the engine's own names, in its own files

struct SearchEngine::Impl {
  const Database& database;
  ScoringScheme scoring;
  SearchOptions options;
  Program program;                  // options.program, automatic resolved
  const GeneticCode* query_code;    // translated queries (blastx, tblastx)
  const GeneticCode* subject_code;  // translated subjects (tblastn, tblastx)
  std::optional<EvalueCalculator> statistics;
  // Translated programs: BLAST runs them with sum statistics, which divide an HSP's E-value by the gap
  // decay divisor, 1 - 0.1 for one gapped HSP (BLAST_GapDecayDivisor); hits are not linked here, so
  // each hit's E-value is that of an HSP standing alone.
  double evalue_divisor = 1.0;
  // Composition-based statistics (blastp only): the kept hits are realigned with each pair's matrix.
  std::optional<CompositionAdjustment> composition;
  // The E-value a candidate or HSP needs before composition-based statistics: options.max_evalue, times
  // CompositionAdjustment::kAdmissionFactor when the adjustment may still bring it under the cut-off.
  double admission_evalue;
  std::unique_ptr<ScanBackend> backend;
  unsigned threads;

  Impl(const Database& db, ScoringScheme scheme, SearchOptions opts, std::unique_ptr<ScanBackend> given = nullptr)
      : database(db), scoring(std::move(scheme)), options(std::move(opts)), backend(std::move(given)) {
    const SequenceType stored = database.info().type;
    program = options.program;
    if (program == Program::automatic) program = stored == SequenceType::protein ? Program::blastp : Program::blastn;
    if (database_type(program, stored) != stored)
      throw std::invalid_argument(std::string("database ") + database.path() + " holds " + database.alphabet().name() +
                                  " sequences, but " + program_name(program) + " searches " +
                                  Alphabet::of(database_type(program, stored)).name() + " databases");
    // Translated programs score amino acids: a protein matrix whatever the database holds.
    const SequenceType scored = program == Program::blastn ? SequenceType::nucleotide : SequenceType::protein;
    if (scoring.matrix().type() != scored)
      throw std::invalid_argument(
          std::string("database ") + database.path() + " holds " + database.alphabet().name() +
          " sequences, but the scoring (" + scoring.matrix().name() + ") is for " +
          Alphabet::of(scoring.matrix().type()).name() +
          (scored != stored ? std::string(" and ") + program_name(program) + " scores proteins" : ""));
    query_code = &GeneticCode::ncbi(options.query_genetic_code);
    subject_code = &GeneticCode::ncbi(options.database_genetic_code);
    if (!options.subject_filter.empty() && options.subject_filter.size() != database.info().subjects)
      throw std::invalid_argument("internal error: a subject filter of " +
                                  std::to_string(options.subject_filter.size()) + " subjects for a database of " +
                                  std::to_string(database.info().subjects));
    // A translated database is searched as its six frames: BLAST counts its length as residues / 3. A
    // filtered search counts the subjects it searches, as BLAST sizes a database restricted by taxids.
    const auto [residues, subjects] = filtered_size();
    if (!options.raw_scores_only)
      statistics.emplace(scoring, translates_subjects(program) ? residues / 3 : residues, subjects);
    if (translates_query(program) || translates_subjects(program)) evalue_divisor = 1.0 - 0.1;
    if (options.composition_based_stats != 0 && program == Program::blastp && statistics &&
        CompositionAdjustment::supports(scoring))
      composition.emplace(scoring, composition_mode(options.composition_based_stats), options.composition_realignment,
                          options.max_evalue);
    admission_evalue = options.max_evalue * (composition ? CompositionAdjustment::kAdmissionFactor : 1.0);
    threads = threads_or_usable_cpus(options.threads);
    if (backend) return;
#ifdef WARPSEARCH_HAVE_CUDA
    // Translated subjects reach the GPU as in-memory chunks of frames, whose first positions (six times the
    // nucleotide chunk's) keep their resident sets apart from every other chunk's.
    if (gpu_wanted(options)) backend = make_gpu_backend(scoring, options.gpus, options.gpu_memory_limit, threads);
#else
    (void)gpu_wanted(options);
#endif
    if (!backend) backend = make_cpu_backend(scoring, threads);
  }

  // The lowest raw score a hit of this query may have: at least min_score, and low enough for any subject
  // length to reach an E-value within range. The E-value of each candidate that passes is then checked
  // exactly, with its subject's length. Subject lengths are sampled on a geometric grid (about 3% apart),
  // and the smallest threshold found is lowered by a margin that covers the scores between grid points.
  int threshold(std::size_t query_length) const {
    const int lowest = std::max(options.min_score, 1);
    if (!statistics) return lowest;
    const auto m = static_cast<std::uint32_t>(query_length);
    int admission = std::numeric_limits<int>::max();
    const double longest = translates_subjects(program) ? database.info().max_length / 3.0 : database.info().max_length;
    for (double n = 1; n < 2.0 * longest + 2; n *= 1.03) {
      const auto subject_length = static_cast<std::uint32_t>(n);
      int low = 1, high = 1;  // the smallest score with an E-value in range, by doubling then bisection
      while (statistics->evalue(high, m, subject_length) > admission_evalue && high < (1 << 28)) high *= 2;
      while (low < high) {
        const int middle = low + (high - low) / 2;
        if (statistics->evalue(middle, m, subject_length) <= admission_evalue)
          high = middle;
        else
          low = middle + 1;
      }
      admission = std::min(admission, low);
    }
    constexpr int kGridMargin = 3;
    return std::max(lowest, admission - kGridMargin);
  }

  // Residues and subjects of the database that the subject filter passes (all without one).
  std::pair<std::uint64_t, std::uint64_t> filtered_size() const {
    if (options.subject_filter.empty()) return {database.info().residues, database.info().subjects};
    const SubjectCount count = passing_size(database, options.subject_filter);
    return {count.residues, count.subjects};
  }

  // A part of a chunk as it is scanned: without a subject filter the part itself; with one, a selection
  // (Chunk::select) of the subjects that pass, each at positions[k] in the part. The filtered-out subjects
  // are never handed to the backend: the scan reads only the selected subjects' residues.
  struct ScannedPart {
    Chunk chunk;
    std::vector<std::uint64_t> positions;  // empty: the whole part, unfiltered
  };
  ScannedPart scanned_part(Chunk part) const {
    if (options.subject_filter.empty()) return {std::move(part), {}};
    std::vector<std::uint64_t> positions;
    const std::uint64_t* original = part.original_indices();
    for (std::size_t s = 0; s < part.size(); ++s)
      if (options.subject_filter[original[s]]) positions.push_back(s);
    Chunk selected = Chunk::select(std::move(part), positions);
    return {std::move(selected), std::move(positions)};
  }

  // The parts of chunk c that options.subjects covers, as (first, count) within the chunk.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> parts_of(std::size_t c) const {
    const ChunkInfo& info = database.info().chunks[c];
    if (options.subjects.empty()) return {{0, info.subjects}};
    std::vector<std::pair<std::uint64_t, std::uint64_t>> parts;
    for (const SubjectRange& range : options.subjects) {
      const std::uint64_t end = range.count > UINT64_MAX - range.first ? UINT64_MAX : range.first + range.count;
      const std::uint64_t low = std::max(info.first_subject, range.first);
      const std::uint64_t high = std::min(info.first_subject + info.subjects, end);
      if (low < high) parts.emplace_back(low - info.first_subject, high - low);
    }
    return parts;
  }

  Chunk part_of_chunk(std::size_t c, const std::pair<std::uint64_t, std::uint64_t>& part) const {
    if (part.first == 0 && part.second == database.info().chunks[c].subjects) return database.chunk(c);
    return database.chunk(c, part.first, part.second);
  }

  // Residues of the subjects this search covers.
  double searched_residues() const {
    if (options.subjects.empty() && options.subject_filter.empty())
      return static_cast<double>(database.info().residues);
    double residues = 0;
    for (std::size_t c = 0; c < database.num_chunks(); ++c)
      for (const auto& part : parts_of(c))
        residues += static_cast<double>(scanned_part(part_of_chunk(c, part)).chunk.info().residues);
    return residues;
  }

  // The E-value of a hit: blastp's finite-size corrected value for protein, the length-adjusted
  // Karlin-Altschul value for nucleotides (as blastn). 0 without statistics.
  double evalue(int score, std::size_t query_length, std::uint32_t subject_length) const {
    if (!statistics) return 0.0;
    return statistics->evalue(score, static_cast<std::uint32_t>(query_length), subject_length) / evalue_divisor;
  }

  std::vector<PreparedQuery> prepare(const std::vector<Query>& queries, std::size_t first, std::size_t last) const {
    const bool nucleotide = program == Program::blastn;
    // A translated query's frames take the longest frame's threshold (a lower threshold only lets more
    // candidates reach the exact E-value check).
    const auto threshold_length = [&](std::size_t q) {
      const std::size_t length = queries[first + q].codes.size();
      return translates_query(program) ? static_cast<std::size_t>(frame_length(length, 1)) : length;
    };
    const std::vector<int> thresholds = once_per_key<std::size_t, int>(
        last - first, threshold_length, [&](std::size_t length) { return length == 0 ? 0 : threshold(length); },
        threads);
    std::vector<PreparedQuery> prepared;
    for (std::size_t q = first; q < last; ++q) {
      const Query& query = queries[q];
      if (query.codes.empty()) continue;
      if (translates_query(program)) {
        // One prepared query per frame of the strands searched.
        const int frame_threshold = thresholds[q - first];
        for (int frame : kReadingFrames) {
          const Strand strand = frame > 0 ? Strand::plus : Strand::minus;
          if (options.strand != Strand::both && options.strand != strand) continue;
          std::string codes = translate_frame(query.codes, frame, *query_code);
          if (!codes.empty()) prepared.push_back({q, strand, std::move(codes), frame_threshold, frame});
        }
        continue;
      }
      const int query_threshold = thresholds[q - first];
      if (!nucleotide || options.strand != Strand::minus)
        prepared.push_back({q, Strand::plus, query.codes, query_threshold});
      if (nucleotide && options.strand != Strand::plus)
        prepared.push_back({q, Strand::minus, reverse_complement(query.codes, database.alphabet()), query_threshold});
    }
    return prepared;
  }

  // Time spent aligning hits: locating them on the backend, and all of it (locate and traceback).
  struct HitTimes {
    double locate_seconds = 0, seconds = 0, hot_columns_seconds = 0;
  };

  // The lowest score an HSP of this query length and subject length may have: min_score, and (with
  // statistics) an E-value within the cut-off.
  std::int64_t hsp_cutoff(std::size_t query_length, std::uint32_t subject_length) const {
    const std::int64_t lowest = std::max(options.min_score, 1);
    if (!statistics) return lowest;
    std::int64_t low = lowest, high = lowest;
    while (evalue(static_cast<int>(high), query_length, subject_length) > admission_evalue && high < (1 << 28))
      high *= 2;
    while (low < high) {
      const std::int64_t middle = low + (high - low) / 2;
      if (evalue(static_cast<int>(middle), query_length, subject_length) <= admission_evalue)
        high = middle;
      else
        low = middle + 1;
    }
    return high;
  }

  // The hot columns of the round's long subjects (kernels/cpu/long_subject.hpp): the backend's hit
  // regions where they are as fine (SubjectRegions::hot), else computed (on the backend or the CPU
  // threads) inside the regions where its scan found hits: hot[j] for job j, or nullptr.
  // subject_of(j): job j's searched subject (a translated frame for tblastn and tblastx, the regions
  // then those of that frame).
  template <class SubjectOf>
  std::vector<const std::vector<cpu::ColumnRange>*> hot_columns(const std::vector<PreparedQuery>& prepared,
                                                                const std::vector<HitJob>& round,
                                                                const SubjectOf& subject_of,
                                                                std::deque<std::vector<cpu::ColumnRange>>& computed,
                                                                std::vector<std::uint64_t>& reach) const;

  // The hits of one round: the HSPs of each job from the backend's spans (search/hsps.hpp), then the
  // traceback inside each span on the CPU threads, largest rectangle first. A job's best HSP must score
  // what the scan scored (a mismatch is a bug).
  void align_round(const std::vector<Query>& queries, const std::vector<PreparedQuery>& prepared,
                   const std::vector<HitJob>& round, const std::vector<std::string>& subjects, HitTimes& times);

  // One query batch's kept candidates: per query (relative to the batch), its candidates over its
  // strands, best first, at most max_target_seqs, each with its prepared strand.
  using Kept = std::vector<std::vector<std::pair<Candidate, std::size_t>>>;

  void keep_candidates(std::size_t q, const std::vector<std::vector<std::size_t>>& strands, std::deque<TopHits>& tops,
                       Kept& kept) const {
    auto& list = kept[q];
    for (const std::size_t p : strands[q])
      for (const Candidate& candidate : tops[p].sorted()) list.emplace_back(candidate, p);
    std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return ranks_before(a.first, b.first); });
    if (list.size() > options.max_target_seqs) list.resize(options.max_target_seqs);
  }

  // Aligns the kept candidates of the batch's queries `which` (relative to the batch, which starts at
  // query `first`) into results[q] (relative to the batch too): their subjects are read chunk by chunk (a subject hit
  // by several query strands once), the backend locates every hit of a round in one call (score, end and start), and
  // the CPU threads trace back inside each span. A round holds at most kRoundResidues subject residues (bounded
  // memory), rarely more than one per call.
  void align_kept(const std::vector<Query>& queries, std::size_t first, const std::vector<PreparedQuery>& prepared,
                  const Kept& kept, const std::vector<std::size_t>& which, std::vector<QueryResult>& results,
                  HitTimes& times);

  // Host bytes query q's aligned hits are expected to hold (SearchOptions::hit_memory), before they
  // are aligned: each kept candidate as one HSP spanning its query strand (operations, aligned subject
  // residues and, for a translated query, aligned query residues). The guess misses both ways (short
  // alignments, several HSPs per subject), so hit_bytes() scales it by what the queries aligned so far
  // in this search() actually held per byte guessed (held_bytes()).
  std::uint64_t guessed_hit_bytes(const Kept& kept, const std::vector<PreparedQuery>& prepared, std::size_t q) const {
    const std::uint64_t per_residue = translates_query(program) ? 3 : 2;
    std::uint64_t bytes = 0;
    for (const auto& entry : kept[q]) bytes += sizeof(Hit) + per_residue * prepared[entry.second].codes.size();
    return bytes;
  }
  std::uint64_t hit_bytes(const Kept& kept, const std::vector<PreparedQuery>& prepared, std::size_t q) const {
    const double guessed = static_cast<double>(guessed_hit_bytes(kept, prepared, q));
    const double scale = guessed_so_far > 0 ? std::max(held_so_far / guessed_so_far, 0.01) : 1.0;
    return static_cast<std::uint64_t>(std::min(guessed * scale, 1e19));
  }
  // The host bytes a result's hits hold (their records and the heap parts of their strings).
  static std::uint64_t held_bytes(const QueryResult& result) {
    std::uint64_t bytes = result.hits.capacity() * sizeof(Hit);
    for (const Hit& hit : result.hits)
      bytes += hit.operations.size() + hit.subject_aligned_codes.size() + hit.query_aligned_codes.size();
    return bytes;
  }
  // Over this search(): guessed_hit_bytes() and held_bytes() of the queries aligned.
  double guessed_so_far = 0, held_so_far = 0;

  // Hands a batch's results to the sink in query order, each as soon as it and every query before it
  // are aligned. Used by one thread at a time.
  class Emitter {
   public:
    Emitter(Impl& engine, std::size_t first, std::size_t count, const ResultSink& sink, ProgressFeed& feed)
        : engine_(engine), first_(first), results_(count), aligned_(count, false), sink_(sink), feed_(feed) {}

    std::vector<QueryResult>& results() { return results_; }
    std::size_t next() const { return next_; }
    std::uint64_t held() const { return held_; }

    // Query q (relative to the batch) is aligned; guessed: its guessed_hit_bytes().
    void aligned(std::size_t q, std::uint64_t guessed) {
      // Hits above the E-value cut-off were never kept, but min_score and the cut-off are re-applied to
      // the aligned hits too, as a guard.
      auto& hits = results_[q].hits;
      hits.erase(std::remove_if(hits.begin(), hits.end(),
                                [&](const Hit& h) {
                                  return h.score < engine_.options.min_score ||
                                         (engine_.statistics && h.evalue > engine_.options.max_evalue);
                                }),
                 hits.end());
      if (engine_.composition) order_by_evalue(hits);
      results_[q].query = first_ + q;
      aligned_[q] = true;
      const std::uint64_t bytes = held_bytes(results_[q]);
      engine_.guessed_so_far += static_cast<double>(guessed);
      engine_.held_so_far += static_cast<double>(bytes);
      held_ += bytes;
      held_bytes_.push_back({q, bytes});
      std::size_t handed = 0;
      while (next_ < results_.size() && aligned_[next_]) {
        QueryResult result = std::move(results_[next_]);
        results_[next_] = QueryResult{};
        if (sink_) sink_(std::move(result));
        ++next_;
        ++handed;
      }
      for (auto it = held_bytes_.begin(); it != held_bytes_.end();)
        if (it->first < next_) {
          held_ -= it->second;
          it = held_bytes_.erase(it);
        } else {
          ++it;
        }
      if (handed > 0) feed_.update([&](SearchProgress& progress) { progress.queries_aligned += handed; });
    }

   private:
    Impl& engine_;
    std::size_t first_;
    std::vector<QueryResult> results_;
    std::vector<bool> aligned_;
    const ResultSink& sink_;
    ProgressFeed& feed_;
    std::size_t next_ = 0;
    std::uint64_t held_ = 0;
    std::vector<std::pair<std::size_t, std::uint64_t>> held_bytes_;  // aligned, not handed: (query, bytes)
  };

  // The queries of `from` (ascending) to align next: a prefix of at most `most` whose hits fit the
  // memory budget beside what is held, at least one.
  std::size_t fitting_prefix(const Kept& kept, const std::vector<PreparedQuery>& prepared,
                             const std::vector<std::size_t>& from, std::uint64_t held,
                             std::size_t most = std::numeric_limits<std::size_t>::max()) const {
    const std::uint64_t budget = options.hit_memory ? options.hit_memory : UINT64_MAX;
    std::size_t count = 0;
    std::uint64_t bytes = held;
    while (count < std::min(from.size(), most)) {
      const std::uint64_t more = hit_bytes(kept, prepared, from[count]);
      if (count > 0 && (bytes >= budget || more > budget - bytes)) break;
      bytes = more > UINT64_MAX - bytes ? UINT64_MAX : bytes + more;
      ++count;
    }
    return count;
  }

  // Searches queries first to last - 1, their results to the sink in order (engine.cpp, through BatchSearch).
  class BatchSearch;
  void search_batch(const std::vector<Query>& queries, std::size_t first, std::size_t last, const ResultSink& sink,
                    ProgressFeed& feed);
};

}  // namespace warpsearch

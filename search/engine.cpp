// The search: prepare each query strand, scan the database chunk by chunk through a backend keeping the
// best candidates per query, then align the kept candidates (the backend locates them, exactly and with
// the reference's tie-break; the traceback inside each span runs on the CPU, so every backend reports the
// same alignments) and attach their statistics.
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

#include "core/genetic_code.hpp"
#include "base/interrupt.hpp"
#include "kernels/cpu/alignment.hpp"
#include "kernels/cpu/long_subject.hpp"
#include "search/composition.hpp"
#include "search/hsps.hpp"
#include "base/parallel.hpp"
#include "search/scan_backend.hpp"
#include "db/subject_filter.hpp"
#include "statistics/statistics.hpp"
#include "search/top_hits.hpp"
#include "search/translation.hpp"
#include "search/warpsearch.hpp"

namespace warpsearch {
namespace {

std::string reverse_complement(const std::string& codes, const Alphabet& alphabet) {
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

bool gpu_wanted(const SearchOptions& options) {
  if (options.device == Device::cpu) return false;
#ifdef WARPSEARCH_HAVE_CUDA
  if (options.device == Device::gpu) return true;
  return usable_gpu_count() > 0;
#else
  if (options.device == Device::gpu)
    throw std::invalid_argument("--device gpu: no usable GPU, this warpsearch was built without CUDA (rebuild with -DWARPSEARCH_CUDA=ON)");
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

}  // namespace

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
      throw std::invalid_argument(std::string("database ") + database.path() + " holds " +
                                  database.alphabet().name() + " sequences, but the scoring (" +
                                  scoring.matrix().name() + ") is for " +
                                  Alphabet::of(scoring.matrix().type()).name() +
                                  (scored != stored ? std::string(" and ") + program_name(program) + " scores proteins"
                                                    : ""));
    query_code = &GeneticCode::ncbi(options.query_genetic_code);
    subject_code = &GeneticCode::ncbi(options.database_genetic_code);
    if (!options.subject_filter.empty() && options.subject_filter.size() != database.info().subjects)
      throw std::invalid_argument("internal error: a subject filter of " + std::to_string(options.subject_filter.size()) +
                                  " subjects for a database of " + std::to_string(database.info().subjects));
    // A translated database is searched as its six frames: BLAST counts its length as residues / 3. A
    // filtered search counts the subjects it searches, as BLAST sizes a database restricted by taxids.
    const auto [residues, subjects] = filtered_size();
    if (!options.raw_scores_only)
      statistics.emplace(scoring, translates_subjects(program) ? residues / 3 : residues, subjects);
    if (translates_query(program) || translates_subjects(program)) evalue_divisor = 1.0 - 0.1;
    if (options.composition_based_stats != 0 && program == Program::blastp && statistics &&
        CompositionAdjustment::supports(scoring))
      composition.emplace(scoring, composition_mode(options.composition_based_stats));
    admission_evalue = options.max_evalue * (composition ? CompositionAdjustment::kAdmissionFactor : 1.0);
    threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    if (backend) return;
#ifdef WARPSEARCH_HAVE_CUDA
    // Translated subjects reach the GPU as in-memory chunks of frames, whose first positions (six times the
    // nucleotide chunk's) keep their resident sets apart from every other chunk's.
    if (gpu_wanted(options))
      backend = make_gpu_backend(scoring, options.gpus, options.gpu_memory_limit, threads);
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
        if (statistics->evalue(middle, m, subject_length) <= admission_evalue) high = middle;
        else low = middle + 1;
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
    if (options.subjects.empty() && options.subject_filter.empty()) return static_cast<double>(database.info().residues);
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
    std::vector<PreparedQuery> prepared;
    for (std::size_t q = first; q < last; ++q) {
      const Query& query = queries[q];
      if (query.codes.empty()) continue;
      if (translates_query(program)) {
        // One prepared query per frame of the strands searched; the longest frame's threshold for all
        // (a lower threshold only lets more candidates reach the exact E-value check).
        const int frame_threshold = threshold(static_cast<std::size_t>(frame_length(query.codes.size(), 1)));
        for (int frame : kReadingFrames) {
          const Strand strand = frame > 0 ? Strand::plus : Strand::minus;
          if (options.strand != Strand::both && options.strand != strand) continue;
          std::string codes = translate_frame(query.codes, frame, *query_code);
          if (!codes.empty()) prepared.push_back({q, strand, std::move(codes), frame_threshold, frame});
        }
        continue;
      }
      const int query_threshold = threshold(query.codes.size());
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
      if (evalue(static_cast<int>(middle), query_length, subject_length) <= admission_evalue) high = middle;
      else low = middle + 1;
    }
    return high;
  }

  // The hot columns of the round's long subjects (kernels/cpu/long_subject.hpp), computed on the CPU
  // threads inside the regions where the backend's scan found hits: hot[j] for job j, or nullptr.
  // subject_of(j): job j's searched subject (a translated frame for tblastn and tblastx, whose scan
  // regions are not kept: translated).
  template <class SubjectOf>
  std::vector<const std::vector<cpu::ColumnRange>*> hot_columns(const std::vector<PreparedQuery>& prepared,
                                                                const std::vector<HitJob>& round,
                                                                const SubjectOf& subject_of, bool translated,
                                                                std::deque<std::vector<cpu::ColumnRange>>& computed,
                                                                std::vector<std::uint64_t>& reach) const {
    std::vector<const std::vector<cpu::ColumnRange>*> hot(round.size(), nullptr);
    reach.assign(round.size(), 0);
    struct Task {
      std::size_t job;
      cpu::SubjectSegment segment;
    };
    std::vector<Task> tasks;
    for (std::size_t j = 0; j < round.size(); ++j) {
      const PreparedQuery& query = prepared[round[j].prepared];
      const std::string& subject = subject_of(j);
      if (subject.size() < kLongSubjectLength) continue;
      reach[j] = cpu::alignment_reach(query.codes.size(), scoring, query.threshold);
      if (reach[j] == 0) continue;
      // Only the regions the scan found hits in, when the backend knows them; each with its context.
      const std::vector<cpu::ColumnRange>* regions =
          translated ? nullptr : backend->hit_regions(round[j].prepared, round[j].candidate->subject);
      const std::vector<cpu::ColumnRange> whole{{0, subject.size()}};
      const std::uint64_t segment_length = cpu::segment_length_for(reach[j]);
      for (const cpu::ColumnRange& region : regions ? *regions : whole)
        for (std::uint64_t first = region.begin; first < region.end; first += segment_length)
          tasks.push_back({j, {first > reach[j] - 1 ? first - (reach[j] - 1) : 0, first,
                               std::min(region.end, first + segment_length)}});
    }
    if (tasks.empty()) return hot;
    std::vector<cpu::ColumnScan> scans(tasks.size());
    // On the backend where it can (a GPU), else on the CPU threads.
    std::vector<HotColumnRequest> requests;
    requests.reserve(tasks.size());
    for (const Task& task : tasks) {
      const PreparedQuery& query = prepared[round[task.job].prepared];
      requests.push_back({query.codes, subject_of(task.job), task.segment, query.threshold, reach[task.job]});
    }
    std::vector<std::vector<cpu::ColumnRange>> backend_hot;
    if (backend->hot_columns(requests, backend_hot)) {
      for (std::size_t t = 0; t < tasks.size(); ++t) scans[t].hot = std::move(backend_hot[t]);
    } else {
      std::map<std::size_t, cpu::StripedScorer> scorers;
      for (const Task& task : tasks)
        if (!scorers.count(round[task.job].prepared))
          scorers.emplace(round[task.job].prepared,
                          cpu::StripedScorer(prepared[round[task.job].prepared].codes, scoring));
      parallel_for(tasks.size(), threads, [&](std::size_t t, unsigned) {
        throw_if_interrupted();
        const HitJob& job = round[tasks[t].job];
        scans[t] = cpu::scan_segment(scorers.at(job.prepared), subject_of(tasks[t].job), tasks[t].segment,
                                     prepared[job.prepared].threshold);
      });
    }
    for (std::size_t t = 0; t < tasks.size();) {
      std::size_t end = t;
      while (end < tasks.size() && tasks[end].job == tasks[t].job) ++end;
      computed.push_back(cpu::join_segments(std::vector<cpu::ColumnScan>(
                                                scans.begin() + static_cast<std::ptrdiff_t>(t),
                                                scans.begin() + static_cast<std::ptrdiff_t>(end)))
                             .hot);
      hot[tasks[t].job] = &computed.back();
      t = end;
    }
    return hot;
  }

  // The hits of one round: the HSPs of each job from the backend's spans (search/hsps.hpp), then the
  // traceback inside each span on the CPU threads, largest rectangle first. A job's best HSP must score
  // what the scan scored (a mismatch is a bug).
  void align_round(const std::vector<Query>& queries, const std::vector<PreparedQuery>& prepared,
                   const std::vector<HitJob>& round, const std::vector<std::string>& subjects, HitTimes& times) {
    if (round.empty()) return;
    const auto locate_started = std::chrono::steady_clock::now();
    // Translated subjects: each hit's subject frame (the round holds the nucleotide subjects).
    std::vector<std::string> frames;
    if (translates_subjects(program)) {
      frames.resize(round.size());
      parallel_for(round.size(), threads, [&](std::size_t j, unsigned) {
        frames[j] = translate_frame(subjects[round[j].subject], round[j].candidate->subject_frame, *subject_code);
      });
    }
    const auto searched_subject = [&](std::size_t j) -> const std::string& {
      return frames.empty() ? subjects[round[j].subject] : frames[j];
    };
    // The subject length the statistics use: a translated subject counts a third of its bases.
    const auto statistics_length = [&](std::size_t j) {
      const std::size_t length = subjects[round[j].subject].size();
      return static_cast<std::uint32_t>(frames.empty() ? length : length / 3);
    };
    std::deque<std::vector<cpu::ColumnRange>> computed_hot;
    std::vector<std::uint64_t> reach;
    const auto hot_started = std::chrono::steady_clock::now();
    const auto hot = hot_columns(prepared, round, searched_subject, !frames.empty(), computed_hot, reach);
    times.hot_columns_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - hot_started).count();
    std::vector<HspRequest> requests;
    requests.reserve(round.size());
    for (std::size_t j = 0; j < round.size(); ++j) {
      const std::string& codes = prepared[round[j].prepared].codes;
      requests.push_back({codes, searched_subject(j), hsp_cutoff(codes.size(), statistics_length(j)), options.max_hsps,
                          hot[j], reach[j]});
    }
    const std::vector<std::vector<HitSpan>> hsps = find_hsps(
        requests, [&](const std::vector<HitPair>& pairs, std::vector<HitSpan>& spans) { backend->locate(pairs, spans); },
        scoring.matrix().max_score());
    times.locate_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - locate_started).count();
    struct Piece {
      std::size_t job;
      HitSpan span;
    };
    std::vector<Piece> pieces;
    for (std::size_t j = 0; j < round.size(); ++j) {
      const Candidate& candidate = *round[j].candidate;
      const std::int64_t best = hsps[j].empty() ? 0 : hsps[j].front().score;
      if (best != candidate.score)
        throw std::logic_error("internal error: the alignment of query " + queries[prepared[round[j].prepared].query].id +
                               " and subject #" + std::to_string(candidate.subject) + " scores " +
                               std::to_string(best) + " but the scan scored " + std::to_string(candidate.score));
      round[j].hits->resize(hsps[j].size());
      for (const HitSpan& span : hsps[j]) pieces.push_back({j, span});
    }
    const auto area = [&](std::size_t k) {
      return static_cast<double>(pieces[k].span.query_end - pieces[k].span.query_begin) *
             static_cast<double>(pieces[k].span.subject_end - pieces[k].span.subject_begin);
    };
    std::vector<std::size_t> order(pieces.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return area(a) > area(b); });
    // Each piece's place among its job's hits.
    std::vector<std::size_t> place(pieces.size());
    for (std::size_t k = 0, run = 0; k < pieces.size(); ++k) {
      run = k > 0 && pieces[k].job == pieces[k - 1].job ? run + 1 : 0;
      place[k] = run;
    }
    throw_if_interrupted();
    parallel_for(pieces.size(), threads, [&](std::size_t n, unsigned) {
      if ((n & 63) == 0) throw_if_interrupted();
      const std::size_t k = order[n];
      const HitJob& job = round[pieces[k].job];
      const Candidate& candidate = *job.candidate;
      const std::string& query_codes = prepared[job.prepared].codes;
      const std::string& subject = searched_subject(pieces[k].job);
      const cpu::PairAlignment alignment = cpu::align_in_rectangle(query_codes, subject, scoring, pieces[k].span);
      Hit& hit = (*job.hits)[place[k]];
      hit.subject = candidate.subject;
      hit.subject_length = static_cast<std::uint32_t>(subjects[job.subject].size());
      hit.query_frame = candidate.query_frame;
      hit.subject_frame = candidate.subject_frame;
      if (hit.query_frame != 0)
        hit.query_aligned_codes = prepared[job.prepared].codes.substr(alignment.query_begin,
                                                                      alignment.query_end - alignment.query_begin);
      hit.strand = candidate.strand;
      hit.score = static_cast<int>(pieces[k].span.score);
      hit.evalue = statistics ? evalue(hit.score, query_codes.size(), statistics_length(pieces[k].job)) : std::nan("");
      hit.bitscore = statistics ? statistics->bitscore(hit.score) : std::nan("");
      hit.query_begin = alignment.query_begin;
      hit.query_end = alignment.query_end;
      hit.subject_begin = alignment.subject_begin;
      hit.subject_end = alignment.subject_end;
      hit.operations = alignment.operations;
      hit.identities = alignment.identities;
      hit.mismatches = alignment.mismatches;
      hit.gap_opens = alignment.gap_opens;
      hit.gaps = alignment.gaps;
      hit.subject_aligned_codes = subject.substr(alignment.subject_begin, alignment.subject_end - alignment.subject_begin);
    });
    if (composition)
      parallel_for(round.size(), threads, [&](std::size_t j, unsigned) {
        const std::string& query_codes = prepared[round[j].prepared].codes;
        composition->rescore(query_codes, composition_of(query_codes), searched_subject(j), *round[j].hits,
                             *statistics, evalue_divisor);
      });
  }

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
  // query `first`) into results[q] (relative to the batch too): their subjects are read chunk by chunk (a subject hit by several query strands
  // once), the backend locates every hit of a round in one call (score, end and start), and the CPU
  // threads trace back inside each span. A round holds at most kRoundResidues subject residues (bounded
  // memory), rarely more than one per call.
  void align_kept(const std::vector<Query>& queries, std::size_t first, const std::vector<PreparedQuery>& prepared,
                  const Kept& kept, const std::vector<std::size_t>& which, std::vector<QueryResult>& results,
                  HitTimes& times) {
    const auto started = std::chrono::steady_clock::now();
    std::vector<std::vector<HitJob>> jobs_by_chunk(database.num_chunks());
    // The HSPs of each query's kept candidates, in candidate order.
    std::vector<std::vector<std::vector<Hit>>> slots(which.size());
    for (std::size_t w = 0; w < which.size(); ++w) {
      const std::size_t q = which[w];
      results[q].query = first + q;
      slots[w].resize(kept[q].size());
      for (std::size_t slot = 0; slot < kept[q].size(); ++slot) {
        const Candidate& candidate = kept[q][slot].first;
        jobs_by_chunk[candidate.chunk].push_back({&slots[w][slot], kept[q][slot].second, &candidate, 0});
      }
    }
    std::vector<HitJob> round;
    std::vector<std::string> subjects;
    std::uint64_t round_residues = 0;
    for (std::size_t c = 0; c < jobs_by_chunk.size(); ++c) {
      auto& jobs = jobs_by_chunk[c];
      if (jobs.empty()) continue;
      throw_if_interrupted();
      const Chunk chunk = database.chunk(c);
      std::sort(jobs.begin(), jobs.end(), [](const HitJob& a, const HitJob& b) {
        return a.candidate->index_in_chunk < b.candidate->index_in_chunk;
      });
      std::vector<std::uint64_t> indices;  // the chunk's distinct subjects, in order
      for (HitJob& job : jobs) {
        if (indices.empty() || indices.back() != job.candidate->index_in_chunk)
          indices.push_back(job.candidate->index_in_chunk);
        job.subject = subjects.size() + indices.size() - 1;
        round.push_back(job);
      }
      const std::size_t offset = subjects.size();
      subjects.resize(offset + indices.size());
      parallel_for(indices.size(), threads, [&](std::size_t i, unsigned) {
        subjects[offset + i] = chunk.subject_codes(static_cast<std::size_t>(indices[i]));
      });
      for (std::size_t i = 0; i < indices.size(); ++i) round_residues += subjects[offset + i].size();
      if (round_residues >= kRoundResidues) {
        align_round(queries, prepared, round, subjects, times);
        round.clear();
        subjects.clear();
        round_residues = 0;
      }
    }
    align_round(queries, prepared, round, subjects, times);
    // A subject's hits together (both strands of a DNA subject, as BLAST lists them), subjects in the
    // order of their best hit.
    for (std::size_t w = 0; w < which.size(); ++w) {
      auto& hits = results[which[w]].hits;
      hits.clear();
      std::vector<std::size_t> order(slots[w].size());
      std::iota(order.begin(), order.end(), std::size_t{0});
      std::map<std::uint64_t, std::size_t> first_slot;
      for (std::size_t slot = 0; slot < slots[w].size(); ++slot)
        if (!slots[w][slot].empty()) first_slot.emplace(slots[w][slot].front().subject, slot);
      const auto group = [&](std::size_t slot) {
        return slots[w][slot].empty() ? slot : first_slot.at(slots[w][slot].front().subject);
      };
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return group(a) < group(b); });
      for (const std::size_t slot : order)
        for (Hit& hit : slots[w][slot]) hits.push_back(std::move(hit));
    }
    times.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }

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

  void search_batch(const std::vector<Query>& queries, std::size_t first, std::size_t last, const ResultSink& sink,
                    ProgressFeed& feed) {
    const std::vector<PreparedQuery> prepared = prepare(queries, first, last);
    std::deque<TopHits> tops;  // TopHits holds a mutex: it never moves
    for (std::size_t i = 0; i < prepared.size(); ++i) tops.emplace_back(options.max_target_seqs);
    std::vector<std::vector<std::size_t>> strands(last - first);  // each query's prepared strands
    for (std::size_t p = 0; p < prepared.size(); ++p) strands[prepared[p].query - first].push_back(p);

    double batch_residues = 0;
    for (const auto& query : prepared) batch_residues += static_cast<double>(query.codes.size());
    using Clock = std::chrono::steady_clock;
    const auto seconds_since = [](Clock::time_point start) {
      return std::chrono::duration<double>(Clock::now() - start).count();
    };
    Emitter emitter(*this, first, last - first, sink, feed);
    std::vector<QueryResult>& results = emitter.results();
    const std::uint64_t budget = options.hit_memory ? options.hit_memory : UINT64_MAX;

    // Where the backend can locate hits while it scans (a GPU: the CPU cores are free), a query's hits
    // are aligned on a worker thread as soon as its scan is done: its candidates are final once the
    // last part of the database has been scored for all its strands. The rest of the scan then hides
    // that work. Candidate selection across ranks (select_candidates) needs every query's candidates
    // first, so it aligns after the scan. The worker takes the ready queries in query order, no more
    // than the memory budget holds beside the hits waiting for an earlier query; once the budget is
    // full it waits for the earliest query not handed to the sink.
    Kept kept(last - first);
    HitTimes worker_times;
    const bool overlap = backend->locates_while_scanning() && !options.select_candidates;
    std::mutex mutex;
    std::condition_variable wake;
    std::vector<std::size_t> ready;  // queries whose scan is done, not yet taken by the worker
    bool scan_over = false;
    std::exception_ptr worker_error;
    std::atomic<bool> worker_failed{false};
    std::thread worker;
    if (overlap)
      worker = std::thread([&] {
        try {
          std::vector<bool> candidates_kept(last - first, false);
          for (;;) {
            std::vector<std::size_t> taken;
            {
              std::unique_lock<std::mutex> lock(mutex);
              const auto can_take = [&] {
                if (ready.empty()) return false;
                if (emitter.held() < budget) return true;
                return std::find(ready.begin(), ready.end(), emitter.next()) != ready.end();
              };
              // Once the scan is over every query has been handed over, so the earliest one not yet
              // aligned is ready (unless the scan ended by an exception: then the worker stops).
              wake.wait(lock, [&] { return can_take() || scan_over; });
              if (!can_take()) return;
              taken.swap(ready);
            }
            std::sort(taken.begin(), taken.end());
            for (const std::size_t q : taken)
              if (!candidates_kept[q]) {
                keep_candidates(q, strands, tops, kept);
                candidates_kept[q] = true;
              }
            std::size_t count = 1;  // the budget full: only the earliest query (the one the sink waits for)
            if (emitter.held() < budget) count = fitting_prefix(kept, prepared, taken, emitter.held());
            {
              std::lock_guard<std::mutex> lock(mutex);
              ready.insert(ready.end(), taken.begin() + static_cast<std::ptrdiff_t>(count), taken.end());
            }
            taken.resize(count);
            align_kept(queries, first, prepared, kept, taken, results, worker_times);
            for (const std::size_t q : taken) {
              emitter.aligned(q, guessed_hit_bytes(kept, prepared, q));
              kept[q] = {};
            }
          }
        } catch (...) {
          worker_error = std::current_exception();
          worker_failed = true;
        }
      });
    // Ends the worker on every path out of the scan, exceptions included.
    struct WorkerJoin {
      std::mutex& mutex;
      std::condition_variable& wake;
      bool& scan_over;
      std::thread& worker;
      void finish() {
        if (!worker.joinable()) return;
        {
          std::lock_guard<std::mutex> lock(mutex);
          scan_over = true;
        }
        wake.notify_one();
        worker.join();
      }
      ~WorkerJoin() { finish(); }
    } join_worker{mutex, wake, scan_over, worker};
    std::vector<int> strands_left(last - first);
    for (std::size_t q = 0; q < strands.size(); ++q) strands_left[q] = static_cast<int>(strands[q].size());
    std::vector<bool> handed(last - first, false);
    const auto hand_over = [&](std::vector<std::size_t> done_queries) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        for (const std::size_t q : done_queries) {
          handed[q] = true;
          ready.push_back(q);
        }
      }
      wake.notify_one();
    };

    const auto scan_started = Clock::now();
    backend->set_queries(prepared);
    std::atomic<std::uint64_t>& live_cells = feed.live_cells();
    const bool backend_counts = backend->count_cells(&live_cells);
    struct StopCounting {
      ScanBackend& backend;
      ~StopCounting() { backend.count_cells(nullptr); }
    } stop_counting{*backend};
    std::vector<std::pair<std::size_t, std::pair<std::uint64_t, std::uint64_t>>> parts;  // (chunk, part)
    for (std::size_t c = 0; c < database.num_chunks(); ++c)
      for (const auto& part : parts_of(c)) parts.emplace_back(c, part);
    for (std::size_t n = 0; n < parts.size(); ++n) {
      throw_if_interrupted();
      if (worker_failed) break;
      const std::size_t c = parts[n].first;
      const auto& part = parts[n].second;
      const ScannedPart scanned = scanned_part(part_of_chunk(c, part));
      const Chunk& stored = scanned.chunk;
      const bool final_part = n + 1 == parts.size();
      // A part the filter empties is not scanned; its queries are aligned after the scan.
      if (stored.size() == 0) continue;
      // tblastn, tblastx: the part's subjects are scanned as their six frames.
      std::optional<TranslatedChunk> translated;
      if (translates_subjects(program)) translated = translate_chunk(stored, *subject_code, threads);
      const Chunk& chunk = translated ? translated->chunk : stored;
      const std::uint64_t* original = chunk.original_indices();
      const std::uint32_t* lengths = chunk.lengths();
      const std::uint32_t* stored_lengths = stored.lengths();
      const std::uint64_t chunk_residues = chunk.info().residues;
      feed.begin_part(batch_residues * static_cast<double>(chunk_residues));
      // A filtered part is a selection made when it is scanned: nothing to load ahead.
      backend->upcoming(final_part || translated || !options.subject_filter.empty()
                            ? std::nullopt
                            : std::optional<Chunk>(part_of_chunk(parts[n + 1].first, parts[n + 1].second)));
      backend->scan(
          chunk,
          [&](std::size_t p, std::uint64_t s, int score) {
            const std::uint64_t index = translated ? translated->source[s] : s;
            // BLAST's length of a translated subject, whatever the frame: a third of its bases.
            const double e =
                evalue(score, prepared[p].codes.size(), translated ? stored_lengths[index] / 3 : lengths[s]);
            if (statistics && e > admission_evalue) return;
            const std::int8_t subject_frame = translated ? translated->frame[s] : std::int8_t{0};
            const std::uint64_t in_part = scanned.positions.empty() ? index : scanned.positions[index];
            tops[p].offer({score, e, original[s], prepared[p].strand, static_cast<std::uint32_t>(c), part.first + in_part,
                           static_cast<std::int8_t>(prepared[p].frame), subject_frame});
          },
          [&](std::size_t p) {
            if (!backend_counts)
              live_cells.fetch_add(prepared[p].codes.size() * chunk_residues, std::memory_order_relaxed);
            if (!overlap || !final_part) return;
            const std::size_t q = prepared[p].query - first;
            bool query_done;
            {
              std::lock_guard<std::mutex> lock(mutex);
              query_done = --strands_left[q] == 0;
            }
            if (query_done) hand_over({q});
          });
      feed.end_part();
    }
    const double scan_seconds = seconds_since(scan_started);
    feed.update([&](SearchProgress& progress) { progress.scan_seconds += scan_seconds; });
    const auto align_started = Clock::now();

    // The queries not handed over (no overlap, no strands, nothing scanned) are aligned now.
    std::vector<std::size_t> rest;
    for (std::size_t q = 0; q < handed.size(); ++q)
      if (!handed[q]) rest.push_back(q);
    if (overlap) {
      hand_over(rest);
      join_worker.finish();
      if (worker_error) std::rethrow_exception(worker_error);
    } else {
      for (const std::size_t q : rest) keep_candidates(q, strands, tops, kept);
      if (options.select_candidates) {
        std::vector<std::vector<CandidateKey>> keys(kept.size());
        for (std::size_t q = 0; q < kept.size(); ++q)
          for (const auto& entry : kept[q]) keys[q].push_back(key_of(entry.first));
        const std::vector<std::size_t> keep = options.select_candidates(keys);
        if (keep.size() != kept.size())
          throw std::logic_error("internal error: the candidate selection answered for " + std::to_string(keep.size()) +
                                 " queries, not " + std::to_string(kept.size()));
        for (std::size_t q = 0; q < kept.size(); ++q)
          kept[q].erase(kept[q].begin() + static_cast<std::ptrdiff_t>(std::min(kept[q].size(), keep[q])), kept[q].end());
      }
      // In parts that fit the memory budget (and kPartQueries), each handed to the sink as soon as it
      // is aligned.
      for (std::size_t from = 0; from < rest.size();) {
        const std::vector<std::size_t> remaining(rest.begin() + static_cast<std::ptrdiff_t>(from), rest.end());
        const std::size_t count = fitting_prefix(kept, prepared, remaining, 0, kPartQueries);
        const std::vector<std::size_t> part(remaining.begin(), remaining.begin() + static_cast<std::ptrdiff_t>(count));
        align_kept(queries, first, prepared, kept, part, results, worker_times);
        throw_if_interrupted();
        for (const std::size_t q : part) {
          emitter.aligned(q, guessed_hit_bytes(kept, prepared, q));
          kept[q] = {};
        }
        from += count;
      }
    }
    throw_if_interrupted();
    if (emitter.next() != last - first)
      throw std::logic_error("internal error: " + std::to_string(last - first - emitter.next()) +
                             " queries of a batch were not aligned");
    const double align_seconds = seconds_since(align_started);
    feed.update([&](SearchProgress& progress) {
      progress.align_seconds += align_seconds;
      progress.hits_seconds += worker_times.seconds;
      progress.locate_seconds += worker_times.locate_seconds;
      progress.hot_columns_seconds += worker_times.hot_columns_seconds;
      progress.queries_done += last - first;
    });
  }
};

SearchEngine::SearchEngine(const Database& database, ScoringScheme scoring, SearchOptions options)
    : impl_(std::make_unique<Impl>(database, std::move(scoring), std::move(options))) {}
SearchEngine::SearchEngine(const Database& database, ScoringScheme scoring, SearchOptions options,
                           std::unique_ptr<ScanBackend> backend)
    : impl_(std::make_unique<Impl>(database, std::move(scoring), std::move(options), std::move(backend))) {}
SearchEngine::SearchEngine(SearchEngine&&) noexcept = default;
SearchEngine::~SearchEngine() = default;

std::vector<QueryResult> SearchEngine::search(const std::vector<Query>& queries, const ProgressCallback& progress) {
  std::vector<QueryResult> results;
  results.reserve(queries.size());
  search(queries, [&](QueryResult&& result) { results.push_back(std::move(result)); }, progress);
  return results;
}

void SearchEngine::search(const std::vector<Query>& queries, const ResultSink& sink, const ProgressCallback& progress) {
  SearchProgress state;
  state.queries_total = queries.size();
  const Program program = impl_->program;
  const bool both_strands = impl_->options.strand == Strand::both;
  // Cells of the strands or frames searched: a translated sequence counts about a third of its bases
  // per frame, three frames per strand.
  const double strands = program == Program::blastn || translates_query(program) ? (both_strands ? 2.0 : 1.0) : 1.0;
  const double residues = impl_->searched_residues() * (translates_subjects(program) ? 2.0 : 1.0);
  for (const auto& query : queries)
    state.cells_total += static_cast<double>(query.codes.size()) * strands * residues;
  ProgressFeed feed(progress, state);
  impl_->guessed_so_far = impl_->held_so_far = 0;
  const std::size_t batch = std::max<std::size_t>(impl_->options.query_batch, 1);
  for (std::size_t first = 0; first < queries.size(); first += batch)
    impl_->search_batch(queries, first, std::min(queries.size(), first + batch), sink, feed);
}

std::string SearchEngine::backend_description() const { return impl_->backend->description(); }

}  // namespace warpsearch

// The search: prepare each query strand, scan the database chunk by chunk through a backend keeping the
// best candidates per query, then align the kept candidates (the backend locates them, exactly and with
// the reference's tie-break; the traceback inside each span runs on the CPU, so every backend reports the
// same alignments) and attach their statistics.
#include "search/engine_impl.hpp"

namespace warpsearch {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

// One batch of queries searched: the state that the scan, the worker aligning hits during the scan and
// the alignment after the scan share.
//
// Where the backend can locate hits while it scans (a GPU: the CPU cores are free), a query's hits are
// aligned on a worker thread as soon as its scan is done: its candidates are final once the last part of
// the database has been scored for all its strands. The rest of the scan then hides that work. Candidate
// selection across ranks (select_candidates) needs every query's candidates first, so it aligns after
// the scan. The worker takes the ready queries in query order, no more than the memory budget holds
// beside the hits waiting for an earlier query; once the budget is full it waits for the earliest query
// not handed to the sink.
class SearchEngine::Impl::BatchSearch {
 public:
  BatchSearch(Impl& engine, const std::vector<Query>& queries, std::size_t first, std::size_t last,
              const ResultSink& sink, ProgressFeed& feed)
      : engine_(engine),
        queries_(queries),
        first_(first),
        count_(last - first),
        feed_(feed),
        prepared_(engine.prepare(queries, first, last)),
        strands_(count_),
        emitter_(engine, first, count_, sink, feed),
        budget_(engine.options.hit_memory ? engine.options.hit_memory : UINT64_MAX),
        kept_(count_),
        overlap_(engine.backend->locates_while_scanning() && !engine.options.select_candidates),
        strands_left_(count_),
        handed_(count_, false) {
    for (std::size_t i = 0; i < prepared_.size(); ++i) tops_.emplace_back(engine.options.max_target_seqs);
    for (std::size_t p = 0; p < prepared_.size(); ++p) strands_[prepared_[p].query - first].push_back(p);
    for (const auto& query : prepared_) batch_residues_ += static_cast<double>(query.codes.size());
    for (std::size_t q = 0; q < strands_.size(); ++q) strands_left_[q] = static_cast<int>(strands_[q].size());
  }
  BatchSearch(const BatchSearch&) = delete;
  BatchSearch& operator=(const BatchSearch&) = delete;
  // Ends the worker on every path out of the scan, exceptions included.
  ~BatchSearch() { finish_worker(); }

  // Scans, aligns every query's hits and hands the results to the sink in query order.
  void run() {
    if (overlap_) worker_ = std::thread([this] { align_during_scan(); });
    const auto scan_started = Clock::now();
    scan();
    const double scan_seconds = seconds_since(scan_started);
    feed_.update([&](SearchProgress& progress) { progress.scan_seconds += scan_seconds; });
    const auto align_started = Clock::now();
    align_after_scan();
    throw_if_interrupted();
    if (emitter_.next() != count_)
      throw std::logic_error("internal error: " + std::to_string(count_ - emitter_.next()) +
                             " queries of a batch were not aligned");
    const double align_seconds = seconds_since(align_started);
    feed_.update([&](SearchProgress& progress) {
      progress.align_seconds += align_seconds;
      progress.hits_seconds += worker_times_.seconds;
      progress.locate_seconds += worker_times_.locate_seconds;
      progress.hot_columns_seconds += worker_times_.hot_columns_seconds;
      progress.queries_done += count_;
    });
  }

 private:
  using Part = std::pair<std::uint64_t, std::uint64_t>;  // a part of a chunk (part_of_chunk)

  // The worker's loop: the queries handed over, aligned in query order as the budget allows, until the
  // scan is over and none is left. An exception stops it; the scan then stops and rethrows it.
  void align_during_scan() {
    try {
      std::vector<bool> candidates_kept(count_, false);
      for (;;) {
        std::vector<std::size_t> taken;
        if (!take_ready(taken)) return;
        std::sort(taken.begin(), taken.end());
        for (const std::size_t q : taken)
          if (!candidates_kept[q]) {
            engine_.keep_candidates(q, strands_, tops_, kept_);
            candidates_kept[q] = true;
          }
        std::size_t count = 1;  // the budget full: only the earliest query (the one the sink waits for)
        if (emitter_.held() < budget_) count = engine_.fitting_prefix(kept_, prepared_, taken, emitter_.held());
        {
          std::lock_guard<std::mutex> lock(mutex_);
          ready_.insert(ready_.end(), taken.begin() + static_cast<std::ptrdiff_t>(count), taken.end());
        }
        taken.resize(count);
        engine_.align_kept(queries_, first_, prepared_, kept_, taken, emitter_.results(), worker_times_);
        emit_aligned(taken);
      }
    } catch (...) {
      worker_error_ = std::current_exception();
      worker_failed_ = true;
    }
  }

  // Waits until the worker may take some of the ready queries, and takes them all; false when the scan
  // is over and there is nothing to take.
  bool take_ready(std::vector<std::size_t>& taken) {
    std::unique_lock<std::mutex> lock(mutex_);
    const auto can_take = [&] {
      if (ready_.empty()) return false;
      if (emitter_.held() < budget_) return true;
      return std::find(ready_.begin(), ready_.end(), emitter_.next()) != ready_.end();
    };
    // Once the scan is over every query has been handed over, so the earliest one not yet aligned is
    // ready (unless the scan ended by an exception: then the worker stops).
    wake_.wait(lock, [&] { return can_take() || scan_over_; });
    if (!can_take()) return false;
    taken.swap(ready_);
    return true;
  }

  // Tells the worker that the scan is over and waits for it.
  void finish_worker() {
    if (!worker_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      scan_over_ = true;
    }
    wake_.notify_one();
    worker_.join();
  }

  // Hands queries whose scan is done to the worker.
  void hand_over(const std::vector<std::size_t>& done_queries) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const std::size_t q : done_queries) {
        handed_[q] = true;
        ready_.push_back(q);
      }
    }
    wake_.notify_one();
  }

  // The aligned queries' results to the emitter, their candidates dropped.
  void emit_aligned(const std::vector<std::size_t>& aligned) {
    for (const std::size_t q : aligned) {
      emitter_.aligned(q, engine_.guessed_hit_bytes(kept_, prepared_, q));
      kept_[q] = {};
    }
  }

  // Every part of every chunk through the backend (stopped early when the worker failed).
  void scan() {
    ScanBackend& backend = *engine_.backend;
    backend.set_queries(prepared_);
    const bool backend_counts = backend.count_cells(&feed_.live_cells());
    struct StopCounting {
      ScanBackend& backend;
      ~StopCounting() { backend.count_cells(nullptr); }
    } stop_counting{backend};
    std::vector<std::pair<std::size_t, Part>> parts;  // (chunk, part)
    for (std::size_t c = 0; c < engine_.database.num_chunks(); ++c)
      for (const auto& part : engine_.parts_of(c)) parts.emplace_back(c, part);
    for (std::size_t n = 0; n < parts.size(); ++n) {
      throw_if_interrupted();
      if (worker_failed_) break;
      scan_part(parts, n, backend_counts);
    }
  }

  // Part n of the scan: each strand's candidates offered to its TopHits; on the last part, with the
  // worker, a query is handed over once all its strands are scored.
  void scan_part(const std::vector<std::pair<std::size_t, Part>>& parts, std::size_t n, bool backend_counts) {
    ScanBackend& backend = *engine_.backend;
    std::atomic<std::uint64_t>& live_cells = feed_.live_cells();
    const std::size_t c = parts[n].first;
    const Part& part = parts[n].second;
    const ScannedPart scanned = engine_.scanned_part(engine_.part_of_chunk(c, part));
    const Chunk& stored = scanned.chunk;
    const bool final_part = n + 1 == parts.size();
    // A part the filter empties is not scanned; its queries are aligned after the scan.
    if (stored.size() == 0) return;
    // tblastn, tblastx: the part's subjects are scanned as their six frames.
    std::optional<TranslatedChunk> translated;
    if (translates_subjects(engine_.program))
      translated = translate_chunk(stored, *engine_.subject_code, engine_.threads);
    const Chunk& chunk = translated ? translated->chunk : stored;
    const std::uint64_t* original = chunk.original_indices();
    const std::uint32_t* lengths = chunk.lengths();
    const std::uint32_t* stored_lengths = stored.lengths();
    const std::uint64_t chunk_residues = chunk.info().residues;
    feed_.begin_part(batch_residues_ * static_cast<double>(chunk_residues));
    // A filtered part is a selection made when it is scanned: nothing to load ahead.
    backend.upcoming(final_part || translated || !engine_.options.subject_filter.empty()
                         ? std::nullopt
                         : std::optional<Chunk>(engine_.part_of_chunk(parts[n + 1].first, parts[n + 1].second)));
    backend.scan(
        chunk, translated ? translated->frame.data() : nullptr,
        [&](std::size_t p, std::uint64_t s, int score) {
          const std::uint64_t index = translated ? translated->source[s] : s;
          // BLAST's length of a translated subject, whatever the frame: a third of its bases.
          const double e =
              engine_.evalue(score, prepared_[p].codes.size(), translated ? stored_lengths[index] / 3 : lengths[s]);
          if (engine_.statistics && e > engine_.admission_evalue) return;
          const std::int8_t subject_frame = translated ? translated->frame[s] : std::int8_t{0};
          const std::uint64_t in_part = scanned.positions.empty() ? index : scanned.positions[index];
          tops_[p].offer({score, e, original[s], prepared_[p].strand, static_cast<std::uint32_t>(c),
                          part.first + in_part, static_cast<std::int8_t>(prepared_[p].frame), subject_frame});
        },
        [&](std::size_t p) {
          if (!backend_counts)
            live_cells.fetch_add(prepared_[p].codes.size() * chunk_residues, std::memory_order_relaxed);
          if (!overlap_ || !final_part) return;
          const std::size_t q = prepared_[p].query - first_;
          bool query_done;
          {
            std::lock_guard<std::mutex> lock(mutex_);
            query_done = --strands_left_[q] == 0;
          }
          if (query_done) hand_over({q});
        });
    feed_.end_part();
  }

  // The queries not handed over (no overlap, no strands, nothing scanned) are aligned now: by the
  // worker, or here in parts.
  void align_after_scan() {
    std::vector<std::size_t> rest;
    for (std::size_t q = 0; q < handed_.size(); ++q)
      if (!handed_[q]) rest.push_back(q);
    if (overlap_) {
      hand_over(rest);
      finish_worker();
      if (worker_error_) std::rethrow_exception(worker_error_);
      return;
    }
    for (const std::size_t q : rest) engine_.keep_candidates(q, strands_, tops_, kept_);
    if (engine_.options.select_candidates) select_candidates();
    // In parts that fit the memory budget (and kPartQueries), each handed to the sink as soon as it is
    // aligned.
    for (std::size_t from = 0; from < rest.size();) {
      const std::vector<std::size_t> remaining(rest.begin() + static_cast<std::ptrdiff_t>(from), rest.end());
      const std::size_t count = engine_.fitting_prefix(kept_, prepared_, remaining, 0, kPartQueries);
      const std::vector<std::size_t> part(remaining.begin(), remaining.begin() + static_cast<std::ptrdiff_t>(count));
      engine_.align_kept(queries_, first_, prepared_, kept_, part, emitter_.results(), worker_times_);
      throw_if_interrupted();
      emit_aligned(part);
      from += count;
    }
  }

  // Candidate selection across ranks: each query keeps the first candidates options.select_candidates
  // allows it.
  void select_candidates() {
    std::vector<std::vector<CandidateKey>> keys(kept_.size());
    for (std::size_t q = 0; q < kept_.size(); ++q)
      for (const auto& entry : kept_[q]) keys[q].push_back(key_of(entry.first));
    const std::vector<std::size_t> keep = engine_.options.select_candidates(keys);
    if (keep.size() != kept_.size())
      throw std::logic_error("internal error: the candidate selection answered for " + std::to_string(keep.size()) +
                             " queries, not " + std::to_string(kept_.size()));
    for (std::size_t q = 0; q < kept_.size(); ++q)
      kept_[q].erase(kept_[q].begin() + static_cast<std::ptrdiff_t>(std::min(kept_[q].size(), keep[q])),
                     kept_[q].end());
  }

  Impl& engine_;
  const std::vector<Query>& queries_;
  const std::size_t first_, count_;  // the batch: queries first_ to first_ + count_
  ProgressFeed& feed_;
  const std::vector<PreparedQuery> prepared_;
  std::deque<TopHits> tops_;                       // per prepared strand; TopHits holds a mutex: it never moves
  std::vector<std::vector<std::size_t>> strands_;  // each query's prepared strands
  double batch_residues_ = 0;
  Emitter emitter_;
  const std::uint64_t budget_;  // options.hit_memory, or no limit
  Kept kept_;
  HitTimes worker_times_;
  const bool overlap_;  // hits aligned by the worker during the scan
  // The worker's hand-over: ready_, scan_over_ and strands_left_ under mutex_.
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<std::size_t> ready_;  // queries whose scan is done, not yet taken by the worker
  bool scan_over_ = false;
  std::exception_ptr worker_error_;
  std::atomic<bool> worker_failed_{false};
  std::thread worker_;
  std::vector<int> strands_left_;  // per query: strands not yet scored on the last part
  std::vector<bool> handed_;       // per query: handed to the worker
};

void SearchEngine::Impl::search_batch(const std::vector<Query>& queries, std::size_t first, std::size_t last,
                                      const ResultSink& sink, ProgressFeed& feed) {
  BatchSearch batch(*this, queries, first, last, sink, feed);
  batch.run();
}

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
  search(
      queries, [&](QueryResult&& result) { results.push_back(std::move(result)); }, progress);
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
  for (const auto& query : queries) state.cells_total += static_cast<double>(query.codes.size()) * strands * residues;
  ProgressFeed feed(progress, state);
  impl_->guessed_so_far = impl_->held_so_far = 0;
  const std::size_t batch = std::max<std::size_t>(impl_->options.query_batch, 1);
  for (std::size_t first = 0; first < queries.size(); first += batch)
    impl_->search_batch(queries, first, std::min(queries.size(), first + batch), sink, feed);
}

std::string SearchEngine::backend_description() const { return impl_->backend->description(); }

}  // namespace warpsearch

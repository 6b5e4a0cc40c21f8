// The search: prepare each query strand, scan the database chunk by chunk through a backend keeping the
// best candidates per query, then align the kept candidates (the backend locates them, exactly and with
// the reference's tie-break; the traceback inside each span runs on the CPU, so every backend reports the
// same alignments) and attach their statistics.
#include "search/engine_impl.hpp"

namespace warpsearch {

void SearchEngine::Impl::search_batch(const std::vector<Query>& queries, std::size_t first, std::size_t last,
                                      const ResultSink& sink, ProgressFeed& feed) {
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
          const double e = evalue(score, prepared[p].codes.size(), translated ? stored_lengths[index] / 3 : lengths[s]);
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

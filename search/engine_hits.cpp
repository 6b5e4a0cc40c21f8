// SearchEngine, aligning the kept candidates: the hot columns of long subjects, the HSPs of each hit
// (search/hsps.hpp) and the traceback inside each, round by round.
#include "search/engine_impl.hpp"

namespace warpsearch {
namespace {

// Hit rectangles of at least this many cells are traced back on several threads (a 31,921 x 31,921
// self-hit takes about a second on one core).
constexpr double kParallelTracebackCells = 1 << 26;

}  // namespace

template <class SubjectOf>
std::vector<const std::vector<cpu::ColumnRange>*> SearchEngine::Impl::hot_columns(
    const std::vector<PreparedQuery>& prepared, const std::vector<HitJob>& round, const SubjectOf& subject_of,
    std::deque<std::vector<cpu::ColumnRange>>& computed, std::vector<std::uint64_t>& reach) const {
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
    reach[j] = cpu::alignment_reach(query.codes, scoring, query.threshold);
    if (reach[j] == 0) continue;
    // Only the regions the scan found hits in, when the backend knows them; each with its context. Where
    // they are as fine as hot columns (SubjectRegions::hot), they are the hot columns.
    const SubjectRegions* regions =
        backend->hit_regions(round[j].prepared, round[j].candidate->subject, round[j].candidate->subject_frame);
    if (regions != nullptr && regions->hot) {
      hot[j] = &regions->ranges;
      continue;
    }
    const std::vector<cpu::ColumnRange> whole{{0, subject.size()}};
    const std::uint64_t segment_length = cpu::segment_length_for(reach[j]);
    for (const cpu::ColumnRange& region : regions ? regions->ranges : whole)
      for (std::uint64_t first = region.begin; first < region.end; first += segment_length)
        tasks.push_back(
            {j,
             {first > reach[j] - 1 ? first - (reach[j] - 1) : 0, first, std::min(region.end, first + segment_length)}});
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
    computed.push_back(
        cpu::join_segments(std::vector<cpu::ColumnScan>(scans.begin() + static_cast<std::ptrdiff_t>(t),
                                                        scans.begin() + static_cast<std::ptrdiff_t>(end)))
            .hot);
    hot[tasks[t].job] = &computed.back();
    t = end;
  }
  return hot;
}

void SearchEngine::Impl::align_round(const std::vector<Query>& queries, const std::vector<PreparedQuery>& prepared,
                                     const std::vector<HitJob>& round, const std::vector<std::string>& subjects,
                                     HitTimes& times) {
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
  const auto hot = hot_columns(prepared, round, searched_subject, computed_hot, reach);
  times.hot_columns_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - hot_started).count();
  const bool by_subject_length = statistics && statistics->has_finite_size_correction();
  using Lengths = std::pair<std::size_t, std::uint32_t>;
  const std::vector<std::int64_t> cutoffs = once_per_key<Lengths, std::int64_t>(
      round.size(),
      [&](std::size_t j) {
        return Lengths{prepared[round[j].prepared].codes.size(), by_subject_length ? statistics_length(j) : 0u};
      },
      [&](const Lengths& lengths) { return hsp_cutoff(lengths.first, lengths.second); }, threads);
  std::vector<HspRequest> requests;
  requests.reserve(round.size());
  for (std::size_t j = 0; j < round.size(); ++j) {
    const std::string& codes = prepared[round[j].prepared].codes;
    requests.push_back({codes, searched_subject(j), cutoffs[j], options.max_hsps, hot[j], reach[j]});
  }
  const std::vector<std::vector<Span>> hsps = find_hsps(
      requests, [&](const std::vector<HitPair>& pairs, std::vector<Span>& spans) { backend->locate(pairs, spans); },
      scoring.matrix().max_score());
  times.locate_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - locate_started).count();
  struct Piece {
    std::size_t job;
    Span span;
  };
  std::vector<Piece> pieces;
  for (std::size_t j = 0; j < round.size(); ++j) {
    const Candidate& candidate = *round[j].candidate;
    const std::int64_t best = hsps[j].empty() ? 0 : hsps[j].front().score;
    if (best != candidate.score)
      throw std::logic_error("internal error: the alignment of query " + queries[prepared[round[j].prepared].query].id +
                             " and subject #" + std::to_string(candidate.subject) + " scores " + std::to_string(best) +
                             " but the scan scored " + std::to_string(candidate.score));
    round[j].hits->resize(hsps[j].size());
    for (const Span& span : hsps[j]) pieces.push_back({j, span});
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
    // The largest rectangles may take every thread and the backend's rows (a GPU's); the operations do
    // not depend on either.
    cpu::AlignmentLimits limits;
    limits.row_source = backend->row_source();
    if (area(k) >= kParallelTracebackCells) limits.threads = threads;
    const PairAlignment alignment = cpu::align_in_rectangle(query_codes, subject, scoring, pieces[k].span, limits);
    Hit& hit = (*job.hits)[place[k]];
    hit.subject = candidate.subject;
    hit.subject_length = static_cast<std::uint32_t>(subjects[job.subject].size());
    hit.query_frame = candidate.query_frame;
    hit.subject_frame = candidate.subject_frame;
    if (hit.query_frame != 0)
      hit.query_aligned_codes =
          prepared[job.prepared].codes.substr(alignment.query_begin, alignment.query_end - alignment.query_begin);
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
    hit.subject_aligned_codes =
        subject.substr(alignment.subject_begin, alignment.subject_end - alignment.subject_begin);
  });
  if (composition)
    parallel_for(round.size(), threads, [&](std::size_t j, unsigned) {
      const std::string& query_codes = prepared[round[j].prepared].codes;
      composition->rescore(query_codes, composition_of(query_codes), searched_subject(j), *round[j].hits, *statistics,
                           evalue_divisor);
    });
}

void SearchEngine::Impl::align_kept(const std::vector<Query>& queries, std::size_t first,
                                    const std::vector<PreparedQuery>& prepared, const Kept& kept,
                                    const std::vector<std::size_t>& which, std::vector<QueryResult>& results,
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

}  // namespace warpsearch

// Cluster mode over MPI (see cluster/distributed.hpp for what it does).
//
// The protocol is a sequence of rounds that every rank enters at the same point: each rank sends rank 0
// a message (ok + data, or failed + why), rank 0 decides a reply from all of them and broadcasts it.
// Per query batch there are two rounds: the candidate selection (inside SearchEngine::search, through
// SearchOptions::select_candidates) and the results (whose reply is the next batch). Because every round
// has the same shape, a rank that fails anywhere sends its failure in the next round, whichever it is for
// the others, and the reply to that round is an abort that all ranks obey: nobody waits forever, and rank
// 0 knows which rank failed and why before it decides not to commit the output.
//
// Waits for other ranks (which may last as long as a scan) poll MPI_Test with short sleeps, so waiting
// ranks leave the cores to working ones, and SIGINT / SIGTERM are noticed there. A watchdog thread covers
// the waits that do not poll (a long GPU scan, a bulk transfer from a rank that died): after a signal it
// gives the main thread a moment to unwind, then removes the temporary output and leaves.
#include "cluster/distributed.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

#include "base/atomic_file.hpp"
#include "base/interrupt.hpp"
#include "base/usable_cpus.hpp"
#include "cluster/messages.hpp"
#include "cluster/mpi_rounds.hpp"
#include "db/fasta.hpp"
#include "output/report_writer.hpp"
#include "search/scan_backend.hpp"

namespace warpsearch::distributed {
namespace {

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The first sorted subject with at least k / n of the database's residues before it.
std::uint64_t share_boundary(const Database& database, std::uint64_t k, std::uint64_t n) {
  const DatabaseInfo& info = database.info();
  if (k == 0) return 0;
  if (k >= n) return info.subjects;
  const std::uint64_t target = info.residues / n * k + info.residues % n * k / n;  // no overflow for n < 2^32
  std::uint64_t before = 0;
  for (std::size_t c = 0; c < database.num_chunks(); ++c) {
    const ChunkInfo& chunk_info = info.chunks[c];
    if (before + chunk_info.residues < target) {
      before += chunk_info.residues;
      continue;
    }
    const Chunk chunk = database.chunk(c);
    const std::uint32_t* lengths = chunk.lengths();
    std::uint64_t s = 0;
    while (before < target && s < chunk_info.subjects) before += lengths[s++];
    return chunk_info.first_subject + s;
  }
  return info.subjects;
}

// ---------------------------------------------------------------------------------------------
// One rank's search

constexpr std::uint64_t kStripesPerRank = 8;

struct Timings {
  double scan = 0, align = 0, wait = 0;     // every rank
  double merge = 0, output = 0, input = 0;  // rank 0
};

class RankSearch {
 public:
  RankSearch(const MpiSession& mpi, Watchdog& watchdog, const SearchJob& job, const Database& database,
             const ScoringScheme& scoring, SearchOptions options, const OutputFormat& format)
      : mpi_(mpi),
        watchdog_(watchdog),
        job_(job),
        database_(database),
        scoring_(scoring),
        options_(std::move(options)),
        format_(format) {}

  void run() {
    std::string message = setup();
    for (bool started = false;; started = true) {
      const auto waited = Clock::now();
      const std::string reply = round(mpi_, std::move(message), [&](std::vector<std::string>& bodies) {
        return started ? write_and_read(bodies) : begin(bodies);
      });
      timings_.wait += seconds_since(waited);
      Reader in(reply, "rank 0");
      const auto kind = in.get<std::uint8_t>();
      // Every rank guards rank 0's temporary output: when rank 0 is killed outright, the launcher's
      // SIGTERM to the others still gets it removed (on storage they share).
      if (mpi_.rank() != 0)
        watchdog_.guard(in.get_string());
      else
        in.get_string();
      if (kind == 'E') break;
      message = search_batch(in);
    }
    if (mpi_.rank() == 0 && !job_.quiet) summary();
  }

 private:
  // Opens what this rank needs; the message says whether it could, and which database it opened.
  std::string setup() {
    try {
      // The length-sorted subjects are cut into stripes of equal residues, dealt to the ranks in turn:
      // every rank gets short and long subjects alike, whose costs per residue differ (the scan's 8-bit
      // lanes saturate on long subjects, the hits of long subjects take longer to align).
      const auto ranks = static_cast<std::uint64_t>(mpi_.size());
      const std::uint64_t stripes = ranks * kStripesPerRank;
      for (auto stripe = static_cast<std::uint64_t>(mpi_.rank()); stripe < stripes; stripe += ranks) {
        const std::uint64_t first = share_boundary(database_, stripe, stripes);
        const std::uint64_t last = share_boundary(database_, stripe + 1, stripes);
        if (last > first) options_.subjects.push_back({first, last - first});
      }
      if (options_.subjects.empty()) options_.subjects.push_back({0, 0});  // nothing: a rank beyond the subjects
      options_.select_candidates = [this](const std::vector<std::vector<CandidateKey>>& keys) { return select(keys); };
      share_gpus();
      engine_.emplace(database_, scoring_, options_);
      if (mpi_.rank() == 0) reader_.emplace(job_.query_path, database_.info().type, job_.skip_invalid_queries);
      Writer out;
      out.put_string(database_.path());
      out.put_string(identity());
      return ok(out.take());
    } catch (const Interrupted&) {
      throw;
    } catch (const std::exception& e) {
      return failure(e);
    }
  }

  // Several ranks on one node share its GPUs unless --gpus says otherwise: the local rank l of L takes
  // every GPU g with g % L == l, or GPU l % G when there are fewer GPUs than ranks (also when the
  // launcher gives each rank one GPU through CUDA_VISIBLE_DEVICES).
  void share_gpus() {
#ifdef WARPSEARCH_HAVE_CUDA
    if (options_.device == Device::cpu || !options_.gpus.empty() || mpi_.local_size() == 1) return;
    const int gpus = usable_gpu_count();
    if (gpus == 0) return;
    const int local = mpi_.local_rank(), ranks = mpi_.local_size();
    if (ranks > gpus) {
      options_.gpus = {local % gpus};
      return;
    }
    for (int g = local; g < gpus; g += ranks) options_.gpus.push_back(g);
#endif
  }

  // What must agree between the ranks' databases (their paths may differ: copies on node-local disks).
  std::string identity() const {
    const DatabaseInfo& info = database_.info();
    return std::to_string(info.subjects) + " subjects, " + std::to_string(info.residues) + " residues, " +
           std::to_string(info.chunks.size()) + " chunks, made " + info.created_at;
  }

  std::string failure(const std::exception& error) const {
    return kFailed + std::string("(") + mpi_.host() + "): error: " + describe_failure(error);
  }

  // Rank 0, first round: every rank opened the same database; open the output, hand out the first batch.
  std::string begin(std::vector<std::string>& bodies) {
    for (std::size_t r = 0; r < bodies.size(); ++r) {
      Reader in(bodies[r], mpi_.name_of(static_cast<int>(r)));
      const std::string path = in.get_string(), theirs = in.get_string();
      if (theirs != identity())
        throw std::runtime_error(mpi_.name_of(static_cast<int>(r)) + " opened another database: " + path + " (" +
                                 theirs + "), rank 0 opened " + database_.path() + " (" + identity() + ")");
    }
    output_.emplace(job_.output_path);
    format_.begin(output_->stream(), database_, job_.output);
    writer_.emplace(format_, output_->stream(), database_, threads_or_usable_cpus(options_.threads),
                    std::function<void()>{});
    if (!output_->temporary_path().empty()) guarded_ = std::filesystem::absolute(output_->temporary_path()).string();
    watchdog_.guard(guarded_);
    return next_batch();
  }

  // Rank 0: the next batch of queries ('B', count, id and residues of each), or the end ('E') once the
  // output is committed.
  std::string next_batch() {
    const auto started = Clock::now();
    batch_.clear();
    const std::size_t limit = std::max<std::size_t>(options_.query_batch, 1);
    for (SequenceRecord record; batch_.size() < limit && reader_->next(record);)
      batch_.push_back({std::move(record.id), std::move(record.description), std::move(record.codes)});
    queries_ += batch_.size();
    for (const Query& query : batch_) query_residues_ += static_cast<double>(query.codes.size());
    timings_.input += seconds_since(started);
    Writer out;
    if (batch_.empty()) {
      const auto writing = Clock::now();
      format_.end(output_->stream());
      output_->commit();
      guarded_.clear();
      watchdog_.guard(guarded_);
      timings_.output += seconds_since(writing);
      out.put<std::uint8_t>('E');
      out.put_string(guarded_);
      return out.take();
    }
    out.put<std::uint8_t>('B');
    out.put_string(guarded_);
    out.put<std::uint64_t>(batch_.size());
    for (const Query& query : batch_) {
      out.put_string(query.id);
      out.put_string(query.codes);
    }
    return out.take();
  }

  // Every rank: search the batch in the reply against this rank's share; the message carries the
  // aligned hits that ranked in the global top (and this rank's timings so far).
  std::string search_batch(Reader& in) {
    try {
      std::vector<Query> received;
      const std::vector<Query>* queries = &batch_;
      if (mpi_.rank() != 0) {
        received.resize(in.get<std::uint64_t>());
        for (Query& query : received) {
          query.id = in.get_string();
          query.codes = in.get_string();
        }
        queries = &received;
      }
      inject_fault();
      search_started_ = Clock::now();
      const std::vector<QueryResult> results = engine_->search(*queries);
      timings_.align += seconds_since(selection_ended_);
      Writer out;
      out.put<double>(timings_.scan);
      out.put<double>(timings_.align);
      out.put<double>(timings_.wait);
      for (const QueryResult& result : results) {
        out.put<std::uint64_t>(result.hits.size());
        for (const Hit& hit : result.hits) put_hit(out, hit);
      }
      return ok(out.take());
    } catch (const Interrupted&) {
      throw;
    } catch (const JobFailed&) {
      throw;
    } catch (const std::exception& e) {
      return failure(e);
    }
  }

  // Called by the engine between its scan and its alignment pass: the round that decides which of this
  // rank's candidates rank in the global top of their query.
  std::vector<std::size_t> select(const std::vector<std::vector<CandidateKey>>& keys) {
    timings_.scan += seconds_since(search_started_);
    Writer out;
    for (const auto& list : keys) {
      out.put<std::uint64_t>(list.size());
      for (const CandidateKey& key : list) put_key(out, key);
    }
    const auto waited = Clock::now();
    const std::string reply = round(
        mpi_, ok(out.take()), [&](std::vector<std::string>& bodies) { return merge_candidates(bodies, keys.size()); });
    timings_.wait += seconds_since(waited);
    selection_ended_ = Clock::now();
    Reader in(reply, "rank 0");
    std::vector<std::size_t> keep(keys.size());
    for (int r = 0; r < mpi_.size(); ++r)
      for (std::size_t q = 0; q < keys.size(); ++q) {
        const auto count = in.get<std::uint64_t>();
        if (r == mpi_.rank()) keep[q] = count;
      }
    return keep;
  }

  // Rank 0: per query, the best max_target_seqs candidates over all ranks; the reply holds, per rank and
  // query, how many of that rank's candidates are among them (a prefix of its list, which is sorted).
  std::string merge_candidates(std::vector<std::string>& bodies, std::size_t queries) {
    const auto started = Clock::now();
    const std::size_t ranks = bodies.size();
    std::vector<std::vector<CandidateKey>> keys(ranks);
    std::vector<std::vector<std::size_t>> starts(ranks, std::vector<std::size_t>(queries + 1));
    for (std::size_t r = 0; r < ranks; ++r) {
      Reader in(bodies[r], mpi_.name_of(static_cast<int>(r)));
      for (std::size_t q = 0; q < queries; ++q) {
        starts[r][q] = keys[r].size();
        for (auto n = in.get<std::uint64_t>(); n > 0; --n) keys[r].push_back(get_key(in));
      }
      starts[r][queries] = keys[r].size();
      std::string().swap(bodies[r]);
    }
    std::vector<std::uint64_t> taken(ranks * queries, 0);
    for (std::size_t q = 0; q < queries; ++q) {
      for (std::size_t kept = 0; kept < options_.max_target_seqs; ++kept) {
        std::size_t best = ranks;
        for (std::size_t r = 0; r < ranks; ++r) {
          const std::size_t next = starts[r][q] + taken[r * queries + q];
          if (next == starts[r][q + 1]) continue;
          if (best == ranks || ranks_before(keys[r][next], keys[best][starts[best][q] + taken[best * queries + q]]))
            best = r;
        }
        if (best == ranks) break;
        ++taken[best * queries + q];
      }
    }
    Writer out;
    for (std::uint64_t count : taken) out.put(count);
    timings_.merge += seconds_since(started);
    return out.take();
  }

  // Rank 0: merge the batch's aligned hits of all ranks per query, in the engine's order, write them, and
  // hand out the next batch.
  std::string write_and_read(std::vector<std::string>& bodies) {
    const auto started = Clock::now();
    std::vector<std::vector<std::vector<Hit>>> hits(bodies.size());  // [rank][query]
    rank_timings_.assign(bodies.size(), {});
    for (std::size_t r = 0; r < bodies.size(); ++r) {
      Reader in(bodies[r], mpi_.name_of(static_cast<int>(r)));
      rank_timings_[r].scan = in.get<double>();
      rank_timings_[r].align = in.get<double>();
      rank_timings_[r].wait = in.get<double>();
      hits[r].resize(batch_.size());
      for (auto& list : hits[r])
        for (auto n = in.get<std::uint64_t>(); n > 0; --n) list.push_back(get_hit(in));
      if (!in.done())
        throw std::runtime_error("internal error: " + mpi_.name_of(static_cast<int>(r)) +
                                 " sent more hits than queries");
      std::string().swap(bodies[r]);
    }
    // A subject lives on one rank, which lists its hits together, best first (the engine's order): the
    // merge orders those runs by their first hit, as the engine orders subjects.
    std::vector<QueryResult> merged(batch_.size());
    for (std::size_t q = 0; q < batch_.size(); ++q) {
      merged[q].query = q;
      std::vector<std::vector<Hit>> runs;
      for (auto& rank_hits : hits)
        for (Hit& hit : rank_hits[q]) {
          if (runs.empty() || runs.back().front().subject != hit.subject) runs.emplace_back();
          runs.back().push_back(std::move(hit));
        }
      std::stable_sort(runs.begin(), runs.end(), [](const std::vector<Hit>& a, const std::vector<Hit>& b) {
        return ranks_before(key_of(a.front()), key_of(b.front()));
      });
      for (auto& run : runs)
        for (Hit& hit : run) merged[q].hits.push_back(std::move(hit));
    }
    timings_.merge += seconds_since(started);
    const auto writing = Clock::now();
    for (std::size_t q = 0; q < batch_.size(); ++q) {
      hits_ += merged[q].hits.size();
      writer_->write(batch_[q], std::move(merged[q]));
    }
    writer_->finish();  // the batch's queries are replaced next
    timings_.output += seconds_since(writing);
    return next_batch();
  }

  // WARPSEARCH_MPI_FAULT=RANK:throw or RANK:kill makes that rank fail in its first batch: the tests of
  // the failure paths use it.
  void inject_fault() const {
    const char* fault = std::getenv("WARPSEARCH_MPI_FAULT");
    if (fault == nullptr) return;
    const std::string spec = fault;
    const std::size_t colon = spec.find(':');
    if (colon == std::string::npos || spec.substr(0, colon) != std::to_string(mpi_.rank())) return;
    if (spec.substr(colon + 1) == "kill") std::raise(SIGKILL);
    throw std::runtime_error("fault injected by WARPSEARCH_MPI_FAULT=" + spec);
  }

  void summary() const {
    const DatabaseInfo& info = database_.info();
    const bool nucleotide = info.type == SequenceType::nucleotide;
    const double seconds = seconds_since(started_);
    const double cells = query_residues_ * static_cast<double>(info.residues) *
                         (nucleotide && options_.strand == Strand::both ? 2.0 : 1.0);
    std::fprintf(stderr, "warpsearch search: %zu queries, %zu hits, %.2f s, %.1f GCUPS on %d MPI ranks (rank 0: %s)\n",
                 queries_, hits_, seconds, cells / seconds / 1e9, mpi_.size(), engine_->backend_description().c_str());
    if (reader_->skipped() > 0)
      std::fprintf(stderr, "warpsearch search: skipped %llu invalid queries\n",
                   static_cast<unsigned long long>(reader_->skipped()));
    double scan_max = 0, scan_min = std::numeric_limits<double>::max(), align_max = 0, wait_max = 0;
    for (const Timings& t : rank_timings_) {
      scan_max = std::max(scan_max, t.scan);
      scan_min = std::min(scan_min, t.scan);
      align_max = std::max(align_max, t.align);
      wait_max = std::max(wait_max, t.wait);
    }
    if (rank_timings_.empty()) scan_min = 0;
    std::fprintf(stderr,
                 "warpsearch search: time per rank: scan %.3f..%.3f s, align up to %.3f s, waiting up to %.3f s; "
                 "rank 0: merge %.3f s, output %.3f s, reading queries %.3f s (%s, %s)\n",
                 scan_min, scan_max, align_max, wait_max, timings_.merge, timings_.output, timings_.input,
                 nucleotide ? "nucleotide" : "protein", database_.path().c_str());
  }

  const MpiSession& mpi_;
  Watchdog& watchdog_;
  const SearchJob& job_;
  const Database& database_;
  const ScoringScheme& scoring_;
  SearchOptions options_;
  const OutputFormat& format_;
  std::optional<SearchEngine> engine_;
  // rank 0
  std::optional<FastaReader> reader_;
  std::optional<AtomicFile> output_;
  std::optional<ReportWriter> writer_;  // the reports formatted on the threads (output/report_writer.hpp)
  std::string guarded_;                 // the output's temporary file, absolute
  std::vector<Query> batch_;
  std::size_t queries_ = 0, hits_ = 0;
  double query_residues_ = 0;
  std::vector<Timings> rank_timings_;
  // timings
  Clock::time_point started_ = Clock::now(), search_started_, selection_ended_;
  Timings timings_;
};

}  // namespace

bool launched_by_mpi() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"})
    if (std::getenv(variable) != nullptr) return true;
  return false;
}

int run_search(const SearchJob& job, const Database& database, const ScoringScheme& scoring, SearchOptions options,
               const OutputFormat& format) {
  MpiSession mpi;
  Watchdog watchdog(mpi.name_of(mpi.rank()));
  try {
    RankSearch search(mpi, watchdog, job, database, scoring, std::move(options), format);
    search.run();
  } catch (const JobFailed&) {
    mpi.finalize();
    return 1;
  } catch (const Interrupted& e) {
    watchdog.remove_guarded();
    std::fprintf(stderr,
                 "warpsearch search: %s: interrupted by signal %d (from the user, or from the launcher ending the "
                 "job after another rank died); no output was written\n",
                 mpi.name_of(mpi.rank()).c_str(), e.signal_number());
    return 128 + e.signal_number();
  }
  mpi.finalize();
  return 0;
}

}  // namespace warpsearch::distributed
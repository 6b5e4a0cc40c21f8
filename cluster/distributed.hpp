// Cluster mode: one search spread over the processes of an MPI job (mpirun, srun), built with
// -DWARPSEARCH_MPI=ON. No MPI type appears here; cluster/distributed.cpp holds the protocol.
//
// Every rank opens the same database (on shared storage) and searches its share of the length-sorted
// subjects: 8 stripes per rank of equal residues, dealt out in turn, so that every rank gets subjects of
// every length (SearchOptions::subjects); E-values use the whole database's size, so a hit has the same
// E-value in any share. Rank 0 reads the queries and hands them out
// in batches of SearchOptions::query_batch; per batch it merges each query's candidates of all ranks in
// the engine's order (CandidateKey) and tells each rank how many of its own rank in the global top, so
// that the hits are aligned once, where their subjects live; it then merges the aligned hits and writes
// them through an AtomicFile. The output is byte-identical to a single-process run.
//
// Failures: a rank that throws (bad input, out of memory, a GPU error) reports its message in the next
// exchange, and every rank ends with status 1 while rank 0 prints which rank failed and why, and the
// output file never appears. A rank that dies (killed, crashed) makes the launcher end the job with
// SIGTERM: the ranks leave at once and rank 0 removes its temporary output first.
#pragma once

#include <string>

#include "db/database.hpp"
#include "output/output.hpp"
#include "profile/scoring.hpp"
#include "search/warpsearch.hpp"

namespace warpsearch::distributed {

// true when an MPI launcher started this process (Open MPI's mpirun, Slurm's srun with PMI or PMIx,
// MPICH's hydra): the command then runs as one rank of the job.
bool launched_by_mpi();

struct SearchJob {
  std::string query_path;   // read by rank 0 only ('-' is rank 0's stdin)
  std::string output_path;  // written by rank 0 only ('-' for its stdout)
  bool skip_invalid_queries = false;
  bool quiet = false;    // no summary on stderr
  OutputContext output;  // what the report formats state (output/output.hpp)
};

// Runs this rank's part of the search, MPI_Init to MPI_Finalize. Returns the process exit status: 0; 1
// when some rank failed (rank 0 has printed the reasons); 128 + the signal after SIGINT / SIGTERM.
int run_search(const SearchJob& job, const Database& database, const ScoringScheme& scoring, SearchOptions options,
               const OutputFormat& format);

}  // namespace warpsearch::distributed

// warpsearch's public C++ API: exact Smith-Waterman database search and batched pairwise alignment, on
// the CPU or on NVIDIA GPUs. CUDA-free: a program includes this header and links warpsearch::warpsearch
// (CMake) or `pkg-config --libs warpsearch`.
//
//   auto db = warpsearch::Database::open("uniprot.wsdb");
//   warpsearch::SearchOptions options;
//   options.max_target_seqs = 10;
//   for (const auto& result : warpsearch::search(db, {{"q1", "MKTAYIAKQR"}}, options))
//     for (const auto& hit : result.hits) std::cout << hit.sseqid << '\t' << hit.evalue << '\n';
//
// Errors are exceptions derived from std::exception (std::invalid_argument for bad options or letters,
// std::runtime_error for files, std::out_of_range for positions), with the messages the command line
// prints after "error:". The library never exits and never prints. docs/library.md has the details and
// the stability promise.
#pragma once

#include "warpsearch/align.hpp"
#include "warpsearch/common.hpp"
#include "warpsearch/database.hpp"
#include "warpsearch/fasta.hpp"
#include "warpsearch/scoring.hpp"
#include "warpsearch/search.hpp"
#include "warpsearch/version.hpp"

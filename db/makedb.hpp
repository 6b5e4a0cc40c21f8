// Building a database (db/database.hpp, layout in db/FORMAT.md) from a FASTA or FASTQ file.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/alphabet.hpp"

namespace warpsearch {

struct MakeDbOptions {
  std::string input;                 // FASTA / FASTQ, plain or gzip; "-" reads stdin
  std::string output;                // the database directory to create; must not exist (or be empty)
  std::optional<SequenceType> type;  // std::nullopt: detected from the residues
  std::uint64_t chunk_residues = std::uint64_t{1} << 30;  // residues per chunk, at most (>= 1)
  bool skip_invalid = false;                              // skip (and count) invalid records
  // Threads that parse, gather and checksum (0: the CPUs this process may use, base/usable_cpus.hpp).
  // The database is the same, byte for byte, for any number.
  unsigned threads = 0;
  // Input bytes per block parsed by one thread, and residues per window gathered by one thread (0: 4 MiB).
  // Memory grows with threads x unit_bytes; the database does not depend on it (the tests make it small).
  std::size_t unit_bytes = 0;
  // The NCBI taxonomy ID of a record, from its FASTA ID (0: unknown); when set, the database stores one
  // per subject (file "taxids", db/FORMAT.md). output/taxonomy.hpp makes it from a taxid map file, as
  // makeblastdb -taxid_map, or one ID for all, as -taxid. May throw; called once per record, in order.
  std::function<std::uint32_t(std::string_view id)> taxid_of;
  // Test-only: called once, after the first pass has read the whole input and before the second
  // pass reads it again; the tests change the input there (a changed input must be an error). Empty
  // in normal use.
  std::function<void()> between_passes;
};

struct MakeDbReport {
  SequenceType type = SequenceType::protein;
  std::uint64_t sequences = 0;
  std::uint64_t residues = 0;
  std::uint64_t skipped = 0;
  std::uint64_t input_bytes = 0;  // uncompressed FASTA bytes read
  std::uint32_t max_length = 0;
  std::size_t chunks = 0;
  double seconds = 0;
};

// Reads the input once, writing the headers and checking and counting the residues, then sorts
// (length, FASTA index) keys and gathers each chunk's residues by reading them again from the input
// (a gzip file or a stream: from a spool of their codes written by the first pass). db/FORMAT.md has
// the details. Both passes run on options.threads threads (an uncompressed FASTA file; otherwise pass 1
// runs on one); every file is the same, byte for byte, for any number, and so is every error message.
// Memory: about 16 bytes per sequence plus about 14 MiB per thread (two blocks' headers and keys, two
// windows of codes; and, for a gzip file or a stream, the longest sequence), whatever the input size
// or chunk size. The input must not change
// while makedb runs (a changed size or modification time is an error). The database appears complete
// at options.output or not at all: on any error, or on Interrupted (base/interrupt.hpp), the temporary
// directory is removed.
// Throws std::invalid_argument for bad options, std::runtime_error for input or output errors.
MakeDbReport make_database(const MakeDbOptions& options);

}  // namespace warpsearch

// Databases: building one (from a FASTA / FASTQ file or from sequences in memory) and opening one.
//
// A database is a directory of memory-mapped files, its subjects packed and sorted by length; the
// command line's `warpsearch makedb` writes the same format, and either side reads the other's.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "warpsearch/common.hpp"

namespace warpsearch {
inline namespace v0 {

struct MakeDbOptions {
  std::optional<SequenceType> type;                       // std::nullopt: detected from the residues
  std::uint64_t chunk_residues = std::uint64_t{1} << 30;  // residues per chunk, at most (>= 1)
  bool skip_invalid = false;  // skip (and count) invalid records instead of stopping at the first
};

struct MakeDbReport {
  SequenceType type = SequenceType::protein;
  std::uint64_t sequences = 0;
  std::uint64_t residues = 0;
  std::uint64_t skipped = 0;      // invalid records skipped (skip_invalid)
  std::uint64_t input_bytes = 0;  // uncompressed FASTA bytes read
  std::uint32_t max_length = 0;
  std::size_t chunks = 0;
  double seconds = 0;
};

// Builds the database directory `database` (which must not exist, or be empty) from a FASTA or FASTQ
// file, plain or gzip. The database appears complete or not at all. Throws std::invalid_argument for
// bad options and std::runtime_error for input or output errors, with the messages of
// `warpsearch makedb` (they name the file, line, byte offset and record). Thread-safe for different
// outputs.
MakeDbReport make_database(const std::string& fasta_path, const std::string& database,
                           const MakeDbOptions& options = {});

// The same from sequences in memory, in the order given (a subject's index is its position in
// `sequences`). IDs must be one word and not empty; an invalid sequence is an error naming its index
// and ID, or is skipped with skip_invalid. The sequences go through a temporary FASTA file in the
// database's parent directory, removed afterwards; info().source names that file.
MakeDbReport make_database(const std::vector<Sequence>& sequences, const std::string& database,
                           const MakeDbOptions& options = {});

struct DatabaseInfo {
  SequenceType type = SequenceType::protein;
  std::uint64_t subjects = 0;
  std::uint64_t residues = 0;
  std::uint32_t min_length = 0;
  std::uint32_t max_length = 0;
  std::size_t chunks = 0;
  std::uint64_t skipped = 0;  // invalid records makedb skipped
  std::string created_by;     // "warpsearch 0.1.0"
  std::string created_at;     // ISO 8601, UTC
  std::string source;         // the FASTA file makedb read
};

// An open database. Copies share one set of mapped files (a copy is cheap); the files stay mapped
// while any copy, or a Searcher made from one, lives. Thread safety: every const member may be called
// from many threads at once.
class Database {
 public:
  // Opens a database directory and checks its manifest. Throws std::runtime_error naming the path and
  // the problem (missing, corrupt, another format version); chunk checksums are verified the first
  // time each chunk is read.
  static Database open(const std::string& path);

  const std::string& path() const;
  DatabaseInfo info() const;
  // The FASTA header of subject `subject` (0-based position in the source FASTA / sequence list): its
  // ID and the rest of the line. Throws std::out_of_range for a subject past the end.
  std::string id(std::uint64_t subject) const;
  std::string description(std::uint64_t subject) const;
  // Re-reads every file and checks every checksum; throws std::runtime_error naming each file that fails.
  void verify() const;

 private:
  struct Impl;
  explicit Database(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;
  friend class Searcher;
};

}  // namespace v0
}  // namespace warpsearch

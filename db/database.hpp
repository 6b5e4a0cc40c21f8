// The packed, length-sorted subject database: reading side. The byte layout is in db/FORMAT.md.
//
// A database is a directory written by make_database() (db/makedb.hpp). Subjects are sorted by length
// (ascending; equal lengths keep their FASTA order) and split into chunks of bounded residue count; a
// subject never straddles two chunks. Within a chunk, residue codes (core/alphabet.hpp) are packed four
// to a 32-bit word, residue i of a subject in byte (i % 4) of word offset + i / 4 (little-endian, the
// layout of CUDA's uchar4), each subject starting on a word boundary and padded with the alphabet's
// padding code.
//
// Thread safety: a Database and the Chunks it maps may be read from many threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/alphabet.hpp"
#include "core/subject_batch.hpp"

namespace warpsearch {

inline constexpr std::uint32_t kDatabaseFormatVersion = 1;

struct ChunkInfo {
  std::uint64_t first_subject = 0;  // sorted position of the chunk's first subject
  std::uint64_t subjects = 0;
  std::uint64_t residues = 0;
  std::uint64_t words = 0;  // packed 32-bit words, padding included
  std::uint32_t min_length = 0;
  std::uint32_t max_length = 0;
};

struct DatabaseInfo {
  std::uint32_t format_version = kDatabaseFormatVersion;
  SequenceType type = SequenceType::protein;
  std::uint64_t subjects = 0;
  std::uint64_t residues = 0;
  std::uint32_t max_length = 0;
  std::string created_by;  // "warpsearch 0.1.0"
  std::string created_at;  // ISO 8601, UTC
  std::string source;      // the FASTA path makedb read
  std::vector<ChunkInfo> chunks;
  std::uint64_t skipped = 0;  // invalid FASTA records makedb skipped (--skip-invalid)
  std::uint32_t min_length = 0;
  // length_histogram[k]: subjects whose length is in [2^k, 2^(k+1)); trailing empty bins omitted.
  std::vector<std::uint64_t> length_histogram;
};

// One chunk, memory-mapped. Move-only; the mapping lives as long as the object.
class Chunk {
 public:
  Chunk(Chunk&&) noexcept;
  Chunk& operator=(Chunk&&) noexcept;
  ~Chunk();

  const ChunkInfo& info() const;
  std::size_t size() const { return static_cast<std::size_t>(info().subjects); }
  // Per subject, in sorted order within the chunk:
  const std::uint32_t* lengths() const;           // residues
  const std::uint64_t* word_offsets() const;      // first word of the subject in words()
  const std::uint64_t* original_indices() const;  // 0-based position in the source FASTA
  const std::uint32_t* words() const;             // the packed residues
  // The residue codes of subject i (0-based within the chunk), unpacked.
  std::string subject_codes(std::size_t i) const;
  // The chunk as the kernels read it; valid while this Chunk lives.
  SubjectBatch batch() const;

  // A chunk held in memory instead of mapped from a database (the translated frames of a chunk's
  // subjects, search/translation.hpp), with the arrays above laid out as in a database chunk; `words`
  // holds info.words words; info's subjects and residues must agree with the arrays, and every subject
  // lie within the words (std::invalid_argument otherwise).
  // The subjects at `positions` (ascending positions within `source`) of a chunk: a Chunk whose lengths,
  // word offsets and original indices are those subjects' and whose words are the source's (no residue
  // is copied), so that a scan of it reads the selected subjects only. info().subjects and residues
  // count the selection; info().words stays the source's. std::invalid_argument for positions out of
  // order or range.
  static Chunk select(Chunk source, const std::vector<std::uint64_t>& positions);

  static Chunk in_memory(ChunkInfo info, std::vector<std::uint32_t> lengths, std::vector<std::uint64_t> word_offsets,
                         std::vector<std::uint64_t> original_indices, std::unique_ptr<std::uint32_t[]> words);

 private:
  friend class Database;
  struct Impl;
  explicit Chunk(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

class Database {
 public:
  // Opens a database directory: reads and checks the manifest (its checksum, the format version,
  // agreement with the files present). Throws std::runtime_error naming the path and the problem;
  // a database of another format version is refused with the version this build reads.
  static Database open(const std::string& directory);

  Database(Database&&) noexcept;
  Database& operator=(Database&&) noexcept;
  ~Database();

  const std::string& path() const;
  const DatabaseInfo& info() const;
  const Alphabet& alphabet() const { return Alphabet::of(info().type); }
  std::size_t num_chunks() const { return info().chunks.size(); }

  // Maps chunk i. The first time a chunk is mapped in this process its checksums are verified
  // (std::runtime_error naming the file on a mismatch).
  Chunk chunk(std::size_t i) const;
  // Chunk i restricted to its subjects [first, first + count) (positions within the chunk): a Chunk whose
  // per-subject arrays, info() and batch() cover those subjects only (a shard of a distributed search).
  Chunk chunk(std::size_t i, std::uint64_t first, std::uint64_t count) const;

  // The header of the subject at 0-based FASTA position original_index: ID (first word) and
  // description (the rest, leading blanks removed).
  std::string_view id(std::uint64_t original_index) const;
  std::string_view description(std::uint64_t original_index) const;

  // Whether makedb stored a taxonomy ID per subject (--taxid-map, --taxid); older databases have none.
  bool has_taxids() const;
  // The NCBI taxonomy ID of the subject at FASTA position original_index: 0 when the database stores
  // none or the map had none for it (as BLAST). The file's checksum is checked on the first call.
  std::uint32_t taxid(std::uint64_t original_index) const;

  // Re-checks every checksum of every file; throws std::runtime_error naming each file that fails.
  void verify() const;

 private:
  struct Impl;
  explicit Database(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpsearch

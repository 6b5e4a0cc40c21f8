// Streaming reader of FASTA (and 4-line FASTQ) files, plain or compressed (gzip, bzip2, xz, zstd).
//
// Input: a path, or "-" for stdin. gzip is recognised by its magic bytes (1f 8b), not by the name;
// concatenated gzip members (bgzip, `cat a.gz b.gz`) are read as one stream. bzip2, xz and zstd are
// recognised and decoded the same way (db/decompress.hpp).
//
// Accepted: '>' header lines; sequence lines of any length (a line is never held in memory beyond the
// residues it adds), wrapped or not; LF or CRLF line ends; upper or lower case; blanks inside
// sequence lines; empty lines anywhere; one '*' ending a protein sequence (dropped; a '*' inside a
// protein sequence is the stop residue of the alphabet). A file whose first header starts with '@' is
// read as FASTQ: header, one sequence line, '+' line, one quality line of the sequence's length.
// Header: the ID is the first word (up to a blank), the description the rest, with leading and
// trailing blanks removed. Header lines may hold any byte but NUL and the control bytes other than
// TAB and SOH (NCBI's separator of merged titles).
//
// Errors (std::runtime_error) name the file, the line and byte offset (in the uncompressed data,
// 0-based; lines 1-based), the record (1-based number and ID) when inside one, and what was expected:
// a non-residue byte (digit, '-', '.', control byte, NUL), an empty record, a record without ID, a
// sequence line before the first header, a truncated or corrupt gzip stream, an input without records.
// With skip_invalid, the record-level errors (bad residue, empty record, missing ID, bad header bytes,
// FASTQ quality length) skip the record instead, and skipped() counts them.
//
// Thread safety: none; one reader per thread. Move-only.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/alphabet.hpp"

namespace warpsearch {

// How far a reader has got: line ends consumed, records started (valid or not), records delivered,
// records skipped as invalid.
struct FastaCounts {
  std::uint64_t lines = 0;
  std::uint64_t records = 0;
  std::uint64_t delivered = 0;
  std::uint64_t skipped = 0;
  FastaCounts& operator+=(const FastaCounts& other) {
    lines += other.lines;
    records += other.records;
    delivered += other.delivered;
    skipped += other.skipped;
    return *this;
  }
};

struct SequenceRecord {
  std::string id;
  std::string description;
  std::string codes;                  // residue codes of the reader's alphabet (core/alphabet.hpp); left empty
                                      // by a reader that does not keep codes (FastaReader::keep_codes)
  std::uint64_t length = 0;           // residues (codes.size() when codes are kept)
  std::uint64_t index = 0;            // 0-based number among the records delivered (skipped ones not counted)
  std::uint64_t sequence_offset = 0;  // input offset (uncompressed) of the byte after the header line
};

class FastaReader {
 public:
  // path "-" reads stdin. type: std::nullopt = detect from the first 256 KiB of residue letters
  // (guess_sequence_type). Throws if the file cannot be opened.
  explicit FastaReader(const std::string& path, std::optional<SequenceType> type = std::nullopt,
                       bool skip_invalid = false);
  FastaReader(FastaReader&&) noexcept;
  FastaReader& operator=(FastaReader&&) noexcept;
  ~FastaReader();

  SequenceType type() const;
  const Alphabet& alphabet() const { return Alphabet::of(type()); }
  // Fills record with the next valid record; false at the end of the input. Reusing one record
  // object across calls reuses its memory. Throws at the end of an input that held no valid record.
  bool next(SequenceRecord& record);
  std::uint64_t skipped() const;         // records skipped as invalid
  std::uint64_t bytes_consumed() const;  // uncompressed input bytes parsed so far
  const std::string& path() const;

  // Whether messages about a record that could be skipped (invalid letters, no residues) add
  // "(--skip-invalid skips such records)": for programs whose command has that option. Default true.
  void advise_skip_invalid(bool advise);

  // With false, next() checks every residue and sets record.length but leaves record.codes empty,
  // for a caller that reads the codes again later (read_residues_again). Default true.
  void keep_codes(bool keep);
  // A compressed input file is decompressed on a thread of its own, ahead of next() (ByteSource::
  // decompress_ahead); nothing changes for other inputs. The records are the same.
  void decompress_ahead();
  // Whether the input can be read again at an offset: an uncompressed regular file named by its path.
  bool rereadable() const;
  // Reads the codes of the next count residues of a valid record into out, from input offset *offset
  // (first its SequenceRecord::sequence_offset), and moves *offset past the bytes used: a long record
  // can be read in pieces. Only for rereadable() inputs. Throws std::runtime_error when the bytes
  // there are not residues as next() found them (the input changed since).
  void read_residues_again(std::uint64_t* offset, char* out, std::size_t count);
  // Throws std::runtime_error when the input file's size or modification time differ from those it
  // had when it was opened (rereadable() inputs only).
  void check_unchanged() const;

  // The size of a rereadable() input file when it was opened.
  std::uint64_t file_size() const;
  // Whether the input is FASTQ (its first record starts with '@'). May skip the empty lines before the
  // first record, as next() does; call before next().
  bool fastq();

  // Parallel parsing of a rereadable() FASTA input (not FASTQ): a reader, on the same open file, of the
  // records whose header line starts at an input offset in [begin, end), a *block*. A block of begin
  // > 0 starts at the first '>' that starts a line at or after begin, so that blocks [0, b), [b, c),
  // [c, ...) hold every record once, each record parsed exactly as next() parses it from the start.
  // before: the counts of the input before the block (those of the previous blocks, summed), so that
  // messages name the same line and record numbers as a reader of the whole input; record.index is
  // before.delivered plus the records delivered by the block. next() returns false at the end of the
  // block, also when it held no valid record. Residues are checked, not kept (keep_codes(false)).
  // The block reader is independent of this one (one per thread); the file is shared. An empty block
  // (begin >= end) reads nothing: a reader for read_residues_again on another thread.
  FastaReader block_reader(std::uint64_t begin, std::uint64_t end, const FastaCounts& before) const;
  // What this reader has consumed: for a block reader, the counts of its block (before excluded).
  FastaCounts counts() const;

 private:
  FastaReader(const FastaReader& parent, std::uint64_t begin, std::uint64_t end, const FastaCounts& before);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpsearch

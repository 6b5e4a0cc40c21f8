// RecordsAhead: the records of a FASTA input read ahead in order, for a consumer that takes them in
// batches (align's pairs). An uncompressed FASTA file is parsed in blocks on several threads
// (FastaReader::block_reader); any other input (stdin, compressed, FASTQ) by the reader alone. The
// records, their codes and the error messages are those the reader alone gives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "db/fasta.hpp"

namespace warpsearch {

class RecordsAhead {
 public:
  // Bytes of input a thread parses at a time: large enough that a block's set-up (finding its first
  // header) is negligible, small enough that a round of blocks reads little beyond a batch.
  static constexpr std::uint64_t kBlockBytes = std::uint64_t{1} << 20;

  // Reads `reader`'s records (none read yet) on up to `threads` threads, in blocks of `block_bytes`
  // (tests make them small). The reader must outlive this.
  RecordsAhead(FastaReader& reader, unsigned threads, std::uint64_t block_bytes = kBlockBytes);

  // Reads until `count` records or `residues` residues are held, or the input ends (in blocks, a round
  // of blocks may read beyond).
  void fill(std::size_t count, std::uint64_t residues);
  // Moves the first `count` held records (count <= held()) to `out`, replacing what it held.
  void take(std::size_t count, std::vector<SequenceRecord>& out);
  std::size_t held() const { return held_.size(); }
  bool ended() const { return ended_; }
  // Reads the rest of the input without keeping it and returns how many records were held or came
  // after them: the input's records from the first held one on.
  std::uint64_t count_rest();

 private:
  void read_round();  // one round of blocks, one per thread, appended in order
  void finish();      // the input's end: the whole input's checks

  FastaReader& reader_;
  unsigned threads_;
  std::uint64_t block_bytes_;
  bool in_blocks_;
  std::uint64_t file_size_ = 0;
  std::uint64_t next_block_ = 0;  // input offset of the next block
  FastaCounts before_;            // counts of the blocks read so far
  std::vector<SequenceRecord> held_;
  std::uint64_t held_residues_ = 0;
  bool ended_ = false;
};

// Empties `records`, freeing their memory on `threads` threads: hundreds of thousands of records'
// strings take tens of milliseconds to free on one.
void release_records(std::vector<SequenceRecord>& records, unsigned threads);

}  // namespace warpsearch

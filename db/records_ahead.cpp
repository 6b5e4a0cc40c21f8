#include "db/records_ahead.hpp"

#include <algorithm>
#include <exception>
#include <iterator>
#include <limits>

#include "base/interrupt.hpp"
#include "base/parallel.hpp"

namespace warpsearch {
namespace {

// One block's parse: its records and counts, or what it threw.
struct ParsedBlock {
  std::vector<SequenceRecord> records;
  FastaCounts counts;
  std::exception_ptr error;
};

}  // namespace

RecordsAhead::RecordsAhead(FastaReader& reader, unsigned threads, std::uint64_t block_bytes)
    : reader_(reader), threads_(std::max(threads, 1u)), block_bytes_(std::max<std::uint64_t>(block_bytes, 1)) {
  in_blocks_ = threads_ > 1 && reader_.rereadable() && !reader_.fastq();
  if (in_blocks_) file_size_ = reader_.file_size();
}

void RecordsAhead::fill(std::size_t count, std::uint64_t residues) {
  while (!ended_ && held() < count && held_residues_ < residues) {
    if (in_blocks_) {
      read_round();
      continue;
    }
    SequenceRecord record;
    if (!reader_.next(record)) {
      ended_ = true;
      break;
    }
    held_residues_ += record.codes.size();
    held_.push_back(std::move(record));
  }
}

void RecordsAhead::read_round() {
  // Block b of the round covers the headers in [begin, end); the file's last block runs to its end.
  const auto bounds = [&](std::size_t b) {
    const std::uint64_t begin = next_block_ + b * block_bytes_;
    const std::uint64_t end =
        begin + block_bytes_ >= file_size_ ? std::numeric_limits<std::uint64_t>::max() : begin + block_bytes_;
    return std::make_pair(begin, end);
  };
  // One block a thread, as many as the rest of the file fills (one for an empty file, whose reader says so).
  const std::uint64_t rest = file_size_ > next_block_ ? file_size_ - next_block_ : 1;
  const auto blocks =
      static_cast<std::size_t>(std::min<std::uint64_t>(threads_, (rest + block_bytes_ - 1) / block_bytes_));
  std::vector<ParsedBlock> parsed(blocks);
  parallel_for(blocks, threads_, [&](std::size_t b, unsigned) {
    const auto [begin, end] = bounds(b);
    try {
      FastaReader block = reader_.block_reader(begin, end, {});
      block.keep_codes(true);
      for (SequenceRecord record; block.next(record);) parsed[b].records.push_back(std::move(record));
      parsed[b].counts = block.counts();
    } catch (const Interrupted&) {
      throw;
    } catch (...) {
      parsed[b].error = std::current_exception();
    }
  });
  // In FASTA order. A block's error is raised again by a parse that knows the counts before the block,
  // so that its message names the line and record numbers of the whole input.
  for (std::size_t b = 0; b < blocks; ++b) {
    ParsedBlock& block = parsed[b];
    if (block.error) {
      const auto [begin, end] = bounds(b);
      FastaReader again = reader_.block_reader(begin, end, before_);
      for (SequenceRecord record; again.next(record);) {
      }
      std::rethrow_exception(block.error);
    }
    for (SequenceRecord& record : block.records) {
      record.index += before_.delivered;
      held_residues_ += record.codes.size();
    }
    if (held_.empty()) {
      held_ = std::move(block.records);
    } else {
      held_.insert(held_.end(), std::make_move_iterator(block.records.begin()),
                   std::make_move_iterator(block.records.end()));
    }
    before_ += block.counts;
  }
  next_block_ += blocks * block_bytes_;
  if (next_block_ >= file_size_) finish();
}

void RecordsAhead::finish() {
  ended_ = true;
  if (before_.delivered == 0) {
    // The message of a reader of the whole input: no records, or none valid.
    for (SequenceRecord record; reader_.next(record);) {
    }
  }
  reader_.check_unchanged();
}

void RecordsAhead::take(std::size_t count, std::vector<SequenceRecord>& out) {
  // The records after the first `count` (a round's overshoot at most) move, not the batch.
  std::vector<SequenceRecord> rest(std::make_move_iterator(held_.begin() + static_cast<std::ptrdiff_t>(count)),
                                   std::make_move_iterator(held_.end()));
  held_.resize(count);
  out.swap(held_);
  held_ = std::move(rest);
  held_residues_ = 0;
  for (const SequenceRecord& record : held_) held_residues_ += record.codes.size();
}

std::uint64_t RecordsAhead::count_rest() {
  std::uint64_t records = held();
  held_.clear();
  held_residues_ = 0;
  if (in_blocks_) {
    while (!ended_) {
      const std::size_t before = held_.size();
      read_round();
      records += held_.size() - before;
      held_.clear();
    }
    return records;
  }
  reader_.keep_codes(false);
  for (SequenceRecord record; !ended_ && reader_.next(record);) ++records;
  ended_ = true;
  return records;
}

void release_records(std::vector<SequenceRecord>& records, unsigned threads) {
  constexpr std::size_t kChunk = 4096;
  parallel_for((records.size() + kChunk - 1) / kChunk, threads, [&](std::size_t chunk, unsigned) {
    for (std::size_t r = chunk * kChunk; r < std::min(records.size(), (chunk + 1) * kChunk); ++r)
      records[r] = SequenceRecord{};
  });
  records.clear();
}

}  // namespace warpsearch

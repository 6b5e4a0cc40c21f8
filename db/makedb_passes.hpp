// makedb's two passes share these (db/makedb.cpp: pass 1 and the driver; db/makedb_chunks.cpp: pass 2,
// the length-sorted chunks). Private to db/.
#pragma once

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/atomic_file.hpp"
#include "db/fasta.hpp"
#include "db/manifest.hpp"

namespace warpsearch::detail {

// Threads x kSlotsPerThread input blocks (pass 1) and windows (pass 2) are in memory at once.
constexpr std::size_t kSlotsPerThread = 2;

// What pass 1 keeps per sequence (16 bytes): the sort key (length << 32 | FASTA index, so that plain
// sorting keeps FASTA order among equal lengths) and where pass 2 finds its residues
// (ResidueSource). Sorted together, so that pass 2 reads both in order.
struct Subject {
  std::uint64_t key;
  std::uint64_t position;
  bool operator<(const Subject& other) const { return key < other.key; }
};

inline std::uint32_t key_length(std::uint64_t key) { return static_cast<std::uint32_t>(key >> 32); }
inline std::uint64_t key_index(std::uint64_t key) { return key & 0xFFFFFFFFu; }

inline std::uint32_t crc32_of(const void* data, std::size_t size) {
  return size == 0 ? 0 : detail::bytes_crc32(data, size);
}

// A database file whose CRC-32 is put together from those of its pieces (crc32_combine), so that the
// pieces can be checksummed on the threads that make them.
class ChecksummedFile {
 public:
  explicit ChecksummedFile(const std::string& path) : writer_(path, true, FileWriter::Checksum::off) {
    // The database files bypass the page cache: makedb does not read them back, and the input, which
    // it does read again, stays cached.
    writer_.bypass_page_cache();
  }
  // crc: the CRC-32 of the size bytes at data.
  void write(const void* data, std::size_t size, std::uint32_t crc) {
    writer_.write(data, size);
    crc_ = static_cast<std::uint32_t>(::crc32_combine(crc_, crc, static_cast<z_off_t>(size)));
  }
  void write(const void* data, std::size_t size) { write(data, size, crc32_of(data, size)); }
  detail::FileEntry close(const std::string& name) {
    writer_.close(true);
    return {name, writer_.size(), crc_};
  }

 private:
  FileWriter writer_;
  std::uint32_t crc_ = 0;
};

// Sorts the keys on `threads` threads: parts sorted in parallel, then merged pairwise. Keys are unique
// (they hold the FASTA index), so the order is the same for any number of threads.
void sort_subjects(std::vector<Subject>& subjects, unsigned threads);

// Pass 2: the chunks' files, from windows of window_bytes of codes gathered on `threads` threads and written
// in order; the residues come from the input of reader or, when spool_path is not empty, from the spool.
void write_chunks(const std::string& directory, const std::vector<Subject>& subjects, std::uint64_t chunk_residues,
                  const FastaReader& reader, const std::string& spool_path, unsigned threads, std::size_t window_bytes,
                  Manifest& manifest);

}  // namespace warpsearch::detail

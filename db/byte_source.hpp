// ByteSource: the raw input bytes of a FASTA/FASTQ reader (db/fasta.hpp), from a file or stdin,
// decompressed when they start with the magic bytes of gzip, bzip2, xz or zstd. Private to db/.
#pragma once

#include <sys/stat.h>
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "db/decompress.hpp"

namespace warpsearch {

// The name of an input in messages: "standard input" for "-", else the path (escaped).
std::string input_display_name(const std::string& path);

// Not movable: zlib's state points back at its z_stream.
class ByteSource {
 public:
  static constexpr std::size_t kBlockSize = 1 << 20;  // bytes read (or inflated) at a time

  // Throws std::runtime_error naming the path when it cannot be opened.
  explicit ByteSource(const std::string& path);
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;
  ~ByteSource();

  // Up to capacity bytes of (uncompressed) input; 0 at the end.
  std::size_t read(char* out, std::size_t capacity);

  // From now on a thread of its own decompresses up to kAheadBlocks blocks ahead of read(), so that
  // decompression (serial by nature) overlaps with the caller's work on what it read; an error of that
  // thread is thrown by the read() that reaches it. Only for a compressed regular file: a read from a
  // pipe or a terminal could block that thread, and its end, without bound; otherwise nothing changes.
  // Call from the reading thread.
  void decompress_ahead();
  static constexpr std::size_t kAheadBlocks = 4;

  bool rereadable() const { return regular_ && !gzip_ && !decoder_; }

  // Up to capacity bytes at a file offset (rereadable sources); 0 at the end of the file.
  std::size_t read_at(std::uint64_t offset, char* out, std::size_t capacity) const;

  // The size of a regular file when it was opened.
  std::uint64_t size() const { return static_cast<std::uint64_t>(opened_.st_size); }

  // Whether the file still has the size and modification time it had when opened.
  bool unchanged() const;

 private:
  struct Ahead;
  std::size_t read_now(char* out, std::size_t capacity);
  std::size_t read_ahead(char* out, std::size_t capacity);
  void decompress_loop();
  std::size_t read_plain(char* out, std::size_t capacity);
  std::size_t read_fd(void* out, std::size_t capacity);
  void read_raw_more();
  std::uint64_t compressed_offset() const {
    return raw_offset_ + static_cast<std::uint64_t>(stream_.next_in - raw_.data());
  }
  std::size_t inflate_some(unsigned char* out, std::size_t capacity);
  // bzip2, xz, zstd: raw_[raw_pos_, raw_end_) is the compressed input not yet decoded.
  std::size_t decode_some(unsigned char* out, std::size_t capacity);

  std::string path_;
  std::unique_ptr<StreamDecoder> decoder_;
  int fd_ = -1;
  bool owns_fd_ = false;
  bool regular_ = false;   // a regular file opened by path
  struct stat opened_ {};  // its size and modification time when opened
  std::vector<unsigned char> raw_;
  std::size_t raw_pos_ = 0;
  std::size_t raw_end_ = 0;
  bool raw_eof_ = false;
  std::uint64_t raw_offset_ = 0;  // compressed offset of raw_[0]
  bool gzip_ = false;
  bool in_member_ = false;
  bool member_ended_ = false;
  z_stream stream_{};
  std::unique_ptr<Ahead> ahead_;  // with decompress_ahead(): the thread and its blocks
};

}  // namespace warpsearch

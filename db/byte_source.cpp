#include "db/byte_source.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "base/interrupt.hpp"
#include "base/text.hpp"

namespace warpsearch {

std::string input_display_name(const std::string& path) {
  return path == "-" ? std::string("standard input") : printable_excerpt(path);
}

struct ByteSource::Ahead {
  std::thread thread;
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::vector<char>> ready;   // decompressed blocks, in order
  std::vector<std::vector<char>> spare;  // blocks read, for reuse
  bool finished = false;                 // the thread reached the end of the input
  bool stop = false;                     // the owner is being destroyed
  std::exception_ptr error;              // what ended the thread, after the blocks in ready
  std::vector<char> current;             // the block read() copies from
  std::size_t current_pos = 0;
};

ByteSource::ByteSource(const std::string& path) : path_(path), raw_(kBlockSize) {
  if (path == "-") {
    fd_ = STDIN_FILENO;
  } else {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw std::runtime_error("cannot open " + quoted_excerpt(path) + ": " + std::strerror(errno));
    owns_fd_ = true;
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
    regular_ = ::fstat(fd_, &opened_) == 0 && S_ISREG(opened_.st_mode);
  }
  while (raw_end_ < 6 && !raw_eof_) read_raw_more();
  const Compression compression = detect_compression(raw_.data(), raw_end_);
  gzip_ = compression == Compression::gzip;
  if (compression != Compression::none && !gzip_) decoder_ = make_decoder(compression, input_display_name(path_));
  if (gzip_) {
    if (inflateInit2(&stream_, 15 + 16) != Z_OK)
      throw std::runtime_error(input_display_name(path_) + ": cannot initialise zlib");
    stream_.next_in = raw_.data();
    stream_.avail_in = static_cast<uInt>(raw_end_);
  }
}

ByteSource::~ByteSource() {
  if (ahead_) {
    {
      std::lock_guard<std::mutex> lock(ahead_->mutex);
      ahead_->stop = true;
    }
    ahead_->changed.notify_all();
    ahead_->thread.join();
  }
  if (gzip_) inflateEnd(&stream_);
  if (owns_fd_) ::close(fd_);
}

std::size_t ByteSource::read(char* out, std::size_t capacity) {
  return ahead_ ? read_ahead(out, capacity) : read_now(out, capacity);
}

void ByteSource::decompress_ahead() {
  if (ahead_ || !regular_ || (!gzip_ && !decoder_)) return;
  ahead_ = std::make_unique<Ahead>();
  ahead_->thread = std::thread([this] { decompress_loop(); });
}

void ByteSource::decompress_loop() {
  Ahead& ahead = *ahead_;
  for (;;) {
    std::vector<char> block;
    {
      std::unique_lock<std::mutex> lock(ahead.mutex);
      ahead.changed.wait(lock, [&] { return ahead.stop || ahead.ready.size() < kAheadBlocks; });
      if (ahead.stop) return;
      if (!ahead.spare.empty()) {
        block = std::move(ahead.spare.back());
        ahead.spare.pop_back();
      }
    }
    block.resize(kBlockSize);
    std::size_t n = 0;
    std::exception_ptr error;
    try {
      n = read_now(block.data(), block.size());
    } catch (...) {
      error = std::current_exception();
    }
    block.resize(n);
    {
      std::lock_guard<std::mutex> lock(ahead.mutex);
      if (n > 0) ahead.ready.push_back(std::move(block));
      ahead.error = error;
      ahead.finished = n == 0 || error;
    }
    ahead.changed.notify_all();
    if (n == 0 || error) return;
  }
}

std::size_t ByteSource::read_ahead(char* out, std::size_t capacity) {
  Ahead& ahead = *ahead_;
  if (ahead.current_pos == ahead.current.size()) {
    std::unique_lock<std::mutex> lock(ahead.mutex);
    if (!ahead.current.empty()) ahead.spare.push_back(std::move(ahead.current));
    ahead.current.clear();
    ahead.current_pos = 0;
    ahead.changed.wait(lock, [&] { return !ahead.ready.empty() || ahead.finished; });
    if (ahead.ready.empty()) {
      if (ahead.error) std::rethrow_exception(ahead.error);
      return 0;
    }
    ahead.current = std::move(ahead.ready.front());
    ahead.ready.pop_front();
    lock.unlock();
    ahead.changed.notify_all();
  }
  const std::size_t n = std::min(capacity, ahead.current.size() - ahead.current_pos);
  std::memcpy(out, ahead.current.data() + ahead.current_pos, n);
  ahead.current_pos += n;
  return n;
}

std::size_t ByteSource::read_now(char* out, std::size_t capacity) {
  if (decoder_) return decode_some(reinterpret_cast<unsigned char*>(out), capacity);
  return gzip_ ? inflate_some(reinterpret_cast<unsigned char*>(out), capacity) : read_plain(out, capacity);
}

std::size_t ByteSource::read_at(std::uint64_t offset, char* out, std::size_t capacity) const {
  for (;;) {
    const ssize_t n = ::pread(fd_, out, capacity, static_cast<off_t>(offset));
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno != EINTR) throw std::runtime_error("cannot read " + quoted_excerpt(path_) + ": " + std::strerror(errno));
    throw_if_interrupted();
  }
}

bool ByteSource::unchanged() const {
  struct stat now;
  return ::fstat(fd_, &now) == 0 && now.st_size == opened_.st_size && now.st_mtim.tv_sec == opened_.st_mtim.tv_sec &&
         now.st_mtim.tv_nsec == opened_.st_mtim.tv_nsec;
}

std::size_t ByteSource::read_plain(char* out, std::size_t capacity) {
  if (raw_pos_ < raw_end_) {
    const std::size_t n = std::min(capacity, raw_end_ - raw_pos_);
    std::memcpy(out, raw_.data() + raw_pos_, n);
    raw_pos_ += n;
    return n;
  }
  return read_fd(out, capacity);
}

std::size_t ByteSource::read_fd(void* out, std::size_t capacity) {
  for (;;) {
    const ssize_t n = ::read(fd_, out, capacity);
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno != EINTR)
      throw std::runtime_error("cannot read '" + input_display_name(path_) + "': " + std::strerror(errno));
    throw_if_interrupted();
  }
}

void ByteSource::read_raw_more() {
  const std::size_t n = read_fd(raw_.data() + raw_end_, raw_.size() - raw_end_);
  if (n == 0) raw_eof_ = true;
  raw_end_ += n;
}

std::size_t ByteSource::inflate_some(unsigned char* out, std::size_t capacity) {
  stream_.next_out = out;
  stream_.avail_out = static_cast<uInt>(std::min<std::size_t>(capacity, 1u << 30));
  const uInt wanted = stream_.avail_out;
  while (stream_.avail_out == wanted) {
    if (stream_.avail_in == 0) {
      raw_offset_ += raw_end_;
      raw_end_ = 0;
      if (!raw_eof_) read_raw_more();
      stream_.next_in = raw_.data();
      stream_.avail_in = static_cast<uInt>(raw_end_);
      if (raw_end_ == 0) {
        if (in_member_)
          throw std::runtime_error(
              input_display_name(path_) + ": truncated gzip stream: the compressed data ends at byte " +
              std::to_string(compressed_offset()) + " in the middle of a member; expected more compressed data");
        break;
      }
    }
    if (!in_member_) {
      // Another member follows the one that ended (concatenated gzip files).
      if (member_ended_) inflateReset(&stream_);
      in_member_ = true;
    }
    const int status = inflate(&stream_, Z_NO_FLUSH);
    if (status == Z_STREAM_END) {
      in_member_ = false;
      member_ended_ = true;
      continue;
    }
    if (status != Z_OK && status != Z_BUF_ERROR)
      throw std::runtime_error(input_display_name(path_) + ": corrupt gzip data near compressed byte " +
                               std::to_string(compressed_offset()) + ": " +
                               (stream_.msg != nullptr ? stream_.msg : "inflate failed") +
                               "; expected a valid gzip stream");
  }
  return wanted - stream_.avail_out;
}

std::size_t ByteSource::decode_some(unsigned char* out, std::size_t capacity) {
  for (;;) {
    if (raw_pos_ == raw_end_ && !raw_eof_) {
      raw_pos_ = raw_end_ = 0;
      read_raw_more();
    }
    const unsigned char* in = raw_.data() + raw_pos_;
    std::size_t left = raw_end_ - raw_pos_;
    const std::size_t n = decoder_->decode(in, &left, out, capacity, raw_eof_);
    const bool progress = raw_pos_ != raw_end_ - left;
    raw_pos_ = raw_end_ - left;
    if (n > 0 || (raw_eof_ && left == 0)) return n;
    if (!progress && left > 0)
      throw std::runtime_error(input_display_name(path_) + ": data after the end of the compressed stream");
  }
}

}  // namespace warpsearch

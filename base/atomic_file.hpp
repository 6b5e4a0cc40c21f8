// Output files that either appear complete or not at all.
//
//   FileWriter       a buffered writer on a file descriptor: every write and the close are checked
//                    (a full disk is an error naming the path), and a running CRC-32 is kept;
//                    optionally past the page cache (bypass_page_cache).
//   AtomicFile       writes a temporary file beside the target; commit() fsyncs it and renames it
//                    over the target. Without commit() (an exception, an interruption) the temporary
//                    file is removed and the target is untouched. The path "-" writes to stdout; an
//                    existing target that is not a regular file (/dev/null, a pipe) is written in
//                    place; a symbolic link to a regular file has the file it names replaced.
//   AtomicDirectory  the same for a whole directory (a database): a temporary sibling directory,
//                    renamed to the target by commit(), removed with its contents otherwise.
//
// Temporary names start with '.' and contain ".tmp-", in the target's own directory, so the final
// rename stays on one filesystem. None of these classes is thread-safe; all are move-only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace warpsearch {

class FileWriter {
 public:
  enum class Checksum { on, off };  // off: for scratch files, whose CRC-32 nobody reads
  // Creates path (mode 0666 less the umask), truncating an existing file; with exclusive, an existing
  // file is an error.
  explicit FileWriter(const std::string& path, bool exclusive = false, Checksum checksum = Checksum::on);
  // Writes to a descriptor the caller keeps owning (stdout); name is used in error messages.
  FileWriter(int borrowed_fd, std::string name);
  FileWriter(FileWriter&& other) noexcept;
  FileWriter& operator=(FileWriter&& other) noexcept;
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;
  // Closes an owned descriptor without reporting errors: call close() to learn of them.
  ~FileWriter();

  // From now on, writes the file with O_DIRECT where the filesystem allows it (else nothing changes):
  // the data go to the disk without passing through, and filling, the page cache. For large files
  // written once and not read back soon (a database being built). The buffer then goes out in whole
  // blocks of kDirectBlock bytes: flush() keeps a partial block back, and close() writes it padded
  // with zeros and truncates the file to size(). Call before the first write.
  void bypass_page_cache();
  static constexpr std::size_t kDirectBlock = 4096;  // O_DIRECT alignment of memory, offset, size

  // Small writes are copied into the buffer inline (makedb writes a few bytes per subject to
  // several files); the CRC-32 is computed a buffer at a time.
  void write(const void* data, std::size_t size) {
    if (fd_ >= 0 && size < capacity_ - used_) {
      if (size != 0) std::memcpy(buffer_.get() + used_, data, size);  // data may be null then
      used_ += size;
      written_ += size;
      return;
    }
    write_large(data, size);
  }
  void write(std::string_view text) { write(text.data(), text.size()); }
  // Writes out the buffer (with bypass_page_cache: its whole blocks).
  void flush();
  // Flushes, optionally fsyncs, and closes an owned descriptor; throws on any failure.
  void close(bool sync);

  std::uint64_t size() const { return written_; }  // bytes written so far
  std::uint32_t crc32() const;                     // zlib CRC-32 of those bytes (0 if off)
  const std::string& path() const { return path_; }

 private:
  struct FreeMemory {
    void operator()(char* memory) const noexcept;
  };
  void write_large(const void* data, std::size_t size);
  void write_through(const char* data, std::size_t size);  // adds data to the CRC-32
  void write_all(const char* data, std::size_t size);
  void write_direct_tail();
  void release() noexcept;

  int fd_ = -1;
  bool owns_fd_ = false;
  bool direct_ = false;  // O_DIRECT set on fd_
  std::string path_;
  std::unique_ptr<char[], FreeMemory> buffer_;  // kDirectBlock-aligned
  std::size_t capacity_ = 0;
  std::size_t used_ = 0;
  std::uint64_t written_ = 0;
  std::uint32_t crc_ = 0;  // of the bytes written through, not of those still in the buffer
  bool checksummed_ = true;
};

class AtomicFile {
 public:
  // Throws std::runtime_error naming the path when its directory is missing or not writable.
  explicit AtomicFile(const std::string& path);
  AtomicFile(AtomicFile&&) noexcept;
  AtomicFile& operator=(AtomicFile&&) noexcept;
  ~AtomicFile();

  void write(std::string_view text);
  // Formatted output into the same file (errors throw, as write() does).
  std::ostream& stream();
  // Writes out what is buffered: for stdout and targets written in place, the reader sees it now (a
  // temporary file still appears only at commit()).
  void flush();
  // Flushes, fsyncs and renames the file into place (for stdout: flushes). Call once.
  void commit();

  const std::string& path() const;
  bool is_stdout() const;
  // Where the data go until commit() (empty for stdout): for a last-resort unlink() from a context that
  // cannot unwind (a process about to be killed).
  const std::string& temporary_path() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class AtomicDirectory {
 public:
  // Creates the temporary sibling of target. Throws if target's parent directory is missing.
  explicit AtomicDirectory(const std::string& target);
  AtomicDirectory(AtomicDirectory&& other) noexcept;
  AtomicDirectory& operator=(AtomicDirectory&& other) noexcept;
  AtomicDirectory(const AtomicDirectory&) = delete;
  AtomicDirectory& operator=(const AtomicDirectory&) = delete;
  ~AtomicDirectory();

  const std::string& path() const { return temporary_; }  // where to write the contents
  const std::string& target() const { return target_; }
  // fsyncs the temporary directory, renames it to target (which must not exist, or be an empty
  // directory) and fsyncs the parent.
  void commit();

 private:
  void remove() noexcept;
  std::string target_;
  std::string temporary_;
};

// The directory part of a path ("." for a bare name).
std::string parent_directory(const std::string& path);

}  // namespace warpsearch

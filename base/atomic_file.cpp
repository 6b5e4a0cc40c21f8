#include "base/atomic_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <streambuf>
#include <utility>

#include "base/interrupt.hpp"
#include "base/text.hpp"

namespace warpsearch {
namespace {

constexpr std::size_t kWriteBuffer = 1 << 20;
constexpr std::size_t kDirectWriteBuffer = 4 << 20;  // larger: each O_DIRECT write waits for the disk

std::string system_error(const std::string& what, const std::string& path, int error) {
  return what + " " + quoted_excerpt(path) + ": " + std::strerror(error);
}

std::string base_name(const std::string& path) {
  std::string trimmed = path;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  const auto slash = trimmed.rfind('/');
  return slash == std::string::npos ? trimmed : trimmed.substr(slash + 1);
}

// Removes the temporary siblings of path left by runs that were killed (SIGKILL, a crash, a power
// cut): ".NAME.tmp-PID-..." whose process no longer exists. A live run's are never touched: its PID
// answers kill(PID, 0) (a PID reused by an unrelated process keeps a stale name, harmlessly, until it
// ends). Processes of other machines sharing the directory are not visible here: their temporaries
// could be taken for stale ones, so this is for local filesystems.
void remove_stale_temporaries(const std::string& path) {
  const std::string prefix = "." + base_name(path) + ".tmp-";
  DIR* directory = ::opendir(parent_directory(path).c_str());
  if (directory == nullptr) return;
  std::vector<std::string> stale;
  while (const dirent* entry = ::readdir(directory)) {
    const std::string name = entry->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    const char* digits = name.c_str() + prefix.size();
    char* end = nullptr;
    const long pid = std::strtol(digits, &end, 10);
    if (end == digits || *end != '-' || pid <= 0 || pid == static_cast<long>(::getpid())) continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) stale.push_back(name);
  }
  ::closedir(directory);
  for (const std::string& name : stale) {
    std::error_code ignored;
    std::filesystem::remove_all(parent_directory(path) + "/" + name, ignored);
  }
}

// A fresh name for a temporary sibling of path: ".NAME.tmp-PID-RANDOM".
std::string temporary_sibling(const std::string& path) {
  static std::mt19937_64 random_source{std::random_device{}()};
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, "%ld-%08llx", static_cast<long>(::getpid()),
                static_cast<unsigned long long>(random_source() & 0xFFFFFFFFu));
  return parent_directory(path) + "/." + base_name(path) + ".tmp-" + suffix;
}

void require_directory(const std::string& directory, const std::string& for_path) {
  struct stat status;
  if (::stat(directory.c_str(), &status) != 0)
    throw std::runtime_error("cannot create " + quoted_excerpt(for_path) + ": directory " + quoted_excerpt(directory) +
                             " does not exist");
  if (!S_ISDIR(status.st_mode))
    throw std::runtime_error("cannot create " + quoted_excerpt(for_path) + ": " + quoted_excerpt(directory) +
                             " is not a directory");
}

void sync_directory(const std::string& directory) {
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(system_error("cannot open directory", directory, errno));
  const int result = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  // Some filesystems refuse fsync on directories; the data itself was synced already.
  if (result != 0 && error != EINVAL && error != EROFS)
    throw std::runtime_error(system_error("cannot sync directory", directory, error));
}

// A file rewritten through a temporary keeps what the old file had: its permission bits and, where
// this process may set them, its owner and group (a 0600 file stays 0600).
void keep_owner_and_mode(const std::string& temporary, const std::string& existing) {
  struct stat old_status;
  if (::stat(existing.c_str(), &old_status) != 0 || !S_ISREG(old_status.st_mode)) return;
  if (::chown(temporary.c_str(), old_status.st_uid, old_status.st_gid) != 0) {
    // Not permitted (another owner): the group alone, where this user belongs to it.
    (void)!::chown(temporary.c_str(), static_cast<uid_t>(-1), old_status.st_gid);
  }
  if (::chmod(temporary.c_str(), old_status.st_mode & 07777) != 0)
    throw std::runtime_error(system_error("cannot set the permissions of", temporary, errno));
}

}  // namespace

std::string parent_directory(const std::string& path) {
  std::string trimmed = path;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  const auto slash = trimmed.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return trimmed.substr(0, slash);
}

// ---------------------------------------------------------------------------------------------
// FileWriter

namespace {
char* allocate_buffer(std::size_t size) {
  void* memory = nullptr;
  if (::posix_memalign(&memory, FileWriter::kDirectBlock, size) != 0) throw std::bad_alloc();
  return static_cast<char*>(memory);
}
}  // namespace

void FileWriter::FreeMemory::operator()(char* memory) const noexcept { std::free(memory); }

FileWriter::FileWriter(const std::string& path, bool exclusive, Checksum checksum)
    : owns_fd_(true), path_(path), checksummed_(checksum == Checksum::on) {
  buffer_.reset(allocate_buffer(kWriteBuffer));
  capacity_ = kWriteBuffer;
  const int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (exclusive ? O_EXCL : O_TRUNC);
  fd_ = ::open(path.c_str(), flags, 0666);
  if (fd_ < 0) throw std::runtime_error(system_error("cannot create", path, errno));
}

FileWriter::FileWriter(int borrowed_fd, std::string name) : fd_(borrowed_fd), owns_fd_(false), path_(std::move(name)) {
  buffer_.reset(allocate_buffer(kWriteBuffer));
  capacity_ = kWriteBuffer;
}

FileWriter::FileWriter(FileWriter&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      owns_fd_(std::exchange(other.owns_fd_, false)),
      direct_(std::exchange(other.direct_, false)),
      path_(std::move(other.path_)),
      buffer_(std::move(other.buffer_)),
      capacity_(std::exchange(other.capacity_, 0)),
      used_(std::exchange(other.used_, 0)),
      written_(other.written_),
      crc_(other.crc_),
      checksummed_(other.checksummed_) {}

FileWriter& FileWriter::operator=(FileWriter&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = std::exchange(other.fd_, -1);
    owns_fd_ = std::exchange(other.owns_fd_, false);
    direct_ = std::exchange(other.direct_, false);
    path_ = std::move(other.path_);
    buffer_ = std::move(other.buffer_);
    capacity_ = std::exchange(other.capacity_, 0);
    used_ = std::exchange(other.used_, 0);
    written_ = other.written_;
    crc_ = other.crc_;
    checksummed_ = other.checksummed_;
  }
  return *this;
}

FileWriter::~FileWriter() { release(); }

void FileWriter::release() noexcept {
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void FileWriter::bypass_page_cache() {
  if (fd_ < 0 || written_ != 0) throw std::logic_error("bypass_page_cache after writing '" + path_ + "'");
  if (direct_) return;
  const int flags = ::fcntl(fd_, F_GETFL);
  // Refused (EINVAL) where the filesystem has no direct I/O, e.g. tmpfs: then stay buffered.
  if (flags < 0 || ::fcntl(fd_, F_SETFL, flags | O_DIRECT) != 0) return;
  direct_ = true;
  buffer_.reset(allocate_buffer(kDirectWriteBuffer));
  capacity_ = kDirectWriteBuffer;
}

void FileWriter::write_large(const void* data, std::size_t size) {
  if (fd_ < 0) throw std::logic_error("write to closed file '" + path_ + "'");
  if (size == 0) return;
  const auto* bytes = static_cast<const char*>(data);
  written_ += size;
  if (size >= capacity_ && !direct_) {  // O_DIRECT writes only from the aligned buffer
    flush();
    write_through(bytes, size);
    return;
  }
  while (size > 0) {
    if (used_ == capacity_) flush();
    const std::size_t piece = std::min(size, capacity_ - used_);
    std::memcpy(buffer_.get() + used_, bytes, piece);
    used_ += piece;
    bytes += piece;
    size -= piece;
  }
}

void FileWriter::flush() {
  const std::size_t whole = direct_ ? used_ / kDirectBlock * kDirectBlock : used_;
  write_through(buffer_.get(), whole);
  used_ -= whole;
  if (used_ > 0) std::memmove(buffer_.get(), buffer_.get() + whole, used_);
}

std::uint32_t FileWriter::crc32() const {
  if (!checksummed_ || used_ == 0) return crc_;
  return static_cast<std::uint32_t>(
      ::crc32_z(crc_, reinterpret_cast<const Bytef*>(buffer_.get()), static_cast<z_size_t>(used_)));
}

void FileWriter::write_through(const char* data, std::size_t size) {
  // size 0 also because zlib's crc32 of a null pointer is its initial value, not the running one.
  if (checksummed_ && size > 0)
    crc_ =
        static_cast<std::uint32_t>(::crc32_z(crc_, reinterpret_cast<const Bytef*>(data), static_cast<z_size_t>(size)));
  write_all(data, size);
}

void FileWriter::write_all(const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t done = ::write(fd_, data, size);
    if (done < 0) {
      if (errno == EINTR) {
        throw_if_interrupted();  // a write blocked on a full pipe, interrupted
        continue;
      }
      const int error = errno;
      // A filesystem that took the O_DIRECT flag but refuses the transfer: write it buffered.
      if (direct_ && error == EINVAL && ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_DIRECT) == 0) {
        direct_ = false;
        continue;
      }
      throw std::runtime_error(system_error("cannot write", path_, error));
    }
    data += done;
    size -= static_cast<std::size_t>(done);
  }
}

// The last partial block of an O_DIRECT file: padded with zeros to a whole block, written, and cut
// off again.
void FileWriter::write_direct_tail() {
  if (checksummed_)
    crc_ = static_cast<std::uint32_t>(
        ::crc32_z(crc_, reinterpret_cast<const Bytef*>(buffer_.get()), static_cast<z_size_t>(used_)));
  const std::size_t padded = (used_ + kDirectBlock - 1) / kDirectBlock * kDirectBlock;
  std::memset(buffer_.get() + used_, 0, padded - used_);
  write_all(buffer_.get(), padded);
  used_ = 0;
  if (::ftruncate(fd_, static_cast<off_t>(written_)) != 0)
    throw std::runtime_error(system_error("cannot truncate", path_, errno));
}

void FileWriter::close(bool sync) {
  if (fd_ < 0) return;
  flush();
  if (used_ > 0) write_direct_tail();
  if (sync && ::fsync(fd_) != 0 && errno != EINVAL) throw std::runtime_error(system_error("cannot sync", path_, errno));
  if (owns_fd_) {
    const int fd = std::exchange(fd_, -1);
    if (::close(fd) != 0) throw std::runtime_error(system_error("cannot close", path_, errno));
  }
  fd_ = -1;
}

// ---------------------------------------------------------------------------------------------
// AtomicFile

namespace {
// Unbuffered: FileWriter does the buffering, and its exceptions reach the stream's user because the
// stream is set to rethrow on badbit.
class WriterStreamBuffer : public std::streambuf {
 public:
  explicit WriterStreamBuffer(FileWriter& writer) : writer_(&writer) {}

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char byte = traits_type::to_char_type(c);
    writer_->write(&byte, 1);
    return c;
  }
  std::streamsize xsputn(const char* data, std::streamsize size) override {
    writer_->write(data, static_cast<std::size_t>(size));
    return size;
  }

 private:
  FileWriter* writer_;
};
}  // namespace

struct AtomicFile::Impl {
  explicit Impl(const std::string& target_path)
      : target(target_path),
        destination(resolve_link(target_path)),
        writer(open_output(target_path, destination, temporary)),
        buffer(writer),
        out(&buffer) {
    out.exceptions(std::ios::badbit);
  }
  ~Impl() {
    if (!committed && !temporary.empty()) {
      ::unlink(temporary.c_str());
      unregister_temporary(temporary);
    }
  }

  // Paths that name an open descriptor rather than a file: /proc/self/fd/N, and the links into /proc
  // (/dev/stdout, /dev/fd/N).
  static bool names_descriptor(const std::string& target_path) {
    if (target_path.rfind("/proc/", 0) == 0) return true;
    struct stat link;
    if (::lstat(target_path.c_str(), &link) != 0 || !S_ISLNK(link.st_mode)) return false;
    std::error_code error;
    return std::filesystem::read_symlink(target_path, error).string().rfind("/proc/", 0) == 0 && !error;
  }

  // A symbolic link (also a dangling one): the file at the end of its chain is replaced (or created),
  // and the link kept.
  static std::string resolve_link(const std::string& target_path) {
    if (target_path == "-" || names_descriptor(target_path)) return target_path;
    std::string resolved = target_path;
    for (int hop = 0; hop < 40; ++hop) {  // the kernel's limit on a chain of links
      struct stat link;
      if (::lstat(resolved.c_str(), &link) != 0 || !S_ISLNK(link.st_mode)) break;
      std::error_code error;
      const std::filesystem::path next = std::filesystem::read_symlink(resolved, error);
      if (error) break;
      resolved = next.is_absolute() ? next.string() : parent_directory(resolved) + "/" + next.string();
    }
    return resolved;
  }

  static FileWriter open_output(const std::string& target_path, const std::string& destination,
                                std::string& temporary_path) {
    if (target_path == "-") return FileWriter(STDOUT_FILENO, "standard output");
    // An existing target that is not a regular file (a device such as /dev/null or /dev/full, a pipe),
    // or a descriptor, cannot be replaced by a rename, and renaming over it would replace the device
    // or link itself: it is written in place, every write checked.
    struct stat status;
    const bool exists = ::stat(destination.c_str(), &status) == 0;
    if (exists && S_ISDIR(status.st_mode))
      throw std::runtime_error("cannot write " + quoted_excerpt(target_path) + ": it is a directory");
    if ((exists && !S_ISREG(status.st_mode)) || names_descriptor(target_path)) return FileWriter(destination);
    return create_temporary(destination, temporary_path);
  }

  static FileWriter create_temporary(const std::string& target_path, std::string& temporary_path) {
    require_directory(parent_directory(target_path), target_path);
    remove_stale_temporaries(target_path);
    // The name has 32 random bits: a collision is an error like any other. Registered before it is
    // created, so that the watchdog of an interrupted run removes it whenever the signal comes.
    temporary_path = temporary_sibling(target_path);
    register_temporary(temporary_path);
    try {
      return FileWriter(temporary_path, true);
    } catch (const std::runtime_error& e) {
      unregister_temporary(temporary_path);
      temporary_path.clear();
      throw std::runtime_error("cannot write " + quoted_excerpt(target_path) + ": " + e.what());
    }
  }

  std::string target;
  std::string destination;  // target, or the file a symbolic link target names
  std::string temporary;    // empty for stdout and for targets written in place
  FileWriter writer;
  WriterStreamBuffer buffer;
  std::ostream out;
  bool committed = false;
};

AtomicFile::AtomicFile(const std::string& path) : impl_(std::make_unique<Impl>(path)) {}
AtomicFile::AtomicFile(AtomicFile&&) noexcept = default;
AtomicFile& AtomicFile::operator=(AtomicFile&&) noexcept = default;
AtomicFile::~AtomicFile() = default;

void AtomicFile::write(std::string_view text) { impl_->writer.write(text); }
std::ostream& AtomicFile::stream() { return impl_->out; }
const std::string& AtomicFile::path() const { return impl_->target; }
bool AtomicFile::is_stdout() const { return impl_->temporary.empty(); }
const std::string& AtomicFile::temporary_path() const { return impl_->temporary; }

void AtomicFile::flush() { impl_->writer.flush(); }

void AtomicFile::commit() {
  if (impl_->committed) throw std::logic_error("'" + impl_->target + "' committed twice");
  if (impl_->temporary.empty()) {  // stdout, or a device or pipe written in place
    impl_->writer.close(false);
    impl_->committed = true;
    return;
  }
  keep_owner_and_mode(impl_->temporary, impl_->destination);
  impl_->writer.close(true);
  commit_unless_interrupted(impl_->temporary, [&] {
    if (::rename(impl_->temporary.c_str(), impl_->destination.c_str()) != 0)
      throw std::runtime_error(system_error("cannot rename the finished file to", impl_->target, errno));
    impl_->committed = true;
  });
  sync_directory(parent_directory(impl_->destination));
}

// ---------------------------------------------------------------------------------------------
// AtomicDirectory

AtomicDirectory::AtomicDirectory(const std::string& target) : target_(target) {
  require_directory(parent_directory(target), target);
  remove_stale_temporaries(target);
  for (int attempt = 0;; ++attempt) {
    temporary_ = temporary_sibling(target);
    register_temporary(temporary_);
    if (::mkdir(temporary_.c_str(), 0777) == 0) return;
    const int error = errno;
    unregister_temporary(temporary_);
    if (error != EEXIST || attempt > 100) {
      temporary_.clear();
      throw std::runtime_error(system_error("cannot create a temporary directory for", target, error));
    }
  }
}

AtomicDirectory::AtomicDirectory(AtomicDirectory&& other) noexcept
    : target_(std::move(other.target_)), temporary_(std::exchange(other.temporary_, {})) {}

AtomicDirectory& AtomicDirectory::operator=(AtomicDirectory&& other) noexcept {
  if (this != &other) {
    remove();
    target_ = std::move(other.target_);
    temporary_ = std::exchange(other.temporary_, {});
  }
  return *this;
}

AtomicDirectory::~AtomicDirectory() { remove(); }

void AtomicDirectory::remove() noexcept {
  if (temporary_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(temporary_, ignored);
  unregister_temporary(temporary_);
  temporary_.clear();
}

void AtomicDirectory::commit() {
  if (temporary_.empty()) throw std::logic_error("'" + target_ + "' committed twice");
  sync_directory(temporary_);
  commit_unless_interrupted(temporary_, [&] {
    if (::rename(temporary_.c_str(), target_.c_str()) != 0) {
      const int error = errno;
      if (error == ENOTEMPTY || error == EEXIST)
        throw std::runtime_error("cannot create '" + target_ + "': it already exists");
      throw std::runtime_error(system_error("cannot rename the finished directory to", target_, error));
    }
  });
  temporary_.clear();
  sync_directory(parent_directory(target_));
}

}  // namespace warpsearch

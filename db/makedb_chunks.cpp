#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>

#include "base/interrupt.hpp"
#include "base/ordered_parallel.hpp"
#include "base/parallel.hpp"
#include "base/text.hpp"
#include "db/makedb_passes.hpp"

namespace warpsearch::detail {
namespace {

// Where pass 2 finds the residue codes of a subject, from the position pass 1 noted: in the input
// itself (an uncompressed file, read again: nothing is written twice), or else (gzip, stdin, a pipe)
// in the spool file where pass 1 wrote every record's codes. One per thread.
class ResidueSource {
 public:
  // spool_path empty: the input of reader.
  ResidueSource(const FastaReader& reader, const std::string& spool_path) : path_(spool_path) {
    if (path_.empty()) {
      reader_.emplace(reader.block_reader(0, 0, {}));
      return;
    }
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw std::runtime_error("cannot open " + quoted_excerpt(path_) + ": " + std::strerror(errno));
  }
  ResidueSource(const ResidueSource&) = delete;
  ResidueSource& operator=(const ResidueSource&) = delete;
  ~ResidueSource() {
    if (fd_ >= 0) ::close(fd_);
  }

  // The codes of the next count residues of a subject at *position; moves *position past them.
  void read(std::uint64_t* position, char* out, std::size_t count) {
    if (fd_ < 0) {
      reader_->read_residues_again(position, out, count);
      return;
    }
    while (count > 0) {
      const ssize_t n = ::pread(fd_, out, count, static_cast<off_t>(*position));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        throw std::runtime_error("cannot read " + quoted_excerpt(path_) + ": " +
                                 (n < 0 ? std::strerror(errno) : "unexpected end of file"));
      out += n;
      count -= static_cast<std::size_t>(n);
      *position += static_cast<std::uint64_t>(n);
    }
  }

 private:
  std::optional<FastaReader> reader_;
  std::string path_;
  int fd_ = -1;
};

// Pass 2 gathers a window of consecutive subjects of a chunk (in sorted order) at a time: as many as
// fit the window's bytes of codes, or one longer subject. Windows are gathered in parallel and written in
// order.
struct WindowPlan {
  std::size_t chunk = 0;
  std::size_t begin = 0, end = 0;  // sorted positions
  std::uint64_t first_word = 0;    // of the window's first subject in the chunk's residues
  bool chunk_begins = false, chunk_ends = false;
  bool long_subject = false;  // one subject longer than a window: read in pieces while writing
};

std::vector<WindowPlan> plan_windows(const std::vector<Subject>& subjects, std::uint64_t chunk_residues,
                                     std::size_t window_bytes) {
  std::vector<WindowPlan> windows;
  const std::size_t count = subjects.size();
  for (std::size_t begin = 0, chunk = 0; begin < count; ++chunk) {
    std::size_t end = begin;
    std::uint64_t residues = 0;
    while (end < count && (end == begin || residues + key_length(subjects[end].key) <= chunk_residues))
      residues += key_length(subjects[end++].key);
    std::uint64_t word = 0;
    for (std::size_t s = begin; s < end;) {
      WindowPlan window;
      window.chunk = chunk;
      window.begin = s;
      window.first_word = word;
      window.chunk_begins = s == begin;
      std::size_t filled = 0;
      for (; s < end; ++s) {
        const std::size_t size = (std::size_t{key_length(subjects[s].key)} + 3) / 4 * 4;
        if (filled > 0 && filled + size > window_bytes) break;
        filled += size;
        word += size / 4;
        if (size > window_bytes) {
          window.long_subject = true;
          ++s;
          break;
        }
      }
      window.end = s;
      window.chunk_ends = s == end;
      windows.push_back(window);
    }
    begin = end;
  }
  return windows;
}

// A window's part of the four chunk files.
struct Window {
  struct Entry {
    std::uint64_t position;  // of the subject's residues (ResidueSource)
    std::size_t at;          // of its codes in bytes
    std::uint32_t length;
    bool operator<(const Entry& other) const { return position < other.position; }
  };
  explicit Window(std::size_t size) : bytes(new char[size]) {}
  std::unique_ptr<char[]> bytes;
  std::size_t filled = 0;
  std::uint32_t bytes_crc = 0;
  std::vector<Entry> entries;
  std::vector<std::uint32_t> lengths;
  std::vector<std::uint64_t> offsets;
  std::vector<std::uint64_t> indices;
};

// Fills window with the subjects of plan (a long subject: its lengths, offsets and indices only). The
// residues are read in input order, so that consecutive reads land near each other in the input, which
// makes them cheaper (page-cache lookups hit the CPU caches more often).
void gather_window(const std::vector<Subject>& subjects, const WindowPlan& plan, ResidueSource& source,
                   std::uint8_t pad_code, Window& window) {
  throw_if_interrupted();
  window.entries.clear();
  window.lengths.clear();
  window.offsets.clear();
  window.indices.clear();
  window.filled = 0;
  std::uint64_t word = plan.first_word;
  for (std::size_t s = plan.begin; s < plan.end; ++s) {
    const std::uint32_t length = key_length(subjects[s].key);
    window.lengths.push_back(length);
    window.offsets.push_back(word);
    window.indices.push_back(key_index(subjects[s].key));
    word += (std::uint64_t{length} + 3) / 4;
    if (plan.long_subject) break;
    window.entries.push_back({subjects[s].position, window.filled, length});
    window.filled += (std::size_t{length} + 3) / 4 * 4;
  }
  std::sort(window.entries.begin(), window.entries.end());
  char* const bytes = window.bytes.get();
  for (const Window::Entry& entry : window.entries) {
    std::uint64_t position = entry.position;
    source.read(&position, bytes + entry.at, entry.length);
    for (std::size_t at = entry.at + entry.length; at % 4 != 0; ++at) bytes[at] = static_cast<char>(pad_code);
  }
  window.bytes_crc = crc32_of(bytes, window.filled);
}

// The four files of the chunk being written.
struct ChunkFiles {
  ChunkFiles(const std::string& directory, std::size_t chunk)
      : residues(directory + "/" + detail::chunk_file_name(chunk, detail::ChunkFile::residues)),
        lengths(directory + "/" + detail::chunk_file_name(chunk, detail::ChunkFile::lengths)),
        offsets(directory + "/" + detail::chunk_file_name(chunk, detail::ChunkFile::offsets)),
        indices(directory + "/" + detail::chunk_file_name(chunk, detail::ChunkFile::indices)) {}
  ChecksummedFile& file(detail::ChunkFile kind) {
    return kind == detail::ChunkFile::residues  ? residues
           : kind == detail::ChunkFile::lengths ? lengths
           : kind == detail::ChunkFile::offsets ? offsets
                                                : indices;
  }
  ChecksummedFile residues, lengths, offsets, indices;
};

}  // namespace

void write_chunks(const std::string& directory, const std::vector<Subject>& subjects, std::uint64_t chunk_residues,
                  const FastaReader& reader, const std::string& spool_path, unsigned threads, std::size_t window_bytes,
                  detail::Manifest& manifest) {
  const std::uint8_t pad_code = reader.alphabet().pad_code();
  const std::vector<WindowPlan> plans = plan_windows(subjects, chunk_residues, window_bytes);
  const std::size_t slots = std::size_t{threads} * kSlotsPerThread;
  std::vector<Window> windows;
  for (std::size_t w = 0; w < std::min(slots, std::max<std::size_t>(plans.size(), 1)); ++w)
    windows.emplace_back(window_bytes);
  std::vector<std::unique_ptr<ResidueSource>> sources(windows.size());
  ResidueSource long_source(reader, spool_path);
  std::optional<ChunkFiles> files;
  ChunkInfo info;
  std::uint64_t word = 0;
  const auto write_window = [&](std::size_t i, std::size_t slot) {
    const WindowPlan& plan = plans[i];
    Window& window = windows[slot];
    if (plan.chunk_begins) {
      files.emplace(directory, plan.chunk);
      info = {};
      info.first_subject = plan.begin;
      info.min_length = window.lengths.front();
      word = 0;
    }
    files->lengths.write(window.lengths.data(), window.lengths.size() * sizeof(std::uint32_t));
    files->offsets.write(window.offsets.data(), window.offsets.size() * sizeof(std::uint64_t));
    files->indices.write(window.indices.data(), window.indices.size() * sizeof(std::uint64_t));
    if (plan.long_subject) {
      // Through the window's buffer in pieces, on this thread.
      char* const bytes = window.bytes.get();
      std::uint64_t remaining = window.lengths.front(), position = subjects[plan.begin].position;
      while (remaining > 0) {
        throw_if_interrupted();
        const auto piece = static_cast<std::size_t>(std::min<std::uint64_t>(remaining, window_bytes));
        long_source.read(&position, bytes, piece);
        remaining -= piece;
        const std::size_t padded = (piece + 3) / 4 * 4;
        for (std::size_t at = piece; at < padded; ++at) bytes[at] = static_cast<char>(pad_code);
        files->residues.write(bytes, padded);
      }
    } else {
      files->residues.write(window.bytes.get(), window.filled, window.bytes_crc);
    }
    for (const std::uint32_t length : window.lengths) {
      info.residues += length;
      word += (std::uint64_t{length} + 3) / 4;
    }
    info.subjects += window.lengths.size();
    info.max_length = window.lengths.back();
    if (!plan.chunk_ends) return;
    const std::uint64_t padded =
        (word + detail::kChunkWordAlignment - 1) / detail::kChunkWordAlignment * detail::kChunkWordAlignment;
    const std::vector<char> padding((padded - word) * 4, static_cast<char>(pad_code));
    files->residues.write(padding.data(), padding.size());
    info.words = padded;
    for (detail::ChunkFile kind : detail::kChunkFiles)
      manifest.files.push_back(files->file(kind).close(detail::chunk_file_name(plan.chunk, kind)));
    files.reset();
    manifest.info.chunks.push_back(info);
    // What was read again came from the file pass 1 read.
    if (spool_path.empty()) reader.check_unchanged();
  };
  ordered_parallel(
      plans.size(), threads, windows.size(),
      [&](std::size_t i, std::size_t slot) {
        if (!sources[slot]) sources[slot] = std::make_unique<ResidueSource>(reader, spool_path);
        gather_window(subjects, plans[i], *sources[slot], pad_code, windows[slot]);
      },
      write_window);
}

void sort_subjects(std::vector<Subject>& subjects, unsigned threads) {
  const std::size_t count = subjects.size();
  const std::size_t parts = std::min<std::size_t>(threads, std::max<std::size_t>(count / 65536, 1));
  std::vector<std::size_t> bounds(parts + 1);
  for (std::size_t p = 0; p <= parts; ++p) bounds[p] = count * p / parts;
  const auto at = [&](std::size_t part) { return subjects.begin() + static_cast<std::ptrdiff_t>(bounds[part]); };
  parallel_for(parts, threads, [&](std::size_t p, unsigned) { std::sort(at(p), at(p + 1)); });
  for (std::size_t width = 1; width < parts; width *= 2) {
    const std::size_t merges = (parts + 2 * width - 1) / (2 * width);
    parallel_for(merges, threads, [&](std::size_t m, unsigned) {
      const std::size_t first = m * 2 * width;
      const std::size_t middle = std::min(first + width, parts), last = std::min(first + 2 * width, parts);
      if (middle < last) std::inplace_merge(at(first), at(middle), at(last));
    });
  }
}

}  // namespace warpsearch::detail

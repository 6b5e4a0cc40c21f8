#include "db/makedb.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <exception>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "base/atomic_file.hpp"
#include "base/interrupt.hpp"
#include "base/ordered_parallel.hpp"
#include "base/parallel.hpp"
#include "base/text.hpp"
#include "base/usable_cpus.hpp"
#include "db/byte_source.hpp"
#include "db/fasta.hpp"
#include "db/manifest.hpp"

namespace warpsearch {
namespace {

constexpr const char* kSpoolName = ".residues.spool";
// The unit of work (MakeDbOptions::unit_bytes): input bytes per block of the parallel first pass
// (Records), residue codes gathered at a time by the second (Window). Threads x kSlotsPerThread blocks
// (their headers and keys) and windows are in memory at once.
constexpr std::size_t kUnitBytes = 4 << 20;
constexpr std::size_t kSlotsPerThread = 2;
std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  ::gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

std::string describe_source(const std::string& input) {
  if (input == "-") return "standard input";
  std::error_code error;
  std::string source = std::filesystem::absolute(input, error).string();
  if (error) source = input;
  // The manifest is line-based.
  for (char& c : source)
    if (c == '\n' || c == '\r') c = '?';
  return source;
}

void refuse_existing_output(const std::string& output) {
  std::error_code error;
  const auto status = std::filesystem::symlink_status(output, error);
  if (error || !std::filesystem::exists(status)) return;
  if (!std::filesystem::is_directory(status) || !std::filesystem::is_empty(output, error))
    throw std::runtime_error("cannot create database '" + output + "': it already exists (remove it first)");
}

unsigned floor_log2(std::uint64_t value) {
  unsigned bits = 0;
  while (value >>= 1) ++bits;
  return bits;
}

// What pass 1 keeps per sequence (16 bytes): the sort key (length << 32 | FASTA index, so that plain
// sorting keeps FASTA order among equal lengths) and where pass 2 finds its residues
// (ResidueSource). Sorted together, so that pass 2 reads both in order.
struct Subject {
  std::uint64_t key;
  std::uint64_t position;
  bool operator<(const Subject& other) const { return key < other.key; }
};

std::uint32_t key_length(std::uint64_t key) { return static_cast<std::uint32_t>(key >> 32); }
std::uint64_t key_index(std::uint64_t key) { return key & 0xFFFFFFFFu; }

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

std::uint32_t crc32_of(const void* data, std::size_t size) { return size == 0 ? 0 : detail::bytes_crc32(data, size); }

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

// What pass 1 keeps of a stretch of consecutive records: an input block of the parallel pass, or the
// next records of the serial one.
struct Records {
  std::string headers;                     // their headers.txt lines
  std::uint32_t headers_crc = 0;           // CRC-32 of headers
  std::vector<std::uint64_t> header_ends;  // end of each line in headers
  std::vector<Subject> subjects;           // key: length << 32 | record.index
  FastaCounts counts;                      // of a block reader
  std::exception_ptr error;                // a block whose parse failed
  void clear() {
    headers.clear();
    header_ends.clear();
    subjects.clear();
    counts = {};
    error = nullptr;
  }
};

// position: where pass 2 finds the record's residues (ResidueSource).
void add_record(const std::string& input, const SequenceRecord& record, std::uint64_t position, Records& records) {
  const std::uint64_t length = record.length;
  if (length > std::numeric_limits<std::uint32_t>::max())
    throw std::runtime_error(input + ": record " + std::to_string(record.index + 1) + " (" + quoted_excerpt(record.id) +
                             ") has " + std::to_string(length) +
                             " residues; a database subject may have at most 4294967295");
  if (record.index > 0xFFFFFFFFu) throw std::runtime_error(input + ": more than 4294967296 sequences; split the input");
  records.headers += record.id;
  if (!record.description.empty()) {
    records.headers += ' ';
    records.headers += record.description;
  }
  records.headers += '\n';
  records.header_ends.push_back(records.headers.size());
  records.subjects.push_back({length << 32 | record.index, position});
}

// Pass 1's output, in FASTA order: the header files, the taxids, the keys and the statistics.
class FirstPass {
 public:
  FirstPass(const MakeDbOptions& options, const std::string& directory, DatabaseInfo& info)
      : options_(options),
        info_(info),
        headers_(directory + "/" + detail::kHeadersName),
        header_offsets_(directory + "/" + detail::kHeaderOffsetsName) {
    if (options.taxid_of) taxids_.emplace(directory + "/" + detail::kTaxidsName);
    const std::uint64_t zero = 0;
    header_offsets_.write(&zero, sizeof zero);
    info_.min_length = std::numeric_limits<std::uint32_t>::max();
  }

  // records' indices plus index_base are their FASTA indices.
  void add(const Records& records, std::uint64_t index_base) {
    if (!records.subjects.empty() && index_base + key_index(records.subjects.back().key) > 0xFFFFFFFFu)
      throw std::runtime_error(options_.input + ": more than 4294967296 sequences; split the input");
    const std::uint64_t header_base = headers_.size;
    headers_.write(records.headers.data(), records.headers.size(), records.headers_crc);
    offsets_scratch_.resize(records.header_ends.size());
    for (std::size_t i = 0; i < records.header_ends.size(); ++i)
      offsets_scratch_[i] = header_base + records.header_ends[i];
    header_offsets_.write(offsets_scratch_.data(), offsets_scratch_.size() * sizeof(std::uint64_t));
    if (taxids_) {
      taxid_scratch_.clear();
      std::size_t line = 0;
      for (const std::uint64_t line_end : records.header_ends) {
        const std::string_view text(records.headers.data() + line, line_end - 1 - line);
        taxid_scratch_.push_back(options_.taxid_of(text.substr(0, text.find(' '))));
        line = line_end;
      }
      taxids_->write(taxid_scratch_.data(), taxid_scratch_.size() * sizeof(std::uint32_t));
    }
    for (const Subject& subject : records.subjects) {
      const std::uint32_t length = key_length(subject.key);
      subjects.push_back({subject.key + index_base, subject.position});
      info_.residues += length;
      info_.max_length = std::max(info_.max_length, length);
      info_.min_length = std::min(info_.min_length, length);
      const unsigned bin = floor_log2(length);
      if (info_.length_histogram.size() <= bin) info_.length_histogram.resize(bin + 1);
      ++info_.length_histogram[bin];
    }
  }

  // The manifest's entries of the files written, in the manifest's order.
  void close(std::vector<detail::FileEntry>& files) {
    info_.subjects = subjects.size();
    if (taxids_) files.push_back(taxids_->close(detail::kTaxidsName));
    files.push_back(headers_.close(detail::kHeadersName));
    files.push_back(header_offsets_.close(detail::kHeaderOffsetsName));
  }

  std::vector<Subject> subjects;  // in FASTA order

 private:
  // A ChecksummedFile that knows its size.
  struct SizedFile {
    explicit SizedFile(const std::string& path) : file(path) {}
    void write(const void* data, std::size_t bytes, std::uint32_t crc) {
      file.write(data, bytes, crc);
      size += bytes;
    }
    void write(const void* data, std::size_t bytes) { write(data, bytes, crc32_of(data, bytes)); }
    detail::FileEntry close(const std::string& name) { return file.close(name); }
    ChecksummedFile file;
    std::uint64_t size = 0;
  };

  const MakeDbOptions& options_;
  DatabaseInfo& info_;
  SizedFile headers_;
  SizedFile header_offsets_;
  std::optional<SizedFile> taxids_;
  std::vector<std::uint64_t> offsets_scratch_;
  std::vector<std::uint32_t> taxid_scratch_;
};

// Pass 1 on one thread (a gzip file, a stream, FASTQ): the reader's records, and with a spool, the
// codes of every record written to it.
void read_serially(FastaReader& reader, const MakeDbOptions& options, unsigned threads, const std::string& spool_path,
                   FirstPass& pass) {
  std::optional<FileWriter> spool;
  if (!spool_path.empty()) spool.emplace(spool_path, true, FileWriter::Checksum::off);
  // A compressed file: decompressed on a second thread while this one parses and spools.
  if (threads > 1) reader.decompress_ahead();
  Records records;
  SequenceRecord record;
  for (bool more = true; more;) {
    records.clear();
    while (records.headers.size() < kUnitBytes && (more = reader.next(record))) {
      add_record(options.input, record, spool ? spool->size() : record.sequence_offset, records);
      if (spool) spool->write(record.codes.data(), record.codes.size());
    }
    records.headers_crc = crc32_of(records.headers.data(), records.headers.size());
    pass.add(records, 0);
  }
  if (spool) spool->close(false);
}

// Pass 1 on `threads` threads (an uncompressed FASTA file): blocks of block_bytes of the input
// (FastaReader::block_reader) parsed in parallel and added to pass in FASTA order. Returns the counts
// of the whole input.
FastaCounts read_in_blocks(FastaReader& reader, const MakeDbOptions& options, unsigned threads,
                           std::uint64_t block_bytes, FirstPass& pass) {
  const std::uint64_t size = reader.file_size();
  const auto blocks = static_cast<std::size_t>(std::max<std::uint64_t>((size + block_bytes - 1) / block_bytes, 1));
  const auto parse = [&](std::size_t block, const FastaCounts& before, Records& records) {
    const std::uint64_t end =
        block + 1 == blocks ? std::numeric_limits<std::uint64_t>::max() : (block + 1) * block_bytes;
    FastaReader block_reader = reader.block_reader(block * block_bytes, end, before);
    SequenceRecord record;
    while (block_reader.next(record)) add_record(options.input, record, record.sequence_offset, records);
    records.counts = block_reader.counts();
    records.headers_crc = crc32_of(records.headers.data(), records.headers.size());
  };
  const std::size_t slots = std::size_t{threads} * kSlotsPerThread;
  std::vector<Records> slot_records(std::min(slots, blocks));
  FastaCounts total;
  ordered_parallel(
      blocks, threads, slot_records.size(),
      [&](std::size_t block, std::size_t slot) {
        Records& records = slot_records[slot];
        records.clear();
        try {
          parse(block, {}, records);
        } catch (const Interrupted&) {
          throw;
        } catch (...) {
          records.error = std::current_exception();  // reported in FASTA order
        }
      },
      [&](std::size_t block, std::size_t slot) {
        Records& records = slot_records[slot];
        if (records.error) {
          // The first error in FASTA order. Its message names the line and record numbers of the whole
          // input once the block is parsed again knowing the counts before it.
          Records again;
          parse(block, total, again);
          std::rethrow_exception(records.error);
        }
        pass.add(records, total.delivered);
        total += records.counts;
      });
  if (total.delivered == 0) {
    // The message of a reader of the whole input: no records, or none valid.
    SequenceRecord record;
    while (reader.next(record)) {
    }
    throw std::runtime_error(input_display_name(options.input) + ": no sequence records");
  }
  return total;
}

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

// Pass 2: the chunks' files, from windows gathered on `threads` threads and written in order.
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

// Sorts the keys on `threads` threads: parts sorted in parallel, then merged pairwise. Keys are unique
// (they hold the FASTA index), so the order is the same for any number of threads.
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

}  // namespace
MakeDbReport make_database(const MakeDbOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (options.chunk_residues == 0) throw std::invalid_argument("the chunk size must be at least 1 residue");
  if (options.output.empty() || options.output == "-") throw std::invalid_argument("makedb needs an output directory");
  const unsigned threads = options.threads != 0 ? options.threads : usable_cpus();
  // A multiple of 4: a long subject goes through a window in pieces of whole words.
  const std::size_t unit_bytes =
      std::max<std::size_t>(options.unit_bytes != 0 ? options.unit_bytes : kUnitBytes, 4) / 4 * 4;
  refuse_existing_output(options.output);

  FastaReader reader(options.input, options.type, options.skip_invalid);
  AtomicDirectory directory(options.output);
  const std::string& temporary = directory.path();
  // An uncompressed input file is read again in pass 2; anything else goes through the spool.
  const std::string spool_path = reader.rereadable() ? "" : temporary + "/" + kSpoolName;
  reader.keep_codes(!spool_path.empty());

  // Pass 1: headers to their files, residues checked and counted (and written to the spool), in
  // FASTA order.
  detail::Manifest manifest;
  DatabaseInfo& info = manifest.info;
  info.type = reader.type();
  std::uint64_t input_bytes = 0;
  FirstPass pass(options, temporary, info);
  if (reader.rereadable() && !reader.fastq()) {
    const FastaCounts counts = read_in_blocks(reader, options, threads, unit_bytes, pass);
    info.skipped = counts.skipped;
    input_bytes = reader.file_size();
  } else {
    read_serially(reader, options, threads, spool_path, pass);
    info.skipped = reader.skipped();
    input_bytes = reader.bytes_consumed();
  }
  pass.close(manifest.files);
  std::vector<Subject> subjects = std::move(pass.subjects);

  if (options.between_passes) options.between_passes();

  // Pass 2: chunks of length-sorted subjects, gathered from the input or the spool.
  sort_subjects(subjects, threads);
  write_chunks(temporary, subjects, options.chunk_residues, reader, spool_path, threads, unit_bytes, manifest);
  if (!spool_path.empty() && ::unlink(spool_path.c_str()) != 0)
    throw std::runtime_error("cannot remove " + quoted_excerpt(spool_path) + ": " + std::strerror(errno));

  info.created_by = std::string("warpsearch ") + WARPSEARCH_VERSION;
  info.created_at = utc_now();
  info.source = describe_source(options.input);
  {
    FileWriter manifest_file(temporary + "/" + detail::kManifestName, true);
    manifest_file.write(detail::format_manifest(manifest));
    manifest_file.close(true);
  }
  throw_if_interrupted();
  directory.commit();

  MakeDbReport report;
  report.type = info.type;
  report.sequences = info.subjects;
  report.residues = info.residues;
  report.skipped = info.skipped;
  report.input_bytes = input_bytes;
  report.max_length = info.max_length;
  report.chunks = info.chunks.size();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace warpsearch

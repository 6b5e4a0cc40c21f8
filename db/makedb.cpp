#include "db/makedb.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "base/atomic_file.hpp"
#include "base/interrupt.hpp"
#include "base/text.hpp"
#include "db/fasta.hpp"
#include "db/manifest.hpp"

namespace warpsearch {
namespace {

constexpr const char* kSpoolName = ".residues.spool";
constexpr std::size_t kWindowBytes = 16 << 20;  // residue codes gathered at a time (Window)

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
// in the spool file where pass 1 wrote every record's codes.
class ResidueSource {
 public:
  // spool_path empty: the input.
  ResidueSource(FastaReader& reader, const std::string& spool_path) : reader_(reader), path_(spool_path) {
    if (path_.empty()) return;
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
      reader_.read_residues_again(position, out, count);
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
  FastaReader& reader_;
  std::string path_;
  int fd_ = -1;
};

// Pass 2 gathers the residues of a window of consecutive subjects (in sorted order) at a time, and
// reads them in input order: consecutive reads then land near each other in the input, which makes
// them cheaper (page-cache lookups hit the CPU caches more often).
struct Window {
  struct Entry {
    std::uint64_t position;  // of the subject's residues (ResidueSource)
    std::size_t at;          // of its codes in bytes
    std::uint32_t length;
    bool operator<(const Entry& other) const { return position < other.position; }
  };
  std::unique_ptr<char[]> bytes{new char[kWindowBytes]};
  std::vector<Entry> entries;
};

// Writes the four files of one chunk: subjects[begin, end) (sorted).
ChunkInfo write_chunk(const std::string& directory, std::size_t chunk_number, const std::vector<Subject>& subjects,
                      std::size_t begin, std::size_t end, ResidueSource& source, std::uint8_t pad_code, Window& window,
                      std::vector<detail::FileEntry>& files) {
  ChunkInfo info;
  info.first_subject = begin;
  info.subjects = end - begin;
  info.min_length = key_length(subjects[begin].key);
  info.max_length = key_length(subjects[end - 1].key);
  // The database files bypass the page cache: makedb does not read them back, and the input, which it
  // does read again, stays cached.
  auto open = [&](detail::ChunkFile kind) {
    FileWriter writer(directory + "/" + detail::chunk_file_name(chunk_number, kind), true);
    writer.bypass_page_cache();
    return writer;
  };
  FileWriter residues = open(detail::ChunkFile::residues);
  FileWriter lengths = open(detail::ChunkFile::lengths);
  FileWriter offsets = open(detail::ChunkFile::offsets);
  FileWriter indices = open(detail::ChunkFile::indices);

  char* const bytes = window.bytes.get();
  const auto pad = [&](std::size_t at) {  // padding codes from at to the next word boundary
    for (; at % 4 != 0; ++at) bytes[at] = static_cast<char>(pad_code);
  };
  std::uint64_t word = 0;
  for (std::size_t s = begin; s < end;) {
    throw_if_interrupted();
    // The window: subjects s, s+1, ... while their words fit.
    window.entries.clear();
    std::size_t filled = 0;
    for (; s < end; ++s) {
      const std::uint64_t key = subjects[s].key;
      const std::uint32_t length = key_length(key);
      const std::size_t size = (std::size_t{length} + 3) / 4 * 4;
      if (filled > 0 && filled + size > kWindowBytes) break;
      const std::uint64_t index = key_index(key);
      lengths.write(&length, sizeof length);
      offsets.write(&word, sizeof word);
      indices.write(&index, sizeof index);
      info.residues += length;
      word += size / 4;
      if (size > kWindowBytes) {  // a subject longer than the window, through it in pieces
        std::uint64_t remaining = length, position = subjects[s].position;
        while (remaining > 0) {
          const auto piece = static_cast<std::size_t>(std::min<std::uint64_t>(remaining, kWindowBytes));
          source.read(&position, bytes, piece);
          remaining -= piece;
          pad(piece);
          residues.write(bytes, (piece + 3) / 4 * 4);
        }
        ++s;
        break;
      }
      window.entries.push_back({subjects[s].position, filled, length});
      filled += size;
    }
    std::sort(window.entries.begin(), window.entries.end());
    for (const Window::Entry& entry : window.entries) {
      std::uint64_t position = entry.position;
      source.read(&position, bytes + entry.at, entry.length);
      pad(entry.at + entry.length);
    }
    residues.write(bytes, filled);
  }
  const std::uint64_t padded =
      (word + detail::kChunkWordAlignment - 1) / detail::kChunkWordAlignment * detail::kChunkWordAlignment;
  const std::vector<char> padding((padded - word) * 4, static_cast<char>(pad_code));
  residues.write(padding.data(), padding.size());
  info.words = padded;

  for (detail::ChunkFile kind : detail::kChunkFiles) {
    FileWriter& writer = kind == detail::ChunkFile::residues  ? residues
                         : kind == detail::ChunkFile::lengths ? lengths
                         : kind == detail::ChunkFile::offsets ? offsets
                                                              : indices;
    writer.close(true);
    files.push_back({detail::chunk_file_name(chunk_number, kind), writer.size(), writer.crc32()});
  }
  return info;
}

// Pass 1: headers to their files, residues checked and counted (and written to the spool when
// spool_path is not empty), in FASTA order. Returns the subjects, by length and index with where their
// residues are; fills the manifest's counts and the header and taxid files' entries.
std::vector<Subject> write_headers_pass(const MakeDbOptions& options, FastaReader& reader, const std::string& temporary,
                                        const std::string& spool_path, detail::Manifest& manifest) {
  DatabaseInfo& info = manifest.info;
  std::vector<Subject> subjects;
  FileWriter headers(temporary + "/" + detail::kHeadersName, true);
  FileWriter header_offsets(temporary + "/" + detail::kHeaderOffsetsName, true);
  headers.bypass_page_cache();
  header_offsets.bypass_page_cache();
  std::optional<FileWriter> taxids;
  if (options.taxid_of) {
    taxids.emplace(temporary + "/" + detail::kTaxidsName, true);
    taxids->bypass_page_cache();
  }
  std::optional<FileWriter> spool;
  if (!spool_path.empty()) spool.emplace(spool_path, true, FileWriter::Checksum::off);
  const std::uint64_t zero = 0;
  header_offsets.write(&zero, sizeof zero);
  info.min_length = std::numeric_limits<std::uint32_t>::max();
  SequenceRecord record;
  while (reader.next(record)) {
    const std::uint64_t length = record.length;
    if (length > std::numeric_limits<std::uint32_t>::max())
      throw std::runtime_error(options.input + ": record " + std::to_string(record.index + 1) + " (" +
                               quoted_excerpt(record.id) + ") has " + std::to_string(length) +
                               " residues; a database subject may have at most 4294967295");
    if (record.index > 0xFFFFFFFFu)
      throw std::runtime_error(options.input + ": more than 4294967296 sequences; split the input");
    headers.write(record.id);
    if (!record.description.empty()) {
      headers.write(" ");
      headers.write(record.description);
    }
    headers.write("\n");
    const std::uint64_t header_end = headers.size();
    header_offsets.write(&header_end, sizeof header_end);
    if (taxids) {
      const std::uint32_t taxid = options.taxid_of(record.id);
      taxids->write(&taxid, sizeof taxid);
    }

    const auto length32 = static_cast<std::uint32_t>(length);
    subjects.push_back({std::uint64_t{length32} << 32 | record.index, spool ? spool->size() : record.sequence_offset});
    if (spool) spool->write(record.codes.data(), record.codes.size());

    info.residues += length;
    info.max_length = std::max(info.max_length, length32);
    info.min_length = std::min(info.min_length, length32);
    const unsigned bin = floor_log2(length);
    if (info.length_histogram.size() <= bin) info.length_histogram.resize(bin + 1);
    ++info.length_histogram[bin];
  }
  info.subjects = subjects.size();
  info.skipped = reader.skipped();
  headers.close(true);
  header_offsets.close(true);
  if (spool) spool->close(false);
  if (taxids) {
    taxids->close(true);
    manifest.files.push_back({detail::kTaxidsName, taxids->size(), taxids->crc32()});
  }
  manifest.files.push_back({detail::kHeadersName, headers.size(), headers.crc32()});
  manifest.files.push_back({detail::kHeaderOffsetsName, header_offsets.size(), header_offsets.crc32()});
  return subjects;
}

}  // namespace

MakeDbReport make_database(const MakeDbOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (options.chunk_residues == 0) throw std::invalid_argument("the chunk size must be at least 1 residue");
  if (options.output.empty() || options.output == "-") throw std::invalid_argument("makedb needs an output directory");
  refuse_existing_output(options.output);

  FastaReader reader(options.input, options.type, options.skip_invalid);
  const Alphabet& alphabet = reader.alphabet();
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
  std::vector<Subject> subjects = write_headers_pass(options, reader, temporary, spool_path, manifest);

  if (options.between_passes) options.between_passes();

  // Pass 2: chunks of length-sorted subjects, gathered from the input or the spool.
  std::sort(subjects.begin(), subjects.end());
  {
    ResidueSource source(reader, spool_path);
    Window window;
    const std::size_t count = subjects.size();
    for (std::size_t begin = 0; begin < count;) {
      std::size_t end = begin;
      std::uint64_t residues = 0;
      while (end < count && (end == begin || residues + key_length(subjects[end].key) <= options.chunk_residues))
        residues += key_length(subjects[end++].key);
      info.chunks.push_back(write_chunk(temporary, info.chunks.size(), subjects, begin, end, source,
                                        alphabet.pad_code(), window, manifest.files));
      begin = end;
      // What was read again came from the file pass 1 read.
      if (spool_path.empty()) reader.check_unchanged();
    }
    if (!spool_path.empty() && ::unlink(spool_path.c_str()) != 0)
      throw std::runtime_error("cannot remove " + quoted_excerpt(spool_path) + ": " + std::strerror(errno));
  }

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
  report.input_bytes = reader.bytes_consumed();
  report.max_length = info.max_length;
  report.chunks = info.chunks.size();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace warpsearch

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
#include <stdexcept>
#include <vector>

#include "db/atomic_file.hpp"
#include "db/fasta.hpp"
#include "db/interrupt.hpp"
#include "db/manifest.hpp"

namespace warpsearch {
namespace {

constexpr const char* kSpoolName = ".residues.spool";
constexpr std::size_t kGatherBytes = 16 << 20;

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
    throw std::runtime_error("cannot create database '" + output +
                             "': it already exists (remove it first)");
}

unsigned floor_log2(std::uint64_t value) {
  unsigned bits = 0;
  while (value >>= 1) ++bits;
  return bits;
}

// What pass 1 keeps per sequence: the sort key (length << 32 | FASTA index, so that plain sorting
// keeps FASTA order among equal lengths) and where its packed residues start in the spool.
struct SpooledSequences {
  std::vector<std::uint64_t> keys;
  std::vector<std::uint64_t> spool_offsets;  // bytes
};

std::uint32_t key_length(std::uint64_t key) { return static_cast<std::uint32_t>(key >> 32); }
std::uint64_t key_index(std::uint64_t key) { return key & 0xFFFFFFFFu; }

class SpoolReader {
 public:
  explicit SpoolReader(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw std::runtime_error("cannot open '" + path + "': " + std::strerror(errno));
  }
  SpoolReader(const SpoolReader&) = delete;
  SpoolReader& operator=(const SpoolReader&) = delete;
  ~SpoolReader() { ::close(fd_); }

  void read(char* out, std::size_t size, std::uint64_t offset) const {
    while (size > 0) {
      const ssize_t n = ::pread(fd_, out, size, static_cast<off_t>(offset));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        throw std::runtime_error("cannot read '" + path_ + "': " +
                                 (n < 0 ? std::strerror(errno) : "unexpected end of file"));
      out += n;
      size -= static_cast<std::size_t>(n);
      offset += static_cast<std::uint64_t>(n);
    }
  }

 private:
  std::string path_;
  int fd_ = -1;
};

// Writes the four files of one chunk: subjects keys[begin, end) in sorted order.
ChunkInfo write_chunk(const std::string& directory, std::size_t chunk_number,
                      const SpooledSequences& spooled, std::size_t begin, std::size_t end,
                      const SpoolReader& spool, std::uint8_t pad_code, std::vector<char>& gather,
                      std::vector<detail::FileEntry>& files) {
  ChunkInfo info;
  info.first_subject = begin;
  info.subjects = end - begin;
  info.min_length = key_length(spooled.keys[begin]);
  info.max_length = key_length(spooled.keys[end - 1]);
  auto open = [&](detail::ChunkFile kind) {
    return FileWriter(directory + "/" + detail::chunk_file_name(chunk_number, kind), true);
  };
  FileWriter residues = open(detail::ChunkFile::residues);
  FileWriter lengths = open(detail::ChunkFile::lengths);
  FileWriter offsets = open(detail::ChunkFile::offsets);
  FileWriter indices = open(detail::ChunkFile::indices);

  std::size_t gathered = 0;
  std::uint64_t word = 0;
  for (std::size_t s = begin; s < end; ++s) {
    throw_if_interrupted();
    const std::uint64_t key = spooled.keys[s];
    const std::uint32_t length = key_length(key);
    const std::uint64_t index = key_index(key);
    lengths.write(&length, sizeof length);
    offsets.write(&word, sizeof word);
    indices.write(&index, sizeof index);
    info.residues += length;
    const std::uint64_t words = (std::uint64_t{length} + 3) / 4;
    word += words;
    // The spool holds each subject already packed (codes in order, padded to a word): copy it.
    std::uint64_t remaining = words * 4, from = spooled.spool_offsets[index];
    while (remaining > 0) {
      if (gathered == gather.size()) {
        residues.write(gather.data(), gathered);
        gathered = 0;
      }
      const auto piece = static_cast<std::size_t>(
          std::min<std::uint64_t>(remaining, gather.size() - gathered));
      spool.read(gather.data() + gathered, piece, from);
      gathered += piece;
      from += piece;
      remaining -= piece;
    }
  }
  residues.write(gather.data(), gathered);
  const std::uint64_t padded = (word + detail::kChunkWordAlignment - 1) /
                               detail::kChunkWordAlignment * detail::kChunkWordAlignment;
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

}  // namespace

MakeDbReport make_database(const MakeDbOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (options.chunk_residues == 0)
    throw std::invalid_argument("the chunk size must be at least 1 residue");
  if (options.output.empty() || options.output == "-")
    throw std::invalid_argument("makedb needs an output directory");
  refuse_existing_output(options.output);

  FastaReader reader(options.input, options.type, options.skip_invalid);
  const Alphabet& alphabet = reader.alphabet();
  AtomicDirectory directory(options.output);
  const std::string& temporary = directory.path();

  // Pass 1: headers to their files, packed residues to the spool, in FASTA order.
  detail::Manifest manifest;
  DatabaseInfo& info = manifest.info;
  info.type = reader.type();
  SpooledSequences spooled;
  {
    FileWriter headers(temporary + "/" + detail::kHeadersName, true);
    FileWriter header_offsets(temporary + "/" + detail::kHeaderOffsetsName, true);
    FileWriter spool(temporary + "/" + kSpoolName, true, FileWriter::Checksum::off);
    const std::uint64_t zero = 0;
    header_offsets.write(&zero, sizeof zero);
    const char padding[4] = {static_cast<char>(alphabet.pad_code()),
                             static_cast<char>(alphabet.pad_code()),
                             static_cast<char>(alphabet.pad_code()),
                             static_cast<char>(alphabet.pad_code())};
    info.min_length = std::numeric_limits<std::uint32_t>::max();
    SequenceRecord record;
    while (reader.next(record)) {
      const std::size_t length = record.codes.size();
      if (length > std::numeric_limits<std::uint32_t>::max())
        throw std::runtime_error(options.input + ": record " + std::to_string(record.index + 1) +
                                 " ('" + record.id + "') has " + std::to_string(length) +
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

      spooled.spool_offsets.push_back(spool.size());
      spool.write(record.codes.data(), length);
      spool.write(padding, (4 - length % 4) % 4);
      const auto length32 = static_cast<std::uint32_t>(length);
      spooled.keys.push_back(std::uint64_t{length32} << 32 | record.index);

      info.residues += length;
      info.max_length = std::max(info.max_length, length32);
      info.min_length = std::min(info.min_length, length32);
      const unsigned bin = floor_log2(length);
      if (info.length_histogram.size() <= bin) info.length_histogram.resize(bin + 1);
      ++info.length_histogram[bin];
    }
    info.subjects = spooled.keys.size();
    info.skipped = reader.skipped();
    headers.close(true);
    header_offsets.close(true);
    spool.close(false);
    manifest.files.push_back({detail::kHeadersName, headers.size(), headers.crc32()});
    manifest.files.push_back(
        {detail::kHeaderOffsetsName, header_offsets.size(), header_offsets.crc32()});
  }

  // Pass 2: chunks of length-sorted subjects, gathered from the spool.
  std::sort(spooled.keys.begin(), spooled.keys.end());
  {
    const std::string spool_path = temporary + "/" + kSpoolName;
    const SpoolReader spool(spool_path);
    std::vector<char> gather(kGatherBytes);
    const std::size_t count = spooled.keys.size();
    for (std::size_t begin = 0; begin < count;) {
      std::size_t end = begin;
      std::uint64_t residues = 0;
      while (end < count &&
             (end == begin || residues + key_length(spooled.keys[end]) <= options.chunk_residues))
        residues += key_length(spooled.keys[end++]);
      info.chunks.push_back(write_chunk(temporary, info.chunks.size(), spooled, begin, end, spool,
                                        alphabet.pad_code(), gather, manifest.files));
      begin = end;
    }
    if (::unlink(spool_path.c_str()) != 0)
      throw std::runtime_error("cannot remove '" + spool_path + "': " + std::strerror(errno));
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
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace warpsearch

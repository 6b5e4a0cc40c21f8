#include "db/manifest.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

#include "base/parallel.hpp"  // parallel_for (header only)
#include "base/text.hpp"
#include "base/usable_cpus.hpp"

namespace warpsearch::detail {
namespace {

constexpr const char* kChecksumKey = "manifest_crc32";

std::string hex32(std::uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "%08" PRIx32, value);
  return text;
}

const char* chunk_file_suffix(ChunkFile kind) {
  switch (kind) {
    case ChunkFile::residues: return "residues";
    case ChunkFile::lengths: return "lengths";
    case ChunkFile::offsets: return "offsets";
    case ChunkFile::indices: return "indices";
  }
  return "?";
}

// One "key value..." line of the manifest.
struct Line {
  std::size_t number = 0;
  std::string key;
  std::vector<std::string> words;  // the value, split at blanks
  std::string rest;                // the value as written
};

class Parser {
 public:
  Parser(std::string_view text, const std::string& path) : path_(path) {
    std::size_t start = 0, number = 1;
    while (start < text.size()) {
      std::size_t newline = text.find('\n', start);
      if (newline == std::string_view::npos) newline = text.size();
      Line line;
      line.number = number++;
      const std::string_view content = text.substr(start, newline - start);
      const std::size_t space = content.find(' ');
      line.key = std::string(content.substr(0, space));
      if (space != std::string_view::npos) line.rest = std::string(content.substr(space + 1));
      std::istringstream words(line.rest);
      for (std::string word; words >> word;) line.words.push_back(word);
      lines_.push_back(std::move(line));
      start = newline + 1;
    }
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("invalid database manifest " + quoted_excerpt(path_) + ": " + what);
  }
  [[noreturn]] void fail(const Line& line, const std::string& what) const {
    fail("line " + std::to_string(line.number) + " (" + quoted_excerpt(line.key) + "): " + what);
  }

  const std::vector<Line>& lines() const { return lines_; }

  const Line& only(const std::string& key) const {
    const Line* found = nullptr;
    for (const Line& line : lines_) {
      if (line.key != key) continue;
      if (found != nullptr) fail(line, "appears twice");
      found = &line;
    }
    if (found == nullptr) fail("no '" + key + "' line");
    return *found;
  }

  std::uint64_t number(const Line& line, const std::string& word,
                       std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) const {
    if (word.empty() || word.find_first_not_of("0123456789") != std::string::npos)
      fail(line, quoted_excerpt(word) + " is not a number");
    errno = 0;
    const unsigned long long value = std::strtoull(word.c_str(), nullptr, 10);
    if (errno == ERANGE || value > max) fail(line, quoted_excerpt(word) + " is out of range");
    return value;
  }
  std::uint64_t number_of(const std::string& key) const {
    const Line& line = only(key);
    if (line.words.size() != 1) fail(line, "expected one number");
    return number(line, line.words[0]);
  }

 private:
  std::string path_;
  std::vector<Line> lines_;
};

}  // namespace

std::string chunk_file_name(std::size_t chunk, ChunkFile kind) {
  char name[64];
  std::snprintf(name, sizeof name, "chunk-%05zu.%s", chunk, chunk_file_suffix(kind));
  return name;
}

std::uint64_t chunk_file_size(const ChunkInfo& chunk, ChunkFile kind) {
  switch (kind) {
    case ChunkFile::residues: return chunk.words * 4;
    case ChunkFile::lengths: return chunk.subjects * 4;
    case ChunkFile::offsets: return chunk.subjects * 8;
    case ChunkFile::indices: return chunk.subjects * 8;
  }
  return 0;
}

std::uint32_t bytes_crc32(const void* data, std::size_t size) {
  if (size == 0) return 0;  // the CRC-32 of nothing, also for the null data of an empty mapping
  const auto* bytes = static_cast<const Bytef*>(data);
  // Large buffers (a search checks each memory-mapped chunk once, hundreds of MB, its first touch of
  // the pages too) in pieces on every core, joined with crc32_combine: the same CRC-32.
  constexpr std::size_t kPiece = std::size_t{8} << 20;
  const std::size_t pieces = (size + kPiece - 1) / kPiece;
  if (pieces < 4) return static_cast<std::uint32_t>(::crc32_z(0, bytes, static_cast<z_size_t>(size)));
  std::vector<uLong> crcs(pieces);
  parallel_for(pieces, usable_cpus(), [&](std::size_t p, unsigned) {
    const std::size_t begin = p * kPiece;
    crcs[p] = ::crc32_z(0, bytes + begin, static_cast<z_size_t>(std::min(kPiece, size - begin)));
  });
  uLong crc = crcs[0];
  for (std::size_t p = 1; p < pieces; ++p)
    crc = ::crc32_combine(crc, crcs[p], static_cast<z_off_t>(std::min(kPiece, size - p * kPiece)));
  return static_cast<std::uint32_t>(crc);
}

std::uint32_t file_crc32(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);  // a FIFO: no wait for a writer
  if (fd < 0) throw std::runtime_error("cannot open " + quoted_excerpt(path) + ": " + std::strerror(errno));
  struct stat status;
  if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
    ::close(fd);
    throw std::runtime_error("cannot read " + quoted_excerpt(path) + ": not a regular file");
  }
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  std::vector<unsigned char> block(4 << 20);
  uLong crc = 0;
  for (;;) {
    const ssize_t n = ::read(fd, block.data(), block.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd);
      throw std::runtime_error("cannot read " + quoted_excerpt(path) + ": " + std::strerror(error));
    }
    if (n == 0) break;
    crc = ::crc32_z(crc, block.data(), static_cast<z_size_t>(n));
  }
  ::close(fd);
  return static_cast<std::uint32_t>(crc);
}

std::string format_manifest(const Manifest& manifest) {
  const DatabaseInfo& info = manifest.info;
  std::ostringstream out;
  out << kManifestMagic << "\n"
      << "format_version " << info.format_version << "\n"
      << "created_by " << info.created_by << "\n"
      << "created_at " << info.created_at << "\n"
      << "source " << info.source << "\n"
      << "alphabet " << Alphabet::of(info.type).name() << "\n"
      << "subjects " << info.subjects << "\n"
      << "residues " << info.residues << "\n"
      << "min_length " << info.min_length << "\n"
      << "max_length " << info.max_length << "\n"
      << "skipped " << info.skipped << "\n"
      << "length_histogram";
  for (std::uint64_t count : info.length_histogram) out << ' ' << count;
  out << "\n"
      << "chunks " << info.chunks.size() << "\n";
  for (std::size_t i = 0; i < info.chunks.size(); ++i) {
    const ChunkInfo& chunk = info.chunks[i];
    out << "chunk " << i << " first_subject " << chunk.first_subject << " subjects " << chunk.subjects << " residues "
        << chunk.residues << " words " << chunk.words << " min_length " << chunk.min_length << " max_length "
        << chunk.max_length << "\n";
  }
  for (const FileEntry& file : manifest.files)
    out << "file " << file.name << ' ' << file.size << ' ' << hex32(file.crc32) << "\n";
  std::string text = out.str();
  text += std::string(kChecksumKey) + " " + hex32(bytes_crc32(text.data(), text.size())) + "\n";
  return text;
}

namespace {

// The manifest's last line holds the CRC-32 of everything before it.
void check_manifest_checksum(const Parser& parser, std::string_view text, const std::string& path) {
  const std::string checksum_prefix = std::string("\n") + kChecksumKey + " ";
  const std::size_t checksum_at = text.rfind(checksum_prefix);
  if (checksum_at == std::string_view::npos) parser.fail("no '" + std::string(kChecksumKey) + "' line");
  const std::string_view covered = text.substr(0, checksum_at + 1);
  const std::string expected = hex32(bytes_crc32(covered.data(), covered.size()));
  std::string_view stored = text.substr(checksum_at + checksum_prefix.size());
  while (!stored.empty() && (stored.back() == '\n' || stored.back() == '\r')) stored.remove_suffix(1);
  if (stored != expected)
    throw std::runtime_error("database manifest " + quoted_excerpt(path) + " fails its checksum (stored " +
                             std::string(stored) + ", computed " + expected + "): the file was modified or damaged");
}

// The database's own lines: its origin, alphabet, counts, length range and length histogram.
void read_database_lines(const Parser& parser, DatabaseInfo& info) {
  info.created_by = parser.only("created_by").rest;
  info.created_at = parser.only("created_at").rest;
  info.source = parser.only("source").rest;
  const Line& alphabet = parser.only("alphabet");
  if (alphabet.rest == "protein")
    info.type = SequenceType::protein;
  else if (alphabet.rest == "nucleotide")
    info.type = SequenceType::nucleotide;
  else
    parser.fail(alphabet, "expected 'protein' or 'nucleotide'");
  info.subjects = parser.number_of("subjects");
  info.residues = parser.number_of("residues");
  info.skipped = parser.number_of("skipped");
  const auto u32_max = std::numeric_limits<std::uint32_t>::max();
  const Line& min_line = parser.only("min_length");
  info.min_length = static_cast<std::uint32_t>(parser.number(min_line, min_line.rest, u32_max));
  const Line& max_line = parser.only("max_length");
  info.max_length = static_cast<std::uint32_t>(parser.number(max_line, max_line.rest, u32_max));
  const Line& histogram = parser.only("length_histogram");
  for (const std::string& word : histogram.words) info.length_histogram.push_back(parser.number(histogram, word));
}

// One 'chunk N first_subject N subjects N residues N words N min_length N max_length N' line, the next
// chunk in order.
ChunkInfo read_chunk_line(const Parser& parser, const Line& line, std::size_t expected_number) {
  const auto u32_max = std::numeric_limits<std::uint32_t>::max();
  const auto& w = line.words;
  if (w.size() != 13 || w[1] != "first_subject" || w[3] != "subjects" || w[5] != "residues" || w[7] != "words" ||
      w[9] != "min_length" || w[11] != "max_length")
    parser.fail(line,
                "expected 'chunk N first_subject N subjects N residues N words N "
                "min_length N max_length N'");
  if (parser.number(line, w[0]) != expected_number) parser.fail(line, "chunks out of order");
  ChunkInfo chunk;
  chunk.first_subject = parser.number(line, w[2]);
  chunk.subjects = parser.number(line, w[4]);
  chunk.residues = parser.number(line, w[6]);
  chunk.words = parser.number(line, w[8], std::numeric_limits<std::uint64_t>::max() / 4);
  chunk.min_length = static_cast<std::uint32_t>(parser.number(line, w[10], u32_max));
  chunk.max_length = static_cast<std::uint32_t>(parser.number(line, w[12], u32_max));
  return chunk;
}

// One 'file NAME SIZE CRC32' line.
FileEntry read_file_line(const Parser& parser, const Line& line) {
  if (line.words.size() != 3 || line.words[2].size() != 8) parser.fail(line, "expected 'file NAME SIZE CRC32'");
  FileEntry file;
  file.name = line.words[0];
  if (file.name.find('/') != std::string::npos || file.name.front() == '.')
    parser.fail(line, "a file name must not contain '/' or start with '.'");
  file.size = parser.number(line, line.words[1]);
  char* end = nullptr;
  file.crc32 = static_cast<std::uint32_t>(std::strtoul(line.words[2].c_str(), &end, 16));
  if (*end != '\0') parser.fail(line, quoted_excerpt(line.words[2]) + " is not a hexadecimal CRC-32");
  return file;
}

// The chunks agree with each other and with their files' sizes (file_index: a file's entry by name),
// and their totals with the database's counts.
void check_chunks(const Parser& parser, const Manifest& manifest,
                  const std::map<std::string, std::size_t>& file_index) {
  const DatabaseInfo& info = manifest.info;
  std::uint64_t subjects = 0, residues = 0;
  for (std::size_t i = 0; i < info.chunks.size(); ++i) {
    const ChunkInfo& chunk = info.chunks[i];
    // Subjects are sorted by length across chunks, and every length lies within the database's range.
    if (chunk.subjects > std::numeric_limits<std::uint32_t>::max())  // before the products below
      parser.fail("chunk " + std::to_string(i) + " has more subjects than a chunk can hold");
    const bool lengths_agree =
        chunk.min_length >= std::max(info.min_length, 1u) && chunk.max_length <= info.max_length &&
        (i == 0 || info.chunks[i - 1].max_length <= chunk.min_length) &&
        chunk.residues >= chunk.subjects * chunk.min_length && chunk.residues <= chunk.subjects * chunk.max_length;
    if (chunk.first_subject != subjects || chunk.subjects == 0 || chunk.min_length > chunk.max_length ||
        !lengths_agree || chunk.subjects > std::numeric_limits<std::uint32_t>::max() ||
        chunk.words < (chunk.residues + 3) / 4 || chunk.words % kChunkWordAlignment != 0)
      parser.fail("chunk " + std::to_string(i) + " disagrees with the chunks before it or with itself");
    subjects += chunk.subjects;
    residues += chunk.residues;
    for (ChunkFile kind : kChunkFiles) {
      const auto found = file_index.find(chunk_file_name(i, kind));
      if (found == file_index.end()) parser.fail("no file line for " + chunk_file_name(i, kind));
      if (manifest.files[found->second].size != chunk_file_size(chunk, kind))
        parser.fail(chunk_file_name(i, kind) + " has the wrong size for chunk " + std::to_string(i));
    }
  }
  if (subjects != info.subjects || residues != info.residues)
    parser.fail("the chunks hold " + std::to_string(subjects) + " subjects and " + std::to_string(residues) +
                " residues, not the " + std::to_string(info.subjects) + " and " + std::to_string(info.residues) +
                " stated");
}

// The database's own figures agree with its chunks': the length range, and the histogram (one bin per
// power of two of a 32-bit length) counts every subject.
void check_length_figures(const Parser& parser, const DatabaseInfo& info) {
  if (!info.chunks.empty() &&
      (info.min_length != info.chunks.front().min_length || info.max_length != info.chunks.back().max_length))
    parser.fail("min_length " + std::to_string(info.min_length) + " and max_length " + std::to_string(info.max_length) +
                " disagree with the chunks' lengths");
  std::uint64_t histogram_count = 0;
  for (const std::uint64_t bin : info.length_histogram) {
    if (bin > info.subjects) parser.fail("the length histogram counts more subjects than the database has");
    histogram_count += bin;
  }
  if (info.length_histogram.size() > 33 || histogram_count != info.subjects)
    parser.fail("the length histogram counts " + std::to_string(histogram_count) + " subjects in " +
                std::to_string(info.length_histogram.size()) + " bins, not the " + std::to_string(info.subjects) +
                " stated");
}

// The header files are listed, and they and the taxid file have one entry per subject.
void check_per_subject_files(const Parser& parser, const Manifest& manifest,
                             const std::map<std::string, std::size_t>& file_index) {
  const DatabaseInfo& info = manifest.info;
  const auto offsets = file_index.find(kHeaderOffsetsName);
  if (file_index.count(kHeadersName) == 0 || offsets == file_index.end()) parser.fail("no file lines for the headers");
  if (manifest.files[offsets->second].size != (info.subjects + 1) * 8)
    parser.fail(std::string(kHeaderOffsetsName) + " has the wrong size");
  const auto taxids = file_index.find(kTaxidsName);
  if (taxids != file_index.end() && manifest.files[taxids->second].size != info.subjects * 4)
    parser.fail(std::string(kTaxidsName) + " has the wrong size");
}

}  // namespace

Manifest parse_manifest(std::string_view text, const std::string& path) {
  if (text.substr(0, std::strlen(kManifestMagic) + 1) != std::string(kManifestMagic) + "\n")
    throw std::runtime_error(quoted_excerpt(path) + " is not a warpsearch database manifest (its first line is not '" +
                             kManifestMagic + "')");
  Parser parser(text, path);

  // The version comes before anything else, so that a newer layout is refused with a clear message
  // rather than as a damaged file.
  Manifest manifest;
  DatabaseInfo& info = manifest.info;
  const std::uint64_t version = parser.number_of("format_version");
  if (version != kDatabaseFormatVersion)
    throw std::runtime_error("database manifest " + quoted_excerpt(path) + " has format version " +
                             std::to_string(version) + "; this build of warpsearch reads format version " +
                             std::to_string(kDatabaseFormatVersion) +
                             " (rebuild the database with this version's makedb)");
  info.format_version = static_cast<std::uint32_t>(version);
  check_manifest_checksum(parser, text, path);
  read_database_lines(parser, info);

  const std::uint64_t chunk_count = parser.number_of("chunks");
  std::map<std::string, std::size_t> file_index;
  for (const Line& line : parser.lines()) {
    if (line.key == "chunk") {
      info.chunks.push_back(read_chunk_line(parser, line, info.chunks.size()));
    } else if (line.key == "file") {
      FileEntry file = read_file_line(parser, line);
      if (!file_index.emplace(file.name, manifest.files.size()).second) parser.fail(line, "file listed twice");
      manifest.files.push_back(std::move(file));
    }
  }

  // The counts must agree with each other, so that readers may trust them as array bounds.
  if (info.chunks.size() != chunk_count)
    parser.fail("'chunks " + std::to_string(chunk_count) + "' but " + std::to_string(info.chunks.size()) +
                " chunk lines");
  check_chunks(parser, manifest, file_index);
  check_length_figures(parser, info);
  check_per_subject_files(parser, manifest, file_index);
  return manifest;
}

}  // namespace warpsearch::detail

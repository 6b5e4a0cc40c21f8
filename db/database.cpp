#include "db/database.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

#include "base/mapped_file.hpp"
#include "base/parallel.hpp"
#include "base/text.hpp"
#include "base/usable_cpus.hpp"
#include "db/manifest.hpp"

namespace warpsearch {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "database files are little-endian arrays, mapped as they are");

struct Chunk::Impl {
  ChunkInfo info;
  MappedFile files[4];      // indexed by detail::ChunkFile
  std::uint64_t first = 0;  // a slice's first subject within the mapped chunk
  // An in-memory chunk's arrays (Chunk::in_memory), used instead of files when held. A selection
  // (Chunk::select) holds its per-subject arrays and reads the words of the source: of its mapped
  // residues file, or of held_words.
  bool held = false;
  bool selection = false;
  std::vector<std::uint32_t> held_lengths;
  std::unique_ptr<std::uint32_t[]> held_words;  // info.words of them
  std::vector<std::uint64_t> held_offsets, held_indices;

  const MappedFile& file(detail::ChunkFile kind) const { return files[static_cast<int>(kind)]; }
};

Chunk::Chunk(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Chunk::Chunk(Chunk&&) noexcept = default;
Chunk& Chunk::operator=(Chunk&&) noexcept = default;
Chunk::~Chunk() = default;

const ChunkInfo& Chunk::info() const { return impl_->info; }
const std::uint32_t* Chunk::lengths() const {
  if (impl_->held) return impl_->held_lengths.data();
  return reinterpret_cast<const std::uint32_t*>(impl_->file(detail::ChunkFile::lengths).data()) + impl_->first;
}
const std::uint64_t* Chunk::word_offsets() const {
  if (impl_->held) return impl_->held_offsets.data();
  return reinterpret_cast<const std::uint64_t*>(impl_->file(detail::ChunkFile::offsets).data()) + impl_->first;
}
const std::uint64_t* Chunk::original_indices() const {
  if (impl_->held) return impl_->held_indices.data();
  return reinterpret_cast<const std::uint64_t*>(impl_->file(detail::ChunkFile::indices).data()) + impl_->first;
}
const std::uint32_t* Chunk::words() const {
  if (impl_->held && (!impl_->selection || impl_->held_words)) return impl_->held_words.get();
  return reinterpret_cast<const std::uint32_t*>(impl_->file(detail::ChunkFile::residues).data());
}

std::string Chunk::subject_codes(std::size_t i) const {
  if (i >= size()) throw std::out_of_range("subject " + std::to_string(i) + " of a chunk of " + std::to_string(size()));
  // Little-endian packing: the residues of a subject are its bytes in order.
  const auto* bytes = reinterpret_cast<const char*>(words() + word_offsets()[i]);
  return std::string(bytes, lengths()[i]);
}

SubjectBatch Chunk::batch() const {
  SubjectBatch batch;
  batch.words = words();
  batch.num_words = info().words;
  batch.word_offsets = word_offsets();
  batch.lengths = lengths();
  batch.count = size();
  return batch;
}

Chunk Chunk::select(Chunk source, const std::vector<std::uint64_t>& positions) {
  const std::uint32_t* lengths = source.lengths();
  const std::uint64_t* offsets = source.word_offsets();
  const std::uint64_t* indices = source.original_indices();
  std::vector<std::uint32_t> kept_lengths;
  std::vector<std::uint64_t> kept_offsets, kept_indices;
  kept_lengths.reserve(positions.size());
  kept_offsets.reserve(positions.size());
  kept_indices.reserve(positions.size());
  ChunkInfo info = source.info();
  info.subjects = positions.size();
  info.residues = 0;
  for (std::size_t k = 0; k < positions.size(); ++k) {
    const std::uint64_t s = positions[k];
    if (s >= source.size() || (k > 0 && s <= positions[k - 1]))
      throw std::invalid_argument("internal error: a chunk selection out of order or range");
    kept_lengths.push_back(lengths[s]);
    kept_offsets.push_back(offsets[s]);
    kept_indices.push_back(indices[s]);
    info.residues += lengths[s];
  }
  // Lengths ascend within a chunk, and so within any selection of it.
  info.min_length = positions.empty() ? 0 : kept_lengths.front();
  info.max_length = positions.empty() ? 0 : kept_lengths.back();
  Impl& impl = *source.impl_;
  impl.info = info;
  impl.first = 0;
  impl.held = true;
  impl.selection = true;
  impl.held_lengths = std::move(kept_lengths);
  impl.held_offsets = std::move(kept_offsets);
  impl.held_indices = std::move(kept_indices);
  return source;
}

Chunk Chunk::in_memory(ChunkInfo info, std::vector<std::uint32_t> lengths, std::vector<std::uint64_t> word_offsets,
                       std::vector<std::uint64_t> original_indices, std::unique_ptr<std::uint32_t[]> words) {
  std::uint64_t residues = 0;
  bool consistent = lengths.size() == info.subjects && word_offsets.size() == info.subjects &&
                    original_indices.size() == info.subjects && (words != nullptr || info.words == 0);
  for (std::size_t s = 0; consistent && s < lengths.size(); ++s) {
    residues += lengths[s];
    consistent = word_offsets[s] + (std::uint64_t{lengths[s]} + 3) / 4 <= info.words;
  }
  if (!consistent || residues != info.residues)
    throw std::invalid_argument("internal error: an in-memory chunk whose arrays disagree with its description");
  auto impl = std::make_unique<Impl>();
  impl->info = info;
  impl->held = true;
  impl->held_lengths = std::move(lengths);
  impl->held_offsets = std::move(word_offsets);
  impl->held_indices = std::move(original_indices);
  impl->held_words = std::move(words);
  return Chunk(std::move(impl));
}

struct Database::Impl {
  std::string path;
  std::string shown;  // the path as messages show it
  detail::Manifest manifest;
  std::map<std::string, detail::FileEntry> files;
  MappedFile headers;
  MappedFile header_offsets;
  MappedFile taxids;  // empty when the database has none
  bool has_taxids = false;
  mutable std::once_flag headers_checked, taxids_checked;
  std::unique_ptr<std::once_flag[]> chunk_checked;

  std::string file_path(const std::string& name) const { return path + "/" + name; }

  void check_mapping(const MappedFile& mapped, const std::string& name) const {
    const detail::FileEntry& entry = files.at(name);
    if (detail::bytes_crc32(mapped.data(), mapped.size()) != entry.crc32)
      throw std::runtime_error("database " + shown + ": file " + name +
                               " fails its checksum (the file was modified or damaged; rebuild "
                               "the database with makedb)");
  }

  // The arrays of a chunk must agree with each other and with the manifest before the kernels index
  // the residues with them: a file that was rewritten together with its checksum (by a buggy writer,
  // or by hand) would otherwise send them outside the mapping.
  void check_chunk_contents(const Chunk::Impl& chunk, std::size_t i) const {
    const ChunkInfo& info = chunk.info;
    const auto* lengths = reinterpret_cast<const std::uint32_t*>(chunk.file(detail::ChunkFile::lengths).data());
    const auto* offsets = reinterpret_cast<const std::uint64_t*>(chunk.file(detail::ChunkFile::offsets).data());
    const auto* indices = reinterpret_cast<const std::uint64_t*>(chunk.file(detail::ChunkFile::indices).data());
    const auto fail = [&](detail::ChunkFile kind, std::uint64_t s, const std::string& what) {
      throw std::runtime_error("database " + shown + ": file " + detail::chunk_file_name(i, kind) + ", subject " +
                               std::to_string(s) + " of the chunk: " + what +
                               " (the database is inconsistent; rebuild it with makedb)");
    };
    std::uint64_t word = 0, residues = 0;
    for (std::uint64_t s = 0; s < info.subjects; ++s) {
      const std::uint32_t length = lengths[s];
      if (length < info.min_length || length > info.max_length || length == 0)
        fail(detail::ChunkFile::lengths, s,
             "length " + std::to_string(length) + " outside the chunk's " + std::to_string(info.min_length) + ".." +
                 std::to_string(info.max_length));
      if (s > 0 && length < lengths[s - 1]) fail(detail::ChunkFile::lengths, s, "lengths not in ascending order");
      if (offsets[s] != word)
        fail(detail::ChunkFile::offsets, s,
             "offset " + std::to_string(offsets[s]) + ", expected " + std::to_string(word));
      if (indices[s] >= manifest.info.subjects)
        fail(detail::ChunkFile::indices, s,
             "index " + std::to_string(indices[s]) + " of a database of " + std::to_string(manifest.info.subjects) +
                 " subjects");
      word += (std::uint64_t{length} + 3) / 4;
      residues += length;
    }
    if (word > info.words || residues != info.residues)
      fail(detail::ChunkFile::lengths, info.subjects,
           "the lengths add up to " + std::to_string(residues) + " residues in " + std::to_string(word) +
               " words; the manifest says " + std::to_string(info.residues) + " residues in " +
               std::to_string(info.words) + " words");
    check_residue_codes(chunk, i, lengths, offsets);
  }

  // Every residue byte a code of the database's alphabet, every other byte its padding code: the
  // kernels index their tables with the codes, and a chunk rewritten with a matching checksum (or a
  // manifest whose alphabet line was changed: the other alphabet's padding code differs) would
  // otherwise read outside them or be scored as another alphabet.
  void check_residue_codes(const Chunk::Impl& chunk, std::size_t i, const std::uint32_t* lengths,
                           const std::uint64_t* offsets) const {
    const Alphabet& alphabet = Alphabet::of(manifest.info.type);
    const std::uint8_t pad = alphabet.pad_code();
    const MappedFile& file = chunk.file(detail::ChunkFile::residues);
    const auto* bytes = static_cast<const std::uint8_t*>(file.data());
    const std::uint64_t size = file.size();
    const auto fail = [&](std::uint64_t at, const std::string& what) {
      throw std::runtime_error("database " + shown + ": file " +
                               detail::chunk_file_name(i, detail::ChunkFile::residues) + ", byte " +
                               std::to_string(at) + ": " + what + " (the database is inconsistent with its " +
                               alphabet.name() + " alphabet; rebuild it with makedb)");
    };
    const BadByte bad = first_bad_residue_byte(bytes, size, lengths, offsets, chunk.info.subjects, pad);
    if (bad.at == size) return;
    if (bad.subject < chunk.info.subjects)
      fail(bad.at, "code " + std::to_string(bytes[bad.at]) + " in subject " + std::to_string(bad.subject) +
                       " of the chunk, not a residue");
    fail(bad.at, "code " + std::to_string(bytes[bad.at]) + " where the padding code is expected");
  }

  // The first byte of a residues file that breaks the rule: a code below pad for each residue of a
  // subject ([offsets[s] * 4, + lengths[s])), pad for every other byte. `at` is size where none does;
  // `subject` is the subject whose residue it is, or `subjects` for a padding byte. The file is read on
  // all the usable cores in pieces (a genome is one subject of millions of residues): the first failure
  // of the first piece that has one.
  struct BadByte {
    std::uint64_t at = 0, subject = 0;
  };
  static BadByte first_bad_residue_byte(const std::uint8_t* bytes, std::uint64_t size, const std::uint32_t* lengths,
                                        const std::uint64_t* offsets, std::uint64_t subjects, std::uint8_t pad) {
    constexpr std::uint64_t kPiece = std::uint64_t{1} << 22;
    std::vector<BadByte> firsts((size + kPiece - 1) / kPiece, BadByte{size, subjects});
    parallel_for(firsts.size(), usable_cpus(), [&](std::size_t piece, unsigned) {
      const std::uint64_t begin = piece * kPiece, end = std::min(size, begin + kPiece);
      // The first subject whose residues end after `begin` (subjects lie in file order).
      std::uint64_t s = 0;
      for (std::uint64_t high = subjects; s < high;) {
        const std::uint64_t middle = s + (high - s) / 2;
        if (offsets[middle] * 4 + lengths[middle] <= begin)
          s = middle + 1;
        else
          high = middle;
      }
      for (std::uint64_t b = begin; b < end; ++s) {
        const std::uint64_t residues_begin = s < subjects ? std::min(end, std::max(begin, offsets[s] * 4)) : end;
        const std::uint64_t residues_end = s < subjects ? std::min(end, offsets[s] * 4 + lengths[s]) : end;
        for (; b < residues_begin; ++b)
          if (bytes[b] != pad) {
            firsts[piece] = {b, subjects};
            return;
          }
        std::uint8_t worst = 0;  // a maximum first: the loop vectorises, the search runs only on a failure
        for (std::uint64_t r = b; r < residues_end; ++r) worst = std::max(worst, bytes[r]);
        if (worst >= pad) {
          const auto* bad = std::find_if(bytes + b, bytes + residues_end, [&](std::uint8_t c) { return c >= pad; });
          firsts[piece] = {static_cast<std::uint64_t>(bad - bytes), s};
          return;
        }
        b = std::max(b, residues_end);
      }
    });
    for (const BadByte& first : firsts)
      if (first.at < size) return first;
    return {size, subjects};
  }

  void check_headers() const {
    std::call_once(headers_checked, [this] {
      check_mapping(headers, detail::kHeadersName);
      check_mapping(header_offsets, detail::kHeaderOffsetsName);
    });
  }

  std::string_view header(std::uint64_t original_index) const {
    if (original_index >= manifest.info.subjects)
      throw std::out_of_range("database " + shown + ": subject index " + std::to_string(original_index) +
                              " out of range (the database has " + std::to_string(manifest.info.subjects) +
                              " subjects)");
    check_headers();
    const auto* offsets = reinterpret_cast<const std::uint64_t*>(header_offsets.data());
    const std::uint64_t begin = offsets[original_index], end = offsets[original_index + 1];
    if (begin >= end || end > headers.size())
      throw std::runtime_error("database " + shown + ": " + detail::kHeaderOffsetsName +
                               " is inconsistent at subject " + std::to_string(original_index));
    // Each header is a line: drop its line end.
    return headers.view().substr(begin, end - begin - 1);
  }
};

Database::Database(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Database::Database(Database&&) noexcept = default;
Database& Database::operator=(Database&&) noexcept = default;
Database::~Database() = default;

Database Database::open(const std::string& directory) {
  auto impl = std::make_unique<Impl>();
  impl->path = directory;
  impl->shown = quoted_excerpt(directory);
  struct stat status;
  if (::stat(directory.c_str(), &status) != 0)
    throw std::runtime_error("cannot open database " + quoted_excerpt(directory) + ": " + std::strerror(errno));
  if (!S_ISDIR(status.st_mode))
    throw std::runtime_error("cannot open database " + quoted_excerpt(directory) +
                             ": not a directory (a database is the directory makedb wrote)");
  const std::string manifest_path = impl->file_path(detail::kManifestName);
  if (::stat(manifest_path.c_str(), &status) != 0)
    throw std::runtime_error("cannot open database " + quoted_excerpt(directory) + ": it has no " +
                             detail::kManifestName + " (not a warpsearch database?)");
  if (!S_ISREG(status.st_mode))
    throw std::runtime_error("cannot open database " + quoted_excerpt(directory) + ": its " + detail::kManifestName +
                             " is not a regular file");
  {
    const MappedFile manifest_file(manifest_path);
    impl->manifest = detail::parse_manifest(manifest_file.view(), manifest_path);
  }
  for (const detail::FileEntry& entry : impl->manifest.files) {
    const std::string file = impl->file_path(entry.name);
    if (::stat(file.c_str(), &status) != 0)
      throw std::runtime_error("database " + impl->shown + " is incomplete: file " + entry.name + " is missing");
    if (static_cast<std::uint64_t>(status.st_size) != entry.size)
      throw std::runtime_error("database " + impl->shown + ": file " + entry.name + " has " +
                               std::to_string(status.st_size) + " bytes; the manifest says " +
                               std::to_string(entry.size));
    impl->files.emplace(entry.name, entry);
  }
  impl->headers = MappedFile(impl->file_path(detail::kHeadersName));
  impl->header_offsets = MappedFile(impl->file_path(detail::kHeaderOffsetsName));
  if (impl->files.count(detail::kTaxidsName) > 0) {
    impl->taxids = MappedFile(impl->file_path(detail::kTaxidsName));
    impl->has_taxids = true;
  }
  impl->chunk_checked = std::make_unique<std::once_flag[]>(impl->manifest.info.chunks.size());
  return Database(std::move(impl));
}

const std::string& Database::path() const { return impl_->path; }
const DatabaseInfo& Database::info() const { return impl_->manifest.info; }

Chunk Database::chunk(std::size_t i) const {
  if (i >= num_chunks())
    throw std::out_of_range("database " + impl_->shown + ": chunk " + std::to_string(i) +
                            " out of range (the database has " + std::to_string(num_chunks()) + " chunks)");
  auto chunk = std::make_unique<Chunk::Impl>();
  chunk->info = info().chunks[i];
  for (detail::ChunkFile kind : detail::kChunkFiles) {
    const std::string name = detail::chunk_file_name(i, kind);
    MappedFile mapped(impl_->file_path(name));
    if (mapped.size() != detail::chunk_file_size(chunk->info, kind))
      throw std::runtime_error("database " + impl_->shown + ": file " + name +
                               " changed size since the database was opened");
    chunk->files[static_cast<int>(kind)] = std::move(mapped);
  }
  std::call_once(impl_->chunk_checked[i], [&] {
    for (detail::ChunkFile kind : detail::kChunkFiles)
      impl_->check_mapping(chunk->file(kind), detail::chunk_file_name(i, kind));
    impl_->check_chunk_contents(*chunk, i);
  });
  return Chunk(std::move(chunk));
}

Chunk Database::chunk(std::size_t i, std::uint64_t first, std::uint64_t count) const {
  Chunk whole = chunk(i);
  ChunkInfo& info = whole.impl_->info;
  if (first > info.subjects || count > info.subjects - first)
    throw std::out_of_range("database " + impl_->shown + ": subjects " + std::to_string(first) + "+" +
                            std::to_string(count) + " of chunk " + std::to_string(i) + " out of range (it has " +
                            std::to_string(info.subjects) + ")");
  const std::uint32_t* lengths = whole.lengths() + first;
  info.first_subject += first;
  info.subjects = count;
  info.residues = 0;
  // Words stay those of the whole chunk: word offsets index the chunk's residue file.
  for (std::uint64_t s = 0; s < count; ++s) info.residues += lengths[s];
  info.min_length = count ? lengths[0] : 0;  // subjects are sorted by length
  info.max_length = count ? lengths[count - 1] : 0;
  whole.impl_->first = first;
  return whole;
}

std::string_view Database::id(std::uint64_t original_index) const {
  const std::string_view header = impl_->header(original_index);
  return header.substr(0, header.find(' '));
}

std::string_view Database::description(std::uint64_t original_index) const {
  const std::string_view header = impl_->header(original_index);
  const std::size_t space = header.find(' ');
  return space == std::string_view::npos ? std::string_view() : header.substr(space + 1);
}

bool Database::has_taxids() const { return impl_->has_taxids; }

std::uint32_t Database::taxid(std::uint64_t original_index) const {
  if (original_index >= impl_->manifest.info.subjects)
    throw std::out_of_range("database " + impl_->shown + ": subject index " + std::to_string(original_index) +
                            " out of range (the database has " + std::to_string(impl_->manifest.info.subjects) +
                            " subjects)");
  if (!impl_->has_taxids) return 0;
  std::call_once(impl_->taxids_checked, [this] { impl_->check_mapping(impl_->taxids, detail::kTaxidsName); });
  if (impl_->taxids.size() != impl_->manifest.info.subjects * 4)
    throw std::runtime_error("database " + impl_->shown + ": file " + detail::kTaxidsName +
                             " changed size since the database was opened");
  return reinterpret_cast<const std::uint32_t*>(impl_->taxids.data())[original_index];
}

void Database::verify() const {
  std::string failures;
  for (const detail::FileEntry& entry : impl_->manifest.files) {
    std::string problem;
    try {
      if (detail::file_crc32(impl_->file_path(entry.name)) != entry.crc32) problem = "checksum";
    } catch (const std::runtime_error& e) {
      problem = e.what();
    }
    if (problem.empty()) continue;
    failures +=
        (failures.empty() ? "" : ", ") + entry.name + (problem == "checksum" ? std::string() : " (" + problem + ")");
  }
  if (!failures.empty())
    throw std::runtime_error("database " + impl_->shown + " fails verification: " + failures +
                             " (checksum mismatch: the files were modified or damaged; rebuild "
                             "the database with makedb)");
  // Checksums that match prove nothing about a forged database: every chunk's arrays and residue
  // codes, and the header offsets, are checked as a search checks them.
  for (std::size_t i = 0; i < impl_->manifest.info.chunks.size(); ++i) (void)chunk(i);
  for (std::uint64_t s = 0; s < impl_->manifest.info.subjects; ++s) (void)impl_->header(s);
}

}  // namespace warpsearch

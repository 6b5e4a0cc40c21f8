// The database manifest (db/FORMAT.md): writing, parsing and checking it, and the names of the files
// it lists. Internal to db/: the search reads a database through db/database.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "db/database.hpp"

namespace warpsearch::detail {

inline constexpr const char* kManifestName = "manifest.txt";
inline constexpr const char* kManifestMagic = "warpsearch-database";
inline constexpr const char* kHeadersName = "headers.txt";
inline constexpr const char* kHeaderOffsetsName = "headers.offsets";
// Optional: u32 x subjects, the NCBI taxonomy ID of each subject in FASTA order (makedb --taxid-map).
inline constexpr const char* kTaxidsName = "taxids";
// Padding words after a chunk's last subject: its word count is a multiple of this, so that kernels
// may load 64 bytes at a time without reading past the mapping.
inline constexpr std::uint64_t kChunkWordAlignment = 16;

enum class ChunkFile { residues, lengths, offsets, indices };
inline constexpr ChunkFile kChunkFiles[] = {ChunkFile::residues, ChunkFile::lengths, ChunkFile::offsets,
                                            ChunkFile::indices};
std::string chunk_file_name(std::size_t chunk, ChunkFile kind);
// The size a chunk file must have.
std::uint64_t chunk_file_size(const ChunkInfo& chunk, ChunkFile kind);

struct FileEntry {
  std::string name;  // relative to the database directory
  std::uint64_t size = 0;
  std::uint32_t crc32 = 0;
};

struct Manifest {
  DatabaseInfo info;
  std::vector<FileEntry> files;
};

// The manifest's text, ending with its own checksum line.
std::string format_manifest(const Manifest& manifest);
// Parses and checks a manifest's text (magic, format version first, checksum, fields, consistency of
// the counts). path names the file in messages.
Manifest parse_manifest(std::string_view text, const std::string& path);

// zlib CRC-32 of a whole file, read in blocks (no mapping, so the resident size stays small).
std::uint32_t file_crc32(const std::string& path);
std::uint32_t bytes_crc32(const void* data, std::size_t size);

}  // namespace warpsearch::detail

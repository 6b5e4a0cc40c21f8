// libFuzzer target: opening and reading a damaged database (db/database.hpp, db/manifest.hpp).
//
// A small valid database is built once. Each input damages one of its files: data[0] picks the file
// (the manifest or one of the data files), data[1] how:
//   bit 0  replace the file's bytes with the rest of the input (else: apply the rest as edits, 5 bytes
//          each: a 32-bit little-endian offset into the file and the byte to put there; an offset past
//          the end truncates the file there instead)
//   bit 1  make the checksums agree with the damage: rewrite the manifest's size and CRC-32 of a data
//          file, or the manifest's own CRC-32 line, so that the checks behind the checksums are reached
//   bit 2  also run verify() (it reads in 4 MiB blocks, which costs much time under ASan: not always)
// Then the database is opened, every chunk mapped and every subject, ID and description read. Any
// std::exception is an accepted answer; a crash, a hang, a sanitizer report, or a chunk that is accepted
// although its arrays disagree with each other (which would let the kernels read outside the mapping) is
// a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "db/makedb.hpp"
#include "db/manifest.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using namespace warpsearch;

struct BaseFile {
  std::string name;
  std::string bytes;
};

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

// The valid database every input starts from: three chunks of protein subjects.
const std::vector<BaseFile>& base_database() {
  static const std::vector<BaseFile> files = [] {
    const std::string directory = fuzz::scratch_directory();
    const std::string fasta =
        ">s1 first subject\nMKVLAAGIVG\n>s2\nMKV\n>s3 third\nWWWWCCCCPPPPHHHH\n"
        ">s4\nACDEFGHIKLMNPQRSTVWYBZX*U\n>s5 dup\nMKV\n>s6\nGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGG\n";
    const std::uint8_t* bytes = reinterpret_cast<const std::uint8_t*>(fasta.data());
    fuzz::write_bytes(directory + "/base.fa", bytes, fasta.size());
    MakeDbOptions options;
    options.input = directory + "/base.fa";
    options.output = directory + "/base";
    options.chunk_residues = 20;
    make_database(options);
    std::vector<BaseFile> result;
    result.push_back({detail::kManifestName, read_all(options.output + "/" + detail::kManifestName)});
    const detail::Manifest manifest = detail::parse_manifest(result[0].bytes, "base manifest");
    for (const detail::FileEntry& entry : manifest.files)
      result.push_back({entry.name, read_all(options.output + "/" + entry.name)});
    return result;
  }();
  return files;
}

std::string damaged(const std::string& original, const std::uint8_t* data, std::size_t size, bool replace) {
  if (replace) return std::string(reinterpret_cast<const char*>(data), size);
  std::string bytes = original;
  for (std::size_t at = 0; at + 5 <= size; at += 5) {
    const std::uint32_t offset = data[at] | data[at + 1] << 8 | data[at + 2] << 16 | std::uint32_t{data[at + 3]} << 24;
    if (offset < bytes.size())
      bytes[offset] = static_cast<char>(data[at + 4]);
    else
      bytes.resize(offset % (bytes.size() + 1));
  }
  return bytes;
}

std::string with_fixed_checksum(std::string manifest) {
  const std::string key = "\nmanifest_crc32 ";
  const std::size_t at = manifest.rfind(key);
  if (at == std::string::npos) return manifest;
  manifest.resize(at + 1);
  char line[32];
  std::snprintf(line, sizeof line, "manifest_crc32 %08x\n", detail::bytes_crc32(manifest.data(), manifest.size()));
  return manifest + line;
}

void write(const std::string& path, const std::string& bytes) {
  fuzz::write_bytes(path, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

// What Database::chunk() must have established before it hands out a chunk to the kernels.
void require_consistent(const Chunk& chunk, std::uint64_t subjects_in_database) {
  const ChunkInfo& info = chunk.info();
  std::uint64_t next_word = 0, residues = 0;
  for (std::size_t s = 0; s < chunk.size(); ++s) {
    const std::uint32_t length = chunk.lengths()[s];
    if (chunk.word_offsets()[s] != next_word) std::abort();
    if (length == 0 || length < info.min_length || length > info.max_length) std::abort();
    if (s > 0 && length < chunk.lengths()[s - 1]) std::abort();
    if (chunk.original_indices()[s] >= subjects_in_database) std::abort();
    next_word += (std::uint64_t{length} + 3) / 4;
    residues += length;
  }
  if (next_word > info.words || residues != info.residues) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::vector<BaseFile>& base = base_database();
  const std::size_t target = data[0] % base.size();
  const bool replace = (data[1] & 1) != 0, fix_checksums = (data[1] & 2) != 0, verify = (data[1] & 4) != 0;
  // The files of the base database stay in place between inputs; only the ones the last input and
  // this one damage are rewritten.
  const std::string directory = fuzz::scratch_directory() + "/db";
  static std::size_t last_target = [&] {
    std::filesystem::create_directory(directory);
    for (std::size_t i = 1; i < base.size(); ++i) write(directory + "/" + base[i].name, base[i].bytes);
    return std::size_t{0};
  }();
  if (last_target != 0) write(directory + "/" + base[last_target].name, base[last_target].bytes);
  last_target = target;

  std::string manifest = base[0].bytes;
  const std::string bytes = damaged(base[target].bytes, data + 2, size - 2, replace);
  if (target == 0) {
    manifest = fix_checksums ? with_fixed_checksum(bytes) : bytes;
  } else if (fix_checksums) {
    detail::Manifest parsed = detail::parse_manifest(manifest, "base manifest");
    for (detail::FileEntry& entry : parsed.files)
      if (entry.name == base[target].name) {
        entry.size = bytes.size();
        entry.crc32 = detail::bytes_crc32(bytes.data(), bytes.size());
      }
    manifest = detail::format_manifest(parsed);
  }
  write(directory + "/" + detail::kManifestName, manifest);
  if (target != 0) write(directory + "/" + base[target].name, bytes);

  try {
    const Database database = Database::open(directory);
    const std::uint64_t subjects = database.info().subjects;
    for (std::size_t c = 0; c < database.num_chunks(); ++c) {
      const Chunk chunk = database.chunk(c);
      require_consistent(chunk, subjects);
      for (std::size_t s = 0; s < chunk.size(); ++s) {
        if (chunk.subject_codes(s).size() != chunk.lengths()[s]) std::abort();
        // An accepted chunk holds only residue codes of the database's alphabet (the kernels index
        // their tables with them).
        for (const char code : chunk.subject_codes(s))
          if (static_cast<std::uint8_t>(code) >= database.alphabet().pad_code()) std::abort();
        const std::uint64_t original = chunk.original_indices()[s];
        if (database.id(original).find(' ') != std::string_view::npos) std::abort();
        (void)database.description(original);
      }
    }
    if (verify) database.verify();
  } catch (const std::exception&) {
    // Rejected database: that is allowed.
  }
  return 0;
}

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
#include "db/makedb_passes.hpp"
#include "db/manifest.hpp"

namespace warpsearch {
namespace {

using detail::ChecksummedFile;
using detail::crc32_of;
using detail::key_index;
using detail::key_length;
using detail::kSlotsPerThread;
using detail::sort_subjects;
using detail::Subject;
using detail::write_chunks;

constexpr const char* kSpoolName = ".residues.spool";
// The unit of work (MakeDbOptions::unit_bytes): input bytes per block of the parallel first pass
// (Records), residue codes gathered at a time by the second (Window). Threads x kSlotsPerThread blocks
// (their headers and keys) and windows are in memory at once.
constexpr std::size_t kUnitBytes = 4 << 20;
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

}  // namespace

MakeDbReport make_database(const MakeDbOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (options.chunk_residues == 0) throw std::invalid_argument("the chunk size must be at least 1 residue");
  if (options.output.empty() || options.output == "-") throw std::invalid_argument("makedb needs an output directory");
  const unsigned threads = threads_or_usable_cpus(options.threads);
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

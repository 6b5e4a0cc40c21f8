#include "db/fasta.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "base/interrupt.hpp"
#include "base/text.hpp"
#include "db/byte_source.hpp"

namespace warpsearch {
namespace {

constexpr std::size_t kBlockSize = ByteSource::kBlockSize;  // bytes read (or inflated) at a time
constexpr std::size_t kTypeSampleLetters = 256 << 10;       // residue letters the type guess looks at
constexpr std::size_t kTypeScanLimit = 16 << 20;            // input bytes buffered for that guess, at most
constexpr std::size_t kMaxHeaderBytes = 16 << 20;           // longer "headers" are binary data

// Classes of input bytes in sequence lines, beside the residue codes (< kMaxCodes). OR-ing the
// classes of a run of bytes tells at once whether it holds blanks (bit 0x80) or bad bytes (0x40).
constexpr std::uint8_t kBlankByte = 0x80;  // space, tab, CR: ignored
constexpr std::uint8_t kBadByte = 0xFF;    // anything else that is not a residue
constexpr std::uint8_t kBadBit = 0x40;     // set in kBadByte only
static_assert(kMaxCodes <= kBadBit, "residue codes and byte classes must not overlap");

std::string describe_byte(unsigned char c) {
  char text[32];
  if (std::isprint(c))
    std::snprintf(text, sizeof text, "'%c' (0x%02X)", c, c);
  else
    std::snprintf(text, sizeof text, "byte 0x%02X", c);
  return text;
}

bool is_blank(char c) { return c == ' ' || c == '\t'; }

using ByteTable = std::array<std::uint8_t, 256>;

// The codes (or classes) of n bytes by table, stored to out if kStore; returns the OR of them all.
// Four accumulators, so that the ORs do not wait for each other.
template <bool kStore>
std::uint8_t translate_run(const ByteTable& table, const unsigned char* in, std::size_t n, std::uint8_t* out) {
  std::uint8_t a = 0, b = 0, c = 0, d = 0;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const std::uint8_t w = table[in[i]], x = table[in[i + 1]], y = table[in[i + 2]], z = table[in[i + 3]];
    if constexpr (kStore) {
      out[i] = w;
      out[i + 1] = x;
      out[i + 2] = y;
      out[i + 3] = z;
    }
    a |= w;
    b |= x;
    c |= y;
    d |= z;
  }
  for (; i < n; ++i) {
    const std::uint8_t w = table[in[i]];
    if constexpr (kStore) out[i] = w;
    a |= w;
  }
  return static_cast<std::uint8_t>(a | b | c | d);
}

}  // namespace

struct FastaReader::Impl {
  Impl(const std::string& input_path, std::optional<SequenceType> fixed_type, bool skip)
      : path(input_path), source(std::make_shared<ByteSource>(input_path)), skip_invalid(skip) {
    buffer.resize(kBlockSize);
    skip_byte_order_mark();
    type = fixed_type ? *fixed_type : detect_type();
    const Alphabet& alphabet = Alphabet::of(type);
    for (int c = 0; c < 256; ++c) {
      const std::uint8_t code = alphabet.encode(static_cast<unsigned char>(c));
      table[c] = code < Alphabet::kIgnored ? code : code == Alphabet::kIgnored ? kBlankByte : kBadByte;
    }
    table[static_cast<unsigned char>(' ')] = kBlankByte;
    table[static_cast<unsigned char>('\t')] = kBlankByte;
    table[static_cast<unsigned char>('\r')] = kBlankByte;
    stop_code = type == SequenceType::protein ? alphabet.encode('*') : Alphabet::kInvalid;
  }

  // A block reader (FastaReader::block_reader): the parent's file, alphabet and options.
  Impl(const Impl& parent, std::uint64_t begin, std::uint64_t end_offset, const FastaCounts& counts_before)
      : path(parent.path),
        source(parent.source),
        skip_invalid(parent.skip_invalid),
        type(parent.type),
        table(parent.table),
        stop_code(parent.stop_code),
        keep(false),
        advise_skip(parent.advise_skip),
        block(true),
        block_end(end_offset),
        before(counts_before) {
    if (!source->rereadable()) throw std::logic_error(input_display_name(path) + " cannot be read in blocks");
    buffer.resize(kBlockSize);
    line = 1 + before.lines;
    records_started = before.records;
    delivered = before.delivered;
    skipped = before.skipped;
    if (begin >= block_end) {  // an empty block: a reader for read_residues_again
      buffer_offset = begin;
      input_done = true;
    } else if (begin > 0) {
      buffer_offset = block_start(begin);
      input_done = buffer_offset >= block_end;  // no record starts in the block
    } else if (refill() && end >= 3 && std::memcmp(buffer.data(), "\xEF\xBB\xBF", 3) == 0) {
      pos = 3;
    }
  }

  // The offset of the first '>' that starts a line in [begin, block_end), else block_end.
  std::uint64_t block_start(std::uint64_t begin) {
    // A header right after a byte-order mark starts the first line.
    if (begin <= 3 && source->read_at(0, buffer.data(), 4) == 4 && std::memcmp(buffer.data(), "\xEF\xBB\xBF>", 4) == 0)
      return std::min<std::uint64_t>(3, block_end);
    std::uint64_t at = begin - 1;  // the line end before a header at begin
    while (at + 1 < block_end) {
      const std::size_t n = source->read_at(
          at, buffer.data(), static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), block_end - at)));
      if (n < 2) break;
      for (std::size_t i = 0; i + 1 < n;) {
        const auto* newline = static_cast<const char*>(std::memchr(buffer.data() + i, '\n', n - 1 - i));
        if (newline == nullptr) break;
        i = static_cast<std::size_t>(newline - buffer.data()) + 1;
        if (buffer[i] == '>') return at + i;
      }
      at += n - 1;  // the last byte again: it may be the line end before a header
    }
    return block_end;
  }

  // A UTF-8 byte-order mark (EF BB BF, which some editors put at the start of a text file) is not
  // part of the data: the parse starts after it, byte offsets still counting it.
  void skip_byte_order_mark() {
    while (end < 3 && !input_done) {
      const std::size_t n = source->read(buffer.data() + end, buffer.size() - end);
      if (n == 0) input_done = true;
      end += n;
    }
    if (end >= 3 && std::memcmp(buffer.data(), "\xEF\xBB\xBF", 3) == 0) pos = 3;
  }

  // Buffers the start of the input (without consuming it) until it holds enough sequence letters.
  SequenceType detect_type() {
    std::string sample;
    bool line_start = true, seen_header = false, in_sequence = false;
    int fastq_line = 0;
    std::size_t scanned = pos;
    for (;;) {
      for (; scanned < end && sample.size() < kTypeSampleLetters; ++scanned) {
        const char c = buffer[scanned];
        if (c == '\n') {
          line_start = true;
          continue;
        }
        // Blanks and CR before a line's first letter: a blank (or CRLF-empty) line is no line at all,
        // as the parser skips it (a FASTQ record's four lines are counted without them).
        if (line_start && (c == '\r' || c == ' ' || c == '\t')) continue;
        if (line_start) {
          line_start = false;
          if (!seen_header) {
            seen_header = c == '>' || c == '@';
            fastq = c == '@';
            in_sequence = false;
          } else if (fastq) {
            fastq_line = (fastq_line + 1) % 4;
            in_sequence = fastq_line == 1;
          } else {
            in_sequence = c != '>';
          }
        }
        if (in_sequence && std::isalpha(static_cast<unsigned char>(c))) sample.push_back(c);
      }
      if (sample.size() >= kTypeSampleLetters || end >= kTypeScanLimit || input_done) break;
      if (end == buffer.size()) buffer.resize(buffer.size() * 2);
      const std::size_t n = source->read(buffer.data() + end, buffer.size() - end);
      if (n == 0) input_done = true;
      end += n;
    }
    fastq = false;  // decided again from the first header when parsing
    return guess_sequence_type(sample);
  }

  bool refill() {
    buffer_offset += end;
    pos = end = 0;
    if (input_done) return false;
    end = block ? source->read_at(buffer_offset, buffer.data(), buffer.size())
                : source->read(buffer.data(), buffer.size());
    if (end == 0) input_done = true;
    return end > 0;
  }

  std::uint64_t offset() const { return buffer_offset + pos; }

  [[noreturn]] void fail(const std::string& what, std::uint64_t at_line, std::uint64_t at_byte, bool in_record) const {
    std::string message =
        input_display_name(path) + ": line " + std::to_string(at_line) + ", byte " + std::to_string(at_byte);
    if (in_record)
      message += ", record " + std::to_string(records_started) +
                 (current_id.empty() ? std::string(" (no ID)") : " (" + quoted_excerpt(current_id) + ")");
    throw std::runtime_error(message + ": " + what);
  }

  // A problem confined to the current record: an error, or with skip_invalid, a reason to skip it.
  void record_problem(const std::string& what, std::uint64_t at_line, std::uint64_t at_byte) {
    if (!skip_invalid) fail(advise_skip ? what + " (--skip-invalid skips such records)" : what, at_line, at_byte, true);
    record_bad = true;
  }

  // Skips empty (or blank) lines; false at the end of the input.
  bool skip_empty_lines() {
    for (;;) {
      if (pos == end && !refill()) return false;
      const char c = buffer[pos];
      if (c == '\n') {
        ++line;
      } else if (c != '\r' && !is_blank(c)) {
        return true;
      }
      ++pos;
    }
  }

  // The rest of the current line, without its line end; the line is consumed.
  void read_line(std::string& text, const char* what) {
    text.clear();
    for (;;) {
      if (pos == end && !refill()) break;
      const char* begin = buffer.data() + pos;
      const std::size_t available = end - pos;
      const auto* newline = static_cast<const char*>(std::memchr(begin, '\n', available));
      const std::size_t n = newline != nullptr ? static_cast<std::size_t>(newline - begin) : available;
      if (text.size() + n > kMaxHeaderBytes)
        fail(std::string(what) + " longer than " + std::to_string(kMaxHeaderBytes >> 20) +
                 " MiB; expected a text line (is this a FASTA file?)",
             line, offset(), false);
      text.append(begin, n);
      pos += n;
      if (newline != nullptr) {
        ++pos;
        ++line;
        break;
      }
    }
    while (!text.empty() && (text.back() == '\r' || is_blank(text.back()))) text.pop_back();
  }

  // Checks bytes (part of one sequence line) and counts their residues; when codes are kept, appends
  // their codes to codes.
  void translate(const char* bytes, std::size_t n, std::string& codes) {
    // Through a scratch buffer and append(): resizing codes first would zero-fill it.
    if (keep && translated.size() < n) translated.resize(std::max(n, kBlockSize));
    auto* out = reinterpret_cast<std::uint8_t*>(translated.data());
    const auto* in = reinterpret_cast<const unsigned char*>(bytes);
    const std::uint8_t classes =
        keep ? translate_run<true>(table, in, n, out) : translate_run<false>(table, in, n, nullptr);
    std::size_t kept = n;
    if ((classes & kBlankByte) == 0) {
      if (n > 0) last_code = table[in[n - 1]];
    } else {
      kept = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint8_t code = table[in[i]];
        if (code < kBlankByte) {
          if (keep) out[kept] = code;
          ++kept;
          last_code = code;
        } else if (code == kBadByte) {
          const auto at = buffer_offset + static_cast<std::uint64_t>(bytes - buffer.data()) + i;
          record_problem("invalid character " + describe_byte(in[i]) + " in a " + Alphabet::of(type).name() +
                             " sequence; expected residue letters, or a header line starting with " +
                             (fastq ? "'@'" : "'>'"),
                         line, at);
          return;
        }
      }
    }
    if (keep) codes.append(translated.data(), kept);
    residues += kept;
  }

  // Sequence lines up to the next '>' line (or the end); one line in FASTQ.
  void read_sequence_lines(std::string& codes) {
    bool line_start = true;
    for (;;) {
      if (pos == end && !refill()) return;
      if (line_start) {
        if (!fastq && buffer[pos] == '>') return;
        line_start = false;
      }
      const char* begin = buffer.data() + pos;
      const std::size_t available = end - pos;
      const auto* newline = static_cast<const char*>(std::memchr(begin, '\n', available));
      const std::size_t n = newline != nullptr ? static_cast<std::size_t>(newline - begin) : available;
      if (!record_bad) translate(begin, n, codes);
      pos += n;
      if (newline != nullptr) {
        ++pos;
        ++line;
        if (fastq) return;
        line_start = true;
      }
    }
  }

  void read_fastq_tail(std::size_t length) {
    const std::uint64_t plus_line = line, plus_at = offset();
    if (!skip_empty_lines() || buffer[pos] != '+')
      fail("expected the '+' line of a FASTQ record", plus_line, plus_at, true);
    read_line(scratch, "'+' line");
    const std::uint64_t quality_line = line, quality_at = offset();
    read_line(scratch, "quality line");
    if (!record_bad && scratch.size() != length)
      record_problem("the quality line has " + std::to_string(scratch.size()) + " characters and the sequence " +
                         std::to_string(length) + "; expected one quality character per residue",
                     quality_line, quality_at);
  }

  bool next(SequenceRecord& record) {
    for (;;) {
      throw_if_interrupted();
      current_id.clear();
      if (!skip_empty_lines()) {
        if (delivered == 0 && !block)
          fail(skipped == 0 ? "no sequence records; expected FASTA ('>') or FASTQ ('@') records"
                            : "no valid sequence records (" + std::to_string(skipped) + " skipped as invalid)",
               line, offset(), false);
        return false;
      }
      if (block && offset() >= block_end && buffer[pos] == '>') return false;  // the next block's first record
      const char first = buffer[pos];
      if (records_started == 0) fastq = first == '@';
      const char marker = fastq ? '@' : '>';
      if (first != marker)
        fail(records_started == 0 ? "sequence data before the first header; expected a header line starting with '>'"
                                  : std::string("expected a FASTQ header line starting with '@', found ") +
                                        describe_byte(static_cast<unsigned char>(first)),
             line, offset(), false);
      ++records_started;
      record_bad = false;
      record.codes.clear();
      residues = 0;
      last_code = Alphabet::kInvalid;
      const std::uint64_t header_line = line, header_at = offset();
      ++pos;
      read_line(scratch, "header line");
      record.sequence_offset = offset();
      split_header(record);
      current_id = record.id;
      if (record.id.empty()) record_problem("the header has no ID; expected '>ID description'", header_line, header_at);
      check_header_bytes(header_line, header_at);
      read_sequence_lines(record.codes);
      if (fastq) read_fastq_tail(residues);
      if (!record_bad && residues > 0 && last_code == stop_code) {
        --residues;
        if (keep) record.codes.pop_back();
      }
      record.length = residues;
      if (!record_bad && residues == 0)
        record_problem("the record has no residues; expected sequence lines after the header", header_line, header_at);
      if (record_bad) {
        ++skipped;
        continue;
      }
      record.index = delivered++;
      return true;
    }
  }

  void split_header(SequenceRecord& record) const {
    std::size_t start = 0;
    while (start < scratch.size() && is_blank(scratch[start])) ++start;
    std::size_t id_end = start;
    while (id_end < scratch.size() && !is_blank(scratch[id_end])) ++id_end;
    record.id.assign(scratch, start, id_end - start);
    std::size_t description = id_end;
    while (description < scratch.size() && is_blank(scratch[description])) ++description;
    record.description.assign(scratch, description, std::string::npos);
  }

  void check_header_bytes(std::uint64_t header_line, std::uint64_t header_at) {
    for (std::size_t i = 0; i < scratch.size(); ++i) {
      const auto c = static_cast<unsigned char>(scratch[i]);
      if ((c < 0x20 && c != '\t' && c != 0x01) || c == 0x7F) {
        record_problem("control character " + describe_byte(c) + " in the header; expected printable text", header_line,
                       header_at + 1 + i);
        return;
      }
    }
  }

  // Reads the codes again (read_residues_again), through reread_buffer.
  void read_residues_again(std::uint64_t* offset_in_input, char* out, std::size_t count) {
    if (!source->rereadable())
      throw std::logic_error(input_display_name(path) + " cannot be read again (compressed or not a file)");
    if (reread_buffer.empty()) reread_buffer.resize(kBlockSize);
    const auto changed = [&](const std::string& what) {
      return std::runtime_error(input_display_name(path) + ": " + what + " near byte " +
                                std::to_string(*offset_in_input) +
                                " when reading the residues again; the file changed while it was "
                                "being read: run the command again");
    };
    std::size_t done = 0;
    while (done < count) {
      // Residues and line ends: a little more than the residues still wanted, so that wrapped lines
      // usually take one read.
      const std::size_t wanted = count - done;
      const std::size_t n = source->read_at(*offset_in_input, reread_buffer.data(),
                                            static_cast<std::size_t>(std::min<std::uint64_t>(
                                                reread_buffer.size(), std::uint64_t{wanted} + wanted / 16 + 64)));
      if (n == 0) throw changed("end of the file");
      const auto* in = reinterpret_cast<const unsigned char*>(reread_buffer.data());
      std::size_t i = 0;
      // A line (or what is left of the residues wanted) at a time; blanks are rare.
      while (i < n && done < count) {
        const std::size_t run = std::min(n - i, count - done);
        const auto* newline = static_cast<const unsigned char*>(std::memchr(in + i, '\n', run));
        const std::size_t length = newline != nullptr ? static_cast<std::size_t>(newline - (in + i)) : run;
        auto* codes = reinterpret_cast<std::uint8_t*>(out + done);
        const std::uint8_t classes = translate_run<true>(table, in + i, length, codes);
        if ((classes & kBadBit) != 0) throw changed("a byte that is not a residue");
        if ((classes & kBlankByte) == 0) {
          done += length;
        } else {
          for (std::size_t j = 0; j < length; ++j)
            if (codes[j] < kBlankByte) out[done++] = static_cast<char>(codes[j]);
        }
        i += length + (newline != nullptr ? 1 : 0);
      }
      *offset_in_input += i;
    }
  }

  std::string path;
  std::shared_ptr<ByteSource> source;  // shared by block readers: only read_at() is used concurrently
  bool skip_invalid;
  SequenceType type = SequenceType::protein;
  ByteTable table{};  // byte in a sequence line (LF excluded) -> code or class
  std::uint8_t stop_code = Alphabet::kInvalid;
  bool keep = true;                 // keep residue codes in the records
  bool advise_skip = true;          // name --skip-invalid in messages
  std::vector<char> reread_buffer;  // for read_residues_again

  bool block = false;  // a block reader: reads [buffer_offset, ...) with read_at, stops at block_end
  std::uint64_t block_end = 0;
  FastaCounts before;  // of the input before the block

  std::vector<char> buffer;
  std::size_t pos = 0, end = 0;
  bool input_done = false;
  std::uint64_t buffer_offset = 0;  // input offset of buffer[0]
  std::uint64_t line = 1;           // line of buffer[pos]
  bool fastq = false;

  std::uint64_t records_started = 0, delivered = 0, skipped = 0;
  std::string current_id;  // for messages
  std::string scratch;     // header, '+' and quality lines
  std::string translated;  // one line's codes, before they are appended to the record
  bool record_bad = false;
  std::uint64_t residues = 0;                   // of the current record so far
  std::uint8_t last_code = Alphabet::kInvalid;  // its last residue so far
};

FastaReader::FastaReader(const std::string& path, std::optional<SequenceType> type, bool skip_invalid)
    : impl_(std::make_unique<Impl>(path, type, skip_invalid)) {}
FastaReader::FastaReader(const FastaReader& parent, std::uint64_t begin, std::uint64_t end, const FastaCounts& before)
    : impl_(std::make_unique<Impl>(*parent.impl_, begin, end, before)) {}
FastaReader::FastaReader(FastaReader&&) noexcept = default;
FastaReader& FastaReader::operator=(FastaReader&&) noexcept = default;
FastaReader::~FastaReader() = default;

SequenceType FastaReader::type() const { return impl_->type; }
bool FastaReader::next(SequenceRecord& record) { return impl_->next(record); }
std::uint64_t FastaReader::skipped() const { return impl_->skipped; }
std::uint64_t FastaReader::bytes_consumed() const { return impl_->offset(); }
const std::string& FastaReader::path() const { return impl_->path; }
void FastaReader::keep_codes(bool keep) { impl_->keep = keep; }
void FastaReader::advise_skip_invalid(bool advise) { impl_->advise_skip = advise; }
bool FastaReader::rereadable() const { return impl_->source->rereadable(); }
void FastaReader::read_residues_again(std::uint64_t* offset, char* out, std::size_t count) {
  impl_->read_residues_again(offset, out, count);
}
void FastaReader::decompress_ahead() { impl_->source->decompress_ahead(); }

bool FastaReader::fastq() {
  if (impl_->records_started > 0) return impl_->fastq;
  return impl_->skip_empty_lines() && impl_->buffer[impl_->pos] == '@';
}

FastaReader FastaReader::block_reader(std::uint64_t begin, std::uint64_t end, const FastaCounts& before) const {
  FastaReader reader(*this, begin, end, before);
  return reader;
}

FastaCounts FastaReader::counts() const {
  const Impl& impl = *impl_;
  return {impl.line - 1 - impl.before.lines, impl.records_started - impl.before.records,
          impl.delivered - impl.before.delivered, impl.skipped - impl.before.skipped};
}

std::uint64_t FastaReader::file_size() const { return impl_->source->size(); }

void FastaReader::check_unchanged() const {
  if (impl_->source->rereadable() && !impl_->source->unchanged())
    throw std::runtime_error(input_display_name(impl_->path) +
                             " changed (size or modification time) while it was being read; run "
                             "the command again");
}

}  // namespace warpsearch

#include "output/align_output.hpp"

#include <algorithm>
#include <stdexcept>

#include "base/ordered_parallel.hpp"
#include "kernels/cpu/alignment.hpp"

namespace warpsearch {
namespace {

// 1-based inclusive coordinates of [begin, end); "0\t0" when the range is empty.
void append_range(std::string& line, std::uint32_t begin, std::uint32_t end) {
  if (begin == end) {
    line += "0\t0";
    return;
  }
  line += std::to_string(begin + 1);
  line += '\t';
  line += std::to_string(end);
}

}  // namespace

AlignWriter::AlignWriter(std::ostream& out, const Alphabet& alphabet, AlignOutputOptions options)
    : out_(out), alphabet_(alphabet), options_(options) {
  if (options_.format == AlignFormat::sam && alphabet.type() != SequenceType::nucleotide)
    throw std::invalid_argument(
        "SAM output (--outfmt sam) is for nucleotide sequences; these are protein (use --outfmt tsv)");
}

void AlignWriter::header(const std::vector<SamReference>& references, const std::string& command_line) {
  if (options_.format == AlignFormat::tsv) {
    out_ << "query_id\ttarget_id\tscore\tquery_start\tquery_end\ttarget_start\ttarget_end";
    if (options_.cigar) out_ << "\tcigar";
    if (options_.aligned) out_ << "\tquery_aligned\ttarget_aligned";
    out_ << '\n';
    return;
  }
  out_ << "@HD\tVN:1.6\tSO:unsorted\n";
  for (const auto& reference : references) out_ << "@SQ\tSN:" << reference.name << "\tLN:" << reference.length << '\n';
  std::string command = command_line;
  for (char& c : command)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  out_ << "@PG\tID:warpsearch\tPN:warpsearch\tVN:" WARPSEARCH_VERSION;
  if (!command.empty()) out_ << "\tCL:" << command;
  out_ << '\n';
}

void AlignWriter::write(std::string_view query_id, std::string_view target_id, std::string_view query_codes,
                        std::string_view target_codes, const PairAlignment& alignment) {
  line_.clear();
  format({query_id, target_id, query_codes, target_codes, &alignment}, line_);
  out_ << line_;
}

void AlignWriter::write_rows(std::size_t count, const std::function<Row(std::size_t)>& row, unsigned threads) {
  // Chunks of rows formatted on the threads, written in order; a few chunks per thread in flight.
  constexpr std::size_t kChunkRows = 2048;
  const std::size_t chunks = (count + kChunkRows - 1) / kChunkRows;
  std::vector<std::string> texts(std::size_t{4} * std::max(threads, 1u));
  ordered_parallel(
      chunks, threads, texts.size(),
      [&](std::size_t chunk, std::size_t slot) {
        std::string& text = texts[slot];
        text.clear();
        for (std::size_t r = chunk * kChunkRows; r < std::min(count, (chunk + 1) * kChunkRows); ++r)
          format(row(r), text);
      },
      [&](std::size_t, std::size_t slot) { out_ << texts[slot]; });
}

void AlignWriter::format(const Row& row, std::string& line) const {
  const auto& [query_id, target_id, query_codes, target_codes, alignment_pointer] = row;
  const PairAlignment& alignment = *alignment_pointer;
  if (options_.format == AlignFormat::tsv) {
    line.append(query_id);
    line += '\t';
    line.append(target_id);
    line += '\t';
    line += std::to_string(alignment.score);
    line += '\t';
    append_range(line, alignment.query_begin, alignment.query_end);
    line += '\t';
    append_range(line, alignment.subject_begin, alignment.subject_end);
    if (options_.cigar) {
      line += '\t';
      line += alignment.operations.empty() ? "*" : cpu::cigar(alignment.operations);
    }
    if (options_.aligned) {
      std::string query_aligned, target_aligned;
      std::size_t i = alignment.query_begin, j = alignment.subject_begin;
      for (const char op : alignment.operations) {
        query_aligned += op == 'D' ? '-' : alphabet_.decode(static_cast<std::uint8_t>(query_codes[i++]));
        target_aligned += op == 'I' ? '-' : alphabet_.decode(static_cast<std::uint8_t>(target_codes[j++]));
      }
      line += '\t';
      line += query_aligned.empty() ? "*" : query_aligned;
      line += '\t';
      line += target_aligned.empty() ? "*" : target_aligned;
    }
    line += '\n';
    return;
  }

  const bool mapped = alignment.operations.find('M') != std::string::npos;
  line.append(query_id);
  line += mapped ? "\t0\t" : "\t4\t";
  if (mapped) {
    line.append(target_id);
    line += '\t';
    line += std::to_string(alignment.subject_begin + 1);
    line += "\t255\t";
    if (alignment.query_begin > 0) line += std::to_string(alignment.query_begin) + "S";
    line += cpu::cigar(alignment.operations);
    if (alignment.query_end < query_codes.size())
      line += std::to_string(query_codes.size() - alignment.query_end) + "S";
  } else {
    line += "*\t0\t0\t*";
  }
  line += "\t*\t0\t0\t";
  line += query_codes.empty() ? "*" : alphabet_.decode_string(query_codes);
  line += "\t*\tAS:i:";
  line += std::to_string(alignment.score);
  line += "\tNM:i:";
  line += std::to_string(alignment.mismatches + alignment.gaps);
  line += '\n';
}

}  // namespace warpsearch

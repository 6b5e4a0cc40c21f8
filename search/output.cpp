#include "search/output.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "db/genetic_code.hpp"
#include "kernels/cpu/alignment.hpp"

namespace warpsearch {
namespace {

enum Column {
  kQseqid, kSseqid, kPident, kLength, kMismatch, kGapopen, kQstart, kQend, kSstart, kSend, kEvalue,
  kBitscore, kScore, kQlen, kSlen, kCigar, kQseq, kSseq, kQcovhsp, kStitle, kSstrand, kNident, kGaps,
  kQframe, kSframe, kColumnCount
};
constexpr const char* kColumnNames[kColumnCount] = {
    "qseqid", "sseqid", "pident", "length", "mismatch", "gapopen", "qstart", "qend", "sstart", "send", "evalue",
    "bitscore", "score", "qlen", "slen", "cigar", "qseq", "sseq", "qcovhsp", "stitle", "sstrand", "nident", "gaps",
    "qframe", "sframe"};
constexpr int kDefaultColumns = 12;  // qseqid .. bitscore, as BLAST's outfmt 6

std::string printf_string(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

// A hit's alignment as the user sees it: query coordinates on the query's plus strand (1-based,
// inclusive); a minus-strand hit shows the subject reversed (sstart > send), as BLAST does.
struct Presented {
  std::uint64_t qstart, qend, sstart, send;
  std::string operations, qseq, sseq;
};

Presented present(const Query& query, const Hit& hit, const Alphabet& alphabet) {
  Presented p;
  const std::uint64_t m = query.codes.size();
  if (hit.query_frame != 0 || hit.subject_frame != 0) {
    // Translated: amino acids aligned; coordinates on the nucleotide sequences, as BLAST prints them
    // (start > end on minus frames).
    const Alphabet& protein = Alphabet::protein();
    std::size_t qi = 0, si = 0;
    for (char op : hit.operations) {
      const char q = hit.query_frame != 0 ? hit.query_aligned_codes[qi] : query.codes[hit.query_begin + qi];
      p.qseq += op != 'D' ? protein.decode(static_cast<std::uint8_t>(q)) : '-';
      p.sseq += op != 'I' ? protein.decode(static_cast<std::uint8_t>(hit.subject_aligned_codes[si])) : '-';
      qi += op != 'D' ? 1 : 0;
      si += op != 'I' ? 1 : 0;
    }
    p.operations = hit.operations;
    const NucleotideSpan q = hit.query_frame != 0 ? nucleotide_span(hit.query_frame, hit.query_begin, hit.query_end, m)
                                                  : NucleotideSpan{hit.query_begin + 1u, hit.query_end};
    const NucleotideSpan s =
        hit.subject_frame != 0 ? nucleotide_span(hit.subject_frame, hit.subject_begin, hit.subject_end, hit.subject_length)
                               : NucleotideSpan{hit.subject_begin + 1u, hit.subject_end};
    p.qstart = q.start;
    p.qend = q.end;
    p.sstart = s.start;
    p.send = s.end;
    return p;
  }
  // Aligned strings on the searched strand.
  std::string searched_query = query.codes;
  if (hit.strand == Strand::minus) {
    searched_query.assign(query.codes.rbegin(), query.codes.rend());
    for (auto& c : searched_query) c = static_cast<char>(alphabet.complement(static_cast<std::uint8_t>(c)));
  }
  std::size_t qi = hit.query_begin, si = 0;
  for (char op : hit.operations) {
    const bool query_residue = op != 'D', subject_residue = op != 'I';
    p.qseq += query_residue ? alphabet.decode(static_cast<std::uint8_t>(searched_query[qi++])) : '-';
    p.sseq += subject_residue ? alphabet.decode(static_cast<std::uint8_t>(hit.subject_aligned_codes[si++])) : '-';
  }
  p.operations = hit.operations;
  if (hit.strand == Strand::plus) {
    p.qstart = hit.query_begin + 1;
    p.qend = hit.query_end;
    p.sstart = hit.subject_begin + 1;
    p.send = hit.subject_end;
    return p;
  }
  auto flip = [&](std::string& aligned) {
    std::string flipped(aligned.rbegin(), aligned.rend());
    for (auto& c : flipped)
      if (c != '-') c = alphabet.decode(alphabet.complement(alphabet.encode(static_cast<unsigned char>(c))));
    aligned = flipped;
  };
  flip(p.qseq);
  flip(p.sseq);
  p.operations.assign(hit.operations.rbegin(), hit.operations.rend());
  p.qstart = m - hit.query_end + 1;
  p.qend = m - hit.query_begin;
  p.sstart = hit.subject_end;
  p.send = hit.subject_begin + 1;
  return p;
}

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
          out += buffer;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

}  // namespace

std::string format_evalue(double evalue) {
  if (std::isnan(evalue)) return "NA";
  if (evalue < 1.0e-180) return "0.0";
  if (evalue < 0.0009) return printf_string("%.2e", evalue);
  if (evalue < 0.1) return printf_string("%.3f", evalue);
  if (evalue < 1.0) return printf_string("%.2f", evalue);
  if (evalue < 10.0) return printf_string("%.1f", evalue);
  return printf_string("%.0f", evalue);
}

std::string format_bitscore(double bitscore) {
  if (std::isnan(bitscore)) return "NA";
  if (bitscore > 9999) return printf_string("%.3e", bitscore);
  if (bitscore > 99.9) return std::to_string(static_cast<long>(bitscore));  // BLAST truncates here
  return printf_string("%.1f", bitscore);
}

std::vector<std::string> OutputFormat::known_columns() {
  return std::vector<std::string>(std::begin(kColumnNames), std::end(kColumnNames));
}

OutputFormat OutputFormat::parse(const std::string& spec) {
  OutputFormat format;
  std::istringstream words(spec);
  std::string kind;
  words >> kind;
  if (kind == "json" || kind == "jsonl") {
    format.json_ = true;
    return format;
  }
  if (kind != "6")
    throw std::invalid_argument("unknown output format '" + spec + "' (use 6, \"6 COLUMN ...\" or json)");
  for (std::string name; words >> name;) {
    int found = -1;
    for (int c = 0; c < kColumnCount; ++c)
      if (name == kColumnNames[c]) found = c;
    if (found < 0) {
      std::string known;
      for (const char* column : kColumnNames) known += std::string(known.empty() ? "" : " ") + column;
      throw std::invalid_argument("unknown output column '" + name + "' (known: " + known + ")");
    }
    format.columns_.push_back(found);
  }
  if (format.columns_.empty())
    for (int c = 0; c < kDefaultColumns; ++c) format.columns_.push_back(c);
  return format;
}

void OutputFormat::write(std::ostream& out, const Query& query, const QueryResult& result,
                         const Database& database) const {
  const Alphabet& alphabet = database.alphabet();
  const bool nucleotide = alphabet.type() == SequenceType::nucleotide;
  for (const Hit& hit : result.hits) {
    const Presented p = present(query, hit, alphabet);
    const std::size_t length = hit.operations.size();
    const double pident = length ? 100.0 * hit.identities / static_cast<double>(length) : 0.0;
    // A translated query's span counts amino acids against its length in bases, as blastx computes it.
    const std::uint64_t query_span = hit.query_frame != 0 ? hit.query_end - hit.query_begin
                                     : p.qend >= p.qstart ? p.qend - p.qstart + 1
                                                          : p.qstart - p.qend + 1;
    const long qcovhsp = query.codes.empty() ? 0
        : std::lround(100.0 * static_cast<double>(query_span) / static_cast<double>(query.codes.size()));
    auto value = [&](int column) -> std::string {
      switch (column) {
        case kQseqid: return query.id;
        case kSseqid: return std::string(database.id(hit.subject));
        case kPident: return printf_string("%.3f", pident);
        case kLength: return std::to_string(length);
        case kMismatch: return std::to_string(hit.mismatches);
        case kGapopen: return std::to_string(hit.gap_opens);
        case kQstart: return std::to_string(p.qstart);
        case kQend: return std::to_string(p.qend);
        case kSstart: return std::to_string(p.sstart);
        case kSend: return std::to_string(p.send);
        case kEvalue: return format_evalue(hit.evalue);
        case kBitscore: return format_bitscore(hit.bitscore);
        case kScore: return std::to_string(hit.score);
        case kQlen: return std::to_string(query.codes.size());
        case kSlen: return std::to_string(hit.subject_length);
        case kCigar: return cpu::cigar(p.operations);
        case kQseq: return p.qseq;
        case kSseq: return p.sseq;
        case kQcovhsp: return std::to_string(qcovhsp);
        case kStitle: {
          std::string title(database.id(hit.subject));
          const auto description = database.description(hit.subject);
          if (!description.empty()) title += " " + std::string(description);
          return title;
        }
        case kSstrand:
          if (hit.query_frame != 0 || hit.subject_frame != 0) return "N/A";  // as BLAST+ prints it for translations
          return hit.strand == Strand::minus ? "minus" : "plus";
        case kNident: return std::to_string(hit.identities);
        case kGaps: return std::to_string(hit.gaps);
        // BLAST's frames: 0 for proteins; blastn's query frame 1 and subject frame -1 on the minus strand.
        case kQframe:
          return std::to_string(hit.query_frame != 0 || hit.subject_frame != 0 || !nucleotide ? hit.query_frame : 1);
        case kSframe:
          return std::to_string(hit.query_frame != 0 || hit.subject_frame != 0 || !nucleotide
                                    ? hit.subject_frame
                                    : (hit.strand == Strand::minus ? -1 : 1));
        default: return "";
      }
    };
    if (json_) {
      out << "{\"qseqid\":" << json_string(query.id) << ",\"sseqid\":" << json_string(database.id(hit.subject))
          << ",\"score\":" << hit.score << ",\"bitscore\":" << (std::isnan(hit.bitscore) ? "null" : printf_string("%.4g", hit.bitscore))
          << ",\"evalue\":" << (std::isnan(hit.evalue) ? "null" : printf_string("%.4g", hit.evalue))
          << ",\"pident\":" << value(kPident) << ",\"length\":" << length << ",\"mismatch\":" << hit.mismatches
          << ",\"gapopen\":" << hit.gap_opens << ",\"qstart\":" << p.qstart << ",\"qend\":" << p.qend
          << ",\"sstart\":" << p.sstart << ",\"send\":" << p.send << ",\"qlen\":" << query.codes.size()
          << ",\"slen\":" << hit.subject_length << ",\"strand\":\"" << value(kSstrand) << "\""
          << ",\"qframe\":" << value(kQframe) << ",\"sframe\":" << value(kSframe)
          << ",\"cigar\":\"" << value(kCigar) << "\"}\n";
      continue;
    }
    for (std::size_t i = 0; i < columns_.size(); ++i) out << (i ? "\t" : "") << value(columns_[i]);
    out << '\n';
  }
}

}  // namespace warpsearch

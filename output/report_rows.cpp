// The reports of one line per hit: BLAST tabular (outfmt 6), commented tabular (7), CSV (10), JSON Lines,
// and SAM (17).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "kernels/cpu/alignment.hpp"
#include "output/report.hpp"

namespace warpsearch {

using namespace report;  // NOLINT: the writers' shared parts

void OutputFormat::QueryReport::tabular(std::ostream& out) const {
  const bool csv = format.kind_ == Kind::csv;
  if (format.kind_ == Kind::commented_tabular) {
    out << "# " << upper_case(program) << " " << kBlastVersion << " (warpsearch " WARPSEARCH_VERSION ")\n"
        << "# Query: " << tabular_field(query_title) << "\n"
        << "# Database: " << tabular_field(s.context.database_name.empty() ? database.path() : s.context.database_name)
        << "\n";
    if (!result.hits.empty()) {
      out << "# Fields: ";
      for (std::size_t i = 0; i < format.columns_.size(); ++i)
        out << (i ? ", " : "") << kColumns[format.columns_[i]].description;
      out << "\n";
    }
    out << "# " << result.hits.size() << " hits found\n";
  }
  // The alignment walked only for the columns that need it.
  const bool walk = std::any_of(format.columns_.begin(), format.columns_.end(), [](int column) {
    return column == kQseq || column == kSseq || column == kBtop || column == kPositive || column == kPpos;
  });
  for (const auto& group : groups) {
    const SequenceId sid = parse_sequence_id(database.id(group.front()->subject), type);
    const long qcovs = query_coverage(group, query_length);
    for (const Hit* hit_pointer : group) {
      const Hit& hit = *hit_pointer;
      const Presented p = present(query, hit, alphabet, scoring, walk);
      const std::size_t length = hit.operations.size();
      auto value = [&](int column) -> std::string {
        switch (column) {
          case kQseqid:
          case kQacc:
          case kQaccver: return query.id;
          case kQgi: return "0";
          case kQlen: return std::to_string(query_length);
          case kSseqid:
          case kSallseqid: return sid.seqid;
          case kSgi:
          case kSallgi: return std::to_string(sid.gi);
          case kSacc:
          case kSallacc: return sid.accession;
          case kSaccver: return sid.accession_version;
          case kSlen: return std::to_string(hit.subject_length);
          case kQstart: return std::to_string(p.qstart);
          case kQend: return std::to_string(p.qend);
          case kSstart: return std::to_string(p.sstart);
          case kSend: return std::to_string(p.send);
          case kQseq: return p.qseq;
          case kSseq: return p.sseq;
          case kEvalue: return format_evalue(hit.evalue);
          case kBitscore: return format_bitscore(hit.bitscore);
          case kScore: return std::to_string(hit.score);
          case kLength: return std::to_string(length);
          case kPident:
            return printf_string("%.3f", length ? 100.0 * hit.identities / static_cast<double>(length) : 0.0);
          case kNident: return std::to_string(hit.identities);
          case kMismatch: return std::to_string(hit.mismatches);
          case kPositive: return std::to_string(p.positives);
          case kGapopen: return std::to_string(hit.gap_opens);
          case kGaps: return std::to_string(hit.gaps);
          case kPpos: return printf_string("%.2f", length ? 100.0 * p.positives / static_cast<double>(length) : 0.0);
          case kFrames:
            if (translated(hit)) return std::to_string(hit.query_frame) + "/" + std::to_string(hit.subject_frame);
            return nucleotide ? "1/" + std::to_string(frame(hit)) : "1/1";
          case kQframe: return translated(hit) ? std::to_string(hit.query_frame) : "1";
          case kSframe:
            if (translated(hit)) return std::to_string(hit.subject_frame);
            return nucleotide ? std::to_string(frame(hit)) : "1";
          case kBtop: return btop(p);
          // BLAST prints a missing taxid as 0 in staxids but N/A in staxid.
          case kStaxids: return std::to_string(database.taxid(hit.subject));
          case kStaxid: {
            const std::uint32_t taxid = database.taxid(hit.subject);
            return taxid == 0 ? "N/A" : std::to_string(taxid);
          }
          case kSsciname:
          case kScomname:
          case kSblastname:
          case kSskingdom:
          case kSscinames:
          case kScomnames:
          case kSblastnames:
          case kSskingdoms: return taxonomy_name(s.context.taxonomy, database.taxid(hit.subject), column);
          case kStitle:
          case kSalltitles: return subject_title(hit.subject);
          case kSstrand:
            return nucleotide && !translated(hit) ? (hit.strand == Strand::minus ? "minus" : "plus") : "N/A";
          case kQcovs: return std::to_string(qcovs);
          case kQcovhsp:
            // A translated query's span counts amino acids against its length in bases, as blastx does.
            if (hit.query_frame != 0)
              return std::to_string(coverage_percent(hit.query_end - hit.query_begin, query_length));
            return std::to_string(
                coverage_percent(p.qend >= p.qstart ? p.qend - p.qstart + 1 : p.qstart - p.qend + 1, query_length));
          case kQcovus: return nucleotide ? std::to_string(qcovs) : "N/A";
          case kCigar: return cpu::cigar(p.operations);
          default: return "";
        }
      };
      for (std::size_t i = 0; i < format.columns_.size(); ++i) {
        const std::string field = value(format.columns_[i]);
        out << (i ? (csv ? "," : "\t") : "") << (csv ? csv_field(field) : tabular_field(field));
      }
      out << '\n';
    }
  }
  return;
}

void OutputFormat::QueryReport::json_lines(std::ostream& out) const {
  for (const auto& group : groups)
    for (const Hit* hit_pointer : group) {
      const Hit& hit = *hit_pointer;
      const Presented p = present(query, hit, alphabet, scoring);
      const std::size_t length = hit.operations.size();
      const SequenceId sid = parse_sequence_id(database.id(hit.subject), type);
      out << "{\"qseqid\":" << json_string(query.id) << ",\"sseqid\":" << json_string(database.id(hit.subject))
          << ",\"sacc\":" << json_string(sid.accession_version)
          << ",\"stitle\":" << json_string(subject_title(hit.subject)) << ",\"score\":" << hit.score
          << ",\"bitscore\":" << (std::isnan(hit.bitscore) ? "null" : printf_string("%.4g", hit.bitscore))
          << ",\"evalue\":" << (std::isnan(hit.evalue) ? "null" : printf_string("%.4g", hit.evalue)) << ",\"pident\":"
          << printf_string("%.3f", length ? 100.0 * hit.identities / static_cast<double>(length) : 0.0)
          << ",\"length\":" << length << ",\"mismatch\":" << hit.mismatches << ",\"positive\":" << p.positives
          << ",\"gapopen\":" << hit.gap_opens << ",\"gaps\":" << hit.gaps << ",\"qstart\":" << p.qstart
          << ",\"qend\":" << p.qend << ",\"sstart\":" << p.sstart << ",\"send\":" << p.send
          << ",\"qlen\":" << query_length << ",\"slen\":" << hit.subject_length << ",\"strand\":\""
          << (hit.strand == Strand::minus ? "minus" : "plus") << "\""
          << ",\"qframe\":" << (translated(hit) ? hit.query_frame : 1)
          << ",\"sframe\":" << (translated(hit) ? hit.subject_frame : frame(hit)) << ",\"cigar\":\""
          << cpu::cigar(p.operations) << "\"}\n";
    }
  return;
}

void OutputFormat::QueryReport::sam(std::ostream& out) const {
  if (!nucleotide) throw std::invalid_argument("SAM output (outfmt 17) is for nucleotide searches");
  const std::string qname = sam_qname(query.id);
  for (const Hit& hit : result.hits) {
    // SAM describes the query as read on the reference's forward strand: a minus-strand hit is the
    // query's reverse complement, which is what the searched strand already is.
    std::string codes = query.codes;
    if (hit.strand == Strand::minus) {
      codes.assign(query.codes.rbegin(), query.codes.rend());
      for (auto& c : codes) c = static_cast<char>(alphabet.complement(static_cast<std::uint8_t>(c)));
    }
    std::string cigar;
    if (hit.query_begin > 0) cigar += std::to_string(hit.query_begin) + "S";
    cigar += cpu::cigar(hit.operations);
    if (hit.query_end < query_length) cigar += std::to_string(query_length - hit.query_end) + "S";
    const std::uint32_t edit_distance = hit.mismatches + hit.gaps;
    const std::size_t length = hit.operations.size();
    out << qname << '\t' << (hit.strand == Strand::minus ? 16 : 0) << '\t' << sam_rname(database.id(hit.subject))
        << '\t' << hit.subject_begin + 1 << "\t255\t" << cigar << "\t*\t0\t0\t" << alphabet.decode_string(codes)
        << "\t*\tAS:i:" << hit.score << "\tNM:i:" << edit_distance;
    if (!std::isnan(hit.evalue)) out << "\tEV:f:" << number(hit.evalue) << "\tBS:f:" << number(hit.bitscore);
    out << "\tPI:f:" << printf_string("%.2f", length ? 100.0 * hit.identities / static_cast<double>(length) : 0.0)
        << "\n";
  }
  return;
}

}  // namespace warpsearch

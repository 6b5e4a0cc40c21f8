#include "output/output.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "core/genetic_code.hpp"
#include "kernels/cpu/alignment.hpp"
#include "statistics/statistics.hpp"
#include "output/taxonomy.hpp"

namespace warpsearch {
namespace {

// The version of BLAST+ whose formats these are; the reports name it beside warpsearch's.
constexpr const char* kBlastVersion = "2.12.0+";

enum Column {
  kQseqid, kQgi, kQacc, kQaccver, kQlen, kSseqid, kSallseqid, kSgi, kSallgi, kSacc, kSaccver, kSallacc, kSlen,
  kQstart, kQend, kSstart, kSend, kQseq, kSseq, kEvalue, kBitscore, kScore, kLength, kPident, kNident,
  kMismatch, kPositive, kGapopen, kGaps, kPpos, kFrames, kQframe, kSframe, kBtop, kStaxid, kSsciname, kScomname,
  kSblastname, kSskingdom, kStaxids, kSscinames, kScomnames, kSblastnames, kSskingdoms, kStitle, kSalltitles,
  kSstrand, kQcovs, kQcovhsp, kQcovus, kCigar, kColumnCount
};
struct ColumnName {
  const char* name;
  const char* description;  // outfmt 7's "# Fields:" name, as BLAST writes it
};
constexpr ColumnName kColumns[kColumnCount] = {
    {"qseqid", "query id"}, {"qgi", "query gi"}, {"qacc", "query acc."}, {"qaccver", "query acc.ver"},
    {"qlen", "query length"}, {"sseqid", "subject id"}, {"sallseqid", "subject ids"}, {"sgi", "subject gi"},
    {"sallgi", "subject gis"}, {"sacc", "subject acc."}, {"saccver", "subject acc.ver"},
    {"sallacc", "subject accs."}, {"slen", "subject length"}, {"qstart", "q. start"}, {"qend", "q. end"},
    {"sstart", "s. start"}, {"send", "s. end"}, {"qseq", "query seq"}, {"sseq", "subject seq"},
    {"evalue", "evalue"}, {"bitscore", "bit score"}, {"score", "score"}, {"length", "alignment length"},
    {"pident", "% identity"}, {"nident", "identical"}, {"mismatch", "mismatches"}, {"positive", "positives"},
    {"gapopen", "gap opens"}, {"gaps", "gaps"}, {"ppos", "% positives"}, {"frames", "query/sbjct frames"},
    {"qframe", "query frame"}, {"sframe", "sbjct frame"}, {"btop", "BTOP"}, {"staxid", "subject tax id"},
    {"ssciname", "subject sci name"}, {"scomname", "subject com names"}, {"sblastname", "subject blast name"},
    {"sskingdom", "subject super kingdom"}, {"staxids", "subject tax ids"}, {"sscinames", "subject sci names"},
    {"scomnames", "subject com names"}, {"sblastnames", "subject blast names"},
    {"sskingdoms", "subject super kingdoms"}, {"stitle", "subject title"}, {"salltitles", "subject titles"},
    {"sstrand", "subject strand"}, {"qcovs", "% query coverage per subject"},
    {"qcovhsp", "% query coverage per hsp"}, {"qcovus", "% query coverage per uniq subject"},
    {"cigar", "cigar"}};
// BLAST 2.12's "std": qaccver saccver pident length mismatch gapopen qstart qend sstart send evalue bitscore.
constexpr Column kStandardColumns[] = {kQaccver, kSaccver, kPident, kLength, kMismatch, kGapopen,
                                       kQstart,  kQend,    kSstart, kSend,   kEvalue,   kBitscore};

std::string printf_string(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

std::string number(double value) { return printf_string("%g", value); }

std::string upper_case(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

// E-values in XML and JSON: BLAST writes those below 1e-180 as 0, as its tabular "0.0".
std::string evalue_number(double evalue) { return evalue < 1.0e-180 ? "0" : number(evalue); }

// ---------------------------------------------------------------------------------------------------------
// Identifiers

bool all_of(std::string_view s, int (*predicate)(int)) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [&](char c) { return predicate(static_cast<unsigned char>(c)) != 0; });
}

// "NP_000001.1" -> "NP_000001"; a version is a dot and digits at the end.
std::string_view without_version(std::string_view accession) {
  const auto dot = accession.rfind('.');
  if (dot == std::string_view::npos || dot + 1 == accession.size() || !all_of(accession.substr(dot + 1), isdigit))
    return accession;
  return accession.substr(0, dot);
}

bool is_refseq_accession(std::string_view id, SequenceType type) {
  const std::string_view bare = without_version(id);
  if (bare.size() < 4 || bare[2] != '_' || !all_of(bare.substr(3), isalnum)) return false;
  static const char* const protein[] = {"AP", "NP", "XP", "YP", "WP"};
  static const char* const nucleotide[] = {"AC", "NC", "NG", "NM", "NR", "NT", "NW", "NZ", "XM", "XR"};
  const std::string_view prefix = bare.substr(0, 2);
  if (type == SequenceType::protein)
    return std::any_of(std::begin(protein), std::end(protein), [&](const char* p) { return prefix == p; });
  return std::any_of(std::begin(nucleotide), std::end(nucleotide), [&](const char* p) { return prefix == p; });
}

// UniProt's accession pattern: [OPQ][0-9][A-Z0-9]{3}[0-9] or [A-NR-Z][0-9]([A-Z][A-Z0-9]{2}[0-9]){1,2}.
bool is_uniprot_accession(std::string_view id) {
  const std::string_view a = without_version(id);
  auto upper = [](char c) { return c >= 'A' && c <= 'Z'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  auto alnum = [&](char c) { return upper(c) || digit(c); };
  if (a.size() == 6 && (a[0] == 'O' || a[0] == 'P' || a[0] == 'Q'))
    return digit(a[1]) && alnum(a[2]) && alnum(a[3]) && alnum(a[4]) && digit(a[5]);
  if ((a.size() != 6 && a.size() != 10) || !upper(a[0]) || (a[0] >= 'O' && a[0] <= 'Q') || !digit(a[1])) return false;
  for (std::size_t i = 2; i < a.size(); i += 4)
    if (!upper(a[i]) || !alnum(a[i + 1]) || !alnum(a[i + 2]) || !digit(a[i + 3])) return false;
  return true;
}

std::vector<std::string_view> split_bars(std::string_view id) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const auto bar = id.find('|', start);
    parts.push_back(id.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start));
    if (bar == std::string_view::npos) return parts;
    start = bar + 1;
  }
}

bool is_accession_tag(std::string_view tag) {
  static const char* const tags[] = {"sp", "tr", "ref", "gb", "emb", "dbj", "pir", "prf", "tpg",
                                     "tpe", "tpd", "gpp", "nat", "pat", "bbs", "bbm", "gim"};
  return std::any_of(std::begin(tags), std::end(tags), [&](const char* t) { return tag == t; });
}

// ---------------------------------------------------------------------------------------------------------
// Escaping

// Appends the valid UTF-8 sequence at text[i] (advancing i), or U+FFFD for an invalid byte.
void append_utf8(std::string_view text, std::size_t& i, std::string& out) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  std::size_t length = 0;
  std::uint32_t code = 0;
  if (c < 0x80) { out += static_cast<char>(c); ++i; return; }
  if (c >= 0xC2 && c <= 0xDF) { length = 2; code = c & 0x1Fu; }
  else if (c >= 0xE0 && c <= 0xEF) { length = 3; code = c & 0x0Fu; }
  else if (c >= 0xF0 && c <= 0xF4) { length = 4; code = c & 0x07u; }
  bool valid = length > 0 && i + length <= text.size();
  for (std::size_t k = 1; valid && k < length; ++k) {
    valid = (byte(i + k) & 0xC0) == 0x80;
    code = (code << 6) | (byte(i + k) & 0x3Fu);
  }
  // Overlong forms, surrogates and code points beyond U+10FFFF are invalid too.
  if (valid) valid = !(length == 3 && code < 0x800) && !(length == 4 && (code < 0x10000 || code > 0x10FFFF)) &&
                     !(code >= 0xD800 && code <= 0xDFFF);
  if (!valid) {
    out += "\xEF\xBF\xBD";
    ++i;
    return;
  }
  out.append(text.substr(i, length));
  i += length;
}

}  // namespace

std::string tabular_field(std::string_view text) {
  std::string out(text);
  for (auto& c : out)
    if (c == '\t' || c == '\r' || c == '\n') c = ' ';
  return out;
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      append_utf8(text, i, out);
      continue;
    }
    ++i;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7F) {
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

std::string xml_text(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      append_utf8(text, i, out);
      continue;
    }
    ++i;
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\t': out += "&#x9;"; break;
      case '\n': out += "&#xA;"; break;
      case '\r': out += "&#xD;"; break;
      default:
        // XML 1.0 has no way to write the other control characters, not even as references.
        if (c < 0x20) out += "\xEF\xBF\xBD";
        else out += static_cast<char>(c);
    }
  }
  return out;
}

std::string sam_qname(std::string_view text) {
  std::string out(text.substr(0, 254));
  for (auto& c : out)
    if (c < '!' || c > '~' || c == '@') c = '_';
  return out.empty() ? std::string("_") : out;
}

std::string sam_rname(std::string_view text) {
  auto allowed = [](char c, bool first) {
    if (std::isalnum(static_cast<unsigned char>(c))) return true;
    if (c == '*' || c == '=') return !first;
    return std::string_view("!#$%&+./:;?@^_|~-").find(c) != std::string_view::npos;
  };
  std::string out(text);
  for (std::size_t i = 0; i < out.size(); ++i)
    if (!allowed(out[i], i == 0)) out[i] = '_';
  return out.empty() ? std::string("_") : out;
}

namespace {

SequenceId parse_sequence_id_parts(std::string_view fasta_id, SequenceType type) {
  SequenceId id;
  id.seqid = std::string(fasta_id);
  auto set_accession = [&](std::string_view accession_version) {
    id.accession_version = std::string(accession_version);
    id.accession = std::string(without_version(accession_version));
  };
  const auto parts = split_bars(fasta_id);
  if (parts.size() == 1) {
    if (is_refseq_accession(fasta_id, type)) id.seqid = "ref|" + id.seqid + "|";
    else if (type == SequenceType::protein && is_uniprot_accession(fasta_id)) id.seqid = "sp|" + id.seqid + "|";
    else {
      id.accession = id.accession_version = id.seqid;
      return id;
    }
    set_accession(fasta_id);
    return id;
  }
  std::size_t at = 0;
  if (parts[0] == "gi" && parts.size() >= 2 && all_of(parts[1], isdigit)) {
    id.gi = std::stoull(std::string(parts[1]));
    at = 2;
    if (parts.size() == 2 || (parts.size() == 3 && parts[2].empty())) {
      id.accession = id.accession_version = std::string(parts[1]);
      return id;
    }
  }
  const std::string_view tag = parts[at];
  std::size_t tag_offset = 0;  // where the tag starts in fasta_id
  for (std::size_t i = 0; i < at; ++i) tag_offset += parts[i].size() + 1;
  const std::string_view after_tag = fasta_id.substr(std::min(fasta_id.size(), tag_offset + tag.size() + 1));
  const std::string_view first = at + 1 < parts.size() ? parts[at + 1] : std::string_view();
  const std::string_view second = at + 2 < parts.size() ? parts[at + 2] : std::string_view();
  if (tag == "lcl" && !after_tag.empty()) {
    id.seqid = std::string(after_tag);
    id.accession = id.accession_version = id.seqid;
  } else if (is_accession_tag(tag) && !first.empty()) {
    set_accession(first);
  } else if (tag == "pdb" && !first.empty()) {
    id.accession = id.accession_version = std::string(first) + (second.empty() ? "" : "_" + std::string(second));
  } else if (tag == "gnl" && !first.empty()) {
    id.report_accession = std::string(after_tag.substr(std::min(after_tag.size(), first.size() + 1)));
    id.accession = id.accession_version = std::string(first) + ":" + id.report_accession;
  } else if (at == 0) {
    // An unknown database tag: BLAST reads "abc|def" as a general ID of database abc.
    id.seqid = "gnl|" + id.seqid;
    id.report_accession = std::string(after_tag);
    id.accession = id.accession_version = std::string(tag) + ":" + id.report_accession;
  } else {
    id.accession = id.accession_version = std::string(fasta_id);
  }
  return id;
}

}  // namespace

SequenceId parse_sequence_id(std::string_view fasta_id, SequenceType type) {
  SequenceId id = parse_sequence_id_parts(fasta_id, type);
  if (id.report_accession.empty()) id.report_accession = id.accession;
  return id;
}

namespace {

// A taxonomy column of a subject with this taxid: N/A without names or for a taxid they lack, as BLAST
// without (or with an older) taxdb. One taxid per subject: the plural columns (BLAST's unique values of
// merged records, ';'-separated) hold the one value.
std::string taxonomy_name(const Taxonomy* taxonomy, std::uint32_t taxid, int column) {
  if (taxonomy == nullptr || !taxonomy->knows(taxid)) return "N/A";
  std::string name;
  switch (column) {
    case kSsciname: case kSscinames: name = taxonomy->scientific_name(taxid); break;
    case kScomname: case kScomnames: name = taxonomy->common_name(taxid); break;
    case kSblastname: case kSblastnames: name = taxonomy->blast_name(taxid); break;
    default: name = taxonomy->super_kingdom(taxid); break;
  }
  return name.empty() ? "N/A" : name;
}

// ---------------------------------------------------------------------------------------------------------
// One hit as the reports show it

// A hit's alignment as the user sees it: query coordinates on the query's plus strand (1-based,
// inclusive); a minus-strand hit shows the subject reversed (sstart > send), as BLAST does.
struct Presented {
  std::uint64_t qstart, qend, sstart, send;
  std::string operations, qseq, sseq, midline;
  std::uint32_t positives = 0;
};

Presented present(const Query& query, const Hit& hit, const Alphabet& alphabet, const ScoringScheme& scoring) {
  Presented p;
  const std::uint64_t m = query.codes.size();
  if (hit.query_frame != 0 || hit.subject_frame != 0) {
    // Translated: amino acids aligned (scored with the protein matrix); coordinates on the nucleotide
    // sequences, as BLAST prints them (start > end on minus frames).
    const Alphabet& protein = Alphabet::protein();
    std::size_t qi = 0, si = 0;
    for (char op : hit.operations) {
      const bool query_residue = op != 'D', subject_residue = op != 'I';
      const auto q = query_residue ? static_cast<std::uint8_t>(hit.query_frame != 0 ? hit.query_aligned_codes[qi]
                                                                                    : query.codes[hit.query_begin + qi])
                                   : std::uint8_t{0};
      const auto s = subject_residue ? static_cast<std::uint8_t>(hit.subject_aligned_codes[si]) : std::uint8_t{0};
      p.qseq += query_residue ? protein.decode(q) : '-';
      p.sseq += subject_residue ? protein.decode(s) : '-';
      char mid = ' ';
      if (op == 'M') {
        if (q == s) mid = protein.decode(q);
        else if (scoring.score(q, s) > 0) mid = '+';
        if (scoring.score(q, s) > 0) ++p.positives;
      }
      p.midline += mid;
      qi += query_residue ? 1 : 0;
      si += subject_residue ? 1 : 0;
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
  const bool nucleotide = alphabet.type() == SequenceType::nucleotide;
  // Aligned strings on the searched strand.
  std::string searched_query = query.codes;
  if (hit.strand == Strand::minus) {
    searched_query.assign(query.codes.rbegin(), query.codes.rend());
    for (auto& c : searched_query) c = static_cast<char>(alphabet.complement(static_cast<std::uint8_t>(c)));
  }
  std::size_t qi = hit.query_begin, si = 0;
  for (char op : hit.operations) {
    const bool query_residue = op != 'D', subject_residue = op != 'I';
    const auto q = query_residue ? static_cast<std::uint8_t>(searched_query[qi++]) : std::uint8_t{0};
    const auto s = subject_residue ? static_cast<std::uint8_t>(hit.subject_aligned_codes[si++]) : std::uint8_t{0};
    p.qseq += query_residue ? alphabet.decode(q) : '-';
    p.sseq += subject_residue ? alphabet.decode(s) : '-';
    char mid = ' ';
    if (op == 'M') {
      if (q == s) mid = nucleotide ? '|' : alphabet.decode(q);
      else if (!nucleotide && scoring.score(q, s) > 0) mid = '+';
      if (nucleotide ? q == s : scoring.score(q, s) > 0) ++p.positives;
    }
    p.midline += mid;
  }
  p.operations = hit.operations;
  if (hit.strand != Strand::minus) {
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
  std::reverse(p.midline.begin(), p.midline.end());
  p.operations.assign(hit.operations.rbegin(), hit.operations.rend());
  p.qstart = m - hit.query_end + 1;
  p.qend = m - hit.query_begin;
  p.sstart = hit.subject_end;
  p.send = hit.subject_begin + 1;
  return p;
}

// The coordinates BLAST's XML and JSON reports give a translated hit: on a minus frame from < to (the
// frame says the strand), where the tabular and pairwise reports run from > to. blastn's minus-strand
// subjects keep from > to in every report.
Presented structured(Presented p, const Hit& hit) {
  if (hit.query_frame < 0) std::swap(p.qstart, p.qend);
  if (hit.subject_frame < 0) std::swap(p.sstart, p.send);
  return p;
}

// BLAST trace-back operations: runs of identical columns as numbers, every other column as its
// query letter and subject letter ('-' for a gap).
std::string btop(const Presented& p) {
  std::string out;
  std::size_t run = 0;
  for (std::size_t i = 0; i < p.qseq.size(); ++i) {
    if (p.qseq[i] == p.sseq[i] && p.qseq[i] != '-') {
      ++run;
      continue;
    }
    if (run) out += std::to_string(run);
    run = 0;
    out += p.qseq[i];
    out += p.sseq[i];
  }
  if (run) out += std::to_string(run);
  return out;
}

long percent_rounded(double part, double whole) {
  return whole > 0 ? std::lround(100.0 * part / whole) : 0;
}

// A percentage as BLAST rounds coverages and the pairwise report's identities: to the nearest percent,
// but 100 only for the whole.
long coverage_percent(std::uint64_t covered, std::uint64_t query_length) {
  const long percent = percent_rounded(static_cast<double>(covered), static_cast<double>(query_length));
  return percent == 100 && covered < query_length ? 99 : percent;
}

// Hits grouped by subject, subjects in the order of their first hit (BLAST's Hit / Hsp nesting).
std::vector<std::vector<const Hit*>> group_by_subject(const std::vector<Hit>& hits) {
  std::vector<std::vector<const Hit*>> groups;
  std::map<std::uint64_t, std::size_t> index;
  for (const Hit& hit : hits) {
    const auto [at, inserted] = index.emplace(hit.subject, groups.size());
    if (inserted) groups.emplace_back();
    groups[at->second].push_back(&hit);
  }
  return groups;
}

// Query coverage of one subject's hits together (qcovs): residues of the query inside any of them.
long query_coverage(const std::vector<const Hit*>& group, std::uint64_t query_length) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
  for (const Hit* hit : group) {
    if (hit->strand == Strand::minus) spans.emplace_back(query_length - hit->query_end, query_length - hit->query_begin);
    else spans.emplace_back(hit->query_begin, hit->query_end);
  }
  std::sort(spans.begin(), spans.end());
  std::uint64_t covered = 0, reached = 0;
  for (const auto& [begin, end] : spans) {
    const std::uint64_t from = std::max(begin, reached);
    if (end > from) covered += end - from;
    reached = std::max(reached, end);
  }
  return coverage_percent(covered, query_length);
}

// BLAST's number formats in the pairwise report (GetScoreString).
std::string pairwise_evalue(double evalue) {
  if (std::isnan(evalue)) return "NA";
  if (evalue < 1.0e-180) return "0.0";
  if (evalue < 1.0e-99) return printf_string("%2.0le", evalue);
  if (evalue < 0.0009) return printf_string("%3.0le", evalue);
  if (evalue < 0.1) return printf_string("%4.3lf", evalue);
  if (evalue < 1.0) return printf_string("%3.2lf", evalue);
  if (evalue < 10.0) return printf_string("%2.1lf", evalue);
  return printf_string("%2.0lf", evalue);
}

std::string pairwise_bitscore(double bitscore) {
  if (std::isnan(bitscore)) return "NA";
  if (bitscore > 9999) return printf_string("%4.3le", bitscore);
  if (bitscore > 99.9) return std::to_string(static_cast<long>(bitscore));
  return printf_string("%4.1lf", bitscore);
}

// Words of text on lines of at most width characters (a longer word stands alone on its line).
std::string wrapped(const std::string& text, std::size_t width) {
  std::string out, line;
  std::istringstream words(text);
  for (std::string word; words >> word;) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line + "\n";
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------

struct OutputFormat::State {
  OutputContext context;
  std::optional<ScoringScheme> default_scoring;
  std::optional<EvalueCalculator> statistics;
  std::size_t queries_written = 0;
  bool begun = false;

  const ScoringScheme& scoring(SequenceType type) {
    if (context.scoring != nullptr) return *context.scoring;
    if (!default_scoring)
      default_scoring.emplace(type == SequenceType::protein ? SubstitutionMatrix::builtin("BLOSUM62")
                                                            : SubstitutionMatrix::nucleotide(2, -3),
                              GapOpen{type == SequenceType::protein ? 11 : 5},
                              GapExtend{type == SequenceType::protein ? 1 : 2});
    return *default_scoring;
  }
  std::string program(const Database& database) const {
    if (!context.program.empty()) return context.program;
    return database.info().type == SequenceType::protein ? "blastp" : "blastn";
  }
};

OutputFormat::OutputFormat() : state_(std::make_unique<State>()) {}
OutputFormat::OutputFormat(OutputFormat&&) noexcept = default;
OutputFormat& OutputFormat::operator=(OutputFormat&&) noexcept = default;
OutputFormat::~OutputFormat() = default;

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
  std::vector<std::string> names;
  for (const auto& column : kColumns) names.emplace_back(column.name);
  return names;
}

OutputFormat OutputFormat::parse(const std::string& spec) {
  OutputFormat format;
  std::istringstream words(spec);
  std::string kind;
  words >> kind;
  const bool has_columns = kind == "6" || kind == "7" || kind == "10";
  if (kind == "json" || kind == "jsonl") format.kind_ = Kind::json_lines;
  else if (kind == "0") format.kind_ = Kind::pairwise;
  else if (kind == "5") format.kind_ = Kind::xml;
  else if (kind == "6") format.kind_ = Kind::tabular;
  else if (kind == "7") format.kind_ = Kind::commented_tabular;
  else if (kind == "10") format.kind_ = Kind::csv;
  else if (kind == "15") format.kind_ = Kind::blast_json;
  else if (kind == "17" || kind == "sam") format.kind_ = Kind::sam;
  else
    throw std::invalid_argument("unknown output format '" + spec +
                                "' (known: 0, 5, 6, 7, 10, 15, 17 or sam, json; 6, 7 and 10 take columns, e.g. "
                                "\"6 std qcovs\")");
  std::string name;
  if (!has_columns && words >> name)
    throw std::invalid_argument("output format " + kind + " takes no columns (only 6, 7 and 10 do), not '" + name + "'");
  // A column named twice appears once, where it is first named, as in BLAST.
  auto add = [&](int column) {
    if (std::find(format.columns_.begin(), format.columns_.end(), column) == format.columns_.end())
      format.columns_.push_back(column);
  };
  for (; words >> name;) {
    if (name == "std") {
      for (const Column column : kStandardColumns) add(column);
      continue;
    }
    int found = -1;
    for (int c = 0; c < kColumnCount; ++c)
      if (name == kColumns[c].name) found = c;
    if (found < 0) {
      std::string known = "std";
      for (const auto& column : kColumns) known += std::string(" ") + column.name;
      throw std::invalid_argument("unknown output column '" + name + "' (known: " + known + ")");
    }
    add(found);
  }
  if (format.columns_.empty()) format.columns_.assign(std::begin(kStandardColumns), std::end(kStandardColumns));
  return format;
}

namespace {

void write_pairwise_header(std::ostream& out, const std::string& program, const Database& database,
                           const std::string& database_name) {
  out << upper_case(program) << " " << kBlastVersion << " (warpsearch " WARPSEARCH_VERSION ", exact Smith-Waterman)\n\n\n";
  out << "Reference: Stephen F. Altschul, Thomas L. Madden, Alejandro A.\n"
         "Schaffer, Jinghui Zhang, Zheng Zhang, Webb Miller, and David J.\n"
         "Lipman (1997), \"Gapped BLAST and PSI-BLAST: a new generation of\n"
         "protein database search programs\", Nucleic Acids Res. 25:3389-3402.\n\n\n\n";
  // BLAST groups the digits of these counts by thousands.
  auto grouped = [](unsigned long long n) {
    std::string digits = std::to_string(n), text;
    for (std::size_t i = 0; i < digits.size(); ++i) {
      if (i > 0 && (digits.size() - i) % 3 == 0) text += ',';
      text += digits[i];
    }
    return text;
  };
  out << "Database: " << database_name << "\n           " << grouped(database.info().subjects) << " sequences; "
      << grouped(database.info().residues) << " total letters\n\n\n\n";
}

}  // namespace

void OutputFormat::begin(std::ostream& out, const Database& database, const OutputContext& context) const {
  State& s = *state_;
  s.context = context;
  s.queries_written = 0;
  s.begun = true;
  if (s.context.database_name.empty()) s.context.database_name = database.path();
  const ScoringScheme& scoring = s.scoring(database.info().type);
  s.statistics.reset();
  const std::string program = s.program(database);
  // A translated database counts a third of its bases, as BLAST_CalcEffLengths divides it.
  const bool filtered = s.context.searched_subjects > 0;
  const std::uint64_t searched = filtered ? s.context.searched_residues : database.info().residues;
  const std::uint64_t residues = program == "tblastn" || program == "tblastx" ? searched / 3 : searched;
  if (EvalueCalculator::supported(scoring) && residues > 0)
    s.statistics.emplace(scoring, residues, filtered ? s.context.searched_subjects : database.info().subjects);
  switch (kind_) {
    case Kind::pairwise:
      write_pairwise_header(out, program, database, s.context.database_name);
      break;
    case Kind::xml:
      out << "<?xml version=\"1.0\"?>\n"
             "<!DOCTYPE BlastOutput PUBLIC \"-//NCBI//NCBI BlastOutput/EN\" "
             "\"http://www.ncbi.nlm.nih.gov/dtd/NCBI_BlastOutput.dtd\">\n<BlastOutput>\n";
      // The query fields of the report's head are the first query's: written with it (write()).
      break;
    case Kind::blast_json:
      out << "{\n\"BlastOutput2\": [\n";
      break;
    case Kind::sam: {
      out << "@HD\tVN:1.6\tSO:unsorted\n";
      const std::uint64_t subjects = database.info().subjects;
      std::vector<std::uint32_t> lengths(subjects);
      for (std::size_t c = 0; c < database.num_chunks(); ++c) {
        const Chunk chunk = database.chunk(c);
        for (std::size_t i = 0; i < chunk.size(); ++i) lengths[chunk.original_indices()[i]] = chunk.lengths()[i];
      }
      for (std::uint64_t i = 0; i < subjects; ++i)
        out << "@SQ\tSN:" << sam_rname(database.id(i)) << "\tLN:" << lengths[i] << "\n";
      out << "@PG\tID:warpsearch\tPN:warpsearch\tVN:" WARPSEARCH_VERSION;
      if (!s.context.command_line.empty()) out << "\tCL:" << tabular_field(s.context.command_line);
      out << "\n";
      break;
    }
    default:
      break;
  }
}

void OutputFormat::end(std::ostream& out) const {
  const State& s = *state_;
  switch (kind_) {
    case Kind::commented_tabular:
      out << "# BLAST processed " << s.queries_written << " queries\n";
      break;
    case Kind::xml:
      if (s.queries_written > 0) out << "</BlastOutput_iterations>\n";
      out << "</BlastOutput>\n";
      break;
    case Kind::blast_json:
      out << "]\n}\n";
      break;
    case Kind::pairwise: {
      if (!s.begun) break;
      const ScoringScheme* scoring = s.context.scoring;
      out << "\n  Database: " << s.context.database_name << "\n";
      if (scoring != nullptr) {
        if (scoring->matrix().type() == SequenceType::protein) out << "\n\n\nMatrix: " << scoring->matrix().name() << "\n";
        else out << "\n\n\nMatrix: blastn matrix " << scoring->matrix().name() << "\n";
        out << "Gap Penalties: Existence: " << scoring->gap_open() << ", Extension: " << scoring->gap_extend() << "\n";
      }
      break;
    }
    default:
      break;
  }
}

void OutputFormat::write(std::ostream& out, const Query& query, const QueryResult& result,
                         const Database& database) const {
  State& s = *state_;
  const Alphabet& alphabet = database.alphabet();
  const SequenceType type = alphabet.type();
  const bool nucleotide = type == SequenceType::nucleotide;
  const ScoringScheme& scoring = s.scoring(type);
  const std::string program = s.program(database);
  const std::uint64_t query_length = query.codes.size();
  const std::string query_title = query.description.empty() ? query.id : query.id + " " + query.description;
  const std::size_t query_number = ++s.queries_written;
  const auto groups = group_by_subject(result.hits);
  const std::string blast_query_id = "Query_" + std::to_string(query_number);

  auto subject_title = [&](std::uint64_t subject) { return std::string(database.description(subject)); };
  // The reports' statistics count a translated query in amino acids (a third of its bases), as BLAST's.
  const auto stats_query_length =
      static_cast<std::uint32_t>(program == "blastx" || program == "tblastx" ? query_length / 3 : query_length);
  auto stats_length_adjustment = [&]() -> std::uint64_t {
    return s.statistics ? s.statistics->length_adjustment(stats_query_length) : 0;
  };
  auto stats_search_space = [&]() -> double {
    return s.statistics ? s.statistics->search_space(stats_query_length) : 0.0;
  };
  auto frame = [&](const Hit& hit) { return hit.strand == Strand::minus ? -1 : 1; };
  auto translated = [](const Hit& hit) { return hit.query_frame != 0 || hit.subject_frame != 0; };
  // The translated programs score amino acids whatever the database holds: their parameters are a matrix.
  const bool nucleotide_scoring = scoring.matrix().type() == SequenceType::nucleotide;

  switch (kind_) {
    case Kind::tabular:
    case Kind::commented_tabular:
    case Kind::csv: {
      const bool csv = kind_ == Kind::csv;
      if (kind_ == Kind::commented_tabular) {
        out << "# " << upper_case(program) << " " << kBlastVersion << " (warpsearch " WARPSEARCH_VERSION ")\n"
            << "# Query: " << tabular_field(query_title) << "\n"
            << "# Database: " << tabular_field(s.context.database_name.empty() ? database.path() : s.context.database_name)
            << "\n";
        if (!result.hits.empty()) {
          out << "# Fields: ";
          for (std::size_t i = 0; i < columns_.size(); ++i) out << (i ? ", " : "") << kColumns[columns_[i]].description;
          out << "\n";
        }
        out << "# " << result.hits.size() << " hits found\n";
      }
      for (const auto& group : groups) {
        const SequenceId sid = parse_sequence_id(database.id(group.front()->subject), type);
        const long qcovs = query_coverage(group, query_length);
        for (const Hit* hit_pointer : group) {
          const Hit& hit = *hit_pointer;
          const Presented p = present(query, hit, alphabet, scoring);
          const std::size_t length = hit.operations.size();
          auto value = [&](int column) -> std::string {
            switch (column) {
              case kQseqid: case kQacc: case kQaccver: return query.id;
              case kQgi: return "0";
              case kQlen: return std::to_string(query_length);
              case kSseqid: case kSallseqid: return sid.seqid;
              case kSgi: case kSallgi: return std::to_string(sid.gi);
              case kSacc: case kSallacc: return sid.accession;
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
              case kPpos:
                return printf_string("%.2f", length ? 100.0 * p.positives / static_cast<double>(length) : 0.0);
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
              case kSsciname: case kScomname: case kSblastname: case kSskingdom: case kSscinames:
              case kScomnames: case kSblastnames: case kSskingdoms:
                return taxonomy_name(s.context.taxonomy, database.taxid(hit.subject), column);
              case kStitle: case kSalltitles: return subject_title(hit.subject);
              case kSstrand:
                return nucleotide && !translated(hit) ? (hit.strand == Strand::minus ? "minus" : "plus") : "N/A";
              case kQcovs: return std::to_string(qcovs);
              case kQcovhsp:
                // A translated query's span counts amino acids against its length in bases, as blastx does.
                if (hit.query_frame != 0) return std::to_string(coverage_percent(hit.query_end - hit.query_begin, query_length));
                return std::to_string(coverage_percent(p.qend >= p.qstart ? p.qend - p.qstart + 1 : p.qstart - p.qend + 1,
                                                       query_length));
              case kQcovus: return nucleotide ? std::to_string(qcovs) : "N/A";
              case kCigar: return cpu::cigar(p.operations);
              default: return "";
            }
          };
          for (std::size_t i = 0; i < columns_.size(); ++i) {
            const std::string field = value(columns_[i]);
            out << (i ? (csv ? "," : "\t") : "") << (csv ? csv_field(field) : tabular_field(field));
          }
          out << '\n';
        }
      }
      return;
    }

    case Kind::json_lines: {
      for (const auto& group : groups)
        for (const Hit* hit_pointer : group) {
          const Hit& hit = *hit_pointer;
          const Presented p = present(query, hit, alphabet, scoring);
          const std::size_t length = hit.operations.size();
          const SequenceId sid = parse_sequence_id(database.id(hit.subject), type);
          out << "{\"qseqid\":" << json_string(query.id) << ",\"sseqid\":" << json_string(database.id(hit.subject))
              << ",\"sacc\":" << json_string(sid.accession_version)
              << ",\"stitle\":" << json_string(subject_title(hit.subject))
              << ",\"score\":" << hit.score
              << ",\"bitscore\":" << (std::isnan(hit.bitscore) ? "null" : printf_string("%.4g", hit.bitscore))
              << ",\"evalue\":" << (std::isnan(hit.evalue) ? "null" : printf_string("%.4g", hit.evalue))
              << ",\"pident\":" << printf_string("%.3f", length ? 100.0 * hit.identities / static_cast<double>(length) : 0.0)
              << ",\"length\":" << length << ",\"mismatch\":" << hit.mismatches
              << ",\"positive\":" << p.positives << ",\"gapopen\":" << hit.gap_opens << ",\"gaps\":" << hit.gaps
              << ",\"qstart\":" << p.qstart << ",\"qend\":" << p.qend << ",\"sstart\":" << p.sstart
              << ",\"send\":" << p.send << ",\"qlen\":" << query_length << ",\"slen\":" << hit.subject_length
              << ",\"strand\":\"" << (hit.strand == Strand::minus ? "minus" : "plus") << "\""
              << ",\"qframe\":" << (translated(hit) ? hit.query_frame : 1)
              << ",\"sframe\":" << (translated(hit) ? hit.subject_frame : frame(hit))
              << ",\"cigar\":\"" << cpu::cigar(p.operations) << "\"}\n";
        }
      return;
    }

    case Kind::sam: {
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

    case Kind::xml: {
      if (query_number == 1) {
        out << "  <BlastOutput_program>" << program << "</BlastOutput_program>\n"
            << "  <BlastOutput_version>" << upper_case(program) << " " << kBlastVersion
            << " (warpsearch " WARPSEARCH_VERSION ")</BlastOutput_version>\n"
            << "  <BlastOutput_reference>Stephen F. Altschul, Thomas L. Madden, Alejandro A. Sch&amp;auml;ffer, "
               "Jinghui Zhang, Zheng Zhang, Webb Miller, and David J. Lipman (1997), &quot;Gapped BLAST and "
               "PSI-BLAST: a new generation of protein database search programs&quot;, Nucleic Acids Res. "
               "25:3389-3402.</BlastOutput_reference>\n"
            << "  <BlastOutput_db>" << xml_text(s.context.database_name) << "</BlastOutput_db>\n"
            << "  <BlastOutput_query-ID>" << blast_query_id << "</BlastOutput_query-ID>\n"
            << "  <BlastOutput_query-def>" << xml_text(query_title) << "</BlastOutput_query-def>\n"
            << "  <BlastOutput_query-len>" << query_length << "</BlastOutput_query-len>\n"
            << "  <BlastOutput_param>\n    <Parameters>\n";
        if (!nucleotide_scoring)
          out << "      <Parameters_matrix>" << xml_text(scoring.matrix().name()) << "</Parameters_matrix>\n";
        out << "      <Parameters_expect>" << number(s.context.max_evalue) << "</Parameters_expect>\n";
        if (nucleotide_scoring) {
          const int match = scoring.score(alphabet.encode('A'), alphabet.encode('A'));
          const int mismatch = scoring.score(alphabet.encode('A'), alphabet.encode('C'));
          out << "      <Parameters_sc-match>" << match << "</Parameters_sc-match>\n"
              << "      <Parameters_sc-mismatch>" << mismatch << "</Parameters_sc-mismatch>\n";
        }
        out << "      <Parameters_gap-open>" << scoring.gap_open() << "</Parameters_gap-open>\n"
            << "      <Parameters_gap-extend>" << scoring.gap_extend() << "</Parameters_gap-extend>\n"
            << "      <Parameters_filter>F</Parameters_filter>\n    </Parameters>\n  </BlastOutput_param>\n"
            << "<BlastOutput_iterations>\n";
      }
      out << "<Iteration>\n  <Iteration_iter-num>" << query_number << "</Iteration_iter-num>\n"
          << "  <Iteration_query-ID>" << blast_query_id << "</Iteration_query-ID>\n"
          << "  <Iteration_query-def>" << xml_text(query_title) << "</Iteration_query-def>\n"
          << "  <Iteration_query-len>" << query_length << "</Iteration_query-len>\n<Iteration_hits>\n";
      std::size_t hit_number = 0;
      for (const auto& group : groups) {
        const Hit& first = *group.front();
        const SequenceId sid = parse_sequence_id(database.id(first.subject), type);
        // BLAST's XML says so where a subject has no description (its JSON leaves the title empty).
        std::string xml_title = subject_title(first.subject);
        if (xml_title.empty()) xml_title = "No definition line";
        out << "<Hit>\n  <Hit_num>" << ++hit_number << "</Hit_num>\n"
            << "  <Hit_id>" << xml_text(sid.seqid) << "</Hit_id>\n"
            << "  <Hit_def>" << xml_text(xml_title) << "</Hit_def>\n"
            << "  <Hit_accession>" << xml_text(sid.report_accession) << "</Hit_accession>\n"
            << "  <Hit_len>" << first.subject_length << "</Hit_len>\n  <Hit_hsps>\n";
        std::size_t hsp_number = 0;
        for (const Hit* hit_pointer : group) {
          const Hit& hit = *hit_pointer;
          const Presented p = structured(present(query, hit, alphabet, scoring), hit);
          out << "    <Hsp>\n      <Hsp_num>" << ++hsp_number << "</Hsp_num>\n"
              << "      <Hsp_bit-score>" << number(hit.bitscore) << "</Hsp_bit-score>\n"
              << "      <Hsp_score>" << hit.score << "</Hsp_score>\n"
              << "      <Hsp_evalue>" << evalue_number(hit.evalue) << "</Hsp_evalue>\n"
              << "      <Hsp_query-from>" << p.qstart << "</Hsp_query-from>\n"
              << "      <Hsp_query-to>" << p.qend << "</Hsp_query-to>\n"
              << "      <Hsp_hit-from>" << p.sstart << "</Hsp_hit-from>\n"
              << "      <Hsp_hit-to>" << p.send << "</Hsp_hit-to>\n"
              << "      <Hsp_query-frame>" << (translated(hit) ? hit.query_frame : nucleotide ? 1 : 0) << "</Hsp_query-frame>\n"
              << "      <Hsp_hit-frame>" << (translated(hit) ? hit.subject_frame : nucleotide ? frame(hit) : 0)
              << "</Hsp_hit-frame>\n"
              << "      <Hsp_identity>" << hit.identities << "</Hsp_identity>\n"
              << "      <Hsp_positive>" << p.positives << "</Hsp_positive>\n"
              << "      <Hsp_gaps>" << hit.gaps << "</Hsp_gaps>\n"
              << "      <Hsp_align-len>" << hit.operations.size() << "</Hsp_align-len>\n"
              << "      <Hsp_qseq>" << p.qseq << "</Hsp_qseq>\n"
              << "      <Hsp_hseq>" << p.sseq << "</Hsp_hseq>\n"
              << "      <Hsp_midline>" << p.midline << "</Hsp_midline>\n    </Hsp>\n";
        }
        out << "  </Hit_hsps>\n</Hit>\n";
      }
      out << "</Iteration_hits>\n  <Iteration_stat>\n    <Statistics>\n"
          << "      <Statistics_db-num>" << database.info().subjects << "</Statistics_db-num>\n"
          << "      <Statistics_db-len>" << database.info().residues << "</Statistics_db-len>\n"
          << "      <Statistics_hsp-len>" << stats_length_adjustment() << "</Statistics_hsp-len>\n"
          << "      <Statistics_eff-space>" << std::llround(stats_search_space()) << "</Statistics_eff-space>\n"
          << "      <Statistics_kappa>" << (s.statistics ? number(s.statistics->parameters().K) : "0")
          << "</Statistics_kappa>\n"
          << "      <Statistics_lambda>" << (s.statistics ? number(s.statistics->parameters().lambda) : "0")
          << "</Statistics_lambda>\n"
          << "      <Statistics_entropy>" << (s.statistics ? number(s.statistics->parameters().H) : "0")
          << "</Statistics_entropy>\n    </Statistics>\n  </Iteration_stat>\n";
      if (groups.empty()) out << "  <Iteration_message>No hits found</Iteration_message>\n";
      out << "</Iteration>\n";
      return;
    }

    case Kind::blast_json: {
      auto json_number = [](double value) { return std::isnan(value) ? std::string("null") : number(value); };
      if (query_number > 1) out << ",\n";
      out << "{\n    \"report\": {\n"
          << "      \"program\": \"" << program << "\",\n"
          << "      \"version\": " << json_string(upper_case(program) + " " + kBlastVersion + " (warpsearch " WARPSEARCH_VERSION ")")
          << ",\n"
          << "      \"reference\": \"Stephen F. Altschul, Thomas L. Madden, Alejandro A. Sch&auml;ffer, Jinghui "
             "Zhang, Zheng Zhang, Webb Miller, and David J. Lipman (1997), \\\"Gapped BLAST and PSI-BLAST: a new "
             "generation of protein database search programs\\\", Nucleic Acids Res. 25:3389-3402.\",\n"
          << "      \"search_target\": {\n        \"db\": " << json_string(s.context.database_name) << "\n      },\n"
          << "      \"params\": {\n";
      if (nucleotide_scoring) {
        out << "        \"expect\": " << number(s.context.max_evalue) << ",\n"
            << "        \"sc_match\": " << scoring.score(alphabet.encode('A'), alphabet.encode('A')) << ",\n"
            << "        \"sc_mismatch\": " << scoring.score(alphabet.encode('A'), alphabet.encode('C')) << ",\n";
      } else {
        out << "        \"matrix\": " << json_string(scoring.matrix().name()) << ",\n"
            << "        \"expect\": " << number(s.context.max_evalue) << ",\n";
      }
      out << "        \"gap_open\": " << scoring.gap_open() << ",\n"
          << "        \"gap_extend\": " << scoring.gap_extend() << ",\n"
          << "        \"filter\": \"F\"";
      // The genetic codes of the translated sides, as BLAST names them.
      if (program == "blastx" || program == "tblastx")
        out << ",\n        \"query_gencode\": " << s.context.query_genetic_code;
      if (program == "tblastn" || program == "tblastx")
        out << ",\n        \"db_gencode\": " << s.context.database_genetic_code;
      out << "\n      },\n"
          << "      \"results\": {\n        \"search\": {\n"
          << "          \"query_id\": \"" << blast_query_id << "\",\n"
          << "          \"query_title\": " << json_string(query_title) << ",\n"
          << "          \"query_len\": " << query_length << ",\n"
          << "          \"hits\": [\n";
      std::size_t hit_number = 0;
      for (const auto& group : groups) {
        const Hit& first = *group.front();
        const SequenceId sid = parse_sequence_id(database.id(first.subject), type);
        if (hit_number > 0) out << ",\n";
        out << "            {\n              \"num\": " << ++hit_number << ",\n"
            << "              \"description\": [\n                {\n"
            << "                  \"id\": " << json_string(sid.seqid) << ",\n"
            << "                  \"accession\": " << json_string(sid.report_accession) << ",\n"
            << "                  \"title\": " << json_string(subject_title(first.subject));
        // BLAST names the subject's taxid when it has one, and its scientific name where its taxdb does.
        if (const std::uint32_t taxid = database.taxid(first.subject); taxid != 0) {
          out << ",\n                  \"taxid\": " << taxid;
          if (s.context.taxonomy != nullptr && s.context.taxonomy->knows(taxid))
            out << ",\n                  \"sciname\": " << json_string(s.context.taxonomy->scientific_name(taxid));
        }
        out << "\n"
            << "                }\n              ],\n"
            << "              \"len\": " << first.subject_length << ",\n"
            << "              \"hsps\": [\n";
        std::size_t hsp_number = 0;
        for (const Hit* hit_pointer : group) {
          const Hit& hit = *hit_pointer;
          const Presented p = structured(present(query, hit, alphabet, scoring), hit);
          if (hsp_number > 0) out << ",\n";
          out << "                {\n"
              << "                  \"num\": " << ++hsp_number << ",\n"
              << "                  \"bit_score\": " << json_number(hit.bitscore) << ",\n"
              << "                  \"score\": " << hit.score << ",\n"
              << "                  \"evalue\": " << (std::isnan(hit.evalue) ? "null" : evalue_number(hit.evalue)) << ",\n"
              << "                  \"identity\": " << hit.identities << ",\n";
          // Translated hits have frames (BLAST names only the translated side's) where blastn has strands.
          if (!nucleotide || translated(hit)) out << "                  \"positive\": " << p.positives << ",\n";
          out << "                  \"query_from\": " << p.qstart << ",\n"
              << "                  \"query_to\": " << p.qend << ",\n";
          if (hit.query_frame != 0) out << "                  \"query_frame\": " << hit.query_frame << ",\n";
          if (nucleotide && !translated(hit))
            out << "                  \"query_strand\": \"Plus\",\n"
                << "                  \"hit_strand\": \"" << (hit.strand == Strand::minus ? "Minus" : "Plus") << "\",\n";
          out << "                  \"hit_from\": " << p.sstart << ",\n"
              << "                  \"hit_to\": " << p.send << ",\n";
          if (hit.subject_frame != 0) out << "                  \"hit_frame\": " << hit.subject_frame << ",\n";
          out
              << "                  \"align_len\": " << hit.operations.size() << ",\n"
              << "                  \"gaps\": " << hit.gaps << ",\n"
              << "                  \"qseq\": \"" << p.qseq << "\",\n"
              << "                  \"hseq\": \"" << p.sseq << "\",\n"
              << "                  \"midline\": \"" << p.midline << "\"\n"
              << "                }";
        }
        out << "\n              ]\n            }";
      }
      out << (groups.empty() ? "" : "\n") << "          ],\n"
          << "          \"stat\": {\n"
          << "            \"db_num\": " << database.info().subjects << ",\n"
          << "            \"db_len\": " << database.info().residues << ",\n"
          << "            \"hsp_len\": " << stats_length_adjustment() << ",\n"
          << "            \"eff_space\": " << std::llround(stats_search_space()) << ",\n"
          << "            \"kappa\": " << (s.statistics ? number(s.statistics->parameters().K) : "0") << ",\n"
          << "            \"lambda\": " << (s.statistics ? number(s.statistics->parameters().lambda) : "0") << ",\n"
          << "            \"entropy\": " << (s.statistics ? number(s.statistics->parameters().H) : "0") << "\n"
          << "          }" << (groups.empty() ? ",\n          \"message\": \"No hits found\"\n" : "\n")
          << "        }\n      }\n    }\n  }\n";
      return;
    }

    case Kind::pairwise: {
      // BLAST's report names a protein subject without a description "unnamed protein product".
      const auto pairwise_title = [&](std::uint64_t subject) {
        std::string title = subject_title(subject);
        return title.empty() && !nucleotide ? std::string("unnamed protein product") : title;
      };
      out << wrapped("Query= " + query_title, 79) << "\nLength=" << query_length << "\n";
      if (groups.empty()) {
        out << "\n\n***** No hits found *****\n\n\n\n";
      } else {
        out << "                                                                      Score     E\n"
               "Sequences producing significant alignments:                          (Bits)  Value\n\n";
        for (const auto& group : groups) {
          const Hit& first = *group.front();
          const SequenceId sid = parse_sequence_id(database.id(first.subject), type);
          std::string text = tabular_field(sid.accession_version + " " + pairwise_title(first.subject));
          if (text.size() > 68) text = text.substr(0, 65) + "...";
          char line[256];
          std::snprintf(line, sizeof line, "%-68s  %-8s%-5s", text.c_str(), pairwise_bitscore(first.bitscore).c_str(),
                        pairwise_evalue(first.evalue).c_str());
          out << line << "\n";
        }
        out << "\n\n";
        for (const auto& group : groups) {
          const Hit& first = *group.front();
          const SequenceId sid = parse_sequence_id(database.id(first.subject), type);
          out << wrapped(">" + tabular_field(sid.accession_version + " " + pairwise_title(first.subject)), 79)
              << "Length=" << first.subject_length << "\n\n";
          for (const Hit* hit_pointer : group) {
            const Hit& hit = *hit_pointer;
            const Presented p = present(query, hit, alphabet, scoring);
            const std::size_t length = hit.operations.size();
            auto percent = [&](std::uint32_t part) { return coverage_percent(part, length); };
            out << " Score = " << pairwise_bitscore(hit.bitscore) << " bits (" << hit.score << "),  Expect = "
                << pairwise_evalue(hit.evalue) << "\n"
                << " Identities = " << hit.identities << "/" << length << " (" << percent(hit.identities) << "%)";
            if (!nucleotide || translated(hit))
              out << ", Positives = " << p.positives << "/" << length << " (" << percent(p.positives) << "%)";
            out << ", Gaps = " << hit.gaps << "/" << length << " (" << percent(hit.gaps) << "%)\n";
            // Translated hits name their frames (blastx the query's, tblastn the subject's, tblastx both).
            const auto signed_frame = [](int f) { return (f > 0 ? "+" : "") + std::to_string(f); };
            if (translated(hit))
              out << " Frame = "
                  << (hit.query_frame != 0 && hit.subject_frame != 0
                          ? signed_frame(hit.query_frame) + "/" + signed_frame(hit.subject_frame)
                          : signed_frame(hit.query_frame != 0 ? hit.query_frame : hit.subject_frame))
                  << "\n";
            else if (nucleotide)
              out << " Strand=Plus/" << (hit.strand == Strand::minus ? "Minus" : "Plus") << "\n";
            out << "\n";
            // Blocks of 60 columns: coordinates of the first and last residue shown on each line.
            const int width = static_cast<int>(std::max(std::to_string(std::max(p.qstart, p.qend)).size(),
                                                        std::to_string(std::max(p.sstart, p.send)).size()));
            // A line's coordinates run over its residues: one position each, or three bases each for a
            // translated sequence (downwards on a minus strand or frame).
            std::int64_t q = static_cast<std::int64_t>(p.qstart), sbj = static_cast<std::int64_t>(p.sstart);
            const std::int64_t qstep = p.qstart <= p.qend ? 1 : -1, sstep = p.sstart <= p.send ? 1 : -1;
            const std::int64_t qwidth = hit.query_frame != 0 ? 3 : 1, swidth = hit.subject_frame != 0 ? 3 : 1;
            for (std::size_t at = 0; at < length; at += 60) {
              const std::size_t n = std::min<std::size_t>(60, length - at);
              const std::string qpart = p.qseq.substr(at, n), spart = p.sseq.substr(at, n);
              const auto qresidues = static_cast<std::int64_t>(n - static_cast<std::size_t>(std::count(qpart.begin(), qpart.end(), '-')));
              const auto sresidues = static_cast<std::int64_t>(n - static_cast<std::size_t>(std::count(spart.begin(), spart.end(), '-')));
              const std::int64_t qlast = qresidues ? q + qstep * (qwidth * qresidues - 1) : q - qstep;
              const std::int64_t slast = sresidues ? sbj + sstep * (swidth * sresidues - 1) : sbj - sstep;
              char prefix[64];
              std::snprintf(prefix, sizeof prefix, "Query  %-*llu  ", width, static_cast<unsigned long long>(q));
              out << prefix << qpart << "  " << qlast << "\n"
                  << std::string(7 + static_cast<std::size_t>(width) + 2, ' ') << p.midline.substr(at, n) << "\n";
              std::snprintf(prefix, sizeof prefix, "Sbjct  %-*llu  ", width, static_cast<unsigned long long>(sbj));
              out << prefix << spart << "  " << slast << "\n\n";
              q = qlast + qstep;
              sbj = slast + sstep;
            }
            out << "\n";
          }
        }
      }
      if (s.statistics) {
        const auto& k = s.statistics->parameters();
        char line[160];
        std::snprintf(line, sizeof line, "\nGapped\nLambda      K        H\n   %5.3f   %6.4f    %5.3f \n\n", k.lambda, k.K, k.H);
        out << line << "Effective search space used: " << std::llround(stats_search_space()) << "\n\n\n";
      }
      return;
    }
  }
}

}  // namespace warpsearch

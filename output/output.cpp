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
#include "output/report.hpp"
#include "output/taxonomy.hpp"
#include "statistics/statistics.hpp"

namespace warpsearch {

using namespace report;  // NOLINT: the writers' shared parts (output/report.hpp)

namespace report {

const ColumnName kColumns[kColumnCount] = {{"qseqid", "query id"},
                                           {"qgi", "query gi"},
                                           {"qacc", "query acc."},
                                           {"qaccver", "query acc.ver"},
                                           {"qlen", "query length"},
                                           {"sseqid", "subject id"},
                                           {"sallseqid", "subject ids"},
                                           {"sgi", "subject gi"},
                                           {"sallgi", "subject gis"},
                                           {"sacc", "subject acc."},
                                           {"saccver", "subject acc.ver"},
                                           {"sallacc", "subject accs."},
                                           {"slen", "subject length"},
                                           {"qstart", "q. start"},
                                           {"qend", "q. end"},
                                           {"sstart", "s. start"},
                                           {"send", "s. end"},
                                           {"qseq", "query seq"},
                                           {"sseq", "subject seq"},
                                           {"evalue", "evalue"},
                                           {"bitscore", "bit score"},
                                           {"score", "score"},
                                           {"length", "alignment length"},
                                           {"pident", "% identity"},
                                           {"nident", "identical"},
                                           {"mismatch", "mismatches"},
                                           {"positive", "positives"},
                                           {"gapopen", "gap opens"},
                                           {"gaps", "gaps"},
                                           {"ppos", "% positives"},
                                           {"frames", "query/sbjct frames"},
                                           {"qframe", "query frame"},
                                           {"sframe", "sbjct frame"},
                                           {"btop", "BTOP"},
                                           {"staxid", "subject tax id"},
                                           {"ssciname", "subject sci name"},
                                           {"scomname", "subject com names"},
                                           {"sblastname", "subject blast name"},
                                           {"sskingdom", "subject super kingdom"},
                                           {"staxids", "subject tax ids"},
                                           {"sscinames", "subject sci names"},
                                           {"scomnames", "subject com names"},
                                           {"sblastnames", "subject blast names"},
                                           {"sskingdoms", "subject super kingdoms"},
                                           {"stitle", "subject title"},
                                           {"salltitles", "subject titles"},
                                           {"sstrand", "subject strand"},
                                           {"qcovs", "% query coverage per subject"},
                                           {"qcovhsp", "% query coverage per hsp"},
                                           {"qcovus", "% query coverage per uniq subject"},
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

// A taxonomy column of a subject with this taxid: N/A without names or for a taxid they lack, as BLAST
// without (or with an older) taxdb. One taxid per subject: the plural columns (BLAST's unique values of
// merged records, ';'-separated) hold the one value.
std::string taxonomy_name(const Taxonomy* taxonomy, std::uint32_t taxid, int column) {
  if (taxonomy == nullptr || !taxonomy->knows(taxid)) return "N/A";
  std::string name;
  switch (column) {
    case kSsciname:
    case kSscinames: name = taxonomy->scientific_name(taxid); break;
    case kScomname:
    case kScomnames: name = taxonomy->common_name(taxid); break;
    case kSblastname:
    case kSblastnames: name = taxonomy->blast_name(taxid); break;
    default: name = taxonomy->super_kingdom(taxid); break;
  }
  return name.empty() ? "N/A" : name;
}

// ---------------------------------------------------------------------------------------------------------
// One hit as the reports show it

Presented present(const Query& query, const Hit& hit, const Alphabet& alphabet, const ScoringScheme& scoring,
                  bool alignment) {
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
        if (q == s)
          mid = protein.decode(q);
        else if (scoring.score(q, s) > 0)
          mid = '+';
        if (scoring.score(q, s) > 0) ++p.positives;
      }
      p.midline += mid;
      qi += query_residue ? 1 : 0;
      si += subject_residue ? 1 : 0;
    }
    p.operations = hit.operations;
    const NucleotideSpan q = hit.query_frame != 0 ? nucleotide_span(hit.query_frame, hit.query_begin, hit.query_end, m)
                                                  : NucleotideSpan{hit.query_begin + 1u, hit.query_end};
    const NucleotideSpan s = hit.subject_frame != 0 ? nucleotide_span(hit.subject_frame, hit.subject_begin,
                                                                      hit.subject_end, hit.subject_length)
                                                    : NucleotideSpan{hit.subject_begin + 1u, hit.subject_end};
    p.qstart = q.start;
    p.qend = q.end;
    p.sstart = s.start;
    p.send = s.end;
    return p;
  }
  const bool nucleotide = alphabet.type() == SequenceType::nucleotide;
  const bool minus = hit.strand == Strand::minus;
  // The searched strand's query residue i: on the minus strand the reverse complement.
  const auto query_code = [&](std::size_t i) {
    return minus ? alphabet.complement(static_cast<std::uint8_t>(query.codes[m - 1 - i]))
                 : static_cast<std::uint8_t>(query.codes[i]);
  };
  if (alignment) {
    p.qseq.reserve(hit.operations.size());
    p.sseq.reserve(hit.operations.size());
    p.midline.reserve(hit.operations.size());
  }
  std::size_t qi = hit.query_begin, si = 0;
  for (char op : alignment ? std::string_view(hit.operations) : std::string_view()) {
    const bool query_residue = op != 'D', subject_residue = op != 'I';
    const std::uint8_t q = query_residue ? query_code(qi++) : std::uint8_t{0};
    const auto s = subject_residue ? static_cast<std::uint8_t>(hit.subject_aligned_codes[si++]) : std::uint8_t{0};
    const bool positive = op == 'M' && (nucleotide ? q == s : scoring.score(q, s) > 0);
    if (positive) ++p.positives;
    p.qseq += query_residue ? alphabet.decode(q) : '-';
    p.sseq += subject_residue ? alphabet.decode(s) : '-';
    char mid = ' ';
    if (op == 'M' && q == s)
      mid = nucleotide ? '|' : alphabet.decode(q);
    else if (positive && !nucleotide)
      mid = '+';
    p.midline += mid;
  }
  if (!minus) {
    p.operations = hit.operations;
    p.qstart = hit.query_begin + 1;
    p.qend = hit.query_end;
    p.sstart = hit.subject_begin + 1;
    p.send = hit.subject_end;
    return p;
  }
  // A minus-strand hit is shown on the query's plus strand: everything reversed and complemented.
  const auto flip = [&](std::string& aligned) {
    std::reverse(aligned.begin(), aligned.end());
    for (auto& c : aligned)
      if (c != '-') c = alphabet.decode(alphabet.complement(alphabet.encode(static_cast<unsigned char>(c))));
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

long percent_rounded(double part, double whole) { return whole > 0 ? std::lround(100.0 * part / whole) : 0; }

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
    if (hit->strand == Strand::minus)
      spans.emplace_back(query_length - hit->query_end, query_length - hit->query_begin);
    else
      spans.emplace_back(hit->query_begin, hit->query_end);
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

}  // namespace report

// ---------------------------------------------------------------------------------------------------------

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
  if (kind == "json" || kind == "jsonl")
    format.kind_ = Kind::json_lines;
  else if (kind == "0")
    format.kind_ = Kind::pairwise;
  else if (kind == "5")
    format.kind_ = Kind::xml;
  else if (kind == "6")
    format.kind_ = Kind::tabular;
  else if (kind == "7")
    format.kind_ = Kind::commented_tabular;
  else if (kind == "10")
    format.kind_ = Kind::csv;
  else if (kind == "15")
    format.kind_ = Kind::blast_json;
  else if (kind == "17" || kind == "sam")
    format.kind_ = Kind::sam;
  else
    throw std::invalid_argument("unknown output format '" + spec +
                                "' (known: 0, 5, 6, 7, 10, 15, 17 or sam, json; 6, 7 and 10 take columns, e.g. "
                                "\"6 std qcovs\")");
  std::string name;
  if (!has_columns && words >> name)
    throw std::invalid_argument("output format " + kind + " takes no columns (only 6, 7 and 10 do), not '" + name +
                                "'");
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
  out << upper_case(program) << " " << kBlastVersion
      << " (warpsearch " WARPSEARCH_VERSION ", exact Smith-Waterman)\n\n\n";
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
    case Kind::pairwise: write_pairwise_header(out, program, database, s.context.database_name); break;
    case Kind::xml:
      out << "<?xml version=\"1.0\"?>\n"
             "<!DOCTYPE BlastOutput PUBLIC \"-//NCBI//NCBI BlastOutput/EN\" "
             "\"http://www.ncbi.nlm.nih.gov/dtd/NCBI_BlastOutput.dtd\">\n<BlastOutput>\n";
      // The query fields of the report's head are the first query's: written with it (write()).
      break;
    case Kind::blast_json: out << "{\n\"BlastOutput2\": [\n"; break;
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
    default: break;
  }
}

void OutputFormat::end(std::ostream& out) const {
  const State& s = *state_;
  switch (kind_) {
    case Kind::commented_tabular: out << "# BLAST processed " << s.queries_written << " queries\n"; break;
    case Kind::xml:
      if (s.queries_written > 0) out << "</BlastOutput_iterations>\n";
      out << "</BlastOutput>\n";
      break;
    case Kind::blast_json: out << "]\n}\n"; break;
    case Kind::pairwise: {
      if (!s.begun) break;
      const ScoringScheme* scoring = s.context.scoring;
      out << "\n  Database: " << s.context.database_name << "\n";
      if (scoring != nullptr) {
        if (scoring->matrix().type() == SequenceType::protein)
          out << "\n\n\nMatrix: " << scoring->matrix().name() << "\n";
        else
          out << "\n\n\nMatrix: blastn matrix " << scoring->matrix().name() << "\n";
        out << "Gap Penalties: Existence: " << scoring->gap_open() << ", Extension: " << scoring->gap_extend() << "\n";
      }
      break;
    }
    default: break;
  }
}

void OutputFormat::write(std::ostream& out, const Query& query, const QueryResult& result,
                         const Database& database) const {
  write_report(out, query, result, database, state_->queries_written + 1);
}

void OutputFormat::write_report(std::ostream& out, const Query& query, const QueryResult& result,
                                const Database& database, std::size_t query_number) const {
  ++state_->queries_written;
  const QueryReport report(*this, query, result, database, query_number);
  switch (kind_) {
    case Kind::tabular:
    case Kind::commented_tabular:
    case Kind::csv: report.tabular(out); return;
    case Kind::json_lines: report.json_lines(out); return;
    case Kind::sam: report.sam(out); return;
    case Kind::xml: report.xml(out); return;
    case Kind::blast_json: report.blast_json(out); return;
    case Kind::pairwise: report.pairwise(out); return;
  }
}

OutputFormat::QueryReport::QueryReport(const OutputFormat& format_in, const Query& query_in,
                                       const QueryResult& result_in, const Database& database_in,
                                       std::size_t query_number_in)
    : format(format_in),
      s(*format_in.state_),
      query(query_in),
      result(result_in),
      database(database_in),
      alphabet(database_in.alphabet()),
      type(alphabet.type()),
      nucleotide(type == SequenceType::nucleotide),
      scoring(s.scoring(type)),
      program(s.program(database_in)),
      query_length(query_in.codes.size()),
      query_title(query_in.description.empty() ? query_in.id : query_in.id + " " + query_in.description),
      query_number(query_number_in),
      groups(group_by_subject(result_in.hits)),
      blast_query_id("Query_" + std::to_string(query_number)),
      // The reports' statistics count a translated query in amino acids (a third of its bases), as BLAST's.
      stats_query_length(
          static_cast<std::uint32_t>(program == "blastx" || program == "tblastx" ? query_length / 3 : query_length)),
      // The translated programs score amino acids whatever the database holds: their parameters are a matrix.
      nucleotide_scoring(scoring.matrix().type() == SequenceType::nucleotide) {}

std::string OutputFormat::QueryReport::subject_title(std::uint64_t subject) const {
  return std::string(database.description(subject));
}
std::uint64_t OutputFormat::QueryReport::stats_length_adjustment() const {
  return s.statistics ? s.statistics->length_adjustment(stats_query_length) : 0;
}
double OutputFormat::QueryReport::stats_search_space() const {
  return s.statistics ? s.statistics->search_space(stats_query_length) : 0.0;
}

}  // namespace warpsearch

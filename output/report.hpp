// The report writers' shared parts, private to output/: the column table, a hit as the reports show it,
// the formatter's state, and one query's report, which the format's writer writes
// (output/report_rows.cpp: tabular, CSV, JSON Lines, SAM; output/report_structured.cpp: BLAST's XML and
// JSON; output/report_pairwise.cpp: the pairwise report).
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "output/output.hpp"
#include "output/taxonomy.hpp"
#include "statistics/statistics.hpp"

namespace warpsearch {
namespace report {

// The version of BLAST+ whose formats these are; the reports name it beside warpsearch's.
inline constexpr const char* kBlastVersion = "2.12.0+";

enum Column {
  kQseqid,
  kQgi,
  kQacc,
  kQaccver,
  kQlen,
  kSseqid,
  kSallseqid,
  kSgi,
  kSallgi,
  kSacc,
  kSaccver,
  kSallacc,
  kSlen,
  kQstart,
  kQend,
  kSstart,
  kSend,
  kQseq,
  kSseq,
  kEvalue,
  kBitscore,
  kScore,
  kLength,
  kPident,
  kNident,
  kMismatch,
  kPositive,
  kGapopen,
  kGaps,
  kPpos,
  kFrames,
  kQframe,
  kSframe,
  kBtop,
  kStaxid,
  kSsciname,
  kScomname,
  kSblastname,
  kSskingdom,
  kStaxids,
  kSscinames,
  kScomnames,
  kSblastnames,
  kSskingdoms,
  kStitle,
  kSalltitles,
  kSstrand,
  kQcovs,
  kQcovhsp,
  kQcovus,
  kCigar,
  kColumnCount
};
struct ColumnName {
  const char* name;
  const char* description;  // outfmt 7's "# Fields:" name, as BLAST writes it
};
extern const ColumnName kColumns[kColumnCount];

std::string printf_string(const char* format, double value);
std::string number(double value);
std::string upper_case(std::string text);
std::string evalue_number(double evalue);
std::string taxonomy_name(const Taxonomy* taxonomy, std::uint32_t taxid, int column);

// A hit's alignment as the user sees it: query coordinates on the query's plus strand (1-based,
// inclusive); a minus-strand hit shows the subject reversed (sstart > send), as BLAST does.
struct Presented {
  std::uint64_t qstart, qend, sstart, send;
  std::string operations, qseq, sseq, midline;
  std::uint32_t positives = 0;
};

// alignment: also what walking the alignment gives, the aligned strings, the midline and the positives
// (qseq, sseq, midline, positives); without it only the coordinates and the operations, for reports
// that show none of those.
Presented present(const Query& query, const Hit& hit, const Alphabet& alphabet, const ScoringScheme& scoring,
                  bool alignment = true);
Presented structured(Presented p, const Hit& hit);
std::string btop(const Presented& p);
long percent_rounded(double part, double whole);
long coverage_percent(std::uint64_t covered, std::uint64_t query_length);
std::vector<std::vector<const Hit*>> group_by_subject(const std::vector<Hit>& hits);
long query_coverage(const std::vector<const Hit*>& group, std::uint64_t query_length);
std::string pairwise_evalue(double evalue);
std::string pairwise_bitscore(double bitscore);
std::string wrapped(const std::string& text, std::size_t width);

}  // namespace report

struct OutputFormat::State {
  OutputContext context;
  std::optional<ScoringScheme> default_scoring;
  std::optional<EvalueCalculator> statistics;
  std::atomic<std::size_t> queries_written{0};  // reports may be formatted side by side (write_report)
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

// One query's results as the reports see them: what every format's writer reads.
struct OutputFormat::QueryReport {
  QueryReport(const OutputFormat& format, const Query& query, const QueryResult& result, const Database& database,
              std::size_t query_number);

  const OutputFormat& format;
  State& s;
  const Query& query;
  const QueryResult& result;
  const Database& database;
  const Alphabet& alphabet;
  SequenceType type;
  bool nucleotide;
  const ScoringScheme& scoring;
  std::string program;
  std::uint64_t query_length;
  std::string query_title;
  std::size_t query_number;
  std::vector<std::vector<const Hit*>> groups;  // the hits by subject, in report order
  std::string blast_query_id;
  std::uint32_t stats_query_length;
  bool nucleotide_scoring;

  std::string subject_title(std::uint64_t subject) const;
  std::uint64_t stats_length_adjustment() const;
  double stats_search_space() const;
  static int frame(const Hit& hit) { return hit.strand == Strand::minus ? -1 : 1; }
  static bool translated(const Hit& hit) { return hit.query_frame != 0 || hit.subject_frame != 0; }

  void tabular(std::ostream& out) const;  // outfmt 6, 7 and 10
  void json_lines(std::ostream& out) const;
  void sam(std::ostream& out) const;
  void xml(std::ostream& out) const;
  void blast_json(std::ostream& out) const;
  void pairwise(std::ostream& out) const;
};

}  // namespace warpsearch

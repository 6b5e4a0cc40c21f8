// Result formats, written as BLAST+ (2.12) writes them, so that tools that read BLAST's output read
// warpsearch's:
//
//   0   pairwise text (BLAST's default report)        10  comma-separated values, "10 COLUMN ..."
//   5   BLAST XML (NCBI_BlastOutput DTD)               15  BLAST JSON (BlastOutput2)
//   6   tabular, "6 COLUMN ..."                        17  SAM (nucleotide searches), also "sam"
//   7   tabular with comment lines, "7 COLUMN ..."     json  JSON Lines, one object per hit (warpsearch's own)
//
// Columns are BLAST's (qseqid, sacc, btop, qcovs, ...; "std" for the twelve default ones) plus
// warpsearch's cigar. Subject identifiers are parsed from the FASTA ID as `makeblastdb -parse_seqids`
// does (parse_sequence_id): sseqid keeps the ID, sacc / saccver are its accession, stitle is the
// description. Query IDs are not parsed (qacc = qaccver = qseqid), as blastp does without
// -parse_deflines. Several hits of one subject (HSPs) are grouped under it, in the order of the
// subject's first hit, as BLAST groups them.
//
// Every format keeps to its grammar whatever the FASTA headers hold: TAB, CR and LF become spaces in
// tabular fields; CSV fields holding a comma, a quote or a line break are quoted (RFC 4180); JSON and
// XML strings are escaped and their invalid UTF-8 bytes and XML's forbidden control bytes become
// U+FFFD; SAM names keep to the SAM specification's QNAME and RNAME patterns (other bytes become '_').
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "db/database.hpp"
#include "search/warpsearch.hpp"

namespace warpsearch {

class Taxonomy;  // output/taxonomy.hpp

// What the reports state beside the hits. All optional: without scoring, positives are counted with
// BLOSUM62 (protein) or as identities (nucleotide), and the reports name no matrix.
struct OutputContext {
  std::string program;                     // "blastp", "blastn"; empty: from the database's sequence type
  std::string database_name;               // as the user named the database; empty: the database's path
  std::string command_line;                // for SAM's @PG line
  const ScoringScheme* scoring = nullptr;  // must outlive the writes
  double max_evalue = 10.0;
  // Names for the columns sscinames, scomnames, sblastnames, sskingdoms (and the singular ones) of the
  // subjects' taxids (Database::taxid); nullptr: N/A, as BLAST without its taxdb. Must outlive the writes.
  const Taxonomy* taxonomy = nullptr;
  // The NCBI genetic codes of translated queries (blastx, tblastx) and subjects (tblastn, tblastx), which
  // the JSON report states.
  int query_genetic_code = 1, database_genetic_code = 1;
  // A search of some subjects only (SearchOptions::subject_filter): their residues and number, which the
  // statistics (length adjustment, search space) use, as BLAST's for a database restricted by taxids; the
  // database lines still describe the whole database, as BLAST's do. 0: the whole database.
  std::uint64_t searched_residues = 0, searched_subjects = 0;
};

// Identifiers of one sequence as BLAST's -parse_seqids reads a FASTA ID:
//   "sp|P12345|NAME_HUMAN"   seqid as given, accession "P12345"
//   "ref|NP_000001.1|"       accession "NP_000001", accession_version "NP_000001.1"
//   "gi|123|ref|NP_1.1|"     gi 123, accession "NP_1"
//   "lcl|name" or "name"     seqid and accession "name"
//   "XP_123456.2", "P12345"  bare RefSeq / UniProt accessions are recognised (ref|...| and sp|...|)
//   "abc|def"                an unknown database tag: gnl|abc|def, accession "abc:def"
struct SequenceId {
  std::string seqid;              // BLAST's sseqid
  std::string accession;          // sacc
  std::string accession_version;  // saccver
  std::uint64_t gi = 0;           // sgi; 0 when the ID holds none
  // What BLAST's XML and JSON reports call the accession (Hit_accession): the accession, but only the
  // tag of a general ID (gnl|db|tag gives "tag").
  std::string report_accession;
};
SequenceId parse_sequence_id(std::string_view fasta_id, SequenceType type);

class OutputFormat {
 public:
  enum class Kind { pairwise, xml, tabular, commented_tabular, csv, blast_json, sam, json_lines };

  // "0", "5", "6", "7", "10", "15", "17" or "sam", "json"; the tabular ones with optional columns
  // ("6 qseqid sacc evalue", "std" among them). Throws std::invalid_argument naming an unknown format
  // or column and listing the known ones.
  static OutputFormat parse(const std::string& spec);

  OutputFormat(OutputFormat&&) noexcept;
  OutputFormat& operator=(OutputFormat&&) noexcept;
  ~OutputFormat();

  Kind kind() const { return kind_; }

  // Writing one output: begin() once (headers: XML prologue, SAM @HD/@SQ, ...), write() per query in
  // query order, end() once (closing tags, the outfmt 7 summary line). The tabular formats and JSON
  // Lines need neither begin() nor end(). The format keeps the state of that one output (queries
  // written so far): one output at a time, from one thread.
  void begin(std::ostream& out, const Database& database, const OutputContext& context) const;
  void write(std::ostream& out, const Query& query, const QueryResult& result, const Database& database) const;
  void end(std::ostream& out) const;

  // What write() writes for the query_number-th query of the output (1-based). A query's report depends
  // on nothing but the query, its result, its number, the database and what begin() set, so reports can
  // be formatted side by side after begin() (output/report_writer.hpp); the caller numbers them. Either
  // counts the query as written.
  void write_report(std::ostream& out, const Query& query, const QueryResult& result, const Database& database,
                    std::size_t query_number) const;

  static std::vector<std::string> known_columns();

 private:
  OutputFormat();
  struct State;
  struct QueryReport;  // one query's report (output/report.hpp)
  Kind kind_ = Kind::tabular;
  std::vector<int> columns_;
  std::unique_ptr<State> state_;
};

// BLAST's number formats for tabular output (E-values such as "2.69e-40", "0.002", "1.1", "14";
// bit scores such as "123", "25.8").
std::string format_evalue(double evalue);
std::string format_bitscore(double bitscore);

// Text made safe for one format's grammar (see the header comment).
std::string tabular_field(std::string_view text);  // TAB, CR, LF -> ' '
std::string csv_field(std::string_view text);      // quoted when it holds , " CR or LF
std::string json_string(std::string_view text);    // with its quotes
std::string xml_text(std::string_view text);
std::string sam_qname(std::string_view text);  // [!-?A-~]{1,254}
std::string sam_rname(std::string_view text);  // [0-9A-Za-z!#$%&+./:;?@^_|~-][0-9A-Za-z!#$%&*+./:;=?@^_|~-]*

}  // namespace warpsearch

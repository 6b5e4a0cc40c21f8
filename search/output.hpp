// Result formats: BLAST tabular (outfmt 6, with BLAST's column names and number formats) and JSON Lines.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "search/warpsearch.hpp"

namespace warpsearch {

class OutputFormat {
 public:
  // "6" (BLAST's twelve default columns), "6 qseqid sseqid score ..." (chosen columns), or "json"
  // (JSON Lines, one object per hit). Throws std::invalid_argument naming an unknown column and
  // listing the known ones.
  static OutputFormat parse(const std::string& spec);

  // Writes the hits of one query.
  void write(std::ostream& out, const Query& query, const QueryResult& result, const Database& database) const;

  static std::vector<std::string> known_columns();

 private:
  bool json_ = false;
  std::vector<int> columns_;
};

// BLAST's number formats for tabular output (E-values such as "2.69e-40", "0.002", "1.1", "14";
// bit scores such as "123", "25.8").
std::string format_evalue(double evalue);
std::string format_bitscore(double bitscore);

}  // namespace warpsearch

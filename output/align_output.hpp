// Output of `warpsearch align`: TSV (default) or SAM (nucleotides only).
//
// TSV: a header line, then one line per pair, tab-separated:
//   query_id target_id score query_start query_end target_start target_end [cigar] [query_aligned target_aligned]
// Coordinates are 1-based and inclusive. A sequence with no residue in the alignment (an empty local
// alignment, or a global alignment of an empty sequence) shows 0 and 0; an empty CIGAR or aligned string
// is '*'. CIGAR: M aligned pair (match or mismatch), I query residue against a gap, D target residue
// against a gap. Aligned strings use '-' for gaps.
//
// SAM (v1.6): @HD, one @SQ per target (in the order given), @PG; one record per pair: QNAME the query's
// ID, FLAG 0 (4 when the alignment has no aligned pair: then RNAME '*', POS 0, CIGAR '*'), RNAME the
// target's ID, POS the 1-based target start, MAPQ 255 (not computed), CIGAR with soft clips (S) for the
// query residues outside the alignment, RNEXT '*', PNEXT 0, TLEN 0, SEQ the whole query, QUAL '*', and
// the tags AS:i (the score) and NM:i (mismatches plus gap columns).
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/alphabet.hpp"
#include "search/align_engine.hpp"

namespace warpsearch {

enum class AlignFormat { tsv, sam };

struct AlignOutputOptions {
  AlignFormat format = AlignFormat::tsv;
  bool cigar = false;    // TSV: add the cigar column
  bool aligned = false;  // TSV: add query_aligned and target_aligned
};

struct SamReference {
  std::string name;
  std::uint64_t length = 0;
};

class AlignWriter {
 public:
  // Throws std::invalid_argument for SAM with protein sequences.
  AlignWriter(std::ostream& out, const Alphabet& alphabet, AlignOutputOptions options);

  // The header: the TSV column names, or SAM's @HD/@SQ/@PG lines (references: the targets, in order;
  // command_line goes into @PG CL).
  void header(const std::vector<SamReference>& references, const std::string& command_line);

  // One pair. Its alignment must carry operations for SAM and for the cigar and aligned columns.
  void write(std::string_view query_id, std::string_view target_id, std::string_view query_codes,
             std::string_view target_codes, const PairAlignment& alignment);

  // One pair's fields, for write_rows.
  struct Row {
    std::string_view query_id, target_id, query_codes, target_codes;
    const PairAlignment* alignment;
  };
  // Pairs row(0), ..., row(count - 1), in that order, as write() writes them; formatted on `threads`
  // threads (row() is called from them).
  void write_rows(std::size_t count, const std::function<Row(std::size_t)>& row, unsigned threads);

  // Whether the format needs operations computed.
  static bool needs_operations(const AlignOutputOptions& options) {
    return options.format == AlignFormat::sam || options.cigar || options.aligned;
  }

 private:
  // Appends the pair's line to `line`.
  void format(const Row& row, std::string& line) const;

  std::ostream& out_;
  const Alphabet& alphabet_;
  AlignOutputOptions options_;
  std::string line_;
};

}  // namespace warpsearch

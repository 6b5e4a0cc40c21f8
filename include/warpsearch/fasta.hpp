// Reading FASTA and FASTQ files into sequences, with the reader `warpsearch` itself uses.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "warpsearch/common.hpp"

namespace warpsearch {
inline namespace v0 {

// Every record of a FASTA or FASTQ file, plain or gzip ("-" reads stdin). The letters come back as the
// engine reads them: upper case, blanks and line breaks gone, a protein's final '*' dropped, and
// nucleotide ambiguity codes as N. type: std::nullopt detects it from the residues. Throws
// std::runtime_error naming the file, line, byte offset and record for a malformed file or an invalid
// letter (with skip_invalid, invalid records are skipped instead). Thread-safe for different files.
std::vector<Sequence> read_fasta(const std::string& path, std::optional<SequenceType> type = std::nullopt,
                                 bool skip_invalid = false);

}  // namespace v0
}  // namespace warpsearch

// Translated searches (blastx, tblastn, tblastx): the frames of the queries and of the database's
// subjects, made when they are searched.
//
// Queries are translated once per query batch: each of a nucleotide query's frames becomes a prepared
// query of its own (as each strand does in blastn). Subjects are translated chunk by chunk during the
// scan: the frames of a nucleotide chunk's subjects become an in-memory chunk of protein subjects
// (Chunk::in_memory) that every scan backend reads as it reads a database chunk; the database keeps
// one nucleotide copy of each subject (makedb is unchanged). A frame of a subject holds (n - o) / 3
// amino acids for n bases at offset o = |frame| - 1: about twice the chunk's residues in all.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/genetic_code.hpp"
#include "db/database.hpp"

namespace warpsearch {

// The six frames of a nucleotide chunk's subjects, as protein subjects: frames without a whole codon
// are left out, the rest sorted by length (ascending, ties in (subject, frame) order) as a database
// chunk is. source[t] and frame[t] tell which subject of the nucleotide chunk (0-based within it) and
// which frame translated subject t is; the chunk's original_indices() are the source subjects'.
// info().first_subject is six times the nucleotide chunk's, so that translated chunks of one database
// never share a first position.
struct TranslatedChunk {
  Chunk chunk;
  std::vector<std::uint64_t> source;
  std::vector<std::int8_t> frame;
};

// threads: CPU threads for the translation (0 = every core).
TranslatedChunk translate_chunk(const Chunk& nucleotide, const GeneticCode& code, unsigned threads);

}  // namespace warpsearch

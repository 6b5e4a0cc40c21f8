// Value types the rest of the public API shares: sequences as letters, their type, and where work runs.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace warpsearch {
inline namespace v0 {

enum class SequenceType : std::uint8_t { protein, nucleotide };

// "protein" or "nucleotide".
const char* sequence_type_name(SequenceType type) noexcept;

// A sequence as letters, the way a FASTA record holds it.
//
// residues: either case. Protein: the 20 amino acids, B J Z X, U (selenocysteine, scored as C),
// O (pyrrolysine, scored as X) and '*' (stop); one '*' at the end is dropped, as the FASTA reader does.
// Nucleotide: A C G T, U (read as T), the IUPAC ambiguity codes (read as N). Blanks are ignored. Any
// other byte is an error naming the sequence, its ID and the position.
// id: one word (no blank, tab or line break), not empty where it is written to a database.
struct Sequence {
  Sequence() = default;
  Sequence(std::string id_, std::string residues_, std::string description_ = {})
      : id(std::move(id_)), residues(std::move(residues_)), description(std::move(description_)) {}

  std::string id;
  std::string residues;
  std::string description;  // the rest of a FASTA header line
};

// The type the engine reads letters as when none is given: nucleotide when at least 90% of a sample of
// the letters (the first 256 KiB) are A, C, G, T, U or N, else protein.
SequenceType guess_sequence_type(const std::vector<Sequence>& sequences);

// Where work runs. automatic: a GPU when the library was built with CUDA and one is usable, else the CPU.
enum class Device : std::uint8_t { automatic, cpu, gpu };

}  // namespace v0
}  // namespace warpsearch

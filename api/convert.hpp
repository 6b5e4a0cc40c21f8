// Conversions between the public API's values and the engine's, shared by the api/ sources.
// Include after api/engine.hpp.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "api/engine.hpp"
#include "warpsearch/common.hpp"
#include "warpsearch/scoring.hpp"

namespace warpsearch {
inline namespace v0 {
namespace detail {

inline engine::SequenceType to_engine(SequenceType type) {
  return type == SequenceType::protein ? engine::SequenceType::protein : engine::SequenceType::nucleotide;
}
inline SequenceType from_engine(engine::SequenceType type) {
  return type == engine::SequenceType::protein ? SequenceType::protein : SequenceType::nucleotide;
}
inline engine::Device to_engine(Device device) {
  switch (device) {
    case Device::cpu: return engine::Device::cpu;
    case Device::gpu: return engine::Device::gpu;
    default: return engine::Device::automatic;
  }
}

// The scheme the command line builds from --matrix, --match, --mismatch, --gapopen, --gapextend
// (tools/common_options.cpp), with its messages; `sequences` is what is aligned ("databases",
// "sequences").
engine::ScoringScheme scoring_scheme(const Scoring& scoring, bool nucleotide, const std::string& sequences);

// The residue codes of a sequence given as letters: blanks are skipped and one '*' ending a protein is
// dropped, as the FASTA reader does. `role` and `index` name the sequence in errors
// ("query 3 ('id'): 'J' at position 7 is not a nucleotide residue"); std::invalid_argument, also for a
// sequence without residues unless allow_empty (pairwise alignment handles empty sequences).
std::string encode(const Sequence& sequence, const engine::Alphabet& alphabet, const char* role, std::size_t index,
                   bool allow_empty = false);

}  // namespace detail
}  // namespace v0
}  // namespace warpsearch

// The input every scoring kernel reads, CPU or GPU: a run of subjects packed as in a database chunk.
//
// Residue codes (core/alphabet.hpp) are packed four to a 32-bit word: residue i of a subject sits in
// byte (i % 4) of word word_offsets[s] + i / 4 (little-endian, CUDA's uchar4 layout). Every subject
// starts on a word boundary; the bytes after its last residue up to the word boundary hold the padding
// code. Subjects are usually sorted by length (ascending), as a database chunk is, which is what lets
// kernels give neighbouring subjects to neighbouring lanes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace warpsearch {

struct SubjectBatch {
  const std::uint32_t* words = nullptr;
  std::uint64_t num_words = 0;
  const std::uint64_t* word_offsets = nullptr;  // per subject
  const std::uint32_t* lengths = nullptr;       // per subject, in residues
  std::size_t count = 0;

  // Residue i of subject s.
  std::uint8_t residue(std::size_t s, std::size_t i) const {
    return static_cast<std::uint8_t>(words[word_offsets[s] + i / 4] >> (8 * (i % 4)));
  }
};

}  // namespace warpsearch

// Subjects packed as a database chunk packs them (core/subject_batch.hpp), for the tests of what reads
// chunks (the scan kernels, the long-subject segments) and for the benchmarks of the scan kernels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/subject_batch.hpp"

namespace warpsearch::test {

// Padded with pad_code, each subject from a word boundary.
struct PackedSubjects {
  std::vector<std::uint32_t> words;
  std::vector<std::uint64_t> offsets;
  std::vector<std::uint32_t> lengths;
  std::uint64_t residues = 0;

  PackedSubjects(const std::vector<std::string>& subjects, std::uint8_t pad_code) {
    for (const std::string& s : subjects) {
      offsets.push_back(words.size());
      lengths.push_back(static_cast<std::uint32_t>(s.size()));
      residues += s.size();
      for (std::size_t i = 0; i < s.size(); i += 4) {
        std::uint32_t word = 0;
        for (std::size_t k = 0; k < 4; ++k)
          word |= std::uint32_t{i + k < s.size() ? static_cast<std::uint8_t>(s[i + k]) : pad_code} << (8 * k);
        words.push_back(word);
      }
    }
  }
  // All of them, or `count` from subject `first` on.
  SubjectBatch batch() const { return batch(0, lengths.size()); }
  SubjectBatch batch(std::size_t first, std::size_t count) const {
    SubjectBatch b;
    b.words = words.data();
    b.num_words = words.size();
    b.word_offsets = offsets.data() + first;
    b.lengths = lengths.data() + first;
    b.count = count;
    return b;
  }
};

}  // namespace warpsearch::test

// Subjects packed as a database chunk packs them (core/subject_batch.hpp), for the tests of what reads
// chunks: the scan kernels, the long-subject segments.
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

  PackedSubjects(const std::vector<std::string>& subjects, std::uint8_t pad_code) {
    for (const auto& s : subjects) {
      offsets.push_back(words.size());
      lengths.push_back(static_cast<std::uint32_t>(s.size()));
      const std::size_t n_words = (s.size() + 3) / 4;
      for (std::size_t w = 0; w < n_words; ++w) {
        std::uint32_t word = 0;
        for (std::size_t k = 0; k < 4; ++k) {
          const std::size_t i = 4 * w + k;
          const std::uint8_t code = i < s.size() ? static_cast<std::uint8_t>(s[i]) : pad_code;
          word |= static_cast<std::uint32_t>(code) << (8 * k);
        }
        words.push_back(word);
      }
    }
  }
  SubjectBatch batch() const {
    SubjectBatch b;
    b.words = words.data();
    b.num_words = words.size();
    b.word_offsets = offsets.data();
    b.lengths = lengths.data();
    b.count = lengths.size();
    return b;
  }
};

}  // namespace warpsearch::test

// What the GPU tests (tests/gpu_test_*.cu) share: whether a GPU is usable, with the one skip message
// where none is, and subjects packed for the scorer. Header-only: only the CUDA builds compile the GPU tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/subject_batch.hpp"
#include "kernels/gpu/gpu_scorer.hpp"
#include "tests/catch.hpp"

namespace warpsearch::test {

// True where CUDA reports a usable device; else warns that `what` is skipped, and the test returns.
inline bool gpu_usable(const char* what) {
  if (gpu::usable_device_count() > 0) return true;
  WARN("no usable GPU: CUDA reports no device (or no driver); " << what << " skipped");
  return false;
}

// Subjects packed as a database chunk packs them (core/subject_batch.hpp), padded with pad_code.
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

// Helpers of the CPU kernel tests: the instruction sets this machine and build run, and subjects packed as
// in a database chunk (core/subject_batch.hpp) for the scan kernels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/subject_batch.hpp"
#include "kernels/cpu/query_scorer.hpp"

namespace warpsearch::test {

inline std::vector<cpu::Isa> runnable_isas() {
  std::vector<cpu::Isa> isas;
  for (cpu::Isa isa : {cpu::Isa::scalar, cpu::Isa::sse41, cpu::Isa::avx2, cpu::Isa::avx512bw})
    if (cpu::isa_supported(isa)) isas.push_back(isa);
  return isas;
}

// Subjects packed as in a database chunk, in the given order.
class PackedBatch {
 public:
  PackedBatch(const std::vector<std::string>& subjects, std::uint8_t pad_code) {
    for (const auto& s : subjects) {
      offsets_.push_back(words_.size());
      lengths_.push_back(static_cast<std::uint32_t>(s.size()));
      for (std::size_t i = 0; i < s.size(); i += 4) {
        std::uint32_t word = 0;
        for (std::size_t b = 0; b < 4; ++b) {
          const std::uint8_t code = i + b < s.size() ? static_cast<std::uint8_t>(s[i + b]) : pad_code;
          word |= std::uint32_t{code} << (8 * b);
        }
        words_.push_back(word);
      }
    }
    batch_.words = words_.data();
    batch_.num_words = words_.size();
    batch_.word_offsets = offsets_.data();
    batch_.lengths = lengths_.data();
    batch_.count = subjects.size();
  }
  const SubjectBatch& batch() const { return batch_; }

 private:
  std::vector<std::uint32_t> words_;
  std::vector<std::uint64_t> offsets_;
  std::vector<std::uint32_t> lengths_;
  SubjectBatch batch_;
};

}  // namespace warpsearch::test

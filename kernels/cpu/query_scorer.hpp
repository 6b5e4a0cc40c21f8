// CPU database scan: exact Smith-Waterman scores of one query against every subject of a batch.
//
// Inter-sequence SIMD (SWIPE's layout): each SIMD lane holds one subject, so one vector instruction
// advances one cell of many subjects; a lane whose subject ends is refilled with the next subject at
// the next block of four columns. Scores are computed first in unsigned 8-bit saturating lanes (a
// bias makes substitution scores non-negative; unsigned saturation gives the zero floor of local
// alignment for free); subjects whose score may have saturated are rescored in 16 bits, and those in
// 32 bits (scalar). A reported score is never wrong: a saturated 32-bit score throws.
//
// One kernel template (kernels/cpu/scan_kernel.hpp) is instantiated per instruction set and width;
// the instruction set is chosen at run time from cpuid, falling back to scalar.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/subject_batch.hpp"
#include "profile/scoring.hpp"

namespace warpsearch::cpu {

enum class Isa { scalar, sse41, avx2, avx512bw };
enum class Width { w8 = 8, w16 = 16, w32 = 32 };

// The widest instruction set this CPU (and its operating system) runs, among those compiled in.
Isa best_isa();
// Whether this CPU runs the instruction set and this build contains its kernels.
bool isa_supported(Isa isa);
const char* isa_name(Isa isa);  // "scalar", "sse4.1", "avx2", "avx512bw"

// How many subjects each width scored (for benchmarks and tests).
struct ScanStats {
  std::size_t scored_8 = 0;
  std::size_t scored_16 = 0;
  std::size_t scored_32 = 0;
};

// Built once per query; score() is const and thread-safe (scratch memory is per call).
class QueryScorer {
 public:
  // query_codes: residue codes below kMaxCodes (std::invalid_argument otherwise). An unsupported isa
  // throws std::invalid_argument naming it.
  QueryScorer(std::string_view query_codes, const ScoringScheme& scoring, Isa isa = best_isa());

  // The exact Smith-Waterman score of the query against every subject of the batch: scores[s] for
  // subject s (scores must hold subjects.count entries). Subject codes must be below kMaxCodes.
  void score(const SubjectBatch& subjects, std::int32_t* scores) const;

  // The same, starting at the given width (Width::w8 is what score() uses on SIMD instruction sets,
  // Width::w32 on scalar); saturated subjects are rescored at the next width.
  ScanStats score(const SubjectBatch& subjects, std::int32_t* scores, Width first) const;

  // One width only, no rescoring: scores[s] is exact where saturated[s] == 0, and saturated[s] == 1
  // exactly when the true score is at least saturation_limit(width). For tests.
  void score_width(const SubjectBatch& subjects, Width width, std::int32_t* scores, std::uint8_t* saturated) const;
  std::int64_t saturation_limit(Width width) const;

  Isa isa() const { return isa_; }
  std::size_t query_length() const { return query_.size(); }

 private:
  void scan(const SubjectBatch& subjects, Width width, const std::uint32_t* order, std::size_t count,
            std::int32_t* scores, std::uint8_t* saturated) const;

  std::string query_;
  std::string biased_rows_;  // 32 x 32 bytes: [query code][subject code] = score - min score
  int letters_ = 0;          // 1 + the largest query code
  int bias_ = 0;             // -(min score)
  int gap_open_extend_ = 0;
  int gap_extend_ = 0;
  Isa isa_;
};

}  // namespace warpsearch::cpu

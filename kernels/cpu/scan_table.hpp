// Private to kernels/cpu: what the dispatcher (query_scorer.cpp) hands to a scan kernel, and the
// per-instruction-set tables of kernels. Each table lives in a source file of its own, compiled with
// that instruction set's flags; nothing else in those files may be called before dispatch.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/subject_batch.hpp"

namespace warpsearch::cpu::detail {

// Subject code the kernels use for "no residue" (past a subject's end, or an idle lane); its biased
// score against every query letter is 0, i.e. the matrix minimum. No alphabet uses it.
inline constexpr std::uint8_t kIdleCode = 31;

struct ScanProfile {
  const std::uint8_t* query = nullptr;  // residue codes, each below letters
  std::size_t query_length = 0;
  // biased_rows[32 * a + c] = score(a, c) - min score, for query code a < letters, subject code c < 32.
  const std::uint8_t* biased_rows = nullptr;
  int letters = 0;
  int bias = 0;             // -(min score) > 0
  int gap_open_extend = 0;  // the cost of a gap of length 1
  int gap_extend = 0;
};

struct ScanRequest {
  const SubjectBatch* batch = nullptr;
  const std::uint32_t* order = nullptr;  // the subjects to score (indices into batch), longest first is best
  std::size_t count = 0;
  std::int32_t* scores = nullptr;     // indexed by subject index
  std::uint8_t* saturated = nullptr;  // indexed by subject index: 1 when the score may be too low
};

// Scores request.order[0..count) and sets their scores and saturated flags.
using ScanFunction = void (*)(const ScanProfile&, const ScanRequest&);

// The largest score an element of the given width holds exactly: a lane whose maximum reaches
// cap - bias is flagged saturated.
inline constexpr std::int64_t kCap8 = 255;
inline constexpr std::int64_t kCap16 = 65535;
inline constexpr std::int64_t kCap32 = 2147483647;

// Index 0: 8-bit, 1: 16-bit, 2: 32-bit; nullptr where the instruction set has no kernel of that width.
struct ScanTable {
  ScanFunction width[3];
};
extern const ScanTable kScanScalar;
#if defined(WARPSEARCH_CPU_X86)
extern const ScanTable kScanSse41;
extern const ScanTable kScanAvx2;
extern const ScanTable kScanAvx512bw;
#endif

}  // namespace warpsearch::cpu::detail

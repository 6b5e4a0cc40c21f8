// libFuzzer target: the NCBI matrix-file parser (SubstitutionMatrix::from_file) and the validation of
// a scoring scheme built from what it accepts.
//
// Any std::exception is an accepted answer to a bad file; a crash, a hang or a sanitizer report is a
// finding. A matrix that loads must be symmetric in the way finish() promises for the padding code.
#include <cstdint>
#include <cstdlib>
#include <exception>

#include "profile/scoring.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warpsearch;
  const std::string path = fuzz::scratch_directory() + "/matrix";
  fuzz::write_bytes(path, data, size);
  try {
    const SubstitutionMatrix matrix = SubstitutionMatrix::from_file(path);
    const std::uint8_t pad = Alphabet::protein().pad_code();
    for (std::uint8_t a = 0; a < kMaxCodes; ++a)
      if (matrix.score(pad, a) != matrix.min_score() || matrix.score(a, pad) != matrix.min_score()) std::abort();
    const ScoringScheme scheme(matrix, GapOpen{11}, GapExtend{1});
    if (scheme.gap_cost(1) != 12) std::abort();
  } catch (const std::exception&) {
    // Rejected input: that is allowed.
  }
  return 0;
}

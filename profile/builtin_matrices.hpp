// The built-in substitution matrices (NCBI's values), indexed by the 25 matrix letters.
#pragma once

#include <cstddef>

namespace warpsearch {

inline constexpr int kMatrixLetters = 25;  // ARNDCQEGHILKMFPSTWYVBJZX*

struct BuiltinMatrix {
  const char* name;
  signed char scores[kMatrixLetters][kMatrixLetters];
};

extern const BuiltinMatrix kBuiltinMatrices[];
extern const std::size_t kBuiltinMatrixCount;

}  // namespace warpsearch

#include "statistics/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace warpsearch {
namespace {

// ---------------------------------------------------------------------------------------------------
// NCBI's published parameters, transcribed from BLAST's src/algo/blast/core/blast_stat.c
// (NCBI C++ Toolkit, public domain; the same tables ship in BLAST+ 2.12.0, which Debian packages).
// The values were estimated by NCBI (Altschul, Bundschuh, Olsen, Hwa, NAR 29:351, 2001; Spouge's
// finite-size columns from Park et al., BMC Res. Notes 5:286, 2012).
// ---------------------------------------------------------------------------------------------------

// One protein row: open, extend, lambda, K, H, alpha, beta, C, alpha_v, sigma.
struct ProteinRow {
  int open, extend;
  double lambda, K, H, alpha, beta, C, alpha_v, sigma;
};
constexpr int kUngapped = -1;  // blast_stat.c writes INT2_MAX for the ungapped row's gap costs

constexpr ProteinRow kBlosum45[] = {
    {kUngapped, kUngapped, 0.2291, 0.0924, 0.2514, 0.9113, -5.7, 0.641318, 9.611060, 9.611060},
    {13, 3, 0.207, 0.049, 0.14, 1.5, -22, 0.671128, 35.855900, 35.963900},
    {12, 3, 0.199, 0.039, 0.11, 1.8, -34, 0.691530, 45.693600, 45.851700},
    {11, 3, 0.190, 0.031, 0.095, 2.0, -38, 0.691181, 62.874100, 63.103700},
    {10, 3, 0.179, 0.023, 0.075, 2.4, -51, 0.710529, 88.286800, 88.639100},
    {16, 2, 0.210, 0.051, 0.14, 1.5, -24, 0.666680, 36.279800, 36.452400},
    {15, 2, 0.203, 0.041, 0.12, 1.7, -31, 0.673871, 44.825700, 45.060400},
    {14, 2, 0.195, 0.032, 0.10, 1.9, -36, 0.685753, 60.736200, 61.102300},
    {13, 2, 0.185, 0.024, 0.084, 2.2, -45, 0.698480, 85.148100, 85.689400},
    {12, 2, 0.171, 0.016, 0.061, 2.8, -65, 0.713429, 127.758000, 128.582000},
    {19, 1, 0.205, 0.040, 0.11, 1.9, -43, 0.672302, 53.071400, 53.828200},
    {18, 1, 0.198, 0.032, 0.10, 2.0, -43, 0.682580, 72.342400, 73.403900},
    {17, 1, 0.189, 0.024, 0.079, 2.4, -57, 0.695035, 103.055000, 104.721000},
    {16, 1, 0.176, 0.016, 0.063, 2.8, -67, 0.712966, 170.100000, 173.003000},
};

constexpr ProteinRow kBlosum50[] = {
    {kUngapped, kUngapped, 0.2318, 0.112, 0.3362, 0.6895, -4.0, 0.609639, 5.388310, 5.388310},
    {13, 3, 0.212, 0.063, 0.19, 1.1, -16, 0.639287, 18.113800, 18.202800},
    {12, 3, 0.206, 0.055, 0.17, 1.2, -18, 0.644715, 22.654600, 22.777700},
    {11, 3, 0.197, 0.042, 0.14, 1.4, -25, 0.656327, 29.861100, 30.045700},
    {10, 3, 0.186, 0.031, 0.11, 1.7, -34, 0.671150, 42.393800, 42.674000},
    {9, 3, 0.172, 0.022, 0.082, 2.1, -48, 0.694326, 66.069600, 66.516400},
    {16, 2, 0.215, 0.066, 0.20, 1.05, -15, 0.633899, 17.951800, 18.092100},
    {15, 2, 0.210, 0.058, 0.17, 1.2, -20, 0.641985, 21.940100, 22.141800},
    {14, 2, 0.202, 0.045, 0.14, 1.4, -27, 0.650682, 28.681200, 28.961900},
    {13, 2, 0.193, 0.035, 0.12, 1.6, -32, 0.660984, 42.059500, 42.471600},
    {12, 2, 0.181, 0.025, 0.095, 1.9, -41, 0.678090, 63.747600, 64.397300},
    {19, 1, 0.212, 0.057, 0.18, 1.2, -21, 0.635714, 26.311200, 26.923300},
    {18, 1, 0.207, 0.050, 0.15, 1.4, -28, 0.643523, 34.903700, 35.734800},
    {17, 1, 0.198, 0.037, 0.12, 1.6, -33, 0.654504, 48.895800, 50.148600},
    {16, 1, 0.186, 0.025, 0.10, 1.9, -42, 0.667750, 76.469100, 78.443000},
    {15, 1, 0.171, 0.015, 0.063, 2.7, -76, 0.694575, 140.053000, 144.160000},
};

constexpr ProteinRow kBlosum62[] = {
    {kUngapped, kUngapped, 0.3176, 0.134, 0.4012, 0.7916, -3.2, 0.623757, 4.964660, 4.964660},
    {11, 2, 0.297, 0.082, 0.27, 1.1, -10, 0.641766, 12.673800, 12.757600},
    {10, 2, 0.291, 0.075, 0.23, 1.3, -15, 0.649362, 16.474000, 16.602600},
    {9, 2, 0.279, 0.058, 0.19, 1.5, -19, 0.659245, 22.751900, 22.950000},
    {8, 2, 0.264, 0.045, 0.15, 1.8, -26, 0.672692, 35.483800, 35.821300},
    {7, 2, 0.239, 0.027, 0.10, 2.5, -46, 0.702056, 61.238300, 61.886000},
    {6, 2, 0.201, 0.012, 0.061, 3.3, -58, 0.740802, 140.417000, 141.882000},
    {13, 1, 0.292, 0.071, 0.23, 1.2, -11, 0.647715, 19.506300, 19.893100},
    {12, 1, 0.283, 0.059, 0.19, 1.5, -19, 0.656391, 27.856200, 28.469900},
    {11, 1, 0.267, 0.041, 0.14, 1.9, -30, 0.669720, 42.602800, 43.636200},
    {10, 1, 0.243, 0.024, 0.10, 2.5, -44, 0.693267, 83.178700, 85.065600},
    {9, 1, 0.206, 0.010, 0.052, 4.0, -87, 0.731887, 210.333000, 214.842000},
};

constexpr ProteinRow kBlosum80[] = {
    {kUngapped, kUngapped, 0.3430, 0.177, 0.6568, 0.5222, -1.6, 0.564057, 1.918130, 1.918130},
    {25, 2, 0.342, 0.17, 0.66, 0.52, -1.6, 0.563956, 1.731000, 1.731300},
    {13, 2, 0.336, 0.15, 0.57, 0.59, -3, 0.570979, 2.673470, 2.692300},
    {9, 2, 0.319, 0.11, 0.42, 0.76, -6, 0.587837, 5.576090, 5.667860},
    {8, 2, 0.308, 0.090, 0.35, 0.89, -9, 0.597556, 7.536950, 7.686230},
    {7, 2, 0.293, 0.070, 0.27, 1.1, -14, 0.615254, 11.586600, 11.840400},
    {6, 2, 0.268, 0.045, 0.19, 1.4, -19, 0.644054, 19.958100, 20.441200},
    {11, 1, 0.314, 0.095, 0.35, 0.90, -9, 0.590702, 8.808610, 9.223320},
    {10, 1, 0.299, 0.071, 0.27, 1.1, -14, 0.609620, 13.833800, 14.533400},
    {9, 1, 0.279, 0.048, 0.20, 1.4, -19, 0.623800, 24.252000, 25.490400},
};

constexpr ProteinRow kBlosum90[] = {
    {kUngapped, kUngapped, 0.3346, 0.190, 0.7547, 0.4434, -1.4, 0.544178, 1.377760, 1.377760},
    {9, 2, 0.310, 0.12, 0.46, 0.67, -6, 0.570267, 4.232290, 4.334170},
    {8, 2, 0.300, 0.099, 0.39, 0.76, -7, 0.581580, 5.797020, 5.961420},
    {7, 2, 0.283, 0.072, 0.30, 0.93, -11, 0.600024, 9.040880, 9.321600},
    {6, 2, 0.259, 0.048, 0.22, 1.2, -16, 0.629344, 16.024400, 16.531600},
    {11, 1, 0.302, 0.093, 0.39, 0.78, -8, 0.576919, 7.143250, 7.619190},
    {10, 1, 0.290, 0.075, 0.28, 1.04, -15, 0.591366, 11.483900, 12.269800},
    {9, 1, 0.265, 0.044, 0.20, 1.3, -19, 0.613013, 21.408300, 22.840900},
};

constexpr ProteinRow kPam30[] = {
    {kUngapped, kUngapped, 0.3400, 0.283, 1.754, 0.1938, -0.3, 0.436164, 0.161818, 0.161818},
    {7, 2, 0.305, 0.15, 0.87, 0.35, -3, 0.479087, 1.014010, 1.162730},
    {6, 2, 0.287, 0.11, 0.68, 0.42, -4, 0.499980, 1.688060, 1.951430},
    {5, 2, 0.264, 0.079, 0.45, 0.59, -7, 0.533009, 3.377010, 3.871950},
    {10, 1, 0.309, 0.15, 0.88, 0.35, -3, 0.474741, 1.372050, 1.788770},
    {9, 1, 0.294, 0.11, 0.61, 0.48, -6, 0.492716, 2.463920, 3.186150},
    {8, 1, 0.270, 0.072, 0.40, 0.68, -10, 0.521286, 5.368130, 6.763480},
};

constexpr ProteinRow kPam70[] = {
    {kUngapped, kUngapped, 0.3345, 0.229, 1.029, 0.3250, -0.7, 0.511296, 0.633439, 0.633439},
    {8, 2, 0.301, 0.12, 0.54, 0.56, -5, 0.549019, 2.881650, 3.025710},
    {7, 2, 0.286, 0.093, 0.43, 0.67, -7, 0.565659, 4.534540, 4.785780},
    {6, 2, 0.264, 0.064, 0.29, 0.90, -12, 0.596330, 7.942630, 8.402720},
    {11, 1, 0.305, 0.12, 0.52, 0.59, -6, 0.543514, 3.681400, 4.108020},
    {10, 1, 0.291, 0.091, 0.41, 0.71, -9, 0.560723, 6.002970, 6.716570},
    {9, 1, 0.270, 0.060, 0.28, 0.97, -14, 0.585186, 11.360800, 12.636700},
};

constexpr ProteinRow kPam250[] = {
    {kUngapped, kUngapped, 0.2252, 0.0868, 0.2223, 0.98, -5.0, 0.660059, 11.754300, 11.754300},
    {15, 3, 0.205, 0.049, 0.13, 1.6, -23, 0.687656, 34.578400, 34.928000},
    {14, 3, 0.200, 0.043, 0.12, 1.7, -26, 0.689768, 43.353000, 43.443800},
    {13, 3, 0.194, 0.036, 0.10, 1.9, -31, 0.697431, 50.948500, 51.081700},
    {12, 3, 0.186, 0.029, 0.085, 2.2, -41, 0.704565, 69.606500, 69.793600},
    {11, 3, 0.174, 0.020, 0.070, 2.5, -48, 0.722438, 98.653500, 98.927100},
    {17, 2, 0.204, 0.047, 0.12, 1.7, -28, 0.684799, 41.583800, 41.735800},
    {16, 2, 0.198, 0.038, 0.11, 1.8, -29, 0.691098, 51.635200, 51.843900},
    {15, 2, 0.191, 0.031, 0.087, 2.2, -44, 0.699051, 67.256700, 67.558500},
    {14, 2, 0.182, 0.024, 0.073, 2.5, -53, 0.714103, 96.315100, 96.756800},
    {13, 2, 0.171, 0.017, 0.059, 2.9, -64, 0.728738, 135.653000, 136.339000},
    {21, 1, 0.205, 0.045, 0.11, 1.8, -34, 0.683265, 48.728200, 49.218800},
    {20, 1, 0.199, 0.037, 0.10, 1.9, -35, 0.689380, 60.832000, 61.514100},
    {19, 1, 0.192, 0.029, 0.083, 2.3, -52, 0.696344, 84.019700, 84.985600},
    {18, 1, 0.183, 0.021, 0.070, 2.6, -60, 0.710525, 113.829000, 115.184000},
    {17, 1, 0.171, 0.014, 0.052, 3.3, -86, 0.727000, 175.071000, 177.196000},
};

struct ProteinTable {
  const char* matrix;
  const ProteinRow* rows;  // rows[0] is the ungapped row
  std::size_t count;
};
#define WARPSEARCH_TABLE(name, rows) \
  { name, rows, sizeof(rows) / sizeof(rows[0]) }
constexpr ProteinTable kProteinTables[] = {
    WARPSEARCH_TABLE("BLOSUM45", kBlosum45), WARPSEARCH_TABLE("BLOSUM50", kBlosum50),
    WARPSEARCH_TABLE("BLOSUM62", kBlosum62), WARPSEARCH_TABLE("BLOSUM80", kBlosum80),
    WARPSEARCH_TABLE("BLOSUM90", kBlosum90), WARPSEARCH_TABLE("PAM30", kPam30),
    WARPSEARCH_TABLE("PAM70", kPam70),       WARPSEARCH_TABLE("PAM250", kPam250),
};

// One blastn row: open, extend, lambda, K, H, alpha, beta. blast_stat.c also lists, for most pairs, a
// row with gap costs 0/0 which stands for megablast's non-affine greedy gaps (open 0, extend
// reward/2 - penalty); it has no integer equivalent in our convention and is left out. The eighth
// column (theta) is not used by the E-value computation and is left out too.
struct NucleotideRow {
  int open, extend;
  double lambda, K, H, alpha, beta;
};
constexpr NucleotideRow kReward1Penalty5[] = {
    {3, 3, 1.39, 0.747, 1.38, 1.00, 0},
};
constexpr NucleotideRow kReward1Penalty4[] = {
    {1, 2, 1.36, 0.67, 1.2, 1.1, 0},
    {0, 2, 1.26, 0.43, 0.90, 1.4, -1},
    {2, 1, 1.35, 0.61, 1.1, 1.2, -1},
    {1, 1, 1.22, 0.35, 0.72, 1.7, -3},
};
constexpr NucleotideRow kReward2Penalty7[] = {
    {2, 4, 0.68, 0.67, 1.2, 0.55, 0},
    {0, 4, 0.63, 0.43, 0.90, 0.7, -1},
    {4, 2, 0.675, 0.62, 1.1, 0.6, -1},
    {2, 2, 0.61, 0.35, 0.72, 1.7, -3},
};
constexpr NucleotideRow kReward1Penalty3[] = {
    {2, 2, 1.37, 0.70, 1.2, 1.1, 0},  {1, 2, 1.35, 0.64, 1.1, 1.2, -1},  {0, 2, 1.25, 0.42, 0.83, 1.5, -2},
    {2, 1, 1.34, 0.60, 1.1, 1.2, -1}, {1, 1, 1.21, 0.34, 0.71, 1.7, -2},
};
constexpr NucleotideRow kReward2Penalty5[] = {
    {2, 4, 0.67, 0.59, 1.1, 0.6, -1},
    {0, 4, 0.62, 0.39, 0.78, 0.8, -2},
    {4, 2, 0.67, 0.61, 1.0, 0.65, -2},
    {2, 2, 0.56, 0.32, 0.59, 0.95, -4},
};
constexpr NucleotideRow kReward1Penalty2[] = {
    {2, 2, 1.33, 0.62, 1.1, 1.2, 0},  {1, 2, 1.30, 0.52, 0.93, 1.4, -2}, {0, 2, 1.19, 0.34, 0.66, 1.8, -3},
    {3, 1, 1.32, 0.57, 1.0, 1.3, -1}, {2, 1, 1.29, 0.49, 0.92, 1.4, -1}, {1, 1, 1.14, 0.26, 0.52, 2.2, -5},
};
constexpr NucleotideRow kReward2Penalty3[] = {
    {4, 4, 0.63, 0.42, 0.84, 0.75, -2}, {2, 4, 0.615, 0.37, 0.72, 0.85, -3}, {0, 4, 0.55, 0.21, 0.46, 1.2, -5},
    {3, 3, 0.615, 0.37, 0.68, 0.9, -3}, {6, 2, 0.63, 0.42, 0.84, 0.75, -2},  {5, 2, 0.625, 0.41, 0.78, 0.8, -2},
    {4, 2, 0.61, 0.35, 0.68, 0.9, -3},  {2, 2, 0.515, 0.14, 0.33, 1.55, -9},
};
constexpr NucleotideRow kReward3Penalty4[] = {
    {6, 3, 0.389, 0.25, 0.56, 0.7, -5}, {5, 3, 0.375, 0.21, 0.47, 0.8, -6},   {4, 3, 0.351, 0.14, 0.35, 1.0, -9},
    {6, 2, 0.362, 0.16, 0.45, 0.8, -4}, {5, 2, 0.330, 0.092, 0.28, 1.2, -13}, {4, 2, 0.281, 0.046, 0.16, 1.8, -23},
};
constexpr NucleotideRow kReward4Penalty5[] = {
    {6, 5, 0.28, 0.21, 0.47, 0.6, -7},
    {5, 5, 0.27, 0.17, 0.39, 0.7, -9},
    {4, 5, 0.25, 0.10, 0.31, 0.8, -10},
    {3, 5, 0.23, 0.065, 0.25, 0.9, -11},
};
constexpr NucleotideRow kReward1Penalty1[] = {
    {3, 2, 1.09, 0.31, 0.55, 2.0, -2},   {2, 2, 1.07, 0.27, 0.49, 2.2, -3}, {1, 2, 1.02, 0.21, 0.36, 2.8, -6},
    {0, 2, 0.80, 0.064, 0.17, 4.8, -16}, {4, 1, 1.08, 0.28, 0.54, 2.0, -2}, {3, 1, 1.06, 0.25, 0.46, 2.3, -4},
    {2, 1, 0.99, 0.17, 0.30, 3.3, -10},
};
constexpr NucleotideRow kReward3Penalty2[] = {
    {5, 5, 0.208, 0.030, 0.072, 2.9, -47},
};
constexpr NucleotideRow kReward5Penalty4[] = {
    {10, 6, 0.163, 0.068, 0.16, 1.0, -19},
    {8, 6, 0.146, 0.039, 0.11, 1.3, -29},
};

struct NucleotideTable {
  int reward, penalty;
  const NucleotideRow* rows;
  std::size_t count;
  bool round_down;  // blast_stat.c: "These parameters can only be applied to even scores"
};
#define WARPSEARCH_NTABLE(reward, penalty, rows, round) \
  { reward, penalty, rows, sizeof(rows) / sizeof(rows[0]), round }
constexpr NucleotideTable kNucleotideTables[] = {
    WARPSEARCH_NTABLE(1, -5, kReward1Penalty5, false), WARPSEARCH_NTABLE(1, -4, kReward1Penalty4, false),
    WARPSEARCH_NTABLE(2, -7, kReward2Penalty7, true),  WARPSEARCH_NTABLE(1, -3, kReward1Penalty3, false),
    WARPSEARCH_NTABLE(2, -5, kReward2Penalty5, true),  WARPSEARCH_NTABLE(1, -2, kReward1Penalty2, false),
    WARPSEARCH_NTABLE(2, -3, kReward2Penalty3, true),  WARPSEARCH_NTABLE(3, -4, kReward3Penalty4, false),
    WARPSEARCH_NTABLE(4, -5, kReward4Penalty5, false), WARPSEARCH_NTABLE(1, -1, kReward1Penalty1, false),
    WARPSEARCH_NTABLE(3, -2, kReward3Penalty2, false), WARPSEARCH_NTABLE(5, -4, kReward5Penalty4, false),
};
#undef WARPSEARCH_TABLE
#undef WARPSEARCH_NTABLE

// The table of a built-in matrix. A matrix read from a file is matched by name only if its scores are
// the built-in ones (a file named "BLOSUM62" holding other scores has no published parameters).
const ProteinTable* protein_table(const SubstitutionMatrix& matrix) {
  for (const auto& table : kProteinTables) {
    if (matrix.name() != table.matrix) continue;
    const SubstitutionMatrix builtin = SubstitutionMatrix::builtin(table.matrix);
    for (int a = 0; a < kMaxCodes; ++a)
      for (int b = 0; b < kMaxCodes; ++b)
        if (matrix.score(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b)) !=
            builtin.score(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b)))
          return nullptr;
    return &table;
  }
  return nullptr;
}

// The reward and penalty of a nucleotide matrix (match score of A/A, mismatch score of A/C).
struct RewardPenalty {
  int reward, penalty, divisor;
};
RewardPenalty reward_penalty(const SubstitutionMatrix& matrix) {
  const int reward = matrix.score(0, 0);
  const int penalty = matrix.score(0, 1);
  return {reward, penalty, std::gcd(reward, -penalty)};
}

const NucleotideTable* nucleotide_table(const RewardPenalty& rp) {
  if (rp.divisor <= 0) return nullptr;
  for (const auto& table : kNucleotideTables)
    if (table.reward * rp.divisor == rp.reward && table.penalty * rp.divisor == rp.penalty) return &table;
  return nullptr;
}

std::string pair_list(int divisor, const NucleotideTable& table) {
  std::string list;
  for (std::size_t i = 0; i < table.count; ++i)
    list += (i ? ", " : "") + std::to_string(table.rows[i].open * divisor) + "/" +
            std::to_string(table.rows[i].extend * divisor);
  return list;
}

// Phi, the standard normal distribution function.
double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

}  // namespace

std::uint64_t length_adjustment(double K, double alpha_over_lambda, double beta, std::uint64_t query_length,
                                std::uint64_t database_residues, std::uint64_t database_sequences) {
  const double m = static_cast<double>(query_length);
  const double N = static_cast<double>(database_residues);
  const double n = static_cast<double>(database_sequences);
  // Largest ell with K (m - ell)(N - n ell) >= max(m, N): the smaller root of
  // n ell^2 - (m n + N) ell + (m N - max(m, N) / K) = 0.
  const double c = m * N - std::max(m, N) / K;
  if (!(c > 0)) return 0;
  const double b = m * n + N;
  const double ell_max = 2 * c / (b + std::sqrt(std::max(0.0, b * b - 4 * n * c)));
  auto at_or_below_fixed_point = [&](double ell) {
    const double space = (m - ell) * (N - n * ell);
    return space > 0 && beta + alpha_over_lambda * (std::log(K) + std::log(space)) >= ell;
  };
  // f(ell) - ell decreases with ell: bisect on integers in [0, floor(ell_max)].
  std::uint64_t low = 0;  // invariant: low == 0 or at_or_below_fixed_point(low)
  std::uint64_t high = static_cast<std::uint64_t>(std::floor(ell_max)) + 1;  // first integer not allowed
  while (high - low > 1) {
    const std::uint64_t mid = low + (high - low) / 2;
    if (at_or_below_fixed_point(static_cast<double>(mid)))
      low = mid;
    else
      high = mid;
  }
  return low;
}

PublishedLookup published_parameters(const ScoringScheme& scoring) {
  PublishedLookup lookup;
  const SubstitutionMatrix& matrix = scoring.matrix();
  if (matrix.type() == SequenceType::protein) {
    const ProteinTable* table = protein_table(matrix);
    if (table == nullptr) return lookup;
    const ProteinRow& ungapped = table->rows[0];
    for (std::size_t i = 1; i < table->count; ++i) {
      const ProteinRow& row = table->rows[i];
      if (row.open != scoring.gap_open() || row.extend != scoring.gap_extend()) continue;
      lookup.found = true;
      lookup.row.gap_open = row.open;
      lookup.row.gap_extend = row.extend;
      lookup.row.parameters = {row.lambda, row.K, row.H, row.alpha, row.beta};
      lookup.row.has_finite_size = true;
      lookup.row.finite_size = {row.C, row.alpha_v, row.sigma, ungapped.alpha, ungapped.alpha_v};
      return lookup;
    }
    return lookup;
  }
  const RewardPenalty rp = reward_penalty(matrix);
  const NucleotideTable* table = nucleotide_table(rp);
  if (table == nullptr) return lookup;
  const int d = rp.divisor;
  for (std::size_t i = 0; i < table->count; ++i) {
    const NucleotideRow& row = table->rows[i];
    if (row.open * d != scoring.gap_open() || row.extend * d != scoring.gap_extend()) continue;
    // Scores d times larger: lambda (and alpha, the length per unit of score times lambda) shrink by d.
    lookup.found = true;
    lookup.row.gap_open = row.open * d;
    lookup.row.gap_extend = row.extend * d;
    lookup.row.parameters = {row.lambda / d, row.K, row.H, row.alpha / d, row.beta};
    lookup.round_down_odd_scores = table->round_down;
    return lookup;
  }
  return lookup;
}

std::string supported_gap_pairs(const ScoringScheme& scoring) {
  const SubstitutionMatrix& matrix = scoring.matrix();
  if (matrix.type() == SequenceType::protein) {
    const ProteinTable* table = protein_table(matrix);
    if (table == nullptr) {
      std::string names;
      for (const auto& t : kProteinTables) names += (names.empty() ? "" : ", ") + std::string(t.matrix);
      return "matrix " + matrix.name() + " has no published Karlin-Altschul parameters (NCBI publishes them for " +
             names + ")";
    }
    std::string list;
    for (std::size_t i = 1; i < table->count; ++i)
      list += (i > 1 ? ", " : "") + std::to_string(table->rows[i].open) + "/" + std::to_string(table->rows[i].extend);
    return std::string(table->matrix) + " gap pairs with published statistics (open/extend): " + list;
  }
  const RewardPenalty rp = reward_penalty(matrix);
  const NucleotideTable* table = nucleotide_table(rp);
  if (table == nullptr) {
    std::string list;
    for (const auto& t : kNucleotideTables)
      list += (list.empty() ? "" : ", ") + std::to_string(t.reward) + "/" + std::to_string(t.penalty);
    return "reward/penalty " + std::to_string(rp.reward) + "/" + std::to_string(rp.penalty) +
           " has no published Karlin-Altschul parameters (NCBI publishes them for " + list + " and their multiples)";
  }
  return "reward/penalty " + std::to_string(rp.reward) + "/" + std::to_string(rp.penalty) +
         " gap pairs with published statistics (open/extend): " + pair_list(rp.divisor, *table);
}

bool EvalueCalculator::supported(const ScoringScheme& scoring) { return published_parameters(scoring).found; }

EvalueCalculator::EvalueCalculator(const ScoringScheme& scoring, std::uint64_t database_residues,
                                   std::uint64_t database_sequences)
    : gap_open_(scoring.gap_open()),
      gap_extend_(scoring.gap_extend()),
      database_residues_(database_residues),
      database_sequences_(database_sequences) {
  const PublishedLookup lookup = published_parameters(scoring);
  if (!lookup.found)
    throw std::invalid_argument("no E-values for " + scoring.matrix().name() + " with gap open " +
                                std::to_string(scoring.gap_open()) + ", extend " +
                                std::to_string(scoring.gap_extend()) + ": " + supported_gap_pairs(scoring));
  if (database_residues == 0 || database_sequences == 0 || database_sequences > database_residues)
    throw std::invalid_argument("E-values need a non-empty database (" + std::to_string(database_residues) +
                                " residues in " + std::to_string(database_sequences) + " sequences)");
  parameters_ = lookup.row.parameters;
  has_finite_size_ = lookup.row.has_finite_size;
  finite_size_ = lookup.row.finite_size;
  round_down_ = lookup.round_down_odd_scores;
}

std::uint64_t EvalueCalculator::length_adjustment(std::uint32_t query_length) const {
  return warpsearch::length_adjustment(parameters_.K, parameters_.alpha / parameters_.lambda, parameters_.beta,
                                       query_length, database_residues_, database_sequences_);
}

double EvalueCalculator::search_space(std::uint32_t query_length) const {
  const std::uint64_t ell = length_adjustment(query_length);
  const double m = std::max(1.0, static_cast<double>(query_length) - static_cast<double>(ell));
  const double N = std::max(1.0, static_cast<double>(database_residues_) -
                                     static_cast<double>(database_sequences_) * static_cast<double>(ell));
  return m * N;
}

double EvalueCalculator::evalue(int score, std::uint32_t query_length) const {
  const double s = effective_score(score);
  return parameters_.K * search_space(query_length) * std::exp(-parameters_.lambda * s);
}

double EvalueCalculator::evalue(int score, std::uint32_t query_length, std::uint32_t subject_length) const {
  if (!has_finite_size_) return evalue(score, query_length);
  return evalue_of_real_score(score, query_length, subject_length);
}

double EvalueCalculator::evalue_of_real_score(double score, std::uint32_t query_length,
                                              std::uint32_t subject_length) const {
  if (!has_finite_size_) return parameters_.K * search_space(query_length) * std::exp(-parameters_.lambda * score);
  // Spouge's finite-size correction (Park et al. 2012). For a score y, the expected number of
  // alignments scoring y or more between sequences of lengths m and n is
  //     K exp(-lambda y) * [ p(m) p(n) + c(y) Phi(F_m) Phi(F_n) ]
  // where the alignment length spent on each sequence is modelled as normal with mean
  // a y + b and variance max(2 alpha_v / lambda, alpha_v y + beta_v), F_m = (m - mean) / sd,
  // p(m) = (m - mean) Phi(F_m) + sd phi(F_m) is the expected usable length E[max(0, m - L)], and
  // c(y) = max(2 sigma / lambda, sigma y + tau) the covariance term. The intercepts follow from the
  // gapped and ungapped rows: b = 2 G (a_ungapped - a), beta_v = 2 G (alpha_v_ungapped - alpha_v),
  // tau = 2 G (alpha_v_ungapped - sigma), with G = open + extend. The pairwise value is scaled to the
  // database by database residues / n, as blastp does.
  const double y = score;
  const double lambda = parameters_.lambda;
  const double G = gap_open_ + gap_extend_;
  const double a = parameters_.alpha;
  const double b = 2 * G * (finite_size_.alpha_ungapped - a);
  const double alpha_v = finite_size_.alpha_v;
  const double beta_v = 2 * G * (finite_size_.alpha_v_ungapped - alpha_v);
  const double sigma = finite_size_.sigma;
  const double tau = 2 * G * (finite_size_.alpha_v_ungapped - sigma);
  const double inv_sqrt_2pi = 0.39894228040143267794;

  const double mean_length = a * y + b;
  const double sd = std::sqrt(std::max(2 * alpha_v / lambda, alpha_v * y + beta_v));
  auto usable = [&](double length, double& phi_of_f) {
    const double slack = length - mean_length;
    const double f = slack / sd;
    phi_of_f = normal_cdf(f);
    return slack * phi_of_f + sd * inv_sqrt_2pi * std::exp(-0.5 * f * f);
  };
  double phi_m = 0, phi_n = 0;
  const double p_m = usable(query_length, phi_m);
  const double p_n = usable(subject_length, phi_n);
  const double c = std::max(2 * sigma / lambda, sigma * y + tau);
  const double area = p_m * p_n + c * phi_m * phi_n;
  return area * parameters_.K * std::exp(-lambda * y) * static_cast<double>(database_residues_) /
         static_cast<double>(std::max<std::uint32_t>(subject_length, 1));
}

double EvalueCalculator::bitscore(int score) const {
  return (parameters_.lambda * score - std::log(parameters_.K)) / std::log(2.0);
}

}  // namespace warpsearch

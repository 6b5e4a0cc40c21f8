// Copies of the substitution table that spread a warp's lookups over the shared-memory banks, and the
// plan that says which copy each lane reads for each of its columns. Plain functions that host and
// device share: gpu_scorer.cu builds the table and plans on the device, sw_kernel.cuh reads them, and
// tests/test_table_copies.cpp checks them on the CPU. Private to kernels/gpu.
//
// Why. The scan kernels are bound by shared memory: each lookup of the 70 KB table is a random word per
// lane, and 32 random words fall on about 3.5 of the 32 banks at worst, so one LDS costs 3.4 wavefronts
// (ncu, docs/gpu_kernels.md). A lane's columns keep their code pairs (a, b) for the whole query; only the
// query row changes from step to step. If the row stride is a multiple of 32 words, the bank of a lookup
// depends on the code pair only, so it is known before the query is: given a choice of copies, each
// placing the entries on different banks, the lanes of a warp can be told once per database batch which
// copy to read per column so that few of them share a bank.
//
// Layout. Row q (one compact query code) holds `copies` copies of the N * N entries, each `copy_words`
// = N * N rounded up to 32 words; entry c = a * N + b of copy k is at word k * copy_words +
// copy_position(k, c). Copy 0 is the plain order; copies 1 and 2 permute the low five bits of c within
// its 32-word block by two different bijections, so entries that share a bank in one copy are spread over
// the banks in the others. With one copy the row stride stays N * N (not a multiple of 32: then the query
// row rotates the banks, which is better than a fixed bank without a plan).
//
// Plan. Per warp, tile and register j, the 32 lanes' entries for that column are placed greedily, lane
// after lane, on the copy whose bank holds the fewest lanes so far, then re-placed twice the same way
// (plan_register). Lanes that read the same entry at the same query row would share a word; the plan
// does not know the rows and counts them apart. Modelled on real proteins (tests/test_table_copies.cpp:
// pairs of UniProt subjects, 32 lanes x 16 registers, a protein's rows): 3.53 wavefronts per lookup with
// one copy, 2.01 with two, 2.00 with three; on the H100 (ncu) 3.46-3.50 and 2.03-2.05 (docs/gpu_kernels.md).
// One copy at a stride of a multiple of 32 without a plan would be worse than at N * N (simulated: 4.2).
#pragma once

#include <cstdint>

#include "kernels/gpu/host_device.hpp"

namespace warpsearch::gpu::detail {

inline constexpr int kMaxTableCopies = 3;
// Bits per column in a lane's plan word (a copy index), and columns per word: a lane holds at most 32.
inline constexpr int kPlanBits = 2;
static_assert(kPlanBits * 32 <= 64, "a lane's plan is one 64-bit word");

// Words of one copy of a table row: N * N entries rounded up to whole 32-word blocks.
WARPSEARCH_HOST_DEVICE constexpr int table_copy_words(int n) { return (n * n + 31) / 32 * 32; }

// Words of one table row (one query code): the copies, or N * N with a single copy (see the top).
WARPSEARCH_HOST_DEVICE constexpr int table_row_words(int n, int copies) {
  return copies == 1 ? n * n : copies * table_copy_words(n);
}

// Where entry c sits within its copy: a bijection of [0, table_copy_words) that keeps c's 32-word block.
WARPSEARCH_HOST_DEVICE constexpr std::uint32_t copy_position(int copy, std::uint32_t c) {
  const std::uint32_t block = c >> 5;
  const std::uint32_t low = c & 31u;
  if (copy == 1) return (block << 5) | ((low + 13u * block + 7u) & 31u);
  if (copy == 2) return (block << 5) | ((5u * low + 7u * block + 3u) & 31u);
  return c;
}

// Word of entry c in copy `copy` of a row (copy_words: table_copy_words(n)).
WARPSEARCH_HOST_DEVICE constexpr std::uint32_t table_word(int copy, std::uint32_t c, std::uint32_t copy_words) {
  return static_cast<std::uint32_t>(copy) * copy_words + copy_position(copy, c);
}

// Lane copies. A small alphabet's table (DNA: 6 compact codes, 216 entries) fits 32 times over, so the
// copies are interleaved instead: copy l of entry c of a row is word c * 32 + l, on bank l, and lane l of
// a warp reads copy l. A warp's lookup is then one wavefront whatever its entries, with no plan: where
// one copy costs about 3.4 wavefronts and the planned copies 2 (docs/gpu_kernels.md). Used for every bin
// when the 32 copies take at most kLaneCopiesMaxBytes, which leaves the blocks of 256 threads their
// occupancy (n <= 7).
inline constexpr int kLaneCopies = 32;
inline constexpr int kLaneCopiesMaxBytes = 48 * 1024;
WARPSEARCH_HOST_DEVICE constexpr int lane_table_row_words(int n) { return n * n * kLaneCopies; }
WARPSEARCH_HOST_DEVICE constexpr bool lane_copies_fit(int n) {
  return n * lane_table_row_words(n) * 4 <= kLaneCopiesMaxBytes;
}
// Word of entry c for lane `lane` (0..31) within a row of the lane-copies table.
WARPSEARCH_HOST_DEVICE constexpr std::uint32_t lane_table_word(std::uint32_t c, std::uint32_t lane) {
  return c * kLaneCopies + lane;
}

// The copy of column j in a lane's plan word.
WARPSEARCH_HOST_DEVICE constexpr int planned_copy(std::uint64_t plan, int j) {
  return static_cast<int>((plan >> (kPlanBits * j)) & ((1u << kPlanBits) - 1u));
}

// Chooses the copy each of a warp's 32 lanes reads for one column (entries[l] < 0: lane l reads
// nothing), so that few lanes share a bank: greedy by least-loaded bank (ties: the lower copy), then two
// passes that take each lane out and place it again. Writes choice[l] in [0, copies).
WARPSEARCH_HOST_DEVICE inline void plan_register(const int (&entries)[32], int copies, int (&choice)[32]) {
  int load[32] = {};
  const auto bank = [](int copy, int entry) {
    return static_cast<int>(copy_position(copy, static_cast<std::uint32_t>(entry)) & 31u);
  };
  const auto place = [&](int l) {
    int best = 0;
    for (int k = 1; k < copies; ++k)
      if (load[bank(k, entries[l])] < load[bank(best, entries[l])]) best = k;
    choice[l] = best;
    ++load[bank(best, entries[l])];
  };
  for (int l = 0; l < 32; ++l) {
    choice[l] = 0;
    if (entries[l] >= 0) place(l);
  }
  for (int pass = 0; pass < 2; ++pass)
    for (int l = 0; l < 32; ++l)
      if (entries[l] >= 0) {
        --load[bank(choice[l], entries[l])];
        place(l);
      }
}

// Stream plans: the streamed kernel (sw_streamed.cuh) holds the query's rows in the lanes and streams
// the subjects' columns through them, lane t at column x - 2t of the step's first column x (and x - 2t +
// 1 for its second). One lookup of the warp reads 32 columns of one parity, x, x - 2, ..., x - 62, each
// against a different query row. With the row stride a multiple of 32 words, a lookup's bank depends on
// its column's entry and copy only, so the copy of each column can be chosen once per subject pair,
// whatever the query: column by column, the copy whose bank the previous 31 columns of its parity use
// least (on a tie the lower copy). Columns are given in order from 0.
class StreamPlanner {
 public:
  WARPSEARCH_HOST_DEVICE explicit StreamPlanner(int copies) : copies_(copies) {
    for (int r = 0; r < 2; ++r)
      for (int b = 0; b < 32; ++b) {
        ring_[r][b] = 0;
        count_[r][b] = 0;
      }
  }
  // The copy column x (entry c) reads.
  WARPSEARCH_HOST_DEVICE int choose(std::uint64_t x, std::uint32_t c) {
    const auto r = static_cast<int>(x & 1u);
    const auto slot = static_cast<int>((x >> 1) & 31u);
    if (x >= 64) --count_[r][ring_[r][slot]];  // column x - 64 leaves the window
    int best = 0;
    for (int k = 1; k < copies_; ++k)
      if (count_[r][bank(k, c)] < count_[r][bank(best, c)]) best = k;
    ring_[r][slot] = static_cast<std::uint8_t>(bank(best, c));
    ++count_[r][ring_[r][slot]];
    return best;
  }

 private:
  WARPSEARCH_HOST_DEVICE static int bank(int copy, std::uint32_t c) {
    return static_cast<int>(copy_position(copy, c) & 31u);
  }
  int copies_;
  std::uint8_t ring_[2][32];   // per parity: the banks of its last 32 columns, by (x / 2) % 32
  std::uint8_t count_[2][32];  // per parity: how many of those columns use each bank
};

// Shared-memory wavefronts of one warp's lookup: the largest number of distinct words on one bank
// (words: table word addresses of the 32 lanes; < 0: lane idle). For tests and the plan's statistics.
WARPSEARCH_HOST_DEVICE inline int lookup_wavefronts(const long long (&words)[32]) {
  int most = 0;
  for (int l = 0; l < 32; ++l) {
    if (words[l] < 0) continue;
    bool first = true;  // count each distinct word once
    for (int k = 0; k < l && first; ++k) first = words[k] != words[l];
    if (!first) continue;
    int on_bank = 0;
    for (int k = 0; k <= l; ++k) {
      if (words[k] < 0 || (words[k] - words[l]) % 32 != 0) continue;
      bool distinct = true;
      for (int i = 0; i < k && distinct; ++i) distinct = words[i] != words[k];
      on_bank += distinct ? 1 : 0;
    }
    most = on_bank > most ? on_bank : most;
  }
  return most;
}

}  // namespace warpsearch::gpu::detail

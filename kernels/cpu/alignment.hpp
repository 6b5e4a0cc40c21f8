// Pair alignment: the full alignment of a query and one subject, local (for the hits a search reports),
// global or semi-global (core/alignment_mode.hpp; the rules and tie-breaks of kernels/reference/reference.hpp).
//
// 1. A forward pass of the striped kernel (kernels/cpu/striped.hpp) gives the score and the end: local =
//    the maximal cell with the smallest subject end, then the smallest query end; global = (m, n);
//    semiglobal = (m, the smallest subject end among the optimal alignments). Global pairs of 2^24 cells
//    and more are scored by the traceback's rows in bands instead, where that is faster: a narrow guessed
//    band's score, then the exact band of that score (profile/exact_band.hpp). align_pair needs only the
//    guessed band's score, a lower bound: its traceback finds the score (align_global).
// 2. The same kernel, in the same mode, over the reversed prefixes that end there gives the start (its
//    own tie-break, the smallest reversed subject then query end, is the reference's: largest subject
//    start, then largest query start). Global starts at (0, 0) and needs no reverse pass.
// 3. A global alignment of the two substrings (the rectangle), whose optimal score equals the pair's
//    score, gives the operations, by one of three paths (each row is computed with the horizontal gaps as
//    a prefix maximum, so its columns vectorise: kernels/cpu/alignment.cpp):
//    - whole table: one traceback byte per cell, up to AlignmentLimits::full_traceback_cells (2^25);
//    - checkpointed: beyond that, only checkpoint rows are kept and the table is rebuilt one band of
//      rows at a time, ~2 * sqrt(8m) * n bytes, while that fits AlignmentLimits::checkpoint_bytes
//      (64 MiB: up to about 50,000 x 50,000). The traceback rebuilds AlignmentLimits::threads bands at
//      once, each only up to the column where the traceback enters it; the checkpoint rows may come from
//      an AlignmentLimits::row_source (a GPU) at its spacing, and then the CPU only rebuilds bands;
//    - linear: beyond that, Myers and Miller's divide and conquer (Hirschberg with affine gaps): a
//      forward pass into the middle row and a backward pass out of it choose where an optimal alignment
//      crosses it, at a cell or inside a vertical gap, and the two halves are aligned the same way until
//      they fit a leaf table (AlignmentLimits::linear_leaf_cells). Memory O(m + n): about 48 bytes per
//      subject residue for the rows, the two subject profiles (one byte per subject residue per distinct
//      query code), the reversed sequences, and one leaf table of at most linear_leaf_cells bytes per
//      thread (a 100,000 x 100,000 pair on two threads: 17 MB; the checkpointed rows would take 180 MB, and 5.7
//      GB at 1 Mb x 1 Mb).
//      Time: about twice the cells of one pass, in score-only rows; AlignmentLimits::threads runs the
//      two passes, then the two halves, at once; an AlignmentLimits::row_source may compute the passes'
//      rows.
//    Which co-optimal alignment: the whole table and the checkpointed path give the same operations,
//    traced back from (m, n) with these tie-breaks: a cell's H comes from D (subject residue against a
//    gap) only if D beats both M and I, else from I (query residue against a gap) only if I beats M,
//    else from M; a gap extends the one before it only if extending scores strictly more than opening;
//    column 0 and row 0 are one gap each. The linear path gives, for each sub-rectangle, the optimal
//    alignment crossing its middle row (row rows / 2, rounded down) at the leftmost column where an
//    optimal alignment can, through a cell rather than inside a vertical gap when both can at that
//    column; each leaf is traced back with the tie-breaks above. Its operations may thus differ from the
//    whole table's where alignments tie (never in score). The checkpointed path stays below it rather
//    than being replaced: its operations are the whole table's whatever the limits (so the output of
//    pairs up to ~50,000 x 50,000 does not change with them), and it is the faster (30,000 x 30,000 on one
//    thread: 0.72 s of CPU against the linear path's 0.83 s; rebuilding every band to the last column
//    would take 1.03 s); the linear path takes over where the checkpoint rows would outgrow the memory
//    budget. checkpoint_bytes = 0 sends every rectangle beyond the whole table to it. Neither the thread count nor the
//    row source chooses the path (the operations must not depend on them), and the checkpointed path's operations do
//    not depend on its band height.
// The operations are replayed with the scoring; a replayed score that differs from the forward score
// throws std::logic_error (a bug, never expected). Steps 1-2 alone are pair_span(); step 3 alone is
// align_in_rectangle(), for spans computed elsewhere (the GPU).
//
// Lengths: the passes are exact for any lengths below 2^32 (kernels/cpu/striped.hpp); the traceback's
// rows are 32-bit and hold rectangles whose boundary gaps cost up to about 2^29 ((m + n) * extend below
// ~5 x 10^8: 2.5 x 10^8 residues in all at extend 2); a larger rectangle throws std::overflow_error.
//
// Thread safety: pure functions (the checkpointed and linear paths start up to AlignmentLimits::threads -
// 1 threads of their own and join them before they return; they may call the row source from several
// threads at once).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/alignment_mode.hpp"
#include "core/diagonal_band.hpp"
#include "core/pair_alignment.hpp"
#include "core/span.hpp"
#include "kernels/cpu/query_scorer.hpp"
#include "profile/scoring.hpp"

namespace warpsearch::cpu {

// Rows of global alignments computed elsewhere (a GPU), for the traceback's checkpointed and
// linear-memory paths: the checkpointed path takes its checkpoint rows from rows(), at the source's
// spacing, and rebuilds only the bands of traceback bytes; the linear path takes the last row of each
// forward and backward pass. The values must be the DP's (below), so the operations do not change.
class GlobalRowSource {
 public:
  virtual ~GlobalRowSource() = default;
  // Rectangles of fewer cells (rows x (columns + 1)) are computed on the CPU.
  virtual std::uint64_t min_cells() const = 0;
  // The spacing of checkpoint rows the source prefers (>= 1). The checkpointed path asks for it, or for
  // the first multiple of it whose rows fit AlignmentLimits::checkpoint_bytes (about 8 bytes per cell of
  // each kept row).
  virtual std::size_t spacing() const = 0;
  // H and I (I = best ending in a vertical gap, a query residue against a gap) of rows spacing,
  // 2 * spacing, ..., and of the last row a.size() (once, also when it is a multiple of spacing), of the
  // global alignment of a (rows) against b (columns) in which a vertical gap that begins at (0, 0) costs
  // top_open instead of open: exactly the values of the traceback's row recurrence
  // (kernels/cpu/alignment_rows.hpp) for those rows, with row 0: h = -(open + column * extend), ins =
  // minus infinity (h = 0 at column 0), and column 0: h = ins = -(top_open + row * extend). Each row has
  // b.size() + 1 values, the rows one after the other in h and ins, which arrive empty. spacing >=
  // a.size(): the last row only. a is never empty. Returns false to decline (the caller then computes the
  // rows itself); rows of the wrong count throw std::logic_error in the caller. May be called from several
  // threads at once. band (nullptr: none): the exact band (core/diagonal_band.hpp) of the caller, in
  // a x b's coordinates. The source may ignore it (the values above), or compute the recurrence only on
  // cells that include the band, minus infinity (-2^29) elsewhere: every value is then at most the exact
  // one and exact on the cells of optimal alignments, which is all the traceback's choices need.
  virtual bool rows(std::string_view a, std::string_view b, std::int32_t top_open, std::size_t spacing,
                    std::vector<std::int32_t>& h, std::vector<std::int32_t>& ins, const DiagonalBand* band) = 0;
};

struct AlignmentLimits {
  // Largest traceback table (one byte per cell) built whole; larger rectangles use checkpointed rows
  // or, beyond checkpoint_bytes, the linear-memory path.
  std::uint64_t full_traceback_cells = std::uint64_t{1} << 25;
  // Largest leaf of the linear-memory path (at most full_traceback_cells too). A leaf costs its cells
  // once with traceback bytes on one CPU thread; a split costs them once in two passes (on the GPU when
  // there is a row source) and leaves halves a quarter the size. Smaller leaves move the work of the deepest
  // levels to the passes: one H100 with 16 cores, 1 Mb global alignment, 1.00-1.03 s and 1.1 s of CPU at
  // 2^22 cells against 1.19-1.22 s and 3.7-4.0 s of CPU at 2^25; the CPU alone, 100 kb on 2 cores,
  // 0.99-1.16 s and 17 MB against 1.19-1.30 s and 50 MB. It chooses between co-optimal alignments (the
  // operations of the linear path may change with it), never the score.
  std::uint64_t linear_leaf_cells = std::uint64_t{1} << 22;
  // Largest memory of the checkpointed traceback (about 2 * sqrt(8 m) * n bytes: rectangles up to about
  // 50,000 x 50,000 at the default); larger rectangles are aligned in linear memory (Myers-Miller).
  std::uint64_t checkpoint_bytes = std::uint64_t{64} << 20;
  // Threads the traceback may use: the checkpointed path rebuilds up to this many bands at once (each in
  // its own band of traceback bytes, at most 1 GiB of them in all); the linear-memory path runs its
  // forward and backward passes at once, then the two halves of each split, each with half the threads
  // (every thread may hold one leaf table). The operations do not depend on it.
  unsigned threads = 1;
  // Compute only the diagonals an optimal alignment can reach, from the rectangle's score and the best
  // the scoring allows (about 12% of a 1 Mb pair at 4% substitutions and 1% indels, one diagonal for
  // identical sequences; docs/long_alignment.md, "Exact band"). Inside a path it never changes the
  // operations; a rectangle whose band fits the whole table or the checkpoint budget takes that path
  // (the whole table's operations) where it would otherwise have taken the linear one.
  bool exact_band = true;
  // Rows of 16-bit values where a whole table's values fit them (twice the columns per vector; about
  // every hit of proteins up to 2,000 residues and of short DNA). The operations are the same either way.
  bool narrow_rows = true;
  // Where rows of rectangles of at least row_source->min_cells() cells are computed (not owned; nullptr:
  // on the CPU). It never changes the operations, nor which path a rectangle takes.
  GlobalRowSource* row_source = nullptr;
};

// Steps 1 and 2: score and rectangle, with the striped kernels of the given instruction set (16, 32 or
// 64 bits, whatever the lengths: StripedScorer).
Span pair_span(std::string_view query_codes, std::string_view subject_codes, const ScoringScheme& scoring,
               AlignmentMode mode, Isa isa = best_isa());

// Step 3: the operations of a global alignment of the span's rectangle, which must score span.score
// (std::logic_error naming the rectangle and both scores otherwise). A rectangle outside the sequences
// or with begin > end throws std::invalid_argument; one beyond the 32-bit rows, std::overflow_error.
PairAlignment align_in_rectangle(std::string_view query_codes, std::string_view subject_codes,
                                 const ScoringScheme& scoring, const Span& span,
                                 const AlignmentLimits& limits = AlignmentLimits{});

// Step 3 of a global alignment of the whole pair whose score is known only from below: lower_bound, the
// score of a guessed band (profile/exact_band.hpp; pair_span and the long-pair kernel's span take a
// second banded pass to make it exact). Myers and Miller's first split, in the band of every alignment
// scoring lower_bound or more, finds the score and where an optimal alignment crosses the middle row,
// whichever band holds the optimal alignments; the rest runs in the score's band, on the path that band
// takes. So the result is align_in_rectangle's for the whole pair with its exact score (in .score), one
// banded pass sooner. A lower_bound above the optimum throws std::logic_error, as align_in_rectangle
// does for a wrong score.
PairAlignment align_global(std::string_view query_codes, std::string_view subject_codes, const ScoringScheme& scoring,
                           std::int64_t lower_bound, const AlignmentLimits& limits = AlignmentLimits{});

// Steps 1 to 3, every pass (the traceback's rows too) with the given instruction set; align_in_rectangle
// uses best_isa(). The operations do not depend on it.
PairAlignment align_pair(std::string_view query_codes, std::string_view subject_codes, const ScoringScheme& scoring,
                         AlignmentMode mode, const AlignmentLimits& limits = AlignmentLimits{}, Isa isa = best_isa());

// align_pair in local mode.
PairAlignment align_local(std::string_view query_codes, std::string_view subject_codes, const ScoringScheme& scoring,
                          const AlignmentLimits& limits = AlignmentLimits{});

// Run-length form of operations, e.g. "12M2I30M". Throws std::invalid_argument on a character other
// than M, I or D.
std::string cigar(const std::string& operations);

}  // namespace warpsearch::cpu

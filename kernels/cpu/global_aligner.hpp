// The traceback's global aligner (kernels/cpu/alignment.hpp, step 3): the whole traceback table, or
// checkpoint rows and bands of traceback bytes rebuilt from them, with the tie-breaks the public header
// documents. The checkpoint rows may come from an AlignmentLimits::row_source, and the bands are rebuilt
// on AlignmentLimits::threads threads; neither changes the operations. Private to kernels/cpu.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/cpu/alignment.hpp"
#include "kernels/cpu/alignment_rows.hpp"

namespace warpsearch::cpu::detail {

// Global alignment of a (rows, the query substring) against b (columns, the subject substring), with
// the references' gap rules: I = query residue against a gap (vertical), D = subject residue
// against a gap (horizontal); a gap of length k costs open + k * extend. As a leaf of the linear-memory
// path, a vertical gap that begins at (0, 0) may cost top_open instead of open (it continues a gap
// from above the rectangle), and one that ends at (rows, columns) bottom_open (it continues below).
//
// Checkpointed: the forward pass keeps rows band, 2 * band, ..., and the last row (the layout of
// GlobalRowSource::rows); band t (rows t * band + 1 .. (t + 1) * band) is rebuilt from the row before
// it, row 0 or kept row t - 1, while the traceback walks through it. The traceback only moves up and
// left, so a band is rebuilt only up to the column at which the traceback enters it (the values of
// columns 0..j depend on no column beyond j), and with threads > 1 the next `threads` bands up are
// rebuilt at once, each into its own traceback buffer.
//
// With a band (DiagonalBand, core/diagonal_band.hpp) every row is computed only inside it and
// its traceback bytes take band.width() + 1 bytes instead of a byte per column (a band no narrower
// than the columns is not used); the operations are the same as without it.
class GlobalAligner {
 public:
  GlobalAligner(std::string_view a, std::string_view b, const ScoringScheme& scoring, Isa isa,
                const DiagonalBand* band = nullptr);

  // The operations of an optimal global alignment, and its score (with the top and bottom opens given).
  // limits: the table size, and for the checkpointed case the row source and the threads.
  std::string align(const AlignmentLimits& limits, std::int32_t* score, std::int32_t top_open,
                    std::int32_t bottom_open);

  // Band height of the checkpointed traceback computed on the CPU: every row when the whole table fits
  // the limit (rows x tb_width traceback bytes: tb_width = cols, or band.width() + 1), else about
  // sqrt(8 * rows), which balances the checkpoint rows (8 bytes per cell) against one band of traceback
  // bytes.
  static std::size_t band_height(std::size_t rows, std::size_t tb_width, std::uint64_t full_traceback_cells);

  // The memory of the checkpointed traceback at that band height (checkpoint rows of cols values and one
  // band of traceback bytes).
  static std::uint64_t checkpoint_bytes(std::size_t rows, std::size_t cols, std::size_t tb_width,
                                        std::uint64_t full_traceback_cells);

 private:
  // One thread's rows (kernels/cpu/alignment_rows.hpp).
  using Rows = PassRows;

  // The kept rows: band, 2 * band, ..., and the last one, one after the other.
  struct Checkpoints {
    std::size_t band = 0, bands = 0;
    std::vector<std::int32_t> h, ins;
  };

  // Bands of traceback bytes: bands first - count + 1 .. first (the lowest first), `width` columns each.
  struct TracebackBands {
    std::vector<std::unique_ptr<std::uint8_t[]>> buffers;  // [first - t]: band t
    std::size_t first = 0, count = 0, width = 0;
    bool holds(std::size_t t) const { return count > 0 && t <= first && first - t < count; }
  };

  std::size_t columns() const { return columns_; }
  // Traceback bytes of a row: one per column, or the band's layout.
  std::size_t tb_width() const { return band_ ? band_->width() + 1 : columns_; }
  // Row i >= 1 of columns 0..width - 1 from rows.h_above / ins_above, which it then holds. tb: the row's
  // traceback bytes, or nullptr.
  template <typename Value>
  void next_row(std::size_t i, std::size_t width, PassRowsOf<Value>& rows, std::uint8_t* tb) const;
  // The kept rows at kept.band (the forward pass); with a single band, its traceback bytes go to tb. The
  // rows may be 16-bit (fits_narrow_rows); the kept ones are 32-bit either way.
  template <typename Value>
  void forward_pass(PassRowsOf<Value>& rows, Checkpoints& kept, std::uint8_t* tb) const;
  // The kept rows from limits.row_source; false when there is none for this rectangle or it declines.
  bool source_rows(const AlignmentLimits& limits, Checkpoints& kept) const;
  // Rebuilds the bands first, first - 1, ... (as many as tb has buffers, down to band 0) up to column
  // width - 1, on one thread per band.
  void rebuild_bands(const Checkpoints& kept, std::size_t first, std::size_t width, TracebackBands& tb,
                     std::vector<Rows>& rows) const;
  // The traceback from (rows, columns - 1) in `state` (kSourceMask: in H), reversed.
  std::string trace(const Checkpoints& kept, std::uint8_t state, TracebackBands& tb, std::vector<Rows>& rows) const;

  std::string_view a_, b_;
  const ScoringScheme& scoring_;
  std::int32_t open_, extend_;
  std::int32_t top_open_ = 0;  // set by align()
  SubjectProfile profile_;
  std::size_t columns_;
  RowFunctions rows_;
  std::optional<DiagonalBand> band_;
};

}  // namespace warpsearch::cpu::detail

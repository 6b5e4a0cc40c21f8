#include "kernels/cpu/global_aligner.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "base/parallel.hpp"

namespace warpsearch::cpu::detail {
namespace {

// The most traceback bytes of the bands rebuilt at once (at least one band): threads beyond it wait.
constexpr std::uint64_t kInFlightBandBytes = std::uint64_t{1} << 30;

// The memory of the checkpointed traceback with bands of `band` rows: the kept rows (H and I, 8 bytes
// per column) and one band of traceback bytes (tb_width a row).
std::uint64_t banded_bytes(std::size_t rows, std::size_t cols, std::size_t tb_width, std::size_t band) {
  const std::uint64_t bands = rows == 0 ? 0 : (rows + band - 1) / band;
  return bands * 2 * sizeof(std::int32_t) * cols + static_cast<std::uint64_t>(band) * tb_width;
}

}  // namespace

GlobalAligner::GlobalAligner(std::string_view a, std::string_view b, const ScoringScheme& scoring, Isa isa,
                             const DiagonalBand* band)
    : a_(a),
      b_(b),
      scoring_(scoring),
      open_(scoring.gap_open()),
      extend_(scoring.gap_extend()),
      profile_(a, b, scoring),
      columns_(b.size() + 1),
      rows_(row_functions(isa)) {
  if (band && band->width() + 1 < columns_) band_ = *band;
}

std::string GlobalAligner::align(const AlignmentLimits& limits, std::int32_t* score, std::int32_t top_open,
                                 std::int32_t bottom_open) {
  top_open_ = top_open;
  const std::size_t rows = a_.size();
  const std::size_t cols = columns();
  if (cols == 1) {  // one vertical gap (or nothing), from the top and to the bottom at once
    *score = rows == 0 ? 0 : -(std::min(top_open, bottom_open) + static_cast<std::int32_t>(rows) * extend_);
    return std::string(rows, 'I');
  }
  if (rows == 0) {  // one horizontal gap
    *score = -(open_ + static_cast<std::int32_t>(cols - 1) * extend_);
    return std::string(cols - 1, 'D');
  }
  Checkpoints kept;
  const bool whole = static_cast<std::uint64_t>(rows) * tb_width() <= limits.full_traceback_cells;
  const bool from_source = !whole && source_rows(limits, kept);
  if (!from_source) {
    kept.band = band_height(rows, tb_width(), limits.full_traceback_cells);
    kept.bands = (rows + kept.band - 1) / kept.band;
  }
  // One buffer per band rebuilt at once. Every byte is written (next_row) before the traceback reads
  // it: no zero fill.
  TracebackBands tb;
  const std::uint64_t band_bytes = static_cast<std::uint64_t>(kept.band) * tb_width();
  const std::uint64_t buffers = std::min<std::uint64_t>(
      {std::max(limits.threads, 1u), kept.bands, std::max<std::uint64_t>(1, kInFlightBandBytes / band_bytes)});
  tb.buffers.reserve(buffers);
  for (std::uint64_t k = 0; k < buffers; ++k) tb.buffers.emplace_back(new std::uint8_t[band_bytes + kRowSlack]);
  std::vector<Rows> thread_rows;
  if (whole && limits.narrow_rows && fits_narrow_rows(rows, cols - 1, scoring_, top_open)) {
    PassRowsOf<std::int16_t> narrow(cols);
    forward_pass(narrow, kept, tb.buffers[0].get());
  } else {
    thread_rows.emplace_back(cols);
    if (!from_source) forward_pass(thread_rows[0], kept, kept.bands == 1 ? tb.buffers[0].get() : nullptr);
  }
  if (kept.bands == 1 && !from_source) tb.count = 1, tb.width = tb_width();  // the forward pass filled band 0

  const std::size_t last_row = (kept.bands - 1) * cols;
  *score = kept.h[last_row + cols - 1];
  std::uint8_t state = kSourceMask;  // kSourceMask stands for "in H"
  // A vertical gap into the last cell that costs bottom_open instead of open: it ends the alignment
  // when it then scores strictly more than the cell's H.
  if (bottom_open < open_ && kept.ins[last_row + cols - 1] + (open_ - bottom_open) > *score) {
    *score = kept.ins[last_row + cols - 1] + (open_ - bottom_open);
    state = kFromI;
  }
  const std::string reversed_operations = trace(kept, state, tb, thread_rows);
  return std::string(reversed_operations.rbegin(), reversed_operations.rend());
}

std::size_t GlobalAligner::band_height(std::size_t rows, std::size_t tb_width, std::uint64_t full_traceback_cells) {
  std::size_t band = rows;
  if (static_cast<std::uint64_t>(rows) * tb_width > full_traceback_cells)
    band = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(std::sqrt(8.0 * static_cast<double>(rows)))));
  return std::min(band, std::max<std::size_t>(rows, 1));
}

std::uint64_t GlobalAligner::checkpoint_bytes(std::size_t rows, std::size_t cols, std::size_t tb_width,
                                              std::uint64_t full_traceback_cells) {
  return banded_bytes(rows, cols, tb_width, band_height(rows, tb_width, full_traceback_cells));
}

template <typename Value>
void GlobalAligner::next_row(std::size_t i, std::size_t width, PassRowsOf<Value>& rows, std::uint8_t* tb) const {
  if (band_) {
    rows.advance_in_band(rows_, *band_, width, open_, extend_, top_open_, i, profile_.row(a_[i - 1]), tb);
    return;
  }
  if (tb) tb[0] = static_cast<std::uint8_t>(kFromI | (i > 1 ? kIExtends : 0));
  rows.advance(rows_, width, open_, extend_, top_open_, i, profile_.row(a_[i - 1]), tb);
}

template <typename Value>
void GlobalAligner::forward_pass(PassRowsOf<Value>& rows, Checkpoints& kept, std::uint8_t* tb) const {
  const std::size_t last = a_.size(), cols = columns();
  kept.h.resize(kept.bands * cols);
  kept.ins.resize(kept.bands * cols);
  rows.start(columns(), open_, extend_);
  for (std::size_t i = 1; i <= last; ++i) {
    next_row(i, cols, rows, tb ? tb + (i - 1) * tb_width() : nullptr);
    if (i % kept.band == 0 || i == last) {
      const auto at = static_cast<std::ptrdiff_t>((i - 1) / kept.band * cols);
      std::copy_n(rows.h_above.begin(), cols, kept.h.begin() + at);
      std::copy_n(rows.ins_above.begin(), cols, kept.ins.begin() + at);
    }
  }
}

bool GlobalAligner::source_rows(const AlignmentLimits& limits, Checkpoints& kept) const {
  GlobalRowSource* source = limits.row_source;
  const std::size_t rows = a_.size(), cols = columns();
  if (!source || pass_cells(band_, rows, cols) < source->min_cells()) return false;
  // The source's spacing, or where its kept rows would outgrow checkpoint_bytes, the first multiple of it
  // whose rows fit, up to the CPU's band (whose rows fit: the checkpointed path was chosen with it).
  const std::size_t cpu_band = band_height(rows, tb_width(), limits.full_traceback_cells);
  const std::size_t step = std::max<std::size_t>(1, source->spacing());
  std::size_t band = std::min(step, rows);
  while (band < cpu_band && banded_bytes(rows, cols, tb_width(), band) > limits.checkpoint_bytes)
    band = std::min(band + step, rows);
  if (banded_bytes(rows, cols, tb_width(), band) > limits.checkpoint_bytes) band = cpu_band;
  kept.band = band;
  kept.bands = (rows + band - 1) / band;
  kept.h.clear();
  kept.ins.clear();
  if (!source->rows(a_, b_, top_open_, band, kept.h, kept.ins, band_ ? &*band_ : nullptr)) return false;
  const std::size_t expected = kept.bands * cols;
  if (kept.h.size() != expected || kept.ins.size() != expected)
    throw std::logic_error("GlobalRowSource::rows gave " + std::to_string(kept.h.size()) + " H and " +
                           std::to_string(kept.ins.size()) + " I values for " + std::to_string(rows) + " x " +
                           std::to_string(cols - 1) + " residues at spacing " + std::to_string(band) + ", not " +
                           std::to_string(expected));
  return true;
}

void GlobalAligner::rebuild_bands(const Checkpoints& kept, std::size_t first, std::size_t width, TracebackBands& tb,
                                  std::vector<Rows>& rows) const {
  const std::size_t count = std::min(tb.buffers.size(), first + 1);
  while (rows.size() < count) rows.emplace_back(columns());
  // The lowest band first: the traceback needs it first.
  parallel_for(count, static_cast<unsigned>(count), [&](std::size_t k, unsigned worker) {
    const std::size_t t = first - k;
    Rows& own = rows[worker];
    if (t == 0) {
      own.start(columns(), open_, extend_);
    } else {
      const auto at = static_cast<std::ptrdiff_t>((t - 1) * columns());
      std::copy_n(kept.h.begin() + at, width, own.h_above.begin());
      std::copy_n(kept.ins.begin() + at, width, own.ins_above.begin());
    }
    const std::size_t last = std::min(a_.size(), (t + 1) * kept.band);
    std::uint8_t* out = tb.buffers[k].get();
    const std::size_t stride = band_ ? tb_width() : width;
    for (std::size_t i = t * kept.band + 1; i <= last; ++i, out += stride) next_row(i, width, own, out);
  });
  tb.first = first;
  tb.count = count;
  tb.width = band_ ? tb_width() : width;
}

std::string GlobalAligner::trace(const Checkpoints& kept, std::uint8_t state, TracebackBands& tb,
                                 std::vector<Rows>& rows) const {
  std::string reversed_operations;
  std::size_t i = a_.size(), j = columns() - 1;
  while (i > 0 && j > 0) {
    const std::size_t t = (i - 1) / kept.band;
    if (!tb.holds(t)) rebuild_bands(kept, t, j + 1, tb, rows);  // no cell right of j is visited again
    std::size_t at = j;
    if (band_) {  // an optimal alignment never leaves the band
      const std::int64_t slot = band_->slot(i, j);
      if (slot < 1 || slot >= static_cast<std::int64_t>(tb_width()))
        throw std::logic_error("GlobalAligner: the traceback left the band at row " + std::to_string(i) + ", column " +
                               std::to_string(j));
      at = static_cast<std::size_t>(slot);
    }
    const std::uint8_t cell = tb.buffers[tb.first - t][(i - 1 - t * kept.band) * tb.width + at];
    if (state == kSourceMask) state = cell & kSourceMask;
    if (state == kFromM) {
      reversed_operations += 'M';
      --i;
      --j;
      state = kSourceMask;
    } else if (state == kFromI) {
      reversed_operations += 'I';
      --i;
      if (!(cell & kIExtends)) state = kSourceMask;
    } else {
      reversed_operations += 'D';
      --j;
      if (!(cell & kDExtends)) state = kSourceMask;
    }
  }
  reversed_operations.append(i, 'I');  // column 0: one gap down to the origin
  reversed_operations.append(j, 'D');  // row 0: one gap left to the origin
  return reversed_operations;
}

}  // namespace warpsearch::cpu::detail

#include "tools/progress_line.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tools/common_options.hpp"

namespace warpsearch::tools {

ProgressLine::ProgressLine(bool enabled) : enabled_(enabled && ::isatty(STDERR_FILENO)) {
  // For tests, which cannot wait a second per run: the delay before the first line.
  const char* delay = std::getenv("WARPSEARCH_PROGRESS_DELAY");
  double seconds = 0;
  if (delay != nullptr && parse_number(delay, seconds) && seconds >= 0) delay_seconds_ = seconds;
}

ProgressLine::~ProgressLine() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (drawn_) std::fputs("\n", stderr);
}

void ProgressLine::update(const SearchProgress& progress) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  state_ = progress;
  draw_locked(false);
}

void ProgressLine::written(std::size_t queries) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  written_ = queries;
  draw_locked(false);
}

void ProgressLine::finish() {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!drawn_) return;
  draw_locked(true);
  std::fputs("\n", stderr);
  drawn_ = false;
}

std::string duration_text(double seconds) {
  const auto whole = static_cast<long long>(std::llround(std::max(seconds, 0.0)));
  char text[48];
  if (whole >= 3600)
    std::snprintf(text, sizeof text, "%lld h %02lld min", whole / 3600, whole / 60 % 60);
  else if (whole >= 60)
    std::snprintf(text, sizeof text, "%lld min %02lld s", whole / 60, whole % 60);
  else
    std::snprintf(text, sizeof text, "%lld s", whole);
  return text;
}

void ProgressLine::draw_locked(bool force) {
  const auto now = Clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (!force && (elapsed < delay_seconds_ || (drawn_ && std::chrono::duration<double>(now - last_).count() < 0.25)))
    return;
  last_ = now;
  const SearchProgress& p = state_;
  const double total = static_cast<double>(std::max<std::size_t>(p.queries_total, 1));
  const double scanned = p.cells_total > 0 ? std::min(p.cells_done / p.cells_total, 1.0) : 0.0;
  const double aligned = static_cast<double>(p.queries_aligned) / total;
  // The share of the scan in the time of a batch: measured once a batch has been searched, else most
  // of it (an exhaustive scan dominates unless the queries have very many hits).
  const double measured = p.scan_seconds + p.align_seconds;
  const double scan_share = p.queries_done > 0 && measured > 0 ? p.scan_seconds / measured : 0.9;
  const double fraction = scan_share * scanned + (1.0 - scan_share) * aligned;
  std::string left = fraction > 0.001 ? duration_text(elapsed * (1.0 - fraction) / fraction) + " left" : "";
  if (force) left = duration_text(elapsed) + " in all";
  std::fprintf(stderr, "\r\033[K  scan %5.1f%%  %.1f GCUPS | queries aligned %zu/%zu, written %zu | %s",
               100.0 * scanned, elapsed > 0 ? p.cells_done / elapsed / 1e9 : 0.0, p.queries_aligned, p.queries_total,
               written_, left.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace warpsearch::tools

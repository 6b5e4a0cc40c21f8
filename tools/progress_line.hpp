// The one-line progress report of `warpsearch search` on stderr: the scan (percent of the cells, GCUPS),
// the queries whose hits are aligned and written, and the time left. Shown only on a terminal, from
// a short delay on (WARPSEARCH_PROGRESS_DELAY seconds, default 1), redrawn at most four times a second.
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

#include "search/warpsearch.hpp"

namespace warpsearch::tools {

class ProgressLine {
 public:
  // enabled: false for --quiet. Off as well when stderr is not a terminal.
  explicit ProgressLine(bool enabled);
  // Ends the line (the last state drawn stays on the terminal).
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Thread-safe: the engine reports from its own threads, the writer from the one that writes.
  void update(const SearchProgress& progress);
  void written(std::size_t queries);
  // Draws the final state (if anything was drawn) and ends the line: before other messages on stderr.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  void draw_locked(bool force);

  bool enabled_;
  bool drawn_ = false;
  double delay_seconds_ = 1.0;
  std::mutex mutex_;
  SearchProgress state_;
  std::size_t written_ = 0;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_ = start_;
};

// "1 h 02 min", "3 min 05 s", "12 s": a time left as the progress line prints it.
std::string duration_text(double seconds);

}  // namespace warpsearch::tools

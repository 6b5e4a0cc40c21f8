#include "search/hsps.hpp"

#include <algorithm>

#include "base/interrupt.hpp"

namespace warpsearch {
namespace {

struct Window {
  std::size_t request;
  std::uint64_t begin, end;
};

// The windows of region [begin, end) of a request (see the header): the region itself without hot
// columns, else one window per cluster of hot columns inside it. Regions too short to hold an alignment
// scoring the cutoff are dropped.
void add_windows(const HspRequest& request, std::size_t r, std::uint64_t begin, std::uint64_t end, int max_substitution,
                 std::vector<Window>& windows) {
  if (begin >= end) return;
  const auto can_reach = [&](std::uint64_t length) {
    const std::uint64_t pairs = std::min<std::uint64_t>(length, request.query.size());
    return static_cast<std::int64_t>(pairs) * max_substitution >= request.cutoff;
  };
  if (!request.hot) {
    if (can_reach(end - begin)) windows.push_back({r, begin, end});
    return;
  }
  const std::vector<cpu::ColumnRange>& hot = *request.hot;
  const std::uint64_t context = request.reach > 0 ? request.reach - 1 : 0;
  auto range = std::upper_bound(
      hot.begin(), hot.end(), begin,
      [](std::uint64_t position, const cpu::ColumnRange& hot_range) { return position < hot_range.end; });
  bool open = false;
  Window window{r, 0, 0};
  for (; range != hot.end() && range->begin < end; ++range) {
    const std::uint64_t first = std::max(range->begin, begin);
    const std::uint64_t last = std::min(range->end, end);  // one past
    const std::uint64_t start = first - begin > context ? first - context : begin;
    if (open && start <= window.end) {
      window.end = last;
      continue;
    }
    if (open && can_reach(window.end - window.begin)) windows.push_back(window);
    window = {r, start, last};
    open = true;
  }
  if (open && can_reach(window.end - window.begin)) windows.push_back(window);
}

bool better(const Span& a, const Span& b) {
  return a.score != b.score ? a.score > b.score : a.subject_begin < b.subject_begin;
}

}  // namespace

std::vector<std::vector<Span>> find_hsps(const std::vector<HspRequest>& requests, const LocateFunction& locate,
                                         int max_substitution) {
  std::vector<std::vector<Span>> hsps(requests.size());
  std::vector<Window> windows;
  for (std::size_t r = 0; r < requests.size(); ++r)
    add_windows(requests[r], r, 0, requests[r].subject.size(), max_substitution, windows);

  std::vector<HitPair> pairs;
  std::vector<Span> spans;
  for (bool first_round = true; !windows.empty(); first_round = false) {
    throw_if_interrupted();
    pairs.clear();
    for (const Window& w : windows)
      pairs.push_back({requests[w.request].query, requests[w.request].subject.substr(w.begin, w.end - w.begin),
                       std::max<std::int64_t>(requests[w.request].cutoff, 1)});
    locate(pairs, spans);
    std::vector<Window> next;
    if (first_round) {
      // Only the best window of each request when one HSP is wanted: the best of the whole subject.
      std::vector<std::size_t> best(requests.size(), windows.size());
      for (std::size_t k = 0; k < windows.size(); ++k) {
        std::size_t& b = best[windows[k].request];
        if (b == windows.size() || spans[k].score > spans[b].score) b = k;
      }
      for (std::size_t k = 0; k < windows.size(); ++k)
        if (requests[windows[k].request].max_hsps == 1 && best[windows[k].request] != k) spans[k].score = 0;
    }
    for (std::size_t k = 0; k < windows.size(); ++k) {
      const Window& w = windows[k];
      const HspRequest& request = requests[w.request];
      Span span = spans[k];
      if (span.score < std::max<std::int64_t>(request.cutoff, 1)) continue;
      span.subject_begin += static_cast<std::uint32_t>(w.begin);
      span.subject_end += static_cast<std::uint32_t>(w.begin);
      hsps[w.request].push_back(span);
      if (request.max_hsps == 1) continue;
      add_windows(request, w.request, w.begin, span.subject_begin, max_substitution, next);
      add_windows(request, w.request, span.subject_end, w.end, max_substitution, next);
    }
    windows.swap(next);
  }
  for (std::size_t r = 0; r < requests.size(); ++r) {
    auto& list = hsps[r];
    std::sort(list.begin(), list.end(), better);
    if (requests[r].max_hsps > 0 && list.size() > requests[r].max_hsps) list.resize(requests[r].max_hsps);
  }
  return hsps;
}

}  // namespace warpsearch

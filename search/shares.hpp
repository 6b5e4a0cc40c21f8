// Work split across GPUs: contiguous shares of items of about equal weight, so that neighbouring items
// (subjects of similar length, pairs in input order) stay on one GPU.
#pragma once

#include <cstddef>
#include <vector>

namespace warpsearch {

// Bounds of `parts` contiguous shares of items with these weights, of about equal weight: worker g takes
// items [bounds[g], bounds[g + 1]); bounds has parts + 1 entries.
inline std::vector<std::size_t> contiguous_shares(const std::vector<double>& weights, std::size_t parts) {
  double total = 0;
  for (const double weight : weights) total += weight;
  std::vector<std::size_t> bounds{0};
  double running = 0;
  for (std::size_t k = 0; k < weights.size() && bounds.size() < parts; ++k) {
    running += weights[k];
    if (running >= total / static_cast<double>(parts) * static_cast<double>(bounds.size())) bounds.push_back(k + 1);
  }
  while (bounds.size() <= parts) bounds.push_back(weights.size());
  return bounds;
}

}  // namespace warpsearch

// parallel_for: run task(i, worker) for i in [0, count) on `threads` threads, each taking the next
// unclaimed index. The first exception thrown by a task stops the others from claiming more work and is
// rethrown on the calling thread once all threads have joined.
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace warpsearch {

template <typename Task>
void parallel_for(std::size_t count, unsigned threads, Task&& task) {
  if (count == 0) return;
  const unsigned workers = static_cast<unsigned>(std::min<std::size_t>(std::max(threads, 1u), count));
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first_error;
  std::mutex error_mutex;
  auto work = [&](unsigned worker) {
    try {
      for (std::size_t i; !failed.load(std::memory_order_relaxed) && (i = next.fetch_add(1)) < count;) task(i, worker);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!first_error) first_error = std::current_exception();
      failed = true;
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work, w);
  work(0);
  for (auto& thread : pool) thread.join();
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace warpsearch

#include "base/host_threads.hpp"

#include <algorithm>

#include "base/usable_cpus.hpp"

namespace warpsearch {

HostThreads::~HostThreads() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& worker : workers_) worker.join();
}

void HostThreads::run(std::size_t count, std::size_t grain, std::uint64_t bytes, const ChunkFunction& fn) {
  grain = std::max<std::size_t>(1, grain);
  if (bytes < kParallelBytes || count <= grain) {
    participants_.store(1, std::memory_order_relaxed);
    if (count > 0) fn(0, count);
    return;
  }
  if (workers_.empty()) start();
  std::uint64_t run = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    task_ = &fn;
    count_ = count;
    grain_ = grain;
    done_.store(0, std::memory_order_relaxed);
    participants_.store(0, std::memory_order_relaxed);
    run = ++run_;
    claim_.store(run << kRunShift, std::memory_order_release);
  }
  wake_.notify_all();
  work(run, fn, count, grain);
  while (done_.load(std::memory_order_acquire) < count) std::this_thread::yield();
}

void HostThreads::start() {
  const unsigned threads = std::max(1u, std::min(max_threads_, usable_cpus()));
  for (unsigned t = 1; t < threads; ++t) workers_.emplace_back([this] { worker(); });
}

void HostThreads::work(std::uint64_t run, const ChunkFunction& fn, std::size_t count, std::size_t grain) {
  for (bool first = true;; first = false) {
    std::uint64_t word = claim_.load(std::memory_order_acquire);
    std::size_t begin = 0;
    do {
      begin = static_cast<std::size_t>(word & kIndexMask);
      if (word >> kRunShift != run || begin >= count) return;
    } while (!claim_.compare_exchange_weak(word, word + grain, std::memory_order_acq_rel));
    if (first) participants_.fetch_add(1, std::memory_order_relaxed);
    const std::size_t end = std::min(count, begin + grain);
    fn(begin, end);
    done_.fetch_add(end - begin, std::memory_order_release);
  }
}

void HostThreads::worker() {
  std::uint64_t seen = 0;
  for (;;) {
    const auto until = std::chrono::steady_clock::now() + kSpin;
    while (claim_.load(std::memory_order_acquire) >> kRunShift == seen && std::chrono::steady_clock::now() < until)
      std::this_thread::yield();
    const ChunkFunction* task = nullptr;
    std::size_t count = 0;
    std::size_t grain = 0;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || run_ != seen; });
      if (stop_) return;
      seen = run_;
      task = task_;
      count = count_;
      grain = grain_;
    }
    work(seen, *task, count, grain);
  }
}

}  // namespace warpsearch

// HostThreads: a fixed pool of host threads that runs fn(begin, end) over chunks of [0, count), the
// calling thread taking part; run() returns when every chunk is done. The workers start on the first
// parallel run and are joined by the destructor. fn must not throw. One run at a time (the owner's
// thread). Work of fewer than kParallelBytes bytes (the caller's estimate) runs on the calling thread.
//
// Built for latency (the GPU pair aligner's host passes): its align() runs several parallel passes of
// tens of microseconds before its first upload, and a sleeping thread takes tens to hundreds of
// microseconds to wake (on the H100 machine the calling thread did most of the first passes alone). So
// run() waits for the chunks, not for the workers (one still waking finds the run over and goes back to
// wait), and a worker spins (yielding) for kSpin after a run before it sleeps again: long enough to stay
// awake from one align() call to the next under a steady load, as OpenMP runtimes keep their threads
// (Intel's: 200 ms). A chunk is claimed by compare-and-swap on one word holding the run's number and the
// next index, so that a worker late for one run can claim nothing of the next. For plain loops over
// independent tasks, base/parallel.hpp's parallel_for is simpler.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace warpsearch {

class HostThreads {
 public:
  // Work below this many bytes runs on the calling thread.
  static constexpr std::uint64_t kParallelBytes = std::uint64_t{1} << 20;
  using ChunkFunction = std::function<void(std::size_t, std::size_t)>;

  // At most max_threads threads, the caller's included (and at most the hardware's).
  explicit HostThreads(unsigned max_threads = 16) : max_threads_(max_threads) {}
  HostThreads(const HostThreads&) = delete;
  HostThreads& operator=(const HostThreads&) = delete;
  ~HostThreads();

  // fn(begin, end) over chunks of `grain` items of [0, count); `bytes`: the work's size, for the
  // decision to run it in parallel.
  void run(std::size_t count, std::size_t grain, std::uint64_t bytes, const ChunkFunction& fn);
  // Threads that ran chunks of the last run, the caller included (for traces).
  unsigned last_participants() const { return participants_.load(std::memory_order_relaxed); }

 private:
  static constexpr int kRunShift = 40;  // claim_: run number above, next index below (< 2^40)
  static constexpr std::uint64_t kIndexMask = (std::uint64_t{1} << kRunShift) - 1;
  static constexpr std::chrono::milliseconds kSpin{20};

  void start();
  // Claims and runs chunks of run `run` until none is left (or another run has begun).
  void work(std::uint64_t run, const ChunkFunction& fn, std::size_t count, std::size_t grain);
  void worker();

  unsigned max_threads_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<std::thread> workers_;
  // The current run, written under the mutex.
  const ChunkFunction* task_ = nullptr;
  std::size_t count_ = 0;
  std::size_t grain_ = 1;
  std::uint64_t run_ = 0;
  bool stop_ = false;
  std::atomic<std::uint64_t> claim_{0};
  std::atomic<std::size_t> done_{0};  // items of the current run done
  std::atomic<unsigned> participants_{0};
};

}  // namespace warpsearch

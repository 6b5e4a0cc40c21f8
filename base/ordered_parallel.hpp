// ordered_parallel: produce(i, slot) for i in [0, count) on `threads` threads, and consume(i, slot) for
// every i in increasing order on the calling thread, each after its produce(i, slot) has returned.
// slot = i % slots names the caller's buffer that item i is produced into and consumed from: at most
// `slots` items are produced and not yet consumed at any time, which bounds the memory of a pipeline
// whose items are large (makedb's input blocks and residue windows). The calling thread is one of the
// `threads`: when the next item to consume is not ready it produces one itself, so threads == 1 runs
// produce and consume alternately on the calling thread, with no other thread started.
//
// What consume writes depends only on the order of the items, never on the number of threads: a
// pipeline whose produce(i) depends only on i gives the same output for any thread count.
//
// The first exception thrown by produce or consume stops the claiming of further items and is
// rethrown on the calling thread once every worker has joined.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace warpsearch {

template <typename Produce, typename Consume>
void ordered_parallel(std::size_t count, unsigned threads, std::size_t slots, Produce&& produce, Consume&& consume) {
  if (count == 0) return;
  slots = std::max<std::size_t>(slots, 1);
  threads = static_cast<unsigned>(std::min<std::size_t>(std::max(threads, 1u), std::min(count, slots)));
  std::mutex mutex;
  std::condition_variable changed;
  std::size_t next = 0;                         // the next item to claim
  std::size_t consumed = 0;                     // items consumed
  std::vector<std::size_t> produced(slots, 0);  // slot -> 1 + the item produced into it, 0 for none
  std::exception_ptr error;
  // Claims the next item if its slot is free; under the lock.
  const auto claim = [&](std::size_t* item) {
    if (error || next >= count || next >= consumed + slots) return false;
    *item = next++;
    return true;
  };
  const auto fail = [&](std::exception_ptr failure) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!error) error = failure;
    changed.notify_all();
  };
  const auto produce_one = [&](std::size_t item) {
    produce(item, item % slots);
    std::lock_guard<std::mutex> lock(mutex);
    produced[item % slots] = item + 1;
    changed.notify_all();
  };
  const auto worker = [&] {
    try {
      for (;;) {
        std::size_t item = 0;
        bool claimed = false;
        {
          std::unique_lock<std::mutex> lock(mutex);
          changed.wait(lock, [&] { return error || next >= count || (claimed = claim(&item)); });
          if (!claimed) return;
        }
        produce_one(item);
      }
    } catch (...) {
      fail(std::current_exception());
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  try {
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
    while (consumed < count) {
      std::size_t item = 0;
      bool ready = false, claimed = false;
      {
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [&] {
          if (error) return true;
          ready = produced[consumed % slots] == consumed + 1;
          claimed = !ready && claim(&item);
          return ready || claimed;
        });
        if (error) break;
      }
      if (claimed) {
        produce_one(item);
        continue;
      }
      consume(consumed, consumed % slots);
      std::lock_guard<std::mutex> lock(mutex);
      ++consumed;
      changed.notify_all();
    }
  } catch (...) {
    fail(std::current_exception());
  }
  {
    // Wakes workers waiting for a free slot when the last item has been claimed.
    std::lock_guard<std::mutex> lock(mutex);
    changed.notify_all();
  }
  for (std::thread& thread : pool) thread.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace warpsearch

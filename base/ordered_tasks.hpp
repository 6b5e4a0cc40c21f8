// OrderedTasks: tasks submitted one at a time run on a pool of threads, and their results are consumed
// in the order of submission, one at a time: a stream whose slow step (formatting a query's report) runs
// in parallel while what it writes stays in order. consume() runs on the pool thread that finishes the
// task next in order (never on two threads at once). At most `window` tasks are submitted and not yet
// consumed: submit() waits for room, which bounds the memory of results waiting for their turn.
//
// The first exception a task or consume() throws stops the stream; submit() and finish() rethrow it.
// Destroying the object without finish() stops the pool and drops what was not consumed.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace warpsearch {

template <class Result>
class OrderedTasks {
 public:
  using Task = std::function<Result()>;
  using Consume = std::function<void(Result&)>;

  OrderedTasks(unsigned threads, std::size_t window, Consume consume)
      : consume_(std::move(consume)), window_(std::max<std::size_t>(window, 1)) {
    for (unsigned t = 0; t < std::max(threads, 1u); ++t) pool_.emplace_back([this] { work(); });
  }
  OrderedTasks(const OrderedTasks&) = delete;
  OrderedTasks& operator=(const OrderedTasks&) = delete;
  ~OrderedTasks() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    for (std::thread& thread : pool_) thread.join();
  }

  void submit(Task task) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return error_ || items_.size() < window_; });
    if (error_) std::rethrow_exception(error_);
    items_.push_back({std::move(task), std::nullopt});
    changed_.notify_all();
  }

  // Waits until every submitted task's result is consumed.
  void finish() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return error_ || (items_.empty() && !consuming_); });
    if (error_) std::rethrow_exception(error_);
  }

 private:
  struct Item {
    Task task;
    std::optional<Result> result;
  };

  void work() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      changed_.wait(lock, [&] { return stopping_ || error_ || next_run_ < first_ + items_.size(); });
      if (stopping_ || error_) return;
      const std::size_t number = next_run_++;
      Task task = std::move(items_[number - first_].task);
      lock.unlock();
      try {
        Result result = task();
        lock.lock();
        items_[number - first_].result.emplace(std::move(result));
        consume_ready(lock);
      } catch (...) {
        if (!lock.owns_lock()) lock.lock();
        if (!error_) error_ = std::current_exception();
        consuming_ = false;
        changed_.notify_all();
        return;
      }
    }
  }

  // Consumes the results that are next in order, unless another thread is at it; under the lock, which
  // it releases while consume() runs.
  void consume_ready(std::unique_lock<std::mutex>& lock) {
    if (consuming_) return;
    consuming_ = true;
    while (!error_ && !items_.empty() && items_.front().result) {
      Result result = std::move(*items_.front().result);
      items_.pop_front();
      ++first_;
      lock.unlock();
      consume_(result);
      lock.lock();
      changed_.notify_all();  // room for submit()
    }
    consuming_ = false;
    changed_.notify_all();
  }

  Consume consume_;
  std::size_t window_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Item> items_;    // submitted and not consumed; items_[0] is task number first_
  std::size_t first_ = 0;     // the next task to consume
  std::size_t next_run_ = 0;  // the next task to run
  bool consuming_ = false;    // a thread is in consume_ready()
  bool stopping_ = false;
  std::exception_ptr error_;
  std::vector<std::thread> pool_;
};

}  // namespace warpsearch

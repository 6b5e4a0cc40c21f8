// OrderedTasks: results consumed in submission order whatever order the tasks finish in, one consume at
// a time, at most `window` waiting; the first exception stops the stream and reaches the submitter.
#include <atomic>
#include <chrono>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "base/ordered_tasks.hpp"
#include "tests/catch.hpp"

namespace ws = warpsearch;

TEST_CASE("ordered tasks: results in submission order, one consumer at a time, a bounded window", "[base][ordered]") {
  for (unsigned threads : {1u, 3u, 8u}) {
    std::vector<int> consumed;
    std::atomic<int> consuming{0}, most_consuming{0}, running{0}, most_in_flight{0};
    std::atomic<int> submitted_not_consumed{0};
    const std::size_t window = 5;
    ws::OrderedTasks<int> tasks(threads, window, [&](int& value) {
      most_consuming = std::max(most_consuming.load(), ++consuming);
      consumed.push_back(value);
      --submitted_not_consumed;
      --consuming;
    });
    std::mt19937 random(threads);
    for (int i = 0; i < 200; ++i) {
      const int pause = static_cast<int>(random() % 300);
      most_in_flight = std::max(most_in_flight.load(), ++submitted_not_consumed);
      tasks.submit([&, i, pause] {
        ++running;
        std::this_thread::sleep_for(std::chrono::microseconds(pause));  // finish out of order
        --running;
        return i * 3;
      });
    }
    tasks.finish();
    INFO("threads " << threads);
    REQUIRE(consumed.size() == 200);
    for (int i = 0; i < 200; ++i) CHECK(consumed[static_cast<std::size_t>(i)] == i * 3);
    CHECK(most_consuming == 1);
    // Counted before submit() waits for room, and until consume() is done with a result it has taken.
    CHECK(most_in_flight <= static_cast<int>(window) + 2);
  }
}

TEST_CASE("ordered tasks: a task's exception stops the stream and is rethrown", "[base][ordered]") {
  std::vector<int> consumed;
  ws::OrderedTasks<int> tasks(4, 8, [&](int& value) { consumed.push_back(value); });
  const auto submit_all = [&] {
    for (int i = 0; i < 100; ++i)
      tasks.submit([i] {
        if (i == 30) throw std::runtime_error("task 30 failed");
        return i;
      });
    tasks.finish();
  };
  CHECK_THROWS_WITH(submit_all(), "task 30 failed");
  CHECK(consumed.size() <= 30);  // nothing after the failed task is consumed
  for (std::size_t i = 0; i < consumed.size(); ++i) CHECK(consumed[i] == static_cast<int>(i));
}

TEST_CASE("ordered tasks: a consumer's exception is rethrown; destruction without finish() drops the rest",
          "[base][ordered]") {
  {
    ws::OrderedTasks<int> tasks(2, 4, [](int& value) {
      if (value == 3) throw std::runtime_error("cannot write 3");
    });
    const auto submit_all = [&] {
      for (int i = 0; i < 50; ++i) tasks.submit([i] { return i; });
      tasks.finish();
    };
    CHECK_THROWS_WITH(submit_all(), "cannot write 3");
  }
  std::atomic<int> consumed{0};
  {
    ws::OrderedTasks<int> tasks(2, 64, [&](int&) { ++consumed; });
    for (int i = 0; i < 20; ++i)
      tasks.submit([] {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        return 0;
      });
  }  // joins its threads without waiting for every task
  CHECK(consumed <= 20);
}

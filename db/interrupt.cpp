#include "db/interrupt.hpp"

#include <signal.h>

#include <atomic>
#include <cstring>
#include <string>

namespace warpsearch {
namespace {

std::atomic<int> g_pending_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs a lock-free flag");

extern "C" void record_signal(int signal_number) {
  g_pending_signal.store(signal_number, std::memory_order_relaxed);
}

std::string describe(int signal_number) {
  const char* name = signal_number == SIGINT    ? "SIGINT"
                     : signal_number == SIGTERM ? "SIGTERM"
                                                : nullptr;
  return std::string("interrupted by ") +
         (name != nullptr ? name : "signal " + std::to_string(signal_number));
}

}  // namespace

Interrupted::Interrupted(int signal_number)
    : std::runtime_error(describe(signal_number)), signal_number_(signal_number) {}

void install_interrupt_handlers() {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = record_signal;
  sigemptyset(&action.sa_mask);
  // SA_RESETHAND: the second signal takes the default action. No SA_RESTART needed: blocking reads
  // interrupted by EINTR are retried by their callers.
  action.sa_flags = SA_RESETHAND;
  for (int signal_number : {SIGINT, SIGTERM}) sigaction(signal_number, &action, nullptr);
}

int pending_interrupt() noexcept { return g_pending_signal.load(std::memory_order_relaxed); }

void throw_if_interrupted() {
  const int signal_number = pending_interrupt();
  if (signal_number != 0) throw Interrupted(signal_number);
}

void clear_interrupt() noexcept { g_pending_signal.store(0, std::memory_order_relaxed); }

}  // namespace warpsearch

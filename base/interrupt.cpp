#include "base/interrupt.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace warpsearch {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};

std::atomic<int> g_pending_signal{0};
std::atomic<int> g_wake_fd{-1};  // the watchdog's pipe, written by the handler
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free flags");

extern "C" void record_signal(int signal_number) {
  const int saved_errno = errno;
  int none = 0;
  // The first signal is the one reported; later ones only wake the watchdog.
  g_pending_signal.compare_exchange_strong(none, signal_number, std::memory_order_relaxed);
  const int fd = g_wake_fd.load(std::memory_order_relaxed);
  if (fd >= 0) {
    const char byte = 1;
    (void)!::write(fd, &byte, 1);
  }
  errno = saved_errno;
}

const char* signal_name(int signal_number) {
  switch (signal_number) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    case SIGPIPE: return "SIGPIPE";
    default: return nullptr;
  }
}

std::string describe(int signal_number) {
  const char* name = signal_name(signal_number);
  return std::string("interrupted by ") + (name != nullptr ? name : "signal " + std::to_string(signal_number));
}

void install(bool reset_after_first) {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = record_signal;
  sigemptyset(&action.sa_mask);
  // No SA_RESTART: blocking reads interrupted by EINTR return to their callers, which poll the flag.
  action.sa_flags = reset_after_first ? SA_RESETHAND : 0;
  for (int signal_number : kSignals) sigaction(signal_number, &action, nullptr);
}

// Never destroyed: the watchdog may use it while the main thread runs static destructors in exit().
struct Registry {
  std::mutex mutex;
  std::vector<std::string> paths;
  std::string program;
  std::chrono::milliseconds grace{0};
  bool armed = false;
};
Registry& registry() {
  static Registry* const instance = new Registry;
  return *instance;
}

[[noreturn]] void remove_temporaries_and_exit(int signal_number) {
  Registry& r = registry();
  r.mutex.lock();  // held until the end: no commit can start
  for (const std::string& path : r.paths) {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  const std::string line = r.program + ": interrupted by signal " + std::to_string(signal_number) + "\n";
  (void)!::write(STDERR_FILENO, line.data(), line.size());
  std::_Exit(128 + signal_number);
}

void watch(int wake_fd, std::chrono::milliseconds grace) {
  char byte;
  for (;;) {  // the first signal
    const ssize_t n = ::read(wake_fd, &byte, 1);
    if (n == 1) break;
    if (n < 0 && errno == EINTR) continue;
    return;
  }
  // The program has the grace period to unwind and exit by itself; a second signal cuts it short.
  const auto deadline = std::chrono::steady_clock::now() + grace;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd wake{wake_fd, POLLIN, 0};
    const int ready = ::poll(&wake, 1, static_cast<int>(left.count()));
    if (ready > 0 && ::read(wake_fd, &byte, 1) == 1) break;
  }
  remove_temporaries_and_exit(pending_interrupt() != 0 ? pending_interrupt() : SIGTERM);
}

}  // namespace

Interrupted::Interrupted(int signal_number)
    : std::runtime_error(describe(signal_number)), signal_number_(signal_number) {}

void install_interrupt_handlers() {
  std::lock_guard<std::mutex> lock(registry().mutex);
  install(!registry().armed);
}

void arm_interrupt_deadline(const std::string& program, std::chrono::milliseconds grace) {
  Registry& r = registry();
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    if (r.armed) return;
    r.armed = true;
    r.program = program;
    r.grace = grace;
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  // The handler never blocks: a full pipe (thousands of signals) already woke the watchdog.
  ::fcntl(fds[1], F_SETFL, ::fcntl(fds[1], F_GETFL) | O_NONBLOCK);
  // The watchdog runs with the signals blocked, so that they reach (and interrupt) the working threads.
  sigset_t blocked, previous;
  sigemptyset(&blocked);
  for (int signal_number : kSignals) sigaddset(&blocked, signal_number);
  pthread_sigmask(SIG_BLOCK, &blocked, &previous);
  std::thread(watch, fds[0], grace).detach();
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  g_wake_fd.store(fds[1], std::memory_order_relaxed);
  install(false);
  // A signal that came before the pipe existed.
  if (pending_interrupt() != 0) record_signal(pending_interrupt());
}

int pending_interrupt() noexcept { return g_pending_signal.load(std::memory_order_relaxed); }

void throw_if_interrupted() {
  const int signal_number = pending_interrupt();
  if (signal_number != 0) throw Interrupted(signal_number);
}

void clear_interrupt() noexcept { g_pending_signal.store(0, std::memory_order_relaxed); }

void register_temporary(const std::string& path) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  registry().paths.push_back(path);
}

void unregister_temporary(const std::string& path) noexcept {
  std::lock_guard<std::mutex> lock(registry().mutex);
  auto& paths = registry().paths;
  const auto found = std::find(paths.begin(), paths.end(), path);
  if (found != paths.end()) paths.erase(found);
}

void commit_unless_interrupted(const std::string& temporary, const std::function<void()>& step) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  throw_if_interrupted();
  step();
  auto& paths = registry().paths;
  const auto found = std::find(paths.begin(), paths.end(), temporary);
  if (found != paths.end()) paths.erase(found);
}

}  // namespace warpsearch

// Orderly interruption by SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE.
//
// The handlers only record the signal; long loops call throw_if_interrupted() at safe points, and the
// exception unwinds through the RAII owners of temporary files and directories, which remove them.
// main() maps Interrupted to the exit status 128 + signal, as a shell does for a killed process.
//
// A loop that does not poll (one long alignment inside a kernel, a read blocked on a pipe) would delay
// that unwinding without bound, so a program may also arm a deadline (arm_interrupt_deadline): a
// watchdog thread then removes every temporary path registered here and ends the process with
// 128 + signal once the grace period after the first signal has passed, or at once on a second signal.
// Temporary paths are registered by their owners (AtomicFile, AtomicDirectory) for that purpose.
#pragma once

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>

namespace warpsearch {

class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int signal_number);
  int signal_number() const noexcept { return signal_number_; }

 private:
  int signal_number_;
};

// Installs the handlers of SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE (idempotent). Without an armed
// deadline, a second signal of the same kind gets the default action, so an impatient user can still
// kill the process at once.
void install_interrupt_handlers();

// Installs the handlers and starts the watchdog described above (idempotent; the first call's values
// stay). program names the process in the line the watchdog writes on stderr ("warpsearch search").
// For programs only: the watchdog ends the whole process.
void arm_interrupt_deadline(const std::string& program, std::chrono::milliseconds grace);

// The signal received since the handlers were installed (or the last clear_interrupt()), else 0.
int pending_interrupt() noexcept;

// Throws Interrupted when a signal is pending. Cheap (one atomic load): call it in long loops.
void throw_if_interrupted();

// Forgets a pending signal (tests, and programs that handle one interruption and go on).
void clear_interrupt() noexcept;

// Temporary files and directories the watchdog removes (with their contents) before it ends the
// process. Thread-safe.
void register_temporary(const std::string& path);
void unregister_temporary(const std::string& path) noexcept;

// Runs step (the rename that makes an output appear) unless a signal is pending, in which case it
// throws Interrupted; the watchdog waits for the step, so an output appears only when no signal came
// before it, and the temporary path is unregistered as part of it.
void commit_unless_interrupted(const std::string& temporary, const std::function<void()>& step);

}  // namespace warpsearch

// Shared by the libFuzzer targets: a scratch directory for the files the readers under test open
// (they take paths, not bytes), and writing the fuzzer's bytes there.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

namespace warpsearch::fuzz {

// One directory per process, in memory where possible, removed at exit.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    path_ = (std::filesystem::exists("/dev/shm") ? std::string("/dev/shm")
                                                 : std::filesystem::temp_directory_path().string()) +
            "/warpsearch-fuzz-XXXXXX";
    if (::mkdtemp(path_.data()) == nullptr) std::abort();
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline const std::string& scratch_directory() {
  static const ScratchDirectory directory;
  return directory.path();
}

inline void write_bytes(const std::string& path, const std::uint8_t* data, std::size_t size) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, file) != size) std::abort();
  if (std::fclose(file) != 0) std::abort();
}

}  // namespace warpsearch::fuzz

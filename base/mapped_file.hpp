// A read-only memory mapping of a whole file. Move-only; the mapping lives as long as the object.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace warpsearch {

class MappedFile {
 public:
  MappedFile() = default;
  // Maps path read-only. Throws std::runtime_error naming the path. An empty file maps to
  // data() == nullptr, size() == 0.
  explicit MappedFile(const std::string& path);
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  const unsigned char* data() const { return static_cast<const unsigned char*>(data_); }
  std::size_t size() const { return size_; }
  std::string_view view() const { return {static_cast<const char*>(data_), size_}; }
  const std::string& path() const { return path_; }

 private:
  void unmap() noexcept;
  void* data_ = nullptr;
  std::size_t size_ = 0;
  std::string path_;
};

}  // namespace warpsearch

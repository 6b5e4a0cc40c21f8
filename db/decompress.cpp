#include "db/decompress.hpp"

#include <bzlib.h>
#include <lzma.h>
#include <zstd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <stdexcept>

namespace warpsearch {
namespace {

std::runtime_error truncated(const std::string& name, const char* format, std::uint64_t offset) {
  return std::runtime_error(name + ": truncated " + format + " stream: the compressed data ends at byte " +
                            std::to_string(offset) + " in the middle of a stream; expected more compressed data");
}

std::runtime_error corrupt(const std::string& name, const char* format, std::uint64_t offset, const std::string& why) {
  return std::runtime_error(name + ": corrupt " + format + " data near compressed byte " + std::to_string(offset) +
                            ": " + why + "; expected a valid " + format + " stream");
}

std::string bzip2_error(int status) {
  switch (status) {
    case BZ_DATA_ERROR: return "the data fail bzip2's integrity check";
    case BZ_DATA_ERROR_MAGIC: return "a stream does not start with bzip2's magic bytes";
    case BZ_MEM_ERROR: return "out of memory";
    default: return "libbz2 error " + std::to_string(status);
  }
}

std::string xz_error(lzma_ret status) {
  switch (status) {
    case LZMA_DATA_ERROR: return "the compressed data are damaged";
    case LZMA_FORMAT_ERROR: return "not an xz stream";
    case LZMA_OPTIONS_ERROR: return "unsupported xz options";
    case LZMA_MEM_ERROR: return "out of memory";
    default: return "liblzma error " + std::to_string(static_cast<int>(status));
  }
}

class Bzip2Decoder final : public StreamDecoder {
 public:
  explicit Bzip2Decoder(std::string name) : name_(std::move(name)) {}
  ~Bzip2Decoder() override {
    if (in_stream_) BZ2_bzDecompressEnd(&stream_);
  }

  std::size_t decode(const unsigned char*& in, std::size_t* in_size, unsigned char* out, std::size_t capacity,
                     bool at_end) override {
    std::size_t produced = 0;
    while (produced < capacity) {
      if (!in_stream_) {
        if (*in_size == 0) break;
        // A new stream: the first one, or one more of a concatenation (pbzip2 writes many).
        stream_ = bz_stream{};
        if (BZ2_bzDecompressInit(&stream_, 0, 0) != BZ_OK)
          throw std::runtime_error(name_ + ": cannot initialise libbz2");
        in_stream_ = true;
      }
      const auto given = static_cast<unsigned>(std::min<std::size_t>(*in_size, UINT_MAX));
      const auto room = static_cast<unsigned>(std::min<std::size_t>(capacity - produced, UINT_MAX));
      stream_.next_in = const_cast<char*>(reinterpret_cast<const char*>(in));
      stream_.avail_in = given;
      stream_.next_out = reinterpret_cast<char*>(out + produced);
      stream_.avail_out = room;
      const int status = BZ2_bzDecompress(&stream_);
      const std::size_t used = given - stream_.avail_in, written = room - stream_.avail_out;
      in += used;
      *in_size -= used;
      consumed_ += used;
      produced += written;
      if (status == BZ_STREAM_END) {
        BZ2_bzDecompressEnd(&stream_);
        in_stream_ = false;
        continue;
      }
      if (status != BZ_OK) throw corrupt(name_, "bzip2", consumed_, bzip2_error(status));
      if (used == 0 && written == 0) break;
    }
    if (produced == 0 && at_end && *in_size == 0 && in_stream_) throw truncated(name_, "bzip2", consumed_);
    return produced;
  }

 private:
  std::string name_;
  bz_stream stream_{};
  bool in_stream_ = false;
  std::uint64_t consumed_ = 0;
};

class XzDecoder final : public StreamDecoder {
 public:
  explicit XzDecoder(std::string name) : name_(std::move(name)) {
    if (lzma_stream_decoder(&stream_, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
      throw std::runtime_error(name_ + ": cannot initialise liblzma");
  }
  ~XzDecoder() override { lzma_end(&stream_); }

  std::size_t decode(const unsigned char*& in, std::size_t* in_size, unsigned char* out, std::size_t capacity,
                     bool at_end) override {
    std::size_t produced = 0;
    while (!finished_ && produced < capacity) {
      stream_.next_in = in;
      stream_.avail_in = *in_size;
      stream_.next_out = out + produced;
      stream_.avail_out = capacity - produced;
      // LZMA_CONCATENATED ends only when told that no input follows.
      const lzma_ret status = lzma_code(&stream_, at_end ? LZMA_FINISH : LZMA_RUN);
      const std::size_t used = *in_size - stream_.avail_in, written = capacity - produced - stream_.avail_out;
      in += used;
      *in_size -= used;
      produced += written;
      if (status == LZMA_STREAM_END) {
        finished_ = true;
        break;
      }
      if (status == LZMA_BUF_ERROR) {
        if (at_end) throw truncated(name_, "xz", stream_.total_in);
        break;
      }
      if (status != LZMA_OK) throw corrupt(name_, "xz", stream_.total_in, xz_error(status));
      if (used == 0 && written == 0) {
        if (at_end) throw truncated(name_, "xz", stream_.total_in);
        break;
      }
    }
    return produced;
  }

 private:
  std::string name_;
  lzma_stream stream_ = LZMA_STREAM_INIT;
  bool finished_ = false;
};

class ZstdDecoder final : public StreamDecoder {
 public:
  explicit ZstdDecoder(std::string name) : name_(std::move(name)), context_(ZSTD_createDCtx()) {
    if (context_ == nullptr) throw std::runtime_error(name_ + ": cannot initialise libzstd");
  }
  ~ZstdDecoder() override { ZSTD_freeDCtx(context_); }

  std::size_t decode(const unsigned char*& in, std::size_t* in_size, unsigned char* out, std::size_t capacity,
                     bool at_end) override {
    std::size_t produced = 0;
    while (produced < capacity) {
      const std::size_t room = capacity - produced;
      ZSTD_inBuffer input{in, *in_size, 0};
      ZSTD_outBuffer output{out + produced, room, 0};
      const std::size_t status = ZSTD_decompressStream(context_, &output, &input);
      if (ZSTD_isError(status)) throw corrupt(name_, "zstd", consumed_, ZSTD_getErrorName(status));
      in += input.pos;
      *in_size -= input.pos;
      consumed_ += input.pos;
      produced += output.pos;
      if (input.pos == 0 && output.pos == 0) break;
      // 0: a frame ended exactly here; another may follow (zstd's frames concatenate).
      in_frame_ = status != 0;
      if (*in_size == 0 && output.pos < room) break;  // all input used, all output flushed
    }
    if (produced == 0 && at_end && *in_size == 0 && in_frame_) throw truncated(name_, "zstd", consumed_);
    return produced;
  }

 private:
  std::string name_;
  ZSTD_DCtx* context_;
  bool in_frame_ = false;
  std::uint64_t consumed_ = 0;
};

}  // namespace

Compression detect_compression(const unsigned char* data, std::size_t size) {
  auto starts = [&](std::initializer_list<unsigned char> magic) {
    return size >= magic.size() && std::equal(magic.begin(), magic.end(), data);
  };
  if (starts({0x1F, 0x8B})) return Compression::gzip;
  if (starts({'B', 'Z', 'h'})) return Compression::bzip2;
  if (starts({0xFD, '7', 'z', 'X', 'Z', 0x00})) return Compression::xz;
  if (starts({0x28, 0xB5, 0x2F, 0xFD})) return Compression::zstd;
  return Compression::none;
}

const char* compression_name(Compression compression) {
  switch (compression) {
    case Compression::none: return "uncompressed";
    case Compression::gzip: return "gzip";
    case Compression::bzip2: return "bzip2";
    case Compression::xz: return "xz";
    case Compression::zstd: return "zstd";
  }
  return "unknown";
}

std::unique_ptr<StreamDecoder> make_decoder(Compression compression, const std::string& name) {
  switch (compression) {
    case Compression::bzip2: return std::make_unique<Bzip2Decoder>(name);
    case Compression::xz: return std::make_unique<XzDecoder>(name);
    case Compression::zstd: return std::make_unique<ZstdDecoder>(name);
    default: throw std::invalid_argument(std::string("no stream decoder for ") + compression_name(compression));
  }
}

}  // namespace warpsearch

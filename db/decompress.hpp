// Streaming decoders for the compressed inputs the FASTA reader accepts beside gzip: bzip2, xz and
// zstd, recognised by their magic bytes (never by the file name).
//
//   bzip2  "BZh" (42 5A 68)            libbz2
//   xz     FD 37 7A 58 5A 00           liblzma
//   zstd   28 B5 2F FD                 libzstd
//
// Concatenated streams (pbzip2, `cat a.xz b.xz`, zstd's independent frames) decode as one stream.
// Errors are std::runtime_error naming the input (display name), the format and the compressed offset.
//
// Thread safety: none; one decoder per stream. Move-only through unique_ptr.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace warpsearch {

enum class Compression { none, gzip, bzip2, xz, zstd };

// The compression whose magic bytes start data (size bytes available; 6 suffice).
Compression detect_compression(const unsigned char* data, std::size_t size);
const char* compression_name(Compression compression);  // "bzip2", ...

class StreamDecoder {
 public:
  virtual ~StreamDecoder() = default;
  // Decodes from in[0..*in_size) into out[0..capacity): consumes input (advances in, lowers *in_size)
  // and returns the bytes written. at_end: no input follows what is given; then a stream cut short
  // throws. Returns 0 only when the input is used up (or at the end).
  virtual std::size_t decode(const unsigned char*& in, std::size_t* in_size, unsigned char* out, std::size_t capacity,
                             bool at_end) = 0;
};

// A decoder for bzip2, xz or zstd; name: the input as errors name it.
std::unique_ptr<StreamDecoder> make_decoder(Compression compression, const std::string& name);

}  // namespace warpsearch

// User-supplied text (IDs, header lines, paths, the content of a matrix or pairs file) as it may appear
// in a message on a terminal: at most a bounded prefix, and no byte that a terminal would act on.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace warpsearch {

// Bytes of user text a message shows at most.
constexpr std::size_t kExcerptBytes = 200;

// text with control bytes (C0, DEL, and the C1 controls U+0080..U+009F) and bytes that are not valid
// UTF-8 written as \xNN (\t, \n, \r as such), and, when it is longer than max_bytes, its first
// max_bytes bytes (whole UTF-8 characters) followed by "...(N bytes)". Valid UTF-8 letters stay.
std::string printable_excerpt(std::string_view text, std::size_t max_bytes = kExcerptBytes);

// The same in single quotes: 'TEXT'.
std::string quoted_excerpt(std::string_view text, std::size_t max_bytes = kExcerptBytes);

}  // namespace warpsearch

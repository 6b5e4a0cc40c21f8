#include "cluster/messages.hpp"

#include <cmath>

namespace warpsearch::distributed {

void put_key(Writer& out, const CandidateKey& key) {
  out.put<std::int32_t>(key.score);
  out.put<double>(key.evalue);
  out.put<std::uint64_t>(key.subject);
  out.put<std::uint8_t>(static_cast<std::uint8_t>(key.strand));
}

CandidateKey get_key(Reader& in) {
  CandidateKey key;
  key.score = in.get<std::int32_t>();
  key.evalue = in.get<double>();
  key.subject = in.get<std::uint64_t>();
  key.strand = static_cast<Strand>(in.get<std::uint8_t>());
  return key;
}

void put_hit(Writer& out, const Hit& hit) {
  out.put(hit.subject);
  out.put(hit.subject_length);
  out.put(static_cast<std::uint8_t>(hit.strand));
  out.put<std::int32_t>(hit.score);
  out.put(hit.evalue);
  out.put(hit.bitscore);
  for (std::uint32_t value : {hit.query_begin, hit.query_end, hit.subject_begin, hit.subject_end, hit.identities,
                              hit.mismatches, hit.gap_opens, hit.gaps})
    out.put(value);
  out.put_string(hit.operations);
  out.put_string(hit.subject_aligned_codes);
}

Hit get_hit(Reader& in) {
  Hit hit;
  hit.subject = in.get<std::uint64_t>();
  hit.subject_length = in.get<std::uint32_t>();
  hit.strand = static_cast<Strand>(in.get<std::uint8_t>());
  hit.score = in.get<std::int32_t>();
  hit.evalue = in.get<double>();
  hit.bitscore = in.get<double>();
  for (std::uint32_t* value : {&hit.query_begin, &hit.query_end, &hit.subject_begin, &hit.subject_end, &hit.identities,
                               &hit.mismatches, &hit.gap_opens, &hit.gaps})
    *value = in.get<std::uint32_t>();
  hit.operations = in.get_string();
  hit.subject_aligned_codes = in.get_string();
  return hit;
}

CandidateKey key_of(const Hit& hit) {
  return {hit.score, std::isnan(hit.evalue) ? 0.0 : hit.evalue, hit.subject, hit.strand};
}

}  // namespace warpsearch::distributed

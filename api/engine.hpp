// The bridge between the public API (include/warpsearch/) and the engine it wraps.
//
// The public types live in warpsearch::v0, an inline namespace, so that programs name them
// warpsearch::Database, warpsearch::SearchOptions...; the engine's own types of those names live in
// warpsearch itself. Once both are declared, `warpsearch::Database` is ambiguous; so this header, which
// every api/ source includes FIRST (before any <warpsearch/...> header), captures the engine's names in
// warpsearch::engine while they are still the only ones. The api/ sources then say engine::Database for
// the engine's and Database (inside namespace v0) for the public one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/alphabet.hpp"
#include "db/database.hpp"
#include "db/fasta.hpp"
#include "db/makedb.hpp"
#include "kernels/cpu/alignment.hpp"
#include "kernels/reference/reference_xdrop.hpp"
#include "profile/scoring.hpp"
#include "search/align_engine.hpp"
#include "search/warpsearch.hpp"

namespace warpsearch::engine {
using ::warpsearch::AlignEngine;
using ::warpsearch::AlignmentMode;
using ::warpsearch::AlignOptions;
using ::warpsearch::Alphabet;
using ::warpsearch::Database;
using ::warpsearch::DatabaseInfo;
using ::warpsearch::Device;
using ::warpsearch::FastaReader;
using ::warpsearch::GapExtend;
using ::warpsearch::GapOpen;
using ::warpsearch::guess_sequence_type;
using ::warpsearch::Hit;
using ::warpsearch::make_database;
using ::warpsearch::MakeDbOptions;
using ::warpsearch::MakeDbReport;
using ::warpsearch::PairAlignment;
using ::warpsearch::parse_alignment_mode;
using ::warpsearch::Query;
using ::warpsearch::QueryResult;
using ::warpsearch::ScoringScheme;
using ::warpsearch::SearchEngine;
using ::warpsearch::SearchOptions;
using ::warpsearch::Seed;
using ::warpsearch::seed_score;
using ::warpsearch::SequencePair;
using ::warpsearch::SequenceRecord;
using ::warpsearch::SequenceType;
using ::warpsearch::Strand;
using ::warpsearch::SubstitutionMatrix;
using ::warpsearch::XDrop;
using ::warpsearch::cpu::cigar;
}  // namespace warpsearch::engine

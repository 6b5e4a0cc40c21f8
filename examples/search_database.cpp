// Searches the queries of a FASTA file against a database and prints BLAST's tabular columns.
//   search_database DB QUERIES.fa [MAX_TARGET_SEQS]
#include <cstdlib>
#include <iostream>

#include <warpsearch/warpsearch.hpp>

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::cerr << "usage: search_database DB QUERIES.fa [MAX_TARGET_SEQS]\n";
    return 2;
  }
  try {
    const auto db = warpsearch::Database::open(argv[1]);
    warpsearch::SearchOptions options;  // BLOSUM62, gaps 11/1 (proteins) or 5/2 (nucleotides), E <= 10
    if (argc == 4) options.max_target_seqs = std::strtoul(argv[3], nullptr, 10);
    warpsearch::Searcher searcher(db, options);  // keep it to search again with the same threads and buffers
    std::cerr << "warpsearch " << warpsearch::version() << " on " << searcher.backend() << '\n';
    for (const warpsearch::QueryResult& result : searcher.search_fasta(argv[2]))
      for (const warpsearch::Hit& hit : result.hits)
        std::cout << hit.qseqid << '\t' << hit.sseqid << '\t' << hit.pident << '\t' << hit.length << '\t'
                  << hit.mismatch << '\t' << hit.gapopen << '\t' << hit.qstart << '\t' << hit.qend << '\t' << hit.sstart
                  << '\t' << hit.send << '\t' << hit.evalue << '\t' << hit.bitscore << '\t' << hit.cigar << '\n';
  } catch (const std::exception& e) {
    std::cerr << "search_database: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}

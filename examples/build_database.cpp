// Builds a database from sequences held in memory, then opens it and prints what it holds.
//   build_database DB
#include <iostream>
#include <vector>

#include <warpsearch/warpsearch.hpp>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: build_database DB\n";
    return 2;
  }
  const std::vector<warpsearch::Sequence> proteins = {
      {"sp|P69905|HBA_HUMAN",
       "MVLSPADKTNVKAAWGKVGAHAGEYGAEALERMFLSFPTTKTYFPHFDLSHGSAQVKGHGKKVADALTNAVAHVDDMPNALSALSDLHAHKL",
       "Hemoglobin subunit alpha"},
      {"sp|P68871|HBB_HUMAN",
       "MVHLTPEEKSAVTALWGKVNVDEVGGEALGRLLVVYPWTQRFFESFGDLSTPDAVMGNPKVKAHGKKVLGAFSDGLAHLDNLKGTFATLSELHCDKL",
       "Hemoglobin subunit beta"},
      {"sp|P02144|MYG_HUMAN",
       "MGLSDGEWQLVLNVWGKVEADIPGHGQEVLIRLFKGHPETLEKFDKFKHLKSEDEMKASEDLKKHGATVLTALGGILKKKGHHEAEIKPLAQSHATKH",
       "Myoglobin"},
  };
  try {
    const warpsearch::MakeDbReport report = warpsearch::make_database(proteins, argv[1]);
    std::cout << "built " << argv[1] << ": " << report.sequences << " " << warpsearch::sequence_type_name(report.type)
              << " sequences, " << report.residues << " residues\n";
    const auto db = warpsearch::Database::open(argv[1]);
    for (std::uint64_t s = 0; s < db.info().subjects; ++s)
      std::cout << s << '\t' << db.id(s) << '\t' << db.description(s) << '\n';
  } catch (const std::exception& e) {
    std::cerr << "build_database: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}

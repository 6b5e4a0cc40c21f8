// Composition-based statistics (see composition.hpp).
#include "search/composition.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "profile/seg.hpp"
#include "search/composition_xdrop.hpp"
#include "search/warpsearch.hpp"
#include "statistics/statistics.hpp"

namespace warpsearch {
namespace {

constexpr int kTrue = 20;  // residue codes 0..19 are the 20 amino acids
constexpr std::uint8_t kB = 20, kJ = 21, kZ = 22, kX = 23, kStop = 24, kU = 25, kO = 26;
constexpr std::uint8_t kD = 3, kN = 2, kE = 6, kQ = 5;
constexpr int kLetters = 27;                     // codes 0..26 (padding excluded)
constexpr double kRelativeEntropy = 0.44;        // BLOSUM62's, in nats: the target of modes 2 and 3
constexpr int kPseudocounts = 20;                // towards BLOSUM62's background, modes 2 and 3
constexpr std::int32_t kForbidden = -(1 << 20);  // padding: never aligned

// BLOSUM62's joint probabilities (NCBI's composition_adjustment tables, BLAST+ 2.6 and later), upper
// triangle by rows in the order A R N D C Q E G H I L K M F P S T W Y V.
constexpr double kJointUpper[] = {
    2.1497573378347484e-02, 2.3470224274721213e-03, 1.9493235258876179e-03, 2.1674844853066858e-03,
    1.5903351423026848e-03, 1.9242657898716525e-03, 2.9879059292799641e-03, 5.8158526388051033e-03,
    1.1076584657559144e-03, 3.1880644746334580e-03, 4.4186245468471547e-03, 3.3466571942021082e-03,
    1.3412107617355408e-03, 1.6360627863999076e-03, 2.1568959784943114e-03, 6.2524987419815400e-03,
    3.7180506975672363e-03, 4.0281679108936688e-04, 1.2999956675626666e-03, 5.0679056444508912e-03,
    1.7757465118386322e-02, 1.9786027128591904e-03, 1.5865480081162602e-03, 3.9365984789376245e-04,
    2.4858611089731411e-03, 2.6933867548771758e-03, 1.7221140903704937e-03, 1.2407382229440791e-03,
    1.2435878276496955e-03, 2.4193952633248727e-03, 6.2339060289407083e-03, 8.0309461712520876e-04,
    9.3181986323789834e-04, 9.5783034332718700e-04, 2.2660898636037261e-03, 1.7802796534180537e-03,
    2.6571979312581875e-04, 9.2634607111251918e-04, 1.5810185245264004e-03, 1.4140291972553610e-02,
    3.7201973506001745e-03, 4.3845466068066216e-04, 1.5304436972610567e-03, 2.2097156829738759e-03,
    2.8591871815612977e-03, 1.4301072616183181e-03, 9.9437221166923172e-04, 1.3690958423974782e-03,
    2.4402105140841090e-03, 5.2943633069226512e-04, 7.5004227978192801e-04, 8.6016459857770028e-04,
    3.1466019144814608e-03, 2.2360795375444384e-03, 1.6159545671597605e-04, 7.0048422794024819e-04,
    1.2014015528772706e-03, 2.1274574617480089e-02, 3.9909227141697264e-04, 1.6481246723433428e-03,
    4.9158017471929655e-03, 2.5221102126636373e-03, 9.5384849402143984e-04, 1.2347404942429857e-03,
    1.5202051791453383e-03, 2.4453087721980561e-03, 4.6429229320514104e-04, 7.6023722413111566e-04,
    1.2373315413524663e-03, 2.8035127901697272e-03, 1.8961512776990257e-03, 1.6218020183662784e-04,
    5.9842263937853702e-04, 1.3158365660538270e-03, 1.1931352277704348e-02, 3.0937204045913537e-04,
    3.8338775043186374e-04, 7.6951976030099293e-04, 2.2976387481074697e-04, 1.0956590131781735e-03,
    1.5682982157153873e-03, 5.0124929379033781e-04, 3.7717165634097634e-04, 5.1389991547056834e-04,
    3.6111795849154795e-04, 1.0432626586831986e-03, 9.3041313726939057e-04, 1.4474923964368156e-04,
    3.4603772624580643e-04, 1.3606607271146112e-03, 7.3292255467189687e-03, 3.5385780499965817e-03,
    1.3683038039160171e-03, 1.0489026828741754e-03, 8.9102936026571569e-04, 1.6174411456311808e-03,
    3.0968229715707327e-03, 7.3993258722701268e-04, 5.4255147972143906e-04, 8.4668181752066874e-04,
    1.8931125300036275e-03, 1.3796838284921874e-03, 2.2737931366728891e-04, 6.7584155312457842e-04,
    1.1660966117775285e-03, 1.6133927472163669e-02, 1.9380952488713059e-03, 1.3667885452189439e-03,
    1.2192061706431622e-03, 2.0030316026648431e-03, 4.1322603720305197e-03, 6.7909745467514783e-04,
    8.5179405867513139e-04, 1.4216207127018586e-03, 2.9539180653600089e-03, 2.0493063257644955e-03,
    2.6488552587183780e-04, 8.7044186256788659e-04, 1.6987763526262680e-03, 3.7804346453413303e-02,
    9.5813607255887238e-04, 1.3849118546156933e-03, 2.0864716056392773e-03, 2.5392537741810947e-03,
    7.3281559749652399e-04, 1.1976708695723554e-03, 1.3641171883713547e-03, 3.8342830901664762e-03,
    2.1858459940987062e-03, 4.0740829083805248e-04, 8.3467413018106177e-04, 1.8218235950233687e-03,
    9.2802502369336622e-03, 5.8089627083019206e-04, 9.8696608463236094e-04, 1.1873625842258938e-03,
    3.8264639620910225e-04, 8.1041076335565583e-04, 4.7770135861914477e-04, 1.1052034635193162e-03,
    7.4371746073077327e-04, 1.5168037757411286e-04, 1.5213771111755425e-03, 6.4882907765797669e-04,
    1.8441526588740136e-02, 1.1382470627796603e-02, 1.5655862274689192e-03, 2.5081290988482057e-03,
    3.0458868657559346e-03, 1.0068164685944146e-03, 1.7225081689171561e-03, 2.6953622613315018e-03,
    3.6183761166072852e-04, 1.3821121844492116e-03, 1.1972663837662637e-02, 3.7141460156350926e-02,
    2.4634345023228079e-03, 4.9293545515183088e-03, 5.4151301166464015e-03, 1.4146090399381900e-03,
    2.4277107072013821e-03, 3.3238031308707055e-03, 7.3206640617832933e-04, 2.2096734692836624e-03,
    9.4786263030457313e-03, 1.6113385590544604e-02, 9.0876633395557617e-04, 9.4875149773685364e-04,
    1.5773020912564391e-03, 3.1016069999481111e-03, 2.3467014804084987e-03, 2.7198500003555514e-04,
    9.9908866586876396e-04, 1.9360424083099779e-03, 4.0477309321969848e-03, 1.1901770463553603e-03,
    4.0824445213456919e-04, 8.5603787638552766e-04, 1.0095451907679563e-03, 1.9872537223131380e-04,
    5.7145288352831449e-04, 2.3123361470140736e-03, 1.8277684015431908e-02, 5.2528021756783813e-04,
    1.1939618185901600e-03, 1.1624184369750680e-03, 8.4917468952377874e-04, 4.2392005745634370e-03,
    2.5763052227920180e-03, 1.9066033679132538e-02, 1.6662567934883051e-03, 1.3511005665728870e-03,
    1.4152209821874487e-04, 4.5224391125285910e-04, 1.2451325046931832e-03, 1.2585947097159817e-02,
    4.7004857686835334e-03, 2.8731729176487776e-04, 1.0299846310599138e-03, 2.3587292053265561e-03,
    1.2514818886617953e-02, 2.8575770858467209e-04, 9.4161039895612720e-04, 3.6402328079338207e-03,
    6.4699301717154852e-03, 8.8744160259272527e-04, 3.5578318710317554e-04, 1.0246100213822419e-02,
    1.5489827890922993e-03, 1.9631915140537640e-02};

// BLOSUM62's frequency ratios (the ratios its scores are the rounded half-bit logarithms of), upper
// triangle by rows in the order of the codes 0..24: A R N D C Q E G H I L K M F P S T W Y V B J Z X *.
constexpr double kRatioUpper[] = {
    3.90294070e+00, 6.12698600e-01, 5.88307640e-01, 5.44605275e-01, 8.67987664e-01, 7.56803943e-01, 7.41264113e-01,
    1.05686961e+00, 5.69364849e-01, 6.32481035e-01, 6.01945975e-01, 7.75390239e-01, 7.23150342e-01, 4.64893827e-01,
    7.54121369e-01, 1.47210399e+00, 9.84401956e-01, 4.16548781e-01, 5.42611869e-01, 9.36458396e-01, 5.64459671e-01,
    6.14377313e-01, 7.47274948e-01, 7.50000000e-01, 2.50000000e-01, 6.66557707e+00, 8.58630478e-01, 5.73200024e-01,
    3.08939296e-01, 1.40579606e+00, 9.60797602e-01, 4.49983999e-01, 9.17048021e-01, 3.54751311e-01, 4.73919278e-01,
    2.07680867e+00, 6.22623369e-01, 3.80726330e-01, 4.81534905e-01, 7.67165633e-01, 6.77754679e-01, 3.95102106e-01,
    5.55965425e-01, 4.20072316e-01, 7.02873767e-01, 4.25403989e-01, 1.13292384e+00, 7.50000000e-01, 2.50000000e-01,
    7.09409488e+00, 1.55385281e+00, 3.97802620e-01, 1.00058442e+00, 9.11298183e-01, 8.63711406e-01, 1.22200067e+00,
    3.27934752e-01, 3.10043276e-01, 9.39841129e-01, 4.74529655e-01, 3.54288952e-01, 4.99932836e-01, 1.23152924e+00,
    9.84152635e-01, 2.77782896e-01, 4.86030806e-01, 3.69033853e-01, 4.07083696e+00, 3.17327197e-01, 9.45834265e-01,
    7.50000000e-01, 2.50000000e-01, 7.39792738e+00, 3.01454345e-01, 8.97081129e-01, 1.68781075e+00, 6.34301019e-01,
    6.78558839e-01, 3.39015407e-01, 2.86613046e-01, 7.84090406e-01, 3.46454634e-01, 2.98969081e-01, 5.98716826e-01,
    9.13504624e-01, 6.94789868e-01, 2.32102315e-01, 3.45683565e-01, 3.36500142e-01, 4.74290926e+00, 3.07946931e-01,
    1.38195506e+00, 7.50000000e-01, 2.50000000e-01, 1.95765857e+01, 3.65781531e-01, 2.85934574e-01, 4.20387870e-01,
    3.55049505e-01, 6.53458801e-01, 6.42275633e-01, 3.49128465e-01, 6.11354340e-01, 4.38990118e-01, 3.79562691e-01,
    7.38415701e-01, 7.40551692e-01, 4.49983903e-01, 4.34203398e-01, 7.55844055e-01, 3.45226274e-01, 6.46828489e-01,
    3.16819526e-01, 7.50000000e-01, 2.50000000e-01, 6.24442175e+00, 1.90173784e+00, 5.38649627e-01, 1.16798104e+00,
    3.82937802e-01, 4.77325586e-01, 1.55432308e+00, 8.64250293e-01, 3.33972402e-01, 6.41280589e-01, 9.65555228e-01,
    7.91320741e-01, 5.09360272e-01, 6.11094097e-01, 4.66777931e-01, 9.44103648e-01, 4.38898727e-01, 3.58149606e+00,
    7.50000000e-01, 2.50000000e-01, 5.46952608e+00, 4.81267655e-01, 9.60040718e-01, 3.30522558e-01, 3.72873704e-01,
    1.30827885e+00, 5.00342289e-01, 3.30743991e-01, 6.79202587e-01, 9.50357185e-01, 7.41425610e-01, 3.74300212e-01,
    4.96467354e-01, 4.28943130e-01, 1.33503378e+00, 3.55631838e-01, 4.08949895e+00, 7.50000000e-01, 2.50000000e-01,
    6.87630691e+00, 4.92966576e-01, 2.75009722e-01, 2.84504012e-01, 5.88871736e-01, 3.95486600e-01, 3.40640908e-01,
    4.77385507e-01, 9.03596525e-01, 5.79271582e-01, 4.21690355e-01, 3.48714366e-01, 3.36954912e-01, 7.38524318e-01,
    2.80638726e-01, 5.03463109e-01, 7.50000000e-01, 2.50000000e-01, 1.35059997e+01, 3.26288125e-01, 3.80675486e-01,
    7.78887490e-01, 5.84132623e-01, 6.51990521e-01, 4.72879831e-01, 7.36731740e-01, 5.57503254e-01, 4.44088955e-01,
    1.79790413e+00, 3.39447442e-01, 9.25449581e-01, 3.58533474e-01, 1.04047242e+00, 7.50000000e-01, 2.50000000e-01,
    3.99792994e+00, 1.69443475e+00, 3.96372934e-01, 1.47774450e+00, 9.45769883e-01, 3.84662860e-01, 4.43163582e-01,
    7.79816110e-01, 4.08874390e-01, 6.30388931e-01, 2.41751209e+00, 3.33981361e-01, 2.63222650e+00, 3.50796872e-01,
    7.50000000e-01, 2.50000000e-01, 3.79662137e+00, 4.28270363e-01, 1.99429557e+00, 1.15459749e+00, 3.71121724e-01,
    4.28893743e-01, 6.60328975e-01, 5.68037074e-01, 6.92059423e-01, 1.31423573e+00, 2.97257620e-01, 2.94078574e+00,
    4.13275887e-01, 7.50000000e-01, 2.50000000e-01, 4.76433717e+00, 6.25302816e-01, 3.44043119e-01, 7.03774479e-01,
    9.31919141e-01, 7.92905803e-01, 3.58930071e-01, 5.32179333e-01, 4.56542720e-01, 8.54849426e-01, 4.15284382e-01,
    1.40344922e+00, 7.50000000e-01, 2.50000000e-01, 6.48145121e+00, 1.00437163e+00, 4.23898024e-01, 5.98558924e-01,
    7.93801616e-01, 6.10296214e-01, 7.08364628e-01, 1.26893679e+00, 4.04640322e-01, 1.78399892e+00, 6.41102583e-01,
    7.50000000e-01, 2.50000000e-01, 8.12879702e+00, 2.87444758e-01, 4.39973597e-01, 4.81693683e-01, 1.37437942e+00,
    2.76938063e+00, 7.45089738e-01, 3.24101420e-01, 1.06958025e+00, 3.31992746e-01, 7.50000000e-01, 2.50000000e-01,
    1.28375437e+01, 7.55503259e-01, 6.88897122e-01, 2.81833164e-01, 3.63521119e-01, 4.43082984e-01, 5.53838329e-01,
    3.76634549e-01, 6.64534287e-01, 7.50000000e-01, 2.50000000e-01, 3.84284741e+00, 1.61392097e+00, 3.85303035e-01,
    5.57520051e-01, 5.65223766e-01, 1.05798620e+00, 4.34703235e-01, 9.56235816e-01, 7.50000000e-01, 2.50000000e-01,
    4.83210516e+00, 4.30934144e-01, 5.73156574e-01, 9.80943005e-01, 8.26250098e-01, 7.08974203e-01, 7.60725140e-01,
    7.50000000e-01, 2.50000000e-01, 3.81077833e+01, 2.10980812e+00, 3.74456332e-01, 2.52855433e-01, 5.03239261e-01,
    4.26541694e-01, 7.50000000e-01, 2.50000000e-01, 9.83220341e+00, 6.58038693e-01, 4.09444638e-01, 6.66952325e-01,
    5.40805192e-01, 7.50000000e-01, 2.50000000e-01, 3.69215640e+00, 3.51280513e-01, 1.76339815e+00, 4.43577702e-01,
    7.50000000e-01, 2.50000000e-01, 4.43758048e+00, 3.12208474e-01, 1.18382127e+00, 7.50000000e-01, 2.50000000e-01,
    2.81516607e+00, 3.87839626e-01, 7.50000000e-01, 2.50000000e-01, 3.89300249e+00, 7.50000000e-01, 2.50000000e-01,
    7.50000000e-01, 2.50000000e-01, 1.33300000e+00};

// Robinson and Robinson's amino-acid frequencies (per 1000), BLAST's standard background, A R N D ... V.
constexpr double kRobinson[kTrue] = {78.05, 51.29, 44.87, 53.64, 19.25, 42.64, 62.95, 73.77, 21.99, 51.42,
                                     90.19, 57.44, 22.43, 38.56, 52.03, 71.20, 58.41, 13.30, 32.16, 64.41};

struct Tables {
  TargetFrequencies joint{};
  std::array<double, kTrue> background{};
  std::array<std::array<double, kLetters>, kLetters> ratio{};
  Tables() {
    std::size_t k = 0;
    double sum = 0;
    for (int i = 0; i < kTrue; ++i)
      for (int j = i; j < kTrue; ++j) {
        joint[i][j] = joint[j][i] = kJointUpper[k++];
        sum += i == j ? joint[i][j] : 2 * joint[i][j];
      }
    for (auto& row : joint)
      for (double& x : row) x /= sum;
    for (int i = 0; i < kTrue; ++i)
      for (int j = 0; j < kTrue; ++j) background[i] += joint[i][j];
    k = 0;
    for (int i = 0; i <= kStop; ++i)
      for (int j = i; j <= kStop; ++j) ratio[i][j] = ratio[j][i] = kRatioUpper[k++];
    // U and O: X's ratios (NCBI's table gives them X's row).
    for (const std::uint8_t c : {kU, kO})
      for (int j = 0; j < kLetters; ++j) ratio[c][j] = ratio[j][c] = ratio[kX][j];
    ratio[kU][kU] = ratio[kO][kO] = ratio[kU][kO] = ratio[kO][kU] = ratio[kX][kX];
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

long nearest(double x) { return static_cast<long>(x >= 0 ? x + 0.5 : x - 0.5); }

// The positive root of sum_s p(s) exp(lambda s) = 1 for a score distribution with a negative mean and a
// positive score; -1 when there is none.
double karlin_lambda(const std::vector<std::pair<double, double>>& score_probability) {
  double mean = 0, highest = -1;
  for (const auto& [score, p] : score_probability) {
    mean += score * p;
    if (p > 0) highest = std::max(highest, score);
  }
  if (mean >= 0 || highest <= 0) return -1;
  const auto phi = [&](double lambda) {
    double sum = -1;
    for (const auto& [score, p] : score_probability) sum += p * std::exp(lambda * score);
    return sum;
  };
  double low = 0, high = 0.5;
  while (phi(high) < 0) high *= 2;
  // phi < 0 on (0, root), > 0 beyond: bisection to the last bit, then the midpoint.
  for (int i = 0; i < 200 && high - low > 1e-17 * high; ++i) {
    const double middle = 0.5 * (low + high);
    if (phi(middle) < 0)
      low = middle;
    else
      high = middle;
  }
  return 0.5 * (low + high);
}

// A matrix of real scores over the codes 0..26, before rounding.
using RealScores = std::array<std::array<double, kLetters>, kLetters>;

// Scores of X (and U, J, O, which score as X here) as the composition-weighted means of the real scores,
// at most -1 at the fine scale; X against X the row-weighted mean of X's column.
void set_x_scores(RealScores& m, const std::array<double, kTrue>& rows, const std::array<double, kTrue>& columns) {
  const auto row_mean = [&](int i) {
    double s = 0;
    for (int j = 0; j < kTrue; ++j) s += m[i][j] * columns[j];
    return std::min(s, -1.0);
  };
  const auto column_mean = [&](int j) {
    double s = 0;
    for (int i = 0; i < kTrue; ++i) s += m[i][j] * rows[i];
    return std::min(s, -1.0);
  };
  double xx = 0;
  for (int i = 0; i < kTrue; ++i) {
    m[i][kX] = row_mean(i);
    xx += m[i][kX] * rows[i];
    m[kX][i] = column_mean(i);
  }
  m[kX][kX] = xx;
  for (const std::uint8_t c : {kB, kZ}) {
    m[c][kX] = row_mean(c);
    m[kX][c] = column_mean(c);
  }
  for (const std::uint8_t c : {kU, kJ, kO}) {
    m[c] = m[kX];
    for (int i = 0; i < kLetters; ++i) m[i][c] = m[i][kX];
  }
}

ScaledMatrix round_scores(const RealScores& real, const ScaledMatrix& start, AdjustmentRule rule) {
  ScaledMatrix result;
  for (auto& row : result.scores) row.fill(kForbidden);
  for (int i = 0; i < kLetters; ++i)
    for (int j = 0; j < kLetters; ++j) result.scores[i][j] = static_cast<std::int32_t>(nearest(real[i][j]));
  for (int i = 0; i < kLetters; ++i) {
    result.scores[i][kStop] = start.scores[i][kStop];
    result.scores[kStop][i] = start.scores[kStop][i];
  }
  result.rule = rule;
  return result;
}

// Jensen-Shannon-like distance of two compositions (the square root of the mean relative entropy of each
// to their average), the distance of the paper's rule.
double composition_distance(const std::array<double, kTrue>& a, const std::array<double, kTrue>& b) {
  double value = 0;
  for (int i = 0; i < kTrue; ++i) {
    const double mean = (a[i] + b[i]) / 2;
    if (mean <= 0) continue;
    if (a[i] > 0) value += a[i] * std::log(a[i] / mean) / 2;
    if (b[i] > 0) value += b[i] * std::log(b[i] / mean) / 2;
  }
  return std::sqrt(std::max(0.0, value));
}

// Two letters making more than 40% of a sequence longer than 50.
bool dominated_by_two_letters(const std::array<double, kTrue>& p, std::uint32_t length) {
  if (length <= 50) return false;
  std::array<double, kTrue> sorted = p;
  std::partial_sort(sorted.begin(), sorted.begin() + 2, sorted.end(), std::greater<double>());
  return sorted[0] + sorted[1] > 0.4;
}

std::array<double, kTrue> with_pseudocounts(const Composition& c) {
  const std::array<double, kTrue>& background = tables().background;
  const double weight = kPseudocounts / (static_cast<double>(c.residues) + kPseudocounts);
  double sum = 0;
  for (double p : c.probability) sum += p;
  if (sum == 0) sum = 1;
  std::array<double, kTrue> result{};
  for (int i = 0; i < kTrue; ++i) result[i] = (1 - weight) * c.probability[i] / sum + weight * background[i];
  return result;
}

}  // namespace

CompositionMode composition_mode(int number) {
  if (number < 0 || number > 3)
    throw std::invalid_argument("composition-based statistics mode " + std::to_string(number) +
                                ": expected 0 (off), 1, 2 or 3");
  return static_cast<CompositionMode>(number);
}

Composition composition_of(std::string_view codes) {
  Composition c;
  for (const char code : codes) {
    const auto u = static_cast<std::uint8_t>(code);
    if (u < kTrue) {
      c.probability[u] += 1;
      ++c.residues;
    }
  }
  if (c.residues > 0)
    for (double& p : c.probability) p /= c.residues;
  return c;
}

const TargetFrequencies& blosum62_joint_probabilities() { return tables().joint; }
const std::array<double, 20>& blosum62_background() { return tables().background; }

double relative_entropy(const TargetFrequencies& x, const std::array<double, 20>& rows,
                        const std::array<double, 20>& columns) {
  double h = 0;
  for (int i = 0; i < kTrue; ++i)
    for (int j = 0; j < kTrue; ++j)
      if (x[i][j] > 0) h += x[i][j] * std::log(x[i][j] / (rows[i] * columns[j]));
  return h;
}

// The minimizer has the form x_ij = q_ij^t (r_i c_j)^(1 - t) u_i v_j (stationarity of the Lagrangian, t =
// 1 / (1 + multiplier of the entropy constraint)): for each t, u and v are found by alternately fitting
// the row and column sums (Sinkhorn), and t by bisection on the relative entropy, which grows with t
// (t = 0 gives the independent pairs, relative entropy 0).
TargetFrequencies adjusted_target_frequencies(const std::array<double, 20>& rows, const std::array<double, 20>& columns,
                                              double target_entropy) {
  const TargetFrequencies& q = tables().joint;
  std::array<double, kTrue> u, v;
  u.fill(1);
  v.fill(1);
  TargetFrequencies kernel{}, x{};
  const auto fit = [&](double t) {
    for (int i = 0; i < kTrue; ++i)
      for (int j = 0; j < kTrue; ++j)
        kernel[i][j] = std::exp(t * std::log(q[i][j]) + (1 - t) * std::log(rows[i] * columns[j]));
    for (int iteration = 0; iteration < 10000; ++iteration) {
      for (int i = 0; i < kTrue; ++i) {
        double s = 0;
        for (int j = 0; j < kTrue; ++j) s += kernel[i][j] * v[j];
        u[i] = rows[i] / s;
      }
      double worst = 0;
      for (int j = 0; j < kTrue; ++j) {
        double s = 0;
        for (int i = 0; i < kTrue; ++i) s += kernel[i][j] * u[i];
        worst = std::max(worst, std::abs(s * v[j] - columns[j]) / columns[j]);
        v[j] = columns[j] / s;
      }
      if (worst < 1e-15) break;
    }
    for (int i = 0; i < kTrue; ++i)
      for (int j = 0; j < kTrue; ++j) x[i][j] = kernel[i][j] * u[i] * v[j];
    return relative_entropy(x, rows, columns);
  };
  double low = 0, high = 1;
  while (fit(high) < target_entropy && high < 64) {
    low = high;
    high *= 2;
  }
  for (int i = 0; i < 200 && high - low > 1e-15 * high; ++i) {
    const double middle = 0.5 * (low + high);
    if (fit(middle) < target_entropy)
      low = middle;
    else
      high = middle;
  }
  fit(0.5 * (low + high));
  return x;
}

bool CompositionAdjustment::supports(const ScoringScheme& scoring) { return scoring.matrix().name() == "BLOSUM62"; }

CompositionAdjustment::CompositionAdjustment(const ScoringScheme& scoring, CompositionMode mode,
                                             CompositionRealignment realignment, double max_evalue)
    : mode_(mode),
      realignment_(realignment),
      max_evalue_(max_evalue),
      gap_open_(scoring.gap_open()),
      gap_extend_(scoring.gap_extend()) {
  if (mode == CompositionMode::off) throw std::invalid_argument("composition-based statistics: mode 0 adjusts nothing");
  if (!supports(scoring))
    throw std::invalid_argument(
        "composition-based statistics need BLOSUM62 (its joint probabilities and frequency "
        "ratios are the published ones); the matrix is " +
        scoring.matrix().name());
  // The standard ungapped lambda: the integer matrix with Robinson and Robinson's frequencies.
  double total = 0;
  for (double f : kRobinson) total += f;
  std::vector<std::pair<double, double>> distribution;
  for (int i = 0; i < kTrue; ++i)
    for (int j = 0; j < kTrue; ++j)
      distribution.emplace_back(scoring.matrix().score(static_cast<std::uint8_t>(i), static_cast<std::uint8_t>(j)),
                                kRobinson[i] / total * kRobinson[j] / total);
  ungapped_lambda_ = karlin_lambda(distribution);
  const double scaled_lambda = ungapped_lambda_ / ScaledMatrix::kScale;
  for (auto& row : start_.scores) row.fill(kForbidden);
  for (int i = 0; i < kLetters; ++i)
    for (int j = 0; j < kLetters; ++j)
      start_.scores[i][j] = static_cast<std::int32_t>(nearest(std::log(tables().ratio[i][j]) / scaled_lambda));
  for (int i = 0; i < kMaxCodes; ++i)
    for (int j = 0; j < kMaxCodes; ++j)
      standard_.scores[i][j] = scoring.score(static_cast<std::uint8_t>(i), static_cast<std::uint8_t>(j));
}

AdjustmentRule CompositionAdjustment::rule_for(const Composition& query, std::uint32_t query_length,
                                               const Composition& subject, std::uint32_t subject_length) const {
  if (mode_ == CompositionMode::scaled_lambda) return AdjustmentRule::scaled_lambda;
  if (mode_ == CompositionMode::unconditional) return AdjustmentRule::matrix_adjustment;
  const auto& p = query.probability;
  const auto& s = subject.probability;
  if (dominated_by_two_letters(p, query_length) || dominated_by_two_letters(s, subject_length))
    return AdjustmentRule::matrix_adjustment;
  const auto& background = tables().background;
  const double d_subject = composition_distance(s, background);
  const double d_query = composition_distance(p, background);
  const double d_pair = composition_distance(s, p);
  // The angle at the background between the two compositions, in degrees (with the PI of the paper's
  // implementation, 3.1415926543).
  const double angle =
      std::acos((d_subject * d_subject + d_query * d_query - d_pair * d_pair) / 2.0 / d_subject / d_query) * 180 /
      3.1415926543;
  const double longer = std::max(query_length, subject_length), shorter = std::min(query_length, subject_length);
  if (d_pair > 0.16 && longer / shorter > 3.0 && angle > 70.0) return AdjustmentRule::scaled_lambda;
  return AdjustmentRule::matrix_adjustment;
}

double CompositionAdjustment::lambda_ratio(const Composition& query, const Composition& subject) const {
  std::vector<std::pair<double, double>> distribution;
  for (int i = 0; i < kTrue; ++i)
    for (int j = 0; j < kTrue; ++j)
      distribution.emplace_back(start_.scores[i][j], query.probability[i] * subject.probability[j]);
  const double lambda = karlin_lambda(distribution);
  const double ratio = lambda / (ungapped_lambda_ / ScaledMatrix::kScale);
  return std::max(std::min(1.0, ratio), 0.5);
}

ScaledMatrix CompositionAdjustment::matrix_for(const Composition& query, std::uint32_t query_length,
                                               const Composition& subject, std::uint32_t subject_length) const {
  const double scaled_lambda = ungapped_lambda_ / ScaledMatrix::kScale;
  if (query.residues == 0 || subject.residues == 0) return start_;
  RealScores real{};
  const AdjustmentRule rule = rule_for(query, query_length, subject, subject_length);
  if (rule == AdjustmentRule::scaled_lambda) {
    const double lambda = scaled_lambda / lambda_ratio(query, subject);
    for (int i = 0; i < kLetters; ++i)
      for (int j = 0; j < kLetters; ++j) real[i][j] = std::log(tables().ratio[i][j]) / lambda;
    set_x_scores(real, query.probability, subject.probability);
    return round_scores(real, start_, rule);
  }
  const std::array<double, kTrue> rows = with_pseudocounts(query), columns = with_pseudocounts(subject);
  TargetFrequencies x = adjusted_target_frequencies(rows, columns, kRelativeEntropy);
  double sum = 0;
  for (const auto& row : x)
    for (double f : row) sum += f;
  for (auto& row : x)
    for (double& f : row) f /= sum;
  // Frequencies over the codes with the pooled pairs B = D + N and Z = E + Q.
  std::array<std::array<double, kLetters>, kLetters> joint{};
  std::array<double, kLetters> row_p{}, column_p{};
  for (int i = 0; i < kTrue; ++i) {
    row_p[i] = rows[i];
    column_p[i] = columns[i];
    for (int j = 0; j < kTrue; ++j) joint[i][j] = x[i][j];
  }
  const auto pool = [](std::array<double, kLetters>& v, std::uint8_t into, std::uint8_t a, std::uint8_t b) {
    v[into] = v[a] + v[b];
  };
  pool(row_p, kB, kD, kN);
  pool(row_p, kZ, kE, kQ);
  pool(column_p, kB, kD, kN);
  pool(column_p, kZ, kE, kQ);
  for (auto& row : joint) {
    pool(row, kB, kD, kN);
    pool(row, kZ, kE, kQ);
  }
  for (int j = 0; j < kLetters; ++j) {
    joint[kB][j] = joint[kD][j] + joint[kN][j];
    joint[kZ][j] = joint[kE][j] + joint[kQ][j];
  }
  for (int i = 0; i < kLetters; ++i)
    for (int j = 0; j < kLetters; ++j) {
      const bool scored = (i < kTrue || i == kB || i == kZ) && (j < kTrue || j == kB || j == kZ);
      real[i][j] = scored ? std::log(joint[i][j] / (row_p[i] * column_p[j])) / scaled_lambda : 0.0;
    }
  set_x_scores(real, rows, columns);
  return round_scores(real, start_, rule);
}

ScaledAlignment align_scaled(std::string_view query, std::size_t query_begin, std::size_t query_end,
                             std::string_view subject, std::size_t subject_begin, std::size_t subject_end,
                             const ScaledMatrix& matrix, int gap_open, int gap_extend) {
  const std::size_t m = query_end - query_begin, n = subject_end - subject_begin;
  const std::int32_t first = gap_open + gap_extend, next = gap_extend;
  constexpr std::int32_t kNone = std::numeric_limits<std::int32_t>::min() / 4;
  // Direction of each cell: bits 0-1 where H came from (0 start, 1 diagonal, 2 E, 3 F), bit 2 E extends
  // E, bit 3 F extends F. E: subject residues against a gap (along the subject), F: query residues.
  std::vector<std::uint8_t> direction((m + 1) * (n + 1), 0);
  std::vector<std::int32_t> h_row(n + 1, 0), f_row(n + 1, kNone);
  std::vector<std::uint8_t> codes(n);
  for (std::size_t j = 0; j < n; ++j) codes[j] = static_cast<std::uint8_t>(subject[subject_begin + j]);
  std::int32_t best = 0;
  std::size_t best_i = 0, best_j = 0;
  for (std::size_t i = 1; i <= m; ++i) {
    const std::int32_t* scores = matrix.scores[static_cast<std::uint8_t>(query[query_begin + i - 1])].data();
    std::uint8_t* row = &direction[i * (n + 1)];
    std::int32_t diagonal = 0, h_left = 0, e = kNone;
    std::int32_t row_best = 0;
    std::size_t row_best_j = 0;
    for (std::size_t j = 1; j <= n; ++j) {
      const std::int32_t e_open = h_left - first, e_extend = e - next;
      const bool e_extends = e_extend > e_open;
      e = e_extends ? e_extend : e_open;
      const std::int32_t f_open = h_row[j] - first, f_extend = f_row[j] - next;
      const bool f_extends = f_extend > f_open;
      const std::int32_t f = f_extends ? f_extend : f_open;
      f_row[j] = f;
      const std::int32_t d = diagonal + scores[codes[j - 1]];
      const std::int32_t h = std::max(std::max(d, 0), std::max(e, f));
      // Where h came from (ties: the diagonal first, then E, then F); written without branches.
      const int from = h == 0 ? 0 : h == d ? 1 : h == e ? 2 : 3;
      row[j] = static_cast<std::uint8_t>(from | (e_extends ? 4 : 0) | (f_extends ? 8 : 0));
      diagonal = h_row[j];
      h_row[j] = h;
      h_left = h;
      row_best_j = h > row_best ? j : row_best_j;
      row_best = std::max(row_best, h);
    }
    if (row_best > best) best = row_best, best_i = i, best_j = row_best_j;
  }
  ScaledAlignment result;
  result.score = best;
  if (best == 0) return result;
  std::size_t i = best_i, j = best_j;
  int state = 0;  // 0: in H, 2: in E, 3: in F
  std::string reversed;
  for (;;) {
    const std::uint8_t d = direction[i * (n + 1) + j];
    if (state == 0) {
      const int from = d & 3;
      if (from == 0) break;
      if (from == 1) {
        reversed.push_back('M');
        --i;
        --j;
      } else {
        state = from;
      }
      continue;
    }
    const bool extends = state == 2 ? (d & 4) != 0 : (d & 8) != 0;
    if (state == 2) {
      reversed.push_back('D');
      --j;
    } else {
      reversed.push_back('I');
      --i;
    }
    if (!extends) state = 0;
  }
  result.operations.assign(reversed.rbegin(), reversed.rend());
  result.query_begin = static_cast<std::uint32_t>(query_begin + i);
  result.query_end = static_cast<std::uint32_t>(query_begin + best_i);
  result.subject_begin = static_cast<std::uint32_t>(subject_begin + j);
  result.subject_end = static_cast<std::uint32_t>(subject_begin + best_j);
  return result;
}

namespace {

// The adjusted values of a hit whose alignment scores `scaled_score` at the fine scale: the E-value of
// the real score, the rounded raw score and its bit score.
void set_adjusted_score(Hit& hit, std::int64_t scaled_score, std::size_t query_length,
                        const EvalueCalculator& statistics, double evalue_divisor) {
  const double real_score = static_cast<double>(scaled_score) / ScaledMatrix::kScale;
  hit.score = static_cast<int>(nearest(real_score));
  hit.evalue =
      statistics.evalue_of_real_score(real_score, static_cast<std::uint32_t>(query_length), hit.subject_length) /
      evalue_divisor;
  hit.bitscore = statistics.bitscore(hit.score);
}

// The hit's alignment fields from a realigned alignment (identities against the searched subject).
void set_alignment(Hit& hit, const ScaledAlignment& a, std::string_view query, std::string_view searched_subject) {
  hit.query_begin = a.query_begin;
  hit.query_end = a.query_end;
  hit.subject_begin = a.subject_begin;
  hit.subject_end = a.subject_end;
  hit.operations = a.operations;
  hit.identities = hit.mismatches = hit.gap_opens = hit.gaps = 0;
  std::size_t qi = a.query_begin, sj = a.subject_begin;
  char previous = 'M';
  for (const char op : a.operations) {
    if (op == 'M') {
      if (query[qi] == searched_subject[sj])
        ++hit.identities;
      else
        ++hit.mismatches;
      ++qi;
      ++sj;
    } else {
      ++hit.gaps;
      if (op != previous) ++hit.gap_opens;
      if (op == 'I')
        ++qi;
      else
        ++sj;
    }
    previous = op;
  }
  hit.subject_aligned_codes = std::string(searched_subject.substr(a.subject_begin, a.subject_end - a.subject_begin));
}

}  // namespace

void CompositionAdjustment::rescore(std::string_view query, const Composition& query_composition,
                                    std::string_view searched_subject, std::vector<Hit>& hits,
                                    const EvalueCalculator& statistics, double evalue_divisor) const {
  if (hits.empty()) return;
  // The subject as blastp realigns it: selenocysteine read as X, and low-complexity segments masked
  // with X (SEG 10 1.8 2.1) unless the pair is one ungapped, nearly identical (98%) alignment.
  std::string subject(searched_subject);
  for (char& c : subject)
    if (static_cast<std::uint8_t>(c) == kU) c = static_cast<char>(kX);
  // Near-identical pairs keep their low-complexity segments (blastp's test on the best HSP: at least
  // min(query length, 50) long, 1.74 bits per position, more than 95% identical).
  const Hit& first = hits.front();
  const std::uint32_t span = std::min(first.query_end - first.query_begin, first.subject_end - first.subject_begin);
  const bool near_identical =
      span > 0 && first.subject_end - first.subject_begin + 1 >= std::min<std::size_t>(query.size(), 50) &&
      first.score >= 1.74 * std::log(2.0) / statistics.parameters().lambda * span && first.identities > 0.95 * span;
  if (!near_identical) subject = seg_masked(subject, SegParameters::for_composition());
  const Composition subject_composition = composition_of(subject);
  const ScaledMatrix matrix = matrix_for(query_composition, static_cast<std::uint32_t>(query.size()),
                                         subject_composition, static_cast<std::uint32_t>(subject.size()));
  if (realignment_ == CompositionRealignment::xdrop) {
    realign_by_xdrop(query, subject, searched_subject, matrix, hits, statistics, evalue_divisor);
    return;
  }
  for (std::size_t k = 0; k < hits.size(); ++k) {
    Hit& hit = hits[k];
    std::size_t query_begin = 0, query_end = query.size(), begin = 0, end = subject.size();
    if (k > 0) {
      query_begin = hit.query_begin > kHspMargin ? hit.query_begin - kHspMargin : 0;
      query_end = std::min(query.size(), std::size_t{hit.query_end} + kHspMargin);
      begin = hit.subject_begin > kHspMargin ? hit.subject_begin - kHspMargin : 0;
      end = std::min(subject.size(), std::size_t{hit.subject_end} + kHspMargin);
    }
    if (static_cast<std::uint64_t>(query_end - query_begin + 1) * (end - begin + 1) > kMaxRealignedCells) continue;
    const ScaledAlignment a = align_scaled(query, query_begin, query_end, subject, begin, end, matrix,
                                           scaled_gap_open(), scaled_gap_extend());
    set_adjusted_score(hit, a.score, query.size(), statistics, evalue_divisor);
    if (!a.operations.empty()) set_alignment(hit, a, query, searched_subject);
  }
}

void CompositionAdjustment::realign_by_xdrop(std::string_view query, std::string_view masked_subject,
                                             std::string_view searched_subject, const ScaledMatrix& matrix,
                                             std::vector<Hit>& hits, const EvalueCalculator& statistics,
                                             double evalue_divisor) const {
  // The X-drop and the containment tolerance (2 bits) at the fine scale of the gapped lambda.
  const double fine_lambda = statistics.parameters().lambda / ScaledMatrix::kScale;
  const XdropRealignParameters parameters{scaled_gap_open(), scaled_gap_extend(),
                                          static_cast<std::int64_t>(kXdropBits * std::log(2.0) / fine_lambda),
                                          kMaxRealignedCells};
  const double tolerance = 2 * std::log(2.0) / fine_lambda;
  std::vector<ScaledAlignment> realigned;
  std::vector<std::size_t> owner;  // the hit each realigned alignment belongs to
  const auto contains = [](const ScaledAlignment& a, std::size_t q, std::size_t s) {
    return a.query_begin <= q && q <= a.query_end && a.subject_begin <= s && s <= a.subject_end;
  };
  // Adds an alignment unless one sharing its start or its end scores at least as much; removes those
  // sharing an end with it otherwise.
  const auto add = [&](ScaledAlignment a, std::size_t k) {
    const auto shares_end = [&](const ScaledAlignment& r) {
      return (r.query_begin == a.query_begin && r.subject_begin == a.subject_begin) ||
             (r.query_end == a.query_end && r.subject_end == a.subject_end);
    };
    for (const ScaledAlignment& r : realigned)
      if (shares_end(r) && a.score <= r.score) return;
    for (std::size_t r = realigned.size(); r-- > 0;)
      if (shares_end(realigned[r])) {
        realigned.erase(realigned.begin() + static_cast<std::ptrdiff_t>(r));
        owner.erase(owner.begin() + static_cast<std::ptrdiff_t>(r));
      }
    realigned.push_back(std::move(a));
    owner.push_back(k);
  };
  // blastp's preliminary HSPs: X-drop alignments with the standard matrix from the same start points,
  // with the preliminary X-drop (gap_x_dropoff, 15 bits of the gapped lambda).
  const XdropRealignParameters preliminary_parameters{
      gap_open_, gap_extend_,
      static_cast<std::int64_t>(kPreliminaryXdropBits * std::log(2.0) / statistics.parameters().lambda),
      kMaxRealignedCells};
  std::vector<ScaledAlignment> preliminary;
  const auto in_preliminary = [&](std::size_t q, std::size_t s) {
    return std::any_of(preliminary.begin(), preliminary.end(), [&](const ScaledAlignment& a) {
      return a.query_begin <= q && q < a.query_end && a.subject_begin <= s && s < a.subject_end;
    });
  };
  // An extension with more than kMaxRealignedCells cells (long, low-complexity alignments): the subject's
  // hits keep their unadjusted values, as in the Smith-Waterman realignment.
  try {
    for (std::size_t k = 0; k < hits.size(); ++k) {
      const Hit& hit = hits[k];
      // The first start point lies in the hit's best ungapped stretch. Where the preliminary alignment
      // leaves parts of the hit uncovered, blastp has more preliminary HSPs whenever a seed there reaches
      // the gap trigger: each such part gives one more start point.
      for (int round = 0; round < kMaxStartsPerHit; ++round) {
        StartPoint start;
        bool found = false;
        std::size_t i = hit.query_begin, j = hit.subject_begin, piece = 0;
        std::size_t piece_query = i, piece_subject = j;
        const auto consider = [&](std::size_t end) {
          if (end <= piece) return;
          const StartPoint candidate =
              gapped_start_point(query, searched_subject, static_cast<std::uint32_t>(piece_query),
                                 static_cast<std::uint32_t>(piece_subject),
                                 std::string_view(hit.operations).substr(piece, end - piece), standard_);
          if (!found || candidate.stretch_score > start.stretch_score) start = candidate, found = true;
        };
        for (std::size_t op = 0; op < hit.operations.size(); ++op) {
          const char c = hit.operations[op];
          if (c == 'M' && in_preliminary(i, j)) {
            consider(op);
            piece = op + 1;
            piece_query = i + 1;
            piece_subject = j + 1;
          }
          if (c != 'D') ++i;
          if (c != 'I') ++j;
        }
        consider(hit.operations.size());
        if (!found || (round > 0 && start.stretch_score < kGapTriggerScore)) break;
        ScaledAlignment first =
            xdrop_align(query, searched_subject, start.query, start.subject, standard_, preliminary_parameters);
        if (first.operations.empty()) break;
        // Beyond the best hit's first, a preliminary HSP must reach blastp's preliminary cut-off: the
        // E-value cut-off, 5 times larger with the matrix adjustment (modes 2 and 3).
        const double preliminary_evalue =
            statistics.evalue_of_real_score(static_cast<double>(first.score), static_cast<std::uint32_t>(query.size()),
                                            hit.subject_length) /
            evalue_divisor;
        if ((k > 0 || round > 0) &&
            preliminary_evalue > max_evalue_ * (mode_ == CompositionMode::scaled_lambda ? 1 : kPreliminaryEvalueFactor))
          break;
        // A preliminary HSP inside a realigned alignment that scores clearly more is that alignment's.
        const double standard_score = static_cast<double>(first.score) * ScaledMatrix::kScale;
        const bool contained = std::any_of(realigned.begin(), realigned.end(), [&](const ScaledAlignment& a) {
          return contains(a, first.query_begin, first.subject_begin) &&
                 contains(a, first.query_end, first.subject_end) &&
                 standard_score + tolerance <= static_cast<double>(a.score);
        });
        preliminary.push_back(std::move(first));
        if (!contained) add(xdrop_align(query, masked_subject, start.query, start.subject, matrix, parameters), k);
      }
    }
  } catch (const std::length_error&) {
    return;
  }
  // No more alignments than the exact search found (so that --max-hsps holds): the best ones.
  std::vector<std::size_t> order(realigned.size());
  for (std::size_t r = 0; r < order.size(); ++r) order[r] = r;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return realigned[x].score > realigned[y].score; });
  if (order.size() > hits.size()) order.resize(hits.size());
  std::vector<Hit> kept;
  kept.reserve(order.size());
  for (const std::size_t r : order) {
    Hit hit = hits[owner[r]];
    set_adjusted_score(hit, realigned[r].score, query.size(), statistics, evalue_divisor);
    if (!realigned[r].operations.empty()) set_alignment(hit, realigned[r], query, searched_subject);
    kept.push_back(std::move(hit));
  }
  hits = std::move(kept);
}

void order_by_evalue(std::vector<Hit>& hits) {
  struct Group {
    std::size_t first, count;
    double best_evalue;
    int best_score;
  };
  std::vector<Group> groups;
  for (std::size_t k = 0; k < hits.size(); ++k) {
    if (groups.empty() || hits[k].subject != hits[groups.back().first].subject ||
        hits[k].strand != hits[groups.back().first].strand)
      groups.push_back({k, 0, hits[k].evalue, hits[k].score});
    Group& g = groups.back();
    ++g.count;
    g.best_evalue = std::min(g.best_evalue, hits[k].evalue);
    g.best_score = std::max(g.best_score, hits[k].score);
  }
  std::stable_sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
    if (a.best_evalue != b.best_evalue) return a.best_evalue < b.best_evalue;
    return a.best_score > b.best_score;
  });
  std::vector<Hit> ordered;
  ordered.reserve(hits.size());
  for (const Group& g : groups) {
    const auto begin = ordered.size();
    for (std::size_t k = g.first; k < g.first + g.count; ++k) ordered.push_back(std::move(hits[k]));
    std::stable_sort(ordered.begin() + static_cast<std::ptrdiff_t>(begin), ordered.end(),
                     [](const Hit& a, const Hit& b) { return a.score > b.score; });
  }
  hits = std::move(ordered);
}

}  // namespace warpsearch

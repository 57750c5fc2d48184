// glibc's exp (double) and powf, replayed bit for bit in code that the CUDA
// kernels can run. HLG's conversion calls them (hdr_transfer.h): the
// reference's inverse OETF calls exp and its OOTF powf, both glibc's, whose
// results neither CUDA's exp and powf nor any other algorithm reproduce in
// every case (glibc's powf is not correctly rounded). The CPU path calls
// glibc itself; the CUDA engine calls these.
//
// What is replayed: glibc 2.28 and later (Debian 12 has 2.36), whose exp and
// powf are Arm's optimized-routines algorithms (MIT OR Apache-2.0 WITH
// LLVM-exception, Copyright (c) 2017-2023 Arm Limited), as their x86-64 FMA
// builds run (__ieee754_exp_fma, __powf_fma: what glibc's ifunc picks on any
// CPU with FMA, as on the machines the reference and the CPU path run on).
// GCC fused every a * b + c of those builds; the replay fuses exactly the
// same ones (read from their machine code) and nothing else. The tables and
// coefficients are the values in glibc's libm (__exp_data, __powf_log2_data,
// __exp2f_data). tests/core/test_libm_replay.cpp compares both functions
// with glibc's over their whole domain of use.
#pragma once

#include <cstdint>

#include "arith.h"

namespace ssim2 {
namespace libm {

// Tables: one list of values, an array for each side (device code cannot
// read a host array; constants.h).
#define SSIM2_LIBM_EXP_TABLE \
    0x0000000000000000u, 0x3ff0000000000000u, 0x3c9b3b4f1a88bf6eu, 0x3feff63da9fb3335u,  \
    0xbc7160139cd8dc5du, 0x3fefec9a3e778061u, 0xbc905e7a108766d1u, 0x3fefe315e86e7f85u,  \
    0x3c8cd2523567f613u, 0x3fefd9b0d3158574u, 0xbc8bce8023f98efau, 0x3fefd06b29ddf6deu,  \
    0x3c60f74e61e6c861u, 0x3fefc74518759bc8u, 0x3c90a3e45b33d399u, 0x3fefbe3ecac6f383u,  \
    0x3c979aa65d837b6du, 0x3fefb5586cf9890fu, 0x3c8eb51a92fdeffcu, 0x3fefac922b7247f7u,  \
    0x3c3ebe3d702f9cd1u, 0x3fefa3ec32d3d1a2u, 0xbc6a033489906e0bu, 0x3fef9b66affed31bu,  \
    0xbc9556522a2fbd0eu, 0x3fef9301d0125b51u, 0xbc5080ef8c4eea55u, 0x3fef8abdc06c31ccu,  \
    0xbc91c923b9d5f416u, 0x3fef829aaea92de0u, 0x3c80d3e3e95c55afu, 0x3fef7a98c8a58e51u,  \
    0xbc801b15eaa59348u, 0x3fef72b83c7d517bu, 0xbc8f1ff055de323du, 0x3fef6af9388c8deau,  \
    0x3c8b898c3f1353bfu, 0x3fef635beb6fcb75u, 0xbc96d99c7611eb26u, 0x3fef5be084045cd4u,  \
    0x3c9aecf73e3a2f60u, 0x3fef54873168b9aau, 0xbc8fe782cb86389du, 0x3fef4d5022fcd91du,  \
    0x3c8a6f4144a6c38du, 0x3fef463b88628cd6u, 0x3c807a05b0e4047du, 0x3fef3f49917ddc96u,  \
    0x3c968efde3a8a894u, 0x3fef387a6e756238u, 0x3c875e18f274487du, 0x3fef31ce4fb2a63fu,  \
    0x3c80472b981fe7f2u, 0x3fef2b4565e27cddu, 0xbc96b87b3f71085eu, 0x3fef24dfe1f56381u,  \
    0x3c82f7e16d09ab31u, 0x3fef1e9df51fdee1u, 0xbc3d219b1a6fbffau, 0x3fef187fd0dad990u,  \
    0x3c8b3782720c0ab4u, 0x3fef1285a6e4030bu, 0x3c6e149289cecb8fu, 0x3fef0cafa93e2f56u,  \
    0x3c834d754db0abb6u, 0x3fef06fe0a31b715u, 0x3c864201e2ac744cu, 0x3fef0170fc4cd831u,  \
    0x3c8fdd395dd3f84au, 0x3feefc08b26416ffu, 0xbc86a3803b8e5b04u, 0x3feef6c55f929ff1u,  \
    0xbc924aedcc4b5068u, 0x3feef1a7373aa9cbu, 0xbc9907f81b512d8eu, 0x3feeecae6d05d866u,  \
    0xbc71d1e83e9436d2u, 0x3feee7db34e59ff7u, 0xbc991919b3ce1b15u, 0x3feee32dc313a8e5u,  \
    0x3c859f48a72a4c6du, 0x3feedea64c123422u, 0xbc9312607a28698au, 0x3feeda4504ac801cu,  \
    0xbc58a78f4817895bu, 0x3feed60a21f72e2au, 0xbc7c2c9b67499a1bu, 0x3feed1f5d950a897u,  \
    0x3c4363ed60c2ac11u, 0x3feece086061892du, 0x3c9666093b0664efu, 0x3feeca41ed1d0057u,  \
    0x3c6ecce1daa10379u, 0x3feec6a2b5c13cd0u, 0x3c93ff8e3f0f1230u, 0x3feec32af0d7d3deu,  \
    0x3c7690cebb7aafb0u, 0x3feebfdad5362a27u, 0x3c931dbdeb54e077u, 0x3feebcb299fddd0du,  \
    0xbc8f94340071a38eu, 0x3feeb9b2769d2ca7u, 0xbc87deccdc93a349u, 0x3feeb6daa2cf6642u,  \
    0xbc78dec6bd0f385fu, 0x3feeb42b569d4f82u, 0xbc861246ec7b5cf6u, 0x3feeb1a4ca5d920fu,  \
    0x3c93350518fdd78eu, 0x3feeaf4736b527dau, 0x3c7b98b72f8a9b05u, 0x3feead12d497c7fdu,  \
    0x3c9063e1e21c5409u, 0x3feeab07dd485429u, 0x3c34c7855019c6eau, 0x3feea9268a5946b7u,  \
    0x3c9432e62b64c035u, 0x3feea76f15ad2148u, 0xbc8ce44a6199769fu, 0x3feea5e1b976dc09u,  \
    0xbc8c33c53bef4da8u, 0x3feea47eb03a5585u, 0xbc845378892be9aeu, 0x3feea34634ccc320u,  \
    0xbc93cedd78565858u, 0x3feea23882552225u, 0x3c5710aa807e1964u, 0x3feea155d44ca973u,  \
    0xbc93b3efbf5e2228u, 0x3feea09e667f3bcdu, 0xbc6a12ad8734b982u, 0x3feea012750bdabfu,  \
    0xbc6367efb86da9eeu, 0x3fee9fb23c651a2fu, 0xbc80dc3d54e08851u, 0x3fee9f7df9519484u,  \
    0xbc781f647e5a3ecfu, 0x3fee9f75e8ec5f74u, 0xbc86ee4ac08b7db0u, 0x3fee9f9a48a58174u,  \
    0xbc8619321e55e68au, 0x3fee9feb564267c9u, 0x3c909ccb5e09d4d3u, 0x3feea0694fde5d3fu,  \
    0xbc7b32dcb94da51du, 0x3feea11473eb0187u, 0x3c94ecfd5467c06bu, 0x3feea1ed0130c132u,  \
    0x3c65ebe1abd66c55u, 0x3feea2f336cf4e62u, 0xbc88a1c52fb3cf42u, 0x3feea427543e1a12u,  \
    0xbc9369b6f13b3734u, 0x3feea589994cce13u, 0xbc805e843a19ff1eu, 0x3feea71a4623c7adu,  \
    0xbc94d450d872576eu, 0x3feea8d99b4492edu, 0x3c90ad675b0e8a00u, 0x3feeaac7d98a6699u,  \
    0x3c8db72fc1f0eab4u, 0x3feeace5422aa0dbu, 0xbc65b6609cc5e7ffu, 0x3feeaf3216b5448cu,  \
    0x3c7bf68359f35f44u, 0x3feeb1ae99157736u, 0xbc93091fa71e3d83u, 0x3feeb45b0b91ffc6u,  \
    0xbc5da9b88b6c1e29u, 0x3feeb737b0cdc5e5u, 0xbc6c23f97c90b959u, 0x3feeba44cbc8520fu,  \
    0xbc92434322f4f9aau, 0x3feebd829fde4e50u, 0xbc85ca6cd7668e4bu, 0x3feec0f170ca07bau,  \
    0x3c71affc2b91ce27u, 0x3feec49182a3f090u, 0x3c6dd235e10a73bbu, 0x3feec86319e32323u,  \
    0xbc87c50422622263u, 0x3feecc667b5de565u, 0x3c8b1c86e3e231d5u, 0x3feed09bec4a2d33u,  \
    0xbc91bbd1d3bcbb15u, 0x3feed503b23e255du, 0x3c90cc319cee31d2u, 0x3feed99e1330b358u,  \
    0x3c8469846e735ab3u, 0x3feede6b5579fdbfu, 0xbc82dfcd978e9db4u, 0x3feee36bbfd3f37au,  \
    0x3c8c1a7792cb3387u, 0x3feee89f995ad3adu, 0xbc907b8f4ad1d9fau, 0x3feeee07298db666u,  \
    0xbc55c3d956dcaebau, 0x3feef3a2b84f15fbu, 0xbc90a40e3da6f640u, 0x3feef9728de5593au,  \
    0xbc68d6f438ad9334u, 0x3feeff76f2fb5e47u, 0xbc91eee26b588a35u, 0x3fef05b030a1064au,  \
    0x3c74ffd70a5fddcdu, 0x3fef0c1e904bc1d2u, 0xbc91bdfbfa9298acu, 0x3fef12c25bd71e09u,  \
    0x3c736eae30af0cb3u, 0x3fef199bdd85529cu, 0x3c8ee3325c9ffd94u, 0x3fef20ab5fffd07au,  \
    0x3c84e08fd10959acu, 0x3fef27f12e57d14bu, 0x3c63cdaf384e1a67u, 0x3fef2f6d9406e7b5u,  \
    0x3c676b2c6c921968u, 0x3fef3720dcef9069u, 0xbc808a1883ccb5d2u, 0x3fef3f0b555dc3fau,  \
    0xbc8fad5d3ffffa6fu, 0x3fef472d4a07897cu, 0xbc900dae3875a949u, 0x3fef4f87080d89f2u,  \
    0x3c74a385a63d07a7u, 0x3fef5818dcfba487u, 0xbc82919e2040220fu, 0x3fef60e316c98398u,  \
    0x3c8e5a50d5c192acu, 0x3fef69e603db3285u, 0x3c843a59ac016b4bu, 0x3fef7321f301b460u,  \
    0xbc82d52107b43e1fu, 0x3fef7c97337b9b5fu, 0xbc892ab93b470dc9u, 0x3fef864614f5a129u,  \
    0x3c74b604603a88d3u, 0x3fef902ee78b3ff6u, 0x3c83c5ec519d7271u, 0x3fef9a51fbc74c83u,  \
    0xbc8ff7128fd391f0u, 0x3fefa4afa2a490dau, 0xbc8dae98e223747du, 0x3fefaf482d8e67f1u,  \
    0x3c8ec3bc41aa2008u, 0x3fefba1bee615a27u, 0x3c842b94c3a9eb32u, 0x3fefc52b376bba97u,  \
    0x3c8a64a931d185eeu, 0x3fefd0765b6e4540u, 0xbc8e37bae43be3edu, 0x3fefdbfdad9cbe14u,  \
    0x3c77893b4d91cd9du, 0x3fefe7c1819e90d8u, 0x3c5305c14160cc89u, 0x3feff3c22b8f71f1u

#define SSIM2_LIBM_POWF_LOG2_TABLE \
    0x3ff661ec79f8f3beu, 0xbfdefec65b963019u,  \
    0x3ff571ed4aaf883du, 0xbfdb0b6832d4fca4u,  \
    0x3ff49539f0f010b0u, 0xbfd7418b0a1fb77bu,  \
    0x3ff3c995b0b80385u, 0xbfd39de91a6dcf7bu,  \
    0x3ff30d190c8864a5u, 0xbfd01d9bf3f2b631u,  \
    0x3ff25e227b0b8ea0u, 0xbfc97c1d1b3b7af0u,  \
    0x3ff1bb4a4a1a343fu, 0xbfc2f9e393af3c9fu,  \
    0x3ff12358f08ae5bau, 0xbfb960cbbf788d5cu,  \
    0x3ff0953f419900a7u, 0xbfaa6f9db6475fceu,  \
    0x3ff0000000000000u, 0x0000000000000000u,  \
    0x3fee608cfd9a47acu, 0x3fb338ca9f24f53du,  \
    0x3feca4b31f026aa0u, 0x3fc476a9543891bau,  \
    0x3feb2036576afce6u, 0x3fce840b4ac4e4d2u,  \
    0x3fe9c2d163a1aa2du, 0x3fd40645f0c6651cu,  \
    0x3fe886e6037841edu, 0x3fd88e9c2c1b9ff8u,  \
    0x3fe767dcf5534862u, 0x3fdce0a44eb17bccu

// exp: 2^(k/128) as tab[2 (k % 128) + 1] + (k << 45) with the relative
// tail tab[2 (k % 128)]. powf: log2 in 16 intervals (1/c, log2(c)), then
// exp2 with 2^(k/32) = 2^(4k/128), which is exp's entry for 4k: glibc's
// __exp2f_data.tab[k % 32] + (k << 47) holds the same bits as
// tab[8 (k % 32) + 1] + (4k << 45), so both read this one table.
// SSIM2_LIBM_TABLE(name) is the side's array.
constexpr std::uint64_t kExpTableHost[256] = {SSIM2_LIBM_EXP_TABLE};
constexpr std::uint64_t kPowfLog2TableHost[32] = {SSIM2_LIBM_POWF_LOG2_TABLE};
#if defined(__CUDACC__)
__device__ const std::uint64_t kExpTableDevice[256] = {SSIM2_LIBM_EXP_TABLE};
__device__ const std::uint64_t kPowfLog2TableDevice[32] = {SSIM2_LIBM_POWF_LOG2_TABLE};
#endif
#if defined(__CUDA_ARCH__)
#define SSIM2_LIBM_TABLE(name) name##Device
#else
#define SSIM2_LIBM_TABLE(name) name##Host
#endif

using arith::BitsDouble;
using arith::DoubleBits;
using arith::Fma;

// exp's scalars (__exp_data): 128 / ln 2, -ln 2 / 128 in two parts, the
// rounding shift and the polynomial of exp(r) - 1 - r from r^2 on.
SSIM2_CONST double kExpInvLn2N = 0x1.71547652b82fep+7;
SSIM2_CONST double kExpNegLn2HiN = -0x1.62e42fefa0000p-8;
SSIM2_CONST double kExpNegLn2LoN = -0x1.cf79abc9e3b3ap-47;
SSIM2_CONST double kExpShift = 0x1.8p+52;
SSIM2_CONST double kExpC2 = 0x1.ffffffffffdbdp-2;
SSIM2_CONST double kExpC3 = 0x1.555555555543cp-3;
SSIM2_CONST double kExpC4 = 0x1.55555cf172b91p-5;
SSIM2_CONST double kExpC5 = 0x1.1111167a4d017p-7;

// exp(x) as glibc computes it, for 2^-54 <= |x| < 512 and for tiny |x|
// (1 + x); NaN above, where glibc's overflow and underflow handling would
// be needed (HLG's arguments stay within -0.34 .. 2.47).
SSIM2_HD double Exp(double x) {
  const std::uint64_t bits = DoubleBits(x);
  const unsigned abstop = static_cast<unsigned>(bits >> 52) & 0x7ffu;
  if (abstop < 0x3c9u) return 1.0 + x;  // |x| < 2^-54
  if (abstop >= 0x408u) return BitsDouble(0x7ff8000000000000ull);
  // x = k ln2/128 + r, |r| <= ln2/256; exp(x) = 2^(k/128) exp(r).
  double kd = Fma(x, kExpInvLn2N, kExpShift);
  const std::uint64_t ki = DoubleBits(kd);
  kd -= kExpShift;
  double r = Fma(kd, kExpNegLn2HiN, x);
  r = Fma(kd, kExpNegLn2LoN, r);
  const unsigned idx = 2u * static_cast<unsigned>(ki & 127u);
  const std::uint64_t top = ki << 45;
  const double tail = BitsDouble(SSIM2_LIBM_TABLE(kExpTable)[idx]);
  const double scale = BitsDouble(SSIM2_LIBM_TABLE(kExpTable)[idx + 1] + top);
  const double low = Fma(r, kExpC3, kExpC2);
  const double tail_r = r + tail;
  const double r2 = r * r;
  const double high = Fma(r, kExpC5, kExpC4);
  const double sum = Fma(low, r2, tail_r);
  const double r4 = r2 * r2;
  const double tmp = Fma(r4, high, sum);
  return Fma(scale, tmp, scale);
}

// powf's scalars: the log2 polynomial (__powf_log2_data.poly) and exp2's
// (__exp2f_data.poly with its shift_scaled).
SSIM2_CONST double kLog2A0 = 0x1.27616c9496e0bp-2;
SSIM2_CONST double kLog2A1 = -0x1.71969a075c67ap-2;
SSIM2_CONST double kLog2A2 = 0x1.ec70a6ca7baddp-2;
SSIM2_CONST double kLog2A3 = -0x1.7154748bef6c8p-1;
SSIM2_CONST double kLog2A4 = 0x1.71547652ab82bp+0;
SSIM2_CONST double kExp2Shift = 0x1.8p+47;
SSIM2_CONST double kExp2C0 = 0x1.c6af84b912394p-5;
SSIM2_CONST double kExp2C1 = 0x1.ebfce50fac4f3p-3;
SSIM2_CONST double kExp2C2 = 0x1.62e42ff0c52d6p-1;

// powf(x, y) as glibc computes it, for 0 < y < 1 (HLG's gamma - 1) and any
// x: 0 for x = 0, +inf for +inf, NaN for negative x and NaN, and finite x
// > 0 (subnormals included) by glibc's log2 and exp2 in double.
SSIM2_HD float Powf(float x, float y) {
  std::uint32_t ix = arith::FloatBits(x);
  if ((ix & 0x7fffffffu) == 0u) return 0.0f;  // +0 and -0
  if (ix >= 0x7f800000u) return ix == 0x7f800000u ? x : arith::BitsFloat(0x7fc00000u);
  if (ix < 0x00800000u) {  // subnormal: normalise, and take 23 off the exponent
    ix = arith::FloatBits(x * 0x1p23f) & 0x7fffffffu;
    ix -= 23u << 23;
  }
  // log2(x) = log2(z / c) + log2(c) + k, z in [0x1.66p-1, 0x1.66p0).
  const std::uint32_t tmp = ix - 0x3f330000u;
  const unsigned i = (tmp >> 19) & 15u;
  const std::uint32_t top = tmp & 0xff800000u;
  const std::uint32_t iz = ix - top;
  const int k = static_cast<std::int32_t>(top) >> 23;
  const double invc = BitsDouble(SSIM2_LIBM_TABLE(kPowfLog2Table)[2 * i]);
  const double logc = BitsDouble(SSIM2_LIBM_TABLE(kPowfLog2Table)[2 * i + 1]);
  const double z = static_cast<double>(arith::BitsFloat(iz));
  const double r = Fma(z, invc, -1.0);
  const double y0 = static_cast<double>(k) + logc;
  const double p01 = Fma(r, kLog2A0, kLog2A1);
  const double p23 = Fma(r, kLog2A2, kLog2A3);
  const double r2 = r * r;
  double q = Fma(r, kLog2A4, y0);
  const double r4 = r2 * r2;
  q = Fma(r2, p23, q);
  const double logx = Fma(p01, r4, q);
  const double ylogx = static_cast<double>(y) * logx;
  // exp2(ylogx) = 2^(k/32) 2^r, |r| <= 1/64.
  double kd = ylogx + kExp2Shift;
  const std::uint64_t ki = DoubleBits(kd);
  kd -= kExp2Shift;
  const double rr = ylogx - kd;
  const double s = BitsDouble(SSIM2_LIBM_TABLE(kExpTable)[8u * (ki & 31u) + 1u] + (ki << 47));
  const double c01 = Fma(rr, kExp2C0, kExp2C1);
  const double rr2 = rr * rr;
  const double c2 = Fma(rr, kExp2C2, 1.0);
  const double poly = Fma(c01, rr2, c2);
  return static_cast<float>(poly * s);
}

}  // namespace libm
}  // namespace ssim2

// Constants of SSIMULACRA 2.1 (cloudinary/ssimulacra2 81feacf6 and the libjxl
// files it builds with). Float constants are written as the same float
// expressions the reference uses, so they round identically.
#pragma once

#include <cstdint>

// Every constant that device code reads is a scalar: a plain constexpr scalar
// is a literal in both of nvcc's passes, whereas an array would have to be
// __device__ for the kernels and could then not be read by the host side of
// the __host__ __device__ functions in arith.h and hdr_transfer.h (#20091-D).
#define SSIM2_CONST constexpr

namespace ssim2 {

// SSIM stabiliser (ssimulacra2.cc kC2).
SSIM2_CONST float kC2 = 0.0009f;

// libjxl opsin_params.h: absorbance matrix rows sum to one in float.
SSIM2_CONST float kOpsinM02 = 0.078f;
SSIM2_CONST float kOpsinM00 = 0.30f;
SSIM2_CONST float kOpsinM01 = 1.0f - kOpsinM02 - kOpsinM00;
SSIM2_CONST float kOpsinM12 = 0.078f;
SSIM2_CONST float kOpsinM10 = 0.23f;
SSIM2_CONST float kOpsinM11 = 1.0f - kOpsinM12 - kOpsinM10;
SSIM2_CONST float kOpsinM20 = 0.24342268924547819f;
SSIM2_CONST float kOpsinM21 = 0.20476744424496821f;
SSIM2_CONST float kOpsinM22 = 1.0f - kOpsinM20 - kOpsinM21;
// Host code (the CPU kernels) loops over the matrix; arith.h uses the scalars.
constexpr float kOpsin[9] = {kOpsinM00, kOpsinM01, kOpsinM02, kOpsinM10, kOpsinM11,
                             kOpsinM12, kOpsinM20, kOpsinM21, kOpsinM22};
SSIM2_CONST float kOpsinBias = 0.0037930732552754493f;

// libjxl fast_math-inl.h CubeRootAndAdd.
SSIM2_CONST std::int32_t kCbrtExpBias = 0x54800000;
SSIM2_CONST std::int32_t kCbrtExpMul = 0x002AAAAA;
SSIM2_CONST float kOneThird = 1.0f / 3;
SSIM2_CONST float kFourThirds = 4.0f / 3;

// libjxl transfer_functions-inl.h TF_SRGB::DisplayFromEncoded.
SSIM2_CONST float kSrgbThreshold = 0.04045f;
SSIM2_CONST float kSrgbLowDivInv = 1.0f / 12.92f;
// Numerator and denominator coefficients, constant term first.
SSIM2_CONST float kSrgbP0 = 2.200248328e-04f;
SSIM2_CONST float kSrgbP1 = 1.043637593e-02f;
SSIM2_CONST float kSrgbP2 = 1.624820318e-01f;
SSIM2_CONST float kSrgbP3 = 7.961564959e-01f;
SSIM2_CONST float kSrgbP4 = 8.210152774e-01f;
SSIM2_CONST float kSrgbQ0 = 2.631846970e-01f;
SSIM2_CONST float kSrgbQ1 = 1.076976492e+00f;
SSIM2_CONST float kSrgbQ2 = 4.987528350e-01f;
SSIM2_CONST float kSrgbQ3 = -5.512498495e-02f;
SSIM2_CONST float kSrgbQ4 = 6.521209011e-03f;

// Msssim::Score(): feature weights in the order channel, scale, norm, map.
SSIM2_CONST double kWeights[108] = {
    0.0, 0.0007376606707406586, 0.0, 0.0, 0.0007793481682867309, 0.0, 0.0,
    0.0004371155730107379, 0.0, 1.1041726426657346, 0.00066284834129271,
    0.00015231632783718752, 0.0, 0.0016406437456599754, 0.0, 1.8422455520539298,
    11.441172603757666, 0.0, 0.0007989109436015163, 0.000176816438078653, 0.0,
    1.8787594979546387, 10.94906990605142, 0.0, 0.0007289346991508072,
    0.9677937080626833, 0.0, 0.00014003424285435884, 0.9981766977854967,
    0.00031949755934435053, 0.0004550992113792063, 0.0, 0.0, 0.0013648766163243398,
    0.0, 0.0, 0.0, 0.0, 0.0, 7.466890328078848, 0.0, 17.445833984131262,
    0.0006235601634041466, 0.0, 0.0, 6.683678146179332, 0.00037724407979611296,
    1.027889937768264, 225.20515300849274, 0.0, 0.0, 19.213238186143016,
    0.0011401524586618361, 0.001237755635509985, 176.39317598450694, 0.0, 0.0,
    24.43300999870476, 0.28520802612117757, 0.0004485436923833408, 0.0, 0.0, 0.0,
    34.77906344483772, 44.835625328877896, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0008680556573291698, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0005313191874358747, 0.0,
    0.00016533814161379112, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0004179171803251336,
    0.0017290828234722833, 0.0, 0.0020827005846636437, 0.0, 0.0, 8.826982764996862,
    23.19243343998926, 0.0, 95.1080498811086, 0.9863978034400682, 0.9834382792465353,
    0.0012286405048278493, 171.2667255897307, 0.9807858872435379, 0.0, 0.0, 0.0,
    0.0005130064588990679, 0.0, 0.00010854057858411537};

// Final transform of the weighted sum.
SSIM2_CONST double kScoreScale = 0.9562382616834844;
SSIM2_CONST double kScoreCubic[3] = {2.326765642916932, -0.020884521182843837,
                                     6.248496625763138e-05};
SSIM2_CONST double kScoreExponent = 0.6276336467831387;

// Recursive Gaussian of the blur (libjxl gauss_blur.cc), sigma 1.5, radius 5.
SSIM2_CONST double kBlurSigma = 1.5;

}  // namespace ssim2

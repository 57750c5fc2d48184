// The monitor's live page (/): one self-contained HTML document, its
// script and style inline, no external assets. It polls /api/state.
#pragma once

#include <string>

namespace ssim2 {
namespace monitor {

const std::string& PageHtml();

}  // namespace monitor
}  // namespace ssim2

// gst-ssim2: how ssim2compare pairs the frames of its pads, the one
// declaration of the concept and of its names: the element's `alignment`
// property (its GEnumValue table is built from kAlignments), the pairing
// decision (gstssim2pairing.h), the stats file's run info, and the ssim2
// tool's --align option. Plain C++17, no GStreamer: the tool includes it
// also when it is built without GStreamer.
// SPDX-License-Identifier: BSD-3-Clause
#pragma once

#include <cstring>

namespace ssim2gst {

enum class Alignment {
  kRunningTime = 0,  // frames at the same running time
  kSequence = 1,     // the Nth buffer of each pad
  kStreamTime = 2,   // frames at the same position in their streams
  kContent = 3,      // the ref frame showing the same picture (docs/ALIGNMENT.md)
};

struct AlignmentInfo {
  Alignment value;
  const char* name;         // the property's value, the option's argument
  const char* description;  // for gst-inspect
};

inline constexpr AlignmentInfo kAlignments[] = {
    {Alignment::kRunningTime, "running-time", "Pair frames by running time"},
    {Alignment::kSequence, "sequence", "Pair the Nth buffer of each pad, ignoring timestamps"},
    {Alignment::kStreamTime, "stream-time",
     "Pair frames by their position in each stream (stream time)"},
    {Alignment::kContent, "content",
     "Pair each dist frame with the ref frame showing the same picture, found from the "
     "content; frames it cannot be sure of pass unscored"},
};

// "running-time", "sequence", "stream-time" or "content".
inline const char* AlignmentName(Alignment alignment) {
  for (const AlignmentInfo& a : kAlignments) {
    if (a.value == alignment) return a.name;
  }
  return kAlignments[0].name;
}

// The alignment called @name; false when there is none.
inline bool AlignmentFromName(const char* name, Alignment* alignment) {
  for (const AlignmentInfo& a : kAlignments) {
    if (std::strcmp(a.name, name) == 0) {
      *alignment = a.value;
      return true;
    }
  }
  return false;
}

}  // namespace ssim2gst

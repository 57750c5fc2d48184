#include "option_parsing.h"

#include <cstring>

namespace ssim2 {
namespace options {

bool BackendFromName(const char* name, Backend* backend) {
  for (Backend b : {Backend::kAuto, Backend::kCpu, Backend::kCuda}) {
    if (std::strcmp(name, BackendName(b)) == 0) {
      *backend = b;
      return true;
    }
  }
  return false;
}

bool ParseWords(GOptionContext* context, std::vector<char*>* words, std::string* error) {
  int argc = static_cast<int>(words->size());
  std::vector<char*> argv = *words;
  argv.push_back(nullptr);
  char** argv_data = argv.data();
  GError* gerror = nullptr;
  const gboolean parsed = g_option_context_parse(context, &argc, &argv_data, &gerror);
  g_option_context_free(context);
  if (!parsed) {
    *error = gerror != nullptr ? gerror->message : "cannot parse the options";
    g_clear_error(&gerror);
    return false;
  }
  words->assign(argv_data, argv_data + argc);
  return true;
}

}  // namespace options
}  // namespace ssim2

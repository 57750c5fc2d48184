/* Switches the process to a German locale (',' as decimal separator), for
 * tests that writers ignore LC_NUMERIC. de_DE.UTF-8 is used when installed;
 * otherwise it is generated with localedef (Debian package "locales") into a
 * temporary folder named by LOCPATH, which needs no root. C and C++.
 * SPDX-License-Identifier: BSD-3-Clause */
#ifndef SSIM2_TESTS_DE_LOCALE_H
#define SSIM2_TESTS_DE_LOCALE_H

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Returns 1 when LC_ALL is now de_DE.UTF-8 and printf writes "1,5" for 1.5;
 * 0 (with the reason on stderr) otherwise. */
static int
ssim2_test_use_de_locale (void)
{
  static const char kName[] = "de_DE.UTF-8";
  char probe[16];
  if (setlocale (LC_ALL, kName) == NULL) {
    char dir[] = "/tmp/ssim2-locale-XXXXXX";
    char cmd[256];
    if (mkdtemp (dir) == NULL) {
      perror ("mkdtemp");
      return 0;
    }
    snprintf (cmd, sizeof cmd,
        "localedef -i de_DE -f UTF-8 %s/%s >/dev/null 2>&1", dir, kName);
    if (system (cmd) != 0) {
      fprintf (stderr, "cannot generate %s (%s failed; install the Debian "
          "package \"locales\")\n", kName, cmd);
      return 0;
    }
    setenv ("LOCPATH", dir, 1);
    const int ok = setlocale (LC_ALL, kName) != NULL;
    if (!ok)
      fprintf (stderr, "setlocale(%s) failed even with LOCPATH=%s\n", kName,
          dir);
    /* The locale's data is loaded now (glibc keeps it for later calls). */
    snprintf (cmd, sizeof cmd, "rm -rf %s", dir);
    if (system (cmd) != 0)
      fprintf (stderr, "could not remove %s\n", dir);
    if (!ok)
      return 0;
  }
  snprintf (probe, sizeof probe, "%.1f", 1.5);
  if (strcmp (probe, "1,5") != 0) {
    fprintf (stderr, "%s is active but printf wrote %s\n", kName, probe);
    return 0;
  }
  return 1;
}

#endif

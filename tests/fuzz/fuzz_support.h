// fuzz_support.h - shared by the libFuzzer harnesses: a private scratch directory for the
// files a harness writes its input to, and the checks every loaded body must pass.
//
// The loaders read files by path (Inline and mesh references are resolved relative to the
// file), so each input is written to a file in a directory made once per process under
// $TMPDIR and removed at exit. A body that loads must hold only finite numbers: a finite input
// that the loader turns into inf or NaN is a finding (the harness aborts).

#ifndef HRPSIM_TESTS_FUZZ_FUZZ_SUPPORT_H_
#define HRPSIM_TESTS_FUZZ_FUZZ_SUPPORT_H_

#include <stddef.h>
#include <stdint.h>

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

// write data[size] to the file called name in this process's scratch directory (made on the
// first call); returns its absolute path (a static buffer), or NULL if it cannot be written
const char *hsf_writeInput(const char *name, const uint8_t *data, size_t size);

// the scratch directory (made on the first call)
const char *hsf_scratchDir(void);

// load options that keep one execution short: small node, triangle and file limits, meshes
// imported in this process, no images
void hsf_loadOptions(hsmLoadOptions *opt);

// abort (a finding) if body holds a non-finite number where a finite one is promised, or an
// index out of range; logs what was wrong first
void hsf_checkBody(const hsBody *body);

// silence the libraries' log (warnings about the fuzzed input are expected)
void hsf_quiet(void);

#ifdef __cplusplus
}
#endif
#endif  // HRPSIM_TESTS_FUZZ_FUZZ_SUPPORT_H_

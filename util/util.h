// util.h - hrpsim's shared C utilities: errors, logging, memory, file:// paths, reading files,
// small vector math.
//
// Every library of hrpsim reports failure the same way: a function that can fail returns int
// (0 ok, a negative hstError code) or a pointer (NULL on failure) and takes `hsError *err` last.
// The first error recorded in an hsError wins; later ones are ignored so the root cause is kept.
// Rotations are 3x3 row-major double[9]; rigid transforms are 3x4 row-major double[12] holding
// the rows of [R t] (the layout of OpenHRP's DblArray12).

#ifndef HRPSIM_UTIL_UTIL_H_
#define HRPSIM_UTIL_UTIL_H_

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

// pi, for code that cannot rely on M_PI
#define HS_PI 3.14159265358979323846

#ifdef __cplusplus
extern "C" {
#endif

//---------------------------------- errors ----------------------------------------------------

// error codes; 0 is success
typedef enum hstError {
  hsOK = 0,
  hsE_INVALID = -1,   // bad argument (wrong name, NaN, wrong size)
  hsE_NOMEM = -2,     // allocation failed
  hsE_IO = -3,        // file missing or unreadable
  hsE_SYNTAX = -4,    // model file does not parse
  hsE_MODEL = -5,     // model parses but is not a valid body
  hsE_UNSUPPORTED = -6,
  hsE_RUNAWAY = -7,   // a simulated state became non-finite or left its documented bounds
  hsE_ORDER = -8      // a call made in the wrong state (e.g. before or after a simulation starts)
} hstError;

// one error: what went wrong, where in the model file, and where in our C sources
typedef struct hsError {
  int code;             // hstError; 0 while no error is recorded
  char message[512];    // human-readable problem, without the location
  char file[512];       // model file the error is in, "" if none
  int line;             // 1-based line in `file`, 0 if unknown
  int column;           // 1-based column in `file`, 0 if unknown
  const char *srcFile;  // C source that raised it (static string)
  int srcLine;          // line in srcFile
} hsError;

// record an error in err (which may be NULL) unless one is already there; returns code
int hsu_setError(hsError *err, int code, const char *srcFile, int srcLine, const char *file,
                 int line, int column, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

// record an error without a model-file location; evaluates to the code
#define HS_ERR(err, code, ...) \
  hsu_setError((err), (code), __FILE__, __LINE__, NULL, 0, 0, __VA_ARGS__)

// record an error at model file `file`, line, column; evaluates to the code
#define HS_ERR_AT(err, code, file, line, column, ...) \
  hsu_setError((err), (code), __FILE__, __LINE__, (file), (line), (column), __VA_ARGS__)

// clear err so it can be reused
void hsu_clearError(hsError *err);

// format err as "file:line:column: message" (or just the message) into buf; returns buf
char *hsu_formatError(const hsError *err, char *buf, size_t size);

// abort with a message when one of our own invariants fails (never for user input)
#define HS_ASSERT(cond) \
  ((cond) ? (void)0 : hsu_assertFail(#cond, __FILE__, __LINE__))
void hsu_assertFail(const char *what, const char *file, int line) __attribute__((noreturn));

//---------------------------------- logging ---------------------------------------------------

typedef enum hstLog { hsLOG_DEBUG, hsLOG_INFO, hsLOG_WARNING, hsLOG_ERROR } hstLog;

// a log sink; msg has no trailing newline and is only valid during the call
typedef void (*hsuLogHandler)(hstLog level, const char *msg, void *user);

// log one message through the current handler (default: "hrpsim: level: msg" on stderr)
void hsu_log(hstLog level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// replace the log handler (NULL restores the default); returns the previous one
hsuLogHandler hsu_setLogHandler(hsuLogHandler handler, void *user);

// messages below this level are dropped (default hsLOG_INFO); returns the level it replaces
hstLog hsu_setLogLevel(hstLog level);

//---------------------------------- memory ----------------------------------------------------

// malloc/calloc/realloc/free used by all hrpsim code, so tests can inject failures
void *hsu_malloc(size_t size);
void *hsu_calloc(size_t n, size_t size);
void *hsu_realloc(void *p, size_t size);
void hsu_free(void *p);

// copy of s allocated with hsu_malloc (NULL stays NULL); caller frees
char *hsu_strdup(const char *s);

// make the n-th allocation from now fail (n >= 1), or disable injection with n = 0
void hsu_failAllocAfter(long n);

// a growable array of fixed-size elements; zero-initialise, then push; free with hsu_vecFree
typedef struct hsuVec {
  void *data;
  size_t n;     // elements in use
  size_t cap;   // elements allocated
  size_t size;  // bytes per element
} hsuVec;

// append one element (copied from elem, or zeroed if elem is NULL); returns its address or NULL
void *hsu_vecPush(hsuVec *v, size_t elemSize, const void *elem);

// release the array's storage and reset it to empty
void hsu_vecFree(hsuVec *v);

// bytes written one field after another and read back in the same order (saved states):
// zero-initialise; hsu_bytesPut appends (a failed allocation sets bad and drops the rest);
// hsu_bytesGet copies the next n bytes out from pos (past the end: sets bad, out zeroed, and
// returns -1), dst NULL skipping them. Free with hsu_bytesFree.
typedef struct hsuBytes {
  unsigned char *data;
  size_t n, cap;  // bytes in use, allocated
  size_t pos;     // read position
  int bad;        // 1 after an allocation failed or a read ran past the end
} hsuBytes;
void hsu_bytesPut(hsuBytes *b, const void *src, size_t n);
int hsu_bytesGet(hsuBytes *b, void *dst, size_t n);
// one field of a record, saved (save != 0: appended from p, which is only read) or restored
// (read into p): one list of fields serves both directions
void hsu_bytesField(hsuBytes *b, int save, void *p, size_t n);
void hsu_bytesFree(hsuBytes *b);

//---------------------------------- paths -----------------------------------------------------

// the local path a model reference names, into out (size > 0 bytes): a file:// URL
// (file://localhost/PATH and file:/PATH too, %XX escapes decoded) or a plain path (copied as
// it is). Returns 0, -1 when the path does not fit (out holds it cut), or 1 when ref is a URL
// of another scheme (RFC 3986: a letter, then letters, digits, '+', '-' or '.', then ':', two
// characters at least so "C:" stays a path; out untouched). Every reader of model files and
// URLs uses this one function.
int hsu_urlToPath(const char *ref, char *out, size_t size);

// the local path a file:// URL names, as hsu_urlToPath, except that a plain path (no URL) is
// also reported as 1 (out untouched)
int hsu_fileUrlToPath(const char *url, char *out, size_t size);

//---------------------------------- files -----------------------------------------------------

// the limit of hsu_readFile and hsu_checkFile when they are given 0 [bytes]: 256 MiB
#define HSU_DEFAULT_MAX_FILE_BYTES ((size_t)256 << 20)

// read the regular file at path whole into a new NUL-terminated buffer *text (hsu_free) of
// *len bytes (the NUL not counted). Only regular files are read: a FIFO, socket, device or
// directory is refused without blocking (symbolic links are followed to what they name); a file
// over maxBytes (0: HSU_DEFAULT_MAX_FILE_BYTES) is refused before anything is allocated, and
// reading stops there if the file grows. Returns 0, or hsE_IO / hsE_NOMEM with err filled as
// "cannot read 'PATH': why" (the error's file is path). Used by every reader of model files.
int hsu_readFile(const char *path, size_t maxBytes, char **text, size_t *len, hsError *err);

// hsu_readFile for callers that word their own message: 0, hsE_NOMEM, or hsE_IO with *sysErr
// an errno value (EFBIG over the limit, EINVAL not a regular file, EISDIR a directory, else
// what the system said); hsu_fileProblem turns it into words
int hsu_readFileErrno(const char *path, size_t maxBytes, char **text, size_t *len, int *sysErr);

// 0 if path is a regular file of at most maxBytes (0: the default), else hsE_IO with err filled
// as hsu_readFile would; for readers that open the file themselves (assimp, image decoders)
int hsu_checkFile(const char *path, size_t maxBytes, hsError *err);

// the regular file at path opened for reading as a stream (fclose it), refused as hsu_readFile
// refuses; NULL with err filled. For readers that decode from a FILE (images).
FILE *hsu_openFile(const char *path, size_t maxBytes, hsError *err);

// confine every file the readers above open to the directories roots[n] (copied; each resolved
// with realpath, symbolic links included): a file whose real path (of the descriptor actually
// opened) is not under one of them is refused with sysErr EPERM, "outside the model roots".
// n = 0 lifts the confinement. Process-wide; call it at start-up, before other threads read
// files. Returns 0, or hsE_INVALID with err naming a root that does not resolve.
int hsu_setFileRoots(const char *const *roots, int n, hsError *err);

// why a file could not be read, in words, from hsu_readFileErrno's sysErr; returns buf
char *hsu_fileProblem(const char *path, size_t maxBytes, int sysErr, char *buf, size_t size);

//---------------------------------- math ------------------------------------------------------
// (the small products, called on every link every step, are defined here so that each caller
// inlines them; they read their operands into locals before writing res, so the compiler need
// not reload them after each store in case res aliases them: the arithmetic, and so every
// result bit, is the same)

// R = identity
static inline void hsu_setIdentity(double R[9]) {
  static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  memcpy(R, I, sizeof I);
}

// res = a x b
static inline void hsu_cross(double res[3], const double a[3], const double b[3]) {
  res[0] = a[1] * b[2] - a[2] * b[1];
  res[1] = a[2] * b[0] - a[0] * b[2];
  res[2] = a[0] * b[1] - a[1] * b[0];
}

// the adjugate of the 3x3 row-major matrix a into adj (adj a = det(a) I; adj != a); returns
// det(a), so a's inverse is adj / det when det is not 0
double hsu_adjugate3(const double a[9], double adj[9]);

// dot product
static inline double hsu_dot(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

// Euclidean norm
static inline double hsu_norm(const double a[3]) {
  return sqrt(hsu_dot(a, a));
}

// res = R v
static inline void hsu_rotVec(double res[3], const double R[9], const double v[3]) {
  double x = v[0], y = v[1], z = v[2];
  double r0 = R[0] * x + R[1] * y + R[2] * z;
  double r1 = R[3] * x + R[4] * y + R[5] * z;
  double r2 = R[6] * x + R[7] * y + R[8] * z;
  res[0] = r0;
  res[1] = r1;
  res[2] = r2;
}

// res = R^T v
static inline void hsu_rotVecT(double res[3], const double R[9], const double v[3]) {
  double x = v[0], y = v[1], z = v[2];
  double r0 = R[0] * x + R[3] * y + R[6] * z;
  double r1 = R[1] * x + R[4] * y + R[7] * z;
  double r2 = R[2] * x + R[5] * y + R[8] * z;
  res[0] = r0;
  res[1] = r1;
  res[2] = r2;
}

// res = A B (res may alias neither)
static inline void hsu_mulMat(double res[9], const double A[9], const double B[9]) {
  double b0 = B[0], b1 = B[1], b2 = B[2], b3 = B[3], b4 = B[4], b5 = B[5], b6 = B[6], b7 = B[7],
         b8 = B[8];
  double r[9];
  for (int i = 0; i < 3; i++) {
    double a0 = A[3 * i], a1 = A[3 * i + 1], a2 = A[3 * i + 2];
    r[3 * i] = a0 * b0 + a1 * b3 + a2 * b6;
    r[3 * i + 1] = a0 * b1 + a1 * b4 + a2 * b7;
    r[3 * i + 2] = a0 * b2 + a1 * b5 + a2 * b8;
  }
  for (int k = 0; k < 9; k++) {
    res[k] = r[k];
  }
}

// res = A^T (res may not alias A)
static inline void hsu_transpose(double res[9], const double A[9]) {
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      res[3 * i + j] = A[3 * j + i];
    }
  }
}

// rotation matrix from axis-angle (x, y, z, angle [rad]); the axis need not be unit length,
// a zero axis gives identity (inline: forward kinematics makes one per joint every step)
static inline void hsu_axisAngleToMat(double R[9], const double aa[4]) {
  double n = sqrt(aa[0] * aa[0] + aa[1] * aa[1] + aa[2] * aa[2]);
  if (n == 0) {
    hsu_setIdentity(R);
    return;
  }
  // Rodrigues' formula
  double x = aa[0] / n, y = aa[1] / n, z = aa[2] / n;
  double c = cos(aa[3]), s = sin(aa[3]), t = 1 - c;
  R[0] = t * x * x + c;
  R[1] = t * x * y - s * z;
  R[2] = t * x * z + s * y;
  R[3] = t * x * y + s * z;
  R[4] = t * y * y + c;
  R[5] = t * y * z - s * x;
  R[6] = t * x * z - s * y;
  R[7] = t * y * z + s * x;
  R[8] = t * z * z + c;
}

// axis-angle (unit axis, angle in [0, pi]) of rotation R; identity gives (0, 0, 1, 0)
void hsu_matToAxisAngle(double aa[4], const double R[9]);

// 3x4 transform [R t] from R and t
void hsu_makeTransform(double T[12], const double R[9], const double t[3]);

// res = A B as 3x4 transforms with the implicit last row (0 0 0 1); res may not alias
void hsu_mulTransform(double res[12], const double A[12], const double B[12]);

// res = T p (point)
void hsu_transformPoint(double res[3], const double T[12], const double p[3]);

// split T into R (3x3 part, not necessarily orthonormal) and t
void hsu_splitTransform(double R[9], double t[3], const double T[12]);

// 1 if the 3x3 part of T is a rotation (orthonormal, det +1) within tol, else 0
int hsu_isRigid(const double T[12], double tol);

// 1 if every one of the n values is finite
int hsu_allFinite(const double *v, size_t n);

#ifdef __cplusplus
}
#endif
#endif  // HRPSIM_UTIL_UTIL_H_

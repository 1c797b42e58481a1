// format.h - printf into a std::string, for the servers' messages (the one helper every servant
// shares; messages are at most 2047 characters, longer ones are cut).

#ifndef HRPSIM_SERVER_COMMON_FORMAT_H_
#define HRPSIM_SERVER_COMMON_FORMAT_H_

#include <cstdarg>
#include <cstdio>
#include <string>

namespace hrpsim {

// the text printf would print for fmt and its arguments
inline std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
inline std::string format(const char *fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

}  // namespace hrpsim

#endif  // HRPSIM_SERVER_COMMON_FORMAT_H_

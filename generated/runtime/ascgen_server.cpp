// ascgen_server.cpp: the definitions ascgen_server.h declares, compiled apart from main.cpp: once
// per build configuration in ascgen's build cache (a library each program links), or by a program
// folder's own CMakeLists.txt. Emitted verbatim by ascgen with the header.

#include "ascgen_server.h"

namespace ascgen::serving {

Server& server() {
  static Server s;
  return s;
}

}  // namespace ascgen::serving

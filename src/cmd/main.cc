#include <iostream>

#include "cmd/commands.h"

int main(int argc, char** argv) {
  return draplane::cmd::RunMain(argc, argv, {std::cout, std::cerr});
}

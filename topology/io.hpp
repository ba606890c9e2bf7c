// Thin file wrappers around the stream readers and writers.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>

#include "topology/fabric.hpp"
#include "topology/ibnetdiscover.hpp"

namespace atl {

enum class InputFormat { Auto, Text, Cache, Json };

// Reads a fabric from a file ("-" is standard input): fabric.json, an
// `ibnetdiscover --cache` file, or ibnetdiscover text (plain, -g, -f, -p).
Fabric load_fabric(const std::string &path, InputFormat fmt = InputFormat::Auto);

// Writes through a temporary file in the same directory, renamed into place
// only when `write` returns and the data reached the disk; "-" is stdout.
// A failed run leaves any existing file untouched.
void write_file_atomically(const std::string &path, const std::function<void(std::ostream &)> &write);

}  // namespace atl

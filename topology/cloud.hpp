// Cloud topology inputs. AWS: the output of `aws ec2 describe-instance-topology`
// (Instances[].NetworkNodes, three or more network layers listed from the top
// down): the layer nearest the instance becomes its leaf, the one above its pod,
// the first its core, so cloud instances get the same islands as a fat tree.
#pragma once

#include <iosfwd>
#include <string>

#include "topology/fabric.hpp"

namespace atl {

// Throws InputError naming the file and the instance on anything unexpected.
Fabric parse_aws_topology(std::istream &in, const std::string &source);

// True when a JSON text looks like describe-instance-topology output.
bool looks_like_aws_topology(const std::string &head);

}  // namespace atl

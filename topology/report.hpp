// The fabric report: one self-contained HTML page (inline CSS and SVG, no
// script, nothing fetched) for the admin and the network team. The islands
// as nested boxes coloured by health, check's findings by island, link speed
// and width histograms, rails per host, and the Slurm files atoll-topo would
// write. Every string from the inputs is escaped: node descriptions are
// written by whoever is root on a node.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "topology/check.hpp"
#include "topology/topology.hpp"

namespace atl {

// A file the report shows as text: its name, the command that writes it,
// and its content (or why it cannot be written).
struct ReportFile {
    std::string name;
    std::string command;
    std::string text;
};

// Bytes as HTML text and attribute values: & < > " ' as character
// references; printable ASCII as is; a valid UTF-8 character as &#xN; (a
// bidirectional or invisible formatting one as a visible \u{N}); a newline
// as \n, or kept with keep_newlines (tabs too); any other byte (controls,
// DEL, invalid UTF-8) as a visible \xNN. The result is printable ASCII.
std::string html_escaped(const std::string &s, bool keep_newlines = false);

// Where a finding belongs: the hosts and switches its subject names (a host,
// "host adapter", a link "sw[3] - host hca[1]", a hostlist, a switch, an
// adapter's GUID, an island) and the smallest island holding all of them
// (a spine or core switch counts as the leaf islands below it); -1 when the
// subject names none of these.
struct FindingPlace {
    int island = -1;
    std::vector<int> hosts;     // sorted, indices into Topology::hosts
    std::vector<int> switches;  // sorted, indices into Topology::switches
};
FindingPlace place_finding(const Topology &t, const Finding &f);

// The whole page. `generator` names the program in the page's footer.
void write_report(std::ostream &out, const Topology &t, const std::vector<Finding> &findings,
                  const std::vector<ReportFile> &files, const std::string &generator = "atoll");

}  // namespace atl

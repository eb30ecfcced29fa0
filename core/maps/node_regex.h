// core/maps/node_regex.h - compact node lists (PMIX_NODE_MAP) and per-node rank lists
// (PMIX_PROC_MAP): PMIx_generate_regex / PMIx_generate_ppn and the parsers the server uses on
// what hosts hand to PMIx_server_register_nspace.
//
// Hosts treat these strings as opaque: they generate them with the library they link and pass
// them back unchanged, so only this library must read what it writes. We still write the same
// syntax as OpenPMIx's native generator, so that either library can read the other's output.
//
// Node map  "pmix[" item ("," item)* "]"
//   item     = name                                     a host name kept verbatim
//            | prefix "[" width ":" ranges "]" suffix   prefix + each number zero-padded to
//                                                       `width` digits + suffix
//   ranges   = (N | N "-" M) ("," ...)*
//   e.g. "node01,node02,node03,node10,login" -> "pmix[node[2:1-3,10],login]"
// Proc map  "pmix[" node (";" node)* "]", node = ranges of ranks
//   e.g. "0,1,2,3;4,5,6,7" -> "pmix[0-3;4-7]"
//
// Differences from OpenPMIx's generator, all in the direction of reading back exactly the input:
// only *adjacent* names are merged (OpenPMIx can reorder "n1,001,n2"), numbers wider than 18
// digits stay plain names (OpenPMIx overflows), a run of one number stays a plain name, the proc
// map is always compressed (OpenPMIx falls back to "raw:<input>" when that is shorter), and empty
// input gives "pmix[]" (OpenPMIx "raw:").
//
// The parsers accept our output, OpenPMIx's "pmix[...]" and "raw:..." forms, and plain lists
// ("n1,n2" / "0,1;2,3", ranges allowed in rank lists). OpenPMIx's compressed "blob:" form is
// PMIX_ERR_NOT_SUPPORTED. Anything malformed is PMIX_ERR_BAD_PARAM with a message.
#pragma once

#include "base/result.h"

#include <pmix_common.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pmix::maps {

// Upper bounds on what one map may expand to. A hostile or corrupt map ("n[9:0-999999999]") must
// fail cleanly instead of exhausting memory. The largest machines today have ~10^5 nodes and
// ~10^7 processes (the design target is 10^6 processes on 10^4 nodes). A node map is checked
// in full before any name is built.
inline constexpr std::size_t kMaxMapNodes = std::size_t{1} << 20;
inline constexpr std::size_t kMaxMapRanks = std::size_t{1} << 24;

// "a,b,c" -> node map. Names must be non-empty and free of '[' and ']'.
Result<std::string> generate_regex(std::string_view node_list);

// "0,1;2,3" (ranges "0-3" allowed) -> proc map. Ranks must not exceed PMIX_RANK_VALID.
// Empty input means no nodes; an empty segment ("0;;1") is a node with no ranks.
Result<std::string> generate_ppn(std::string_view rank_lists);

// Node map (any accepted form) -> host names, in order.
Result<std::vector<std::string>> parse_nodes(std::string_view regex);

// Proc map (any accepted form) -> one rank list per node, in order.
Result<std::vector<std::vector<pmix_rank_t>>> parse_ppn(std::string_view ppn);

}  // namespace pmix::maps

// Fragment: the text the keyword arm matches node `t` on (BM25's document, and its length in the
// namespace statistics): its content when that starts with its essence (whitespace trimmed),
// else both, a newline between. A missing text, or one set by hand to another type than a
// string, counts as empty.
// params: none
[p IN [t {.essence, .content}]
 | [e IN [CASE WHEN p.essence IS :: STRING NOT NULL THEN p.essence ELSE '' END]
    | [c IN [CASE WHEN p.content IS :: STRING NOT NULL THEN p.content ELSE '' END]
       | CASE WHEN trim(c) STARTS WITH trim(e) THEN c ELSE e + '\n' + c END][0]][0]][0]

// Fragment: the map a relationship `r` is returned as.
r {.*, edge_type: type(r)}

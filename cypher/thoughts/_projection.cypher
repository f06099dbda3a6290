// Fragment: the map a thought node is returned as (its properties without the embedding vector).
t {.*, embedding: null}

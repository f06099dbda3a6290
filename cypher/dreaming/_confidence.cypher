// Fragment: node `t`'s confidence as dreaming reads it: the stored number when it is one in
// [0, 1], else null, the default (a value no write produces, such as a string or a 7 set by hand
// in Neo4j Browser, counts as unset).
// params: none
CASE WHEN (t.confidence IS :: FLOAT NOT NULL OR t.confidence IS :: INTEGER NOT NULL)
          AND 0.0 <= t.confidence <= 1.0
     THEN t.confidence END

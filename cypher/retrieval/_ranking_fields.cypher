// Fragment: what ranking (Phases 5, 7, 9) reads of candidate `t`, as one list (no keys: a list
// of maps with these names cost the driver twice as much to read back as the statement to build),
// in the order of engrava_graph.retrieval.candidates.RANKING_FIELDS:
//   thought_id, element_id (elementId(t), for the read after ranking), thought_type, priority,
//   confidence, pinned, access_count, created_at, updated_at, updated_cycle, last_accessed_at,
//   valid_from, conversation_id, position,
// each instant as two integers, its epochSeconds and microsecond (nulls without a value; one
// product of the two overflows for the far instants a DateTime can hold): the driver's DateTime
// decoding cost more than the statement. A time that is not a ZONED DATETIME (a string set by
// hand in Neo4j Browser) reads as none, so the memory ranks with the defaults. Neither the text
// nor the metadata: only the results show them (retrieval/_display_fields).
[t.thought_id, elementId(t), t.thought_type, t.priority, t.confidence, coalesce(t.pinned, false),
 coalesce(t.access_count, 0),
 CASE WHEN t.created_at IS :: ZONED DATETIME THEN t.created_at.epochSeconds END,
 CASE WHEN t.created_at IS :: ZONED DATETIME THEN t.created_at.microsecond END,
 CASE WHEN t.updated_at IS :: ZONED DATETIME THEN t.updated_at.epochSeconds END,
 CASE WHEN t.updated_at IS :: ZONED DATETIME THEN t.updated_at.microsecond END,
 t.updated_cycle,
 CASE WHEN t.last_accessed_at IS :: ZONED DATETIME THEN t.last_accessed_at.epochSeconds END,
 CASE WHEN t.last_accessed_at IS :: ZONED DATETIME THEN t.last_accessed_at.microsecond END,
 CASE WHEN t.valid_from IS :: ZONED DATETIME THEN t.valid_from.epochSeconds END,
 CASE WHEN t.valid_from IS :: ZONED DATETIME THEN t.valid_from.microsecond END,
 t.conversation_id, t.position]

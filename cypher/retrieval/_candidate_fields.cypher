// Fragment: the fields of candidate `t` that ranking (Phases 5, 7, 9) and the response read,
// without the embedding. Instants come as [epochSeconds, microsecond] pairs of integers
// ([null, null] without a value): the driver's DateTime decoding cost more than the statement.
{thought_id: t.thought_id, essence: t.essence, thought_type: t.thought_type,
 metadata_json: t.metadata_json, priority: t.priority, confidence: t.confidence,
 pinned: coalesce(t.pinned, false), access_count: coalesce(t.access_count, 0),
 created_at: [t.created_at.epochSeconds, t.created_at.microsecond],
 updated_at: [t.updated_at.epochSeconds, t.updated_at.microsecond],
 updated_cycle: t.updated_cycle,
 last_accessed_at: [t.last_accessed_at.epochSeconds, t.last_accessed_at.microsecond],
 valid_from: [t.valid_from.epochSeconds, t.valid_from.microsecond],
 conversation_id: t.conversation_id, position: t.position}
